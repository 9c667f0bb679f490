"""Import history (jrnl, Day One, Markdown) from a typed path, with a progress bar; then offer,
with its cost shown first, to learn from it."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, ProgressBar, Select, Static

from companion.errors import CompanionError
from companion.tui.screens.modals import Dialog
from companion.tui.text import literal, said
from companion.tui.widgets.button import Button
from companion.tui.widgets.field import Field

SOURCES = [
    ("jrnl (its JSON export)", "jrnl"),
    ("Day One (JSON or .zip)", "dayone"),
    ("Markdown folder", "markdown"),
]


class ImportScreen(Dialog[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back", id="import-back"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Import history", classes="title")
            yield Select(SOURCES, id="kind", allow_blank=False)
            yield Field(placeholder="Path to the file or folder", id="path")
            yield ProgressBar(id="progress", show_eta=False)
            yield Static("", id="report")
            with Horizontal(classes="buttons"):
                yield Button("Import", id="yes", variant="primary")
                yield Button("Learn from it…", id="learn", disabled=True)
                yield Button("Close", id="no")

    def on_mount(self) -> None:
        self.query_one("#progress").display = False
        self.query_one("#path").focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#yes")
    def start(self) -> None:
        path = Path(self.query_one("#path", Input).value.strip()).expanduser()
        if not str(path) or not path.exists():
            self.query_one("#report", Static).update(f"There is nothing at {path}.")
            return
        kind = self.query_one("#kind", Select).value
        self.query_one("#progress").display = True
        self.query_one("#yes", Button).disabled = True
        self.run_import(str(kind), path)

    @work(thread=True, exclusive=True, group="import")
    def run_import(self, kind: str, path: Path) -> None:
        from companion.usecases.importing import import_history

        unlocked = self.companion.unlocked
        if unlocked is None:
            return
        bar = self.query_one("#progress", ProgressBar)

        def progress(done: int, total: int) -> None:
            self.app.call_from_thread(bar.update, total=total, progress=done)

        try:
            report = import_history(unlocked, kind, path, progress)
        except CompanionError as err:
            self.app.call_from_thread(self.finished, [said(err)], False)
            return
        self.app.call_from_thread(self.finished, report.lines(), report.added > 0)

    def finished(self, lines: list[str], added: bool) -> None:
        self.query_one("#yes", Button).disabled = False
        text = "\n".join(lines)
        if added:
            text += (
                "\n\nImported history is not sent to the coach's model. Choose "
                '"Learn from it" to see what that would cost first.'
            )
        self.query_one("#report", Static).update(literal(text))
        self.query_one("#learn", Button).disabled = not added

    @on(Button.Pressed, "#learn")
    def learn(self) -> None:
        from companion import llm
        from companion.activity import journal
        from companion.importers.run import learning_estimate
        from companion.tui.screens.modals import ConfirmScreen

        unlocked = self.companion.unlocked
        if unlocked is None:
            return
        vault = unlocked.vault
        gateway = unlocked.gateway("extraction")
        if gateway is None:
            self.query_one("#report", Static).update(llm.OFFLINE_HELP)
            return
        estimate = learning_estimate(vault, gateway.model)

        def go(yes: bool | None) -> None:
            if yes:
                journal.release_imports(vault)
                self.companion.maybe_extract(force=True)
                self.dismiss(None)
                self.app.notify(
                    "Learning from your imported history; progress is in What I "
                    "know about you (F7)."
                )

        self.app.push_screen(
            ConfirmScreen(
                f"Learn from {estimate.entries:,} imported entries? That sends about "
                f"{estimate.input_tokens:,} tokens in {estimate.calls} call(s) to {gateway.model}, "
                f"about ${estimate.cost_usd:.2f}.",
                "Learn from it",
                "Not now",
            ),
            go,
        )

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(None)
