"""What I know about you: every live fact by category with its source and date, changes waiting
for confirmation, the latest daily memory, and extraction status. Add, edit, delete and pin;
see a fact's history; review the last update; run extraction now; or start fresh."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Markdown, OptionList, Static

from companion.activity import drafts
from companion.errors import CompanionError
from companion.memory import forgetting, fresh_start, pending, runs, store, summaries
from companion.tui.screens.base import DataScreen
from companion.tui.screens.memory_text import (
    extraction_status,
    fact_sections,
    history_lines,
    memory_markdown,
    shown,
)
from companion.tui.screens.modals import (
    ConfirmScreen,
    PairPromptScreen,
    PromptScreen,
    TextScreen,
    TypedConfirmScreen,
)
from companion.tui.text import literal, one_line, said, visible
from companion.tui.widgets.facts import FactList, row_kind
from companion.tui.widgets.pane import ReadingPane

PICK = {
    "fact": ("Pick a fact first (↑/↓).", "No facts yet: press a to add one."),
    "pending": ("Pick a change to confirm first (↑/↓).", "Nothing is waiting for you to confirm."),
    "forgotten": ("Pick a deleted fact first (↑/↓).", "Nothing deleted to bring back."),
}
"""What to say when a key needs a row of a kind and none is highlighted: how to pick one, or
that there is none."""


class MemoryScreen(DataScreen):
    MODE = "memory"
    ALWAYS_REFRESH = False
    AUTO_FOCUS = "#facts"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add", id="memory-add", tooltip="Tell Companion something"),
        Binding("e", "edit", "Edit", id="memory-edit", tooltip="Edit the highlighted fact"),
        Binding(
            "p",
            "pin",
            "Pin",
            id="memory-pin",
            tooltip="Pin or unpin the highlighted fact",
        ),
        Binding(
            "delete", "forget", "Delete", id="memory-delete", tooltip="Delete the highlighted fact"
        ),
        Binding(
            "u",
            "undo_forget",
            "Undo delete",
            id="memory-undo",
            tooltip="Bring back the highlighted deleted fact (within 7 days)",
        ),
        Binding(
            "h",
            "history",
            "History",
            id="memory-history",
            tooltip="Earlier versions of the highlighted fact",
        ),
        Binding(
            "y",
            "accept",
            "Accept",
            id="memory-accept",
            tooltip="Accept the highlighted change to confirm",
        ),
        Binding(
            "n",
            "reject",
            "Reject",
            id="memory-reject",
            tooltip="Reject the highlighted change to confirm",
        ),
        Binding(
            "r",
            "extract",
            "Learn now",
            id="memory-extract",
            tooltip="Run extraction now on what is new",
        ),
        Binding(
            "v", "review", "Review", id="memory-review", tooltip="What the last update changed"
        ),
        Binding(
            "f",
            "fresh_start",
            "Fresh start",
            id="memory-fresh",
            tooltip="Erase everything Companion learned",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.editing: tuple[PromptScreen | PairPromptScreen, int | None, str] | None = None
        self.just_deleted: int | None = None
        """The fact deleted last here: "u" brings it back while its neighbour is highlighted."""
        """The add or edit dialog open on this screen: the dialog, the fact (None: a new
        one) and the text it opened with."""

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="memory"):
            with Vertical(id="facts-pane"):
                yield Static("What I know about you", id="memory-title")
                yield Static("", id="extraction")
                yield FactList(id="facts")  # scrolls itself, so the highlight stays in sight
            with ReadingPane(id="daily-pane"):
                yield Markdown("", id="daily")

    def memory_changed(self) -> None:
        if self.is_mounted and self.companion.vault is not None:
            self.refresh_data()

    def refresh_data(self, select: str | None = None) -> None:
        """Reload the panel; the row ``select`` (a fact just added or edited) is highlighted,
        or the one that was (``FactList.show``)."""
        from companion.llm.gateway import provider_config  # not on the app's first paint

        vault = self.vault
        online = provider_config(vault, "extraction") is not None
        self.query_one("#extraction", Static).update(literal(extraction_status(vault, online)))
        sections = fact_sections(
            pending.waiting(vault), store.live_facts(vault), forgetting.undoable(vault)
        )
        learning = (
            "or chat and journal: I learn as you go."
            if online
            else 'or say it plainly in chat ("my sponsor is Dana").'
        )
        self.facts.show(sections, f"Nothing yet. Press a to tell me something, {learning}", select)
        newest = summaries.newest_daily_memory(vault)
        self.query_one("#daily", Markdown).update(
            memory_markdown(newest[1], newest[0].date)
            if newest
            else "### Daily memory\n\nNo daily memory yet. One is made when you unlock on a new "
            "day and there is something new to learn from"
            + ("." if online else ", once the coach is set up (Settings, F10).")
        )

    @property
    def facts(self) -> FactList:
        return self.query_one("#facts", FactList)

    def pick_first(self, kind: str) -> None:
        """A key needs a row of ``kind`` and none is highlighted: say how to pick one, and give
        the arrows to the list (they may have been scrolling the daily memory)."""
        listed = self.facts.lists(kind)
        pick, none = PICK[kind]
        if listed:
            self.facts.focus()
        self.notify(pick if listed else none, markup=False)

    def current(self) -> str | None:
        return self.facts.current()

    def current_fact(self) -> int | None:
        ident = self.current()
        return int(ident) if ident and ident.isdigit() else None

    # -- adding and editing, with a draft kept across lock ----------------------------------

    def stash(self) -> None:
        """A fact being added or edited when the vault locks is kept as a sealed draft, and
        its dialog opens again with it on the next visit."""
        if self.editing is None or self.companion.vault is None:
            return
        dialog, fact_id, start = self.editing
        if not dialog.is_attached:
            return
        answer = dialog.answer()
        text, category = answer if isinstance(answer, tuple) else (answer, "")
        if text.strip() and text != start:
            drafts.save(self.vault, "memory", text, fact_id=fact_id, category=category)

    def first_show(self) -> None:
        draft = drafts.load(self.vault, "memory")
        if draft:
            self.when_shown(lambda: self.reopen(draft))

    def reopen(self, draft: dict[str, Any]) -> None:
        """The dialog left open at the last lock, with the words typed in it."""
        text, fact_id = str(draft.get("text", "")), draft.get("fact_id")
        live = {f.id for f in store.live_facts(self.vault)}
        if isinstance(fact_id, int) and fact_id in live:
            self.action_edit(fact_id, text)
        else:
            self.action_add(text, str(draft.get("category", "")))
        self.notice("Restored the fact you had not saved.")

    def _done_editing(self) -> None:
        self.editing = None
        drafts.discard(self.vault, "memory")

    def action_add(self, text: str = "", category: str = "") -> None:
        def add(result: tuple[str, str] | None) -> None:
            self._done_editing()
            if not result:
                return
            text, category = result
            try:
                category = category.strip() or guessed_category(text)
                added = store.add_fact(self.vault, text, category, source="wrote")
            except CompanionError as err:
                self.notify(said(err), severity="warning")
                return
            self.refresh_data(select=str(added))

        dialog = PairPromptScreen(
            "Add something I should know",
            "Fact",
            "Category (identity, goals, ...; left empty, I choose)",
            category,
            value=text,
        )
        self.editing = (dialog, None, "")
        self.app.push_screen(dialog, add)

    def action_edit(self, fact_id: int | None = None, text: str | None = None) -> None:
        fact_id = fact_id if fact_id is not None else self.current_fact()
        if fact_id is None:
            self.pick_first("fact")
            return
        current = next(f for f in store.live_facts(self.vault) if f.id == fact_id)

        def edit(text: str | None) -> None:
            self._done_editing()
            if text is None or text.strip() == current.text:
                return
            try:
                edited = store.edit_fact(self.vault, fact_id, text, source="wrote")
            except CompanionError as err:
                self.notify(said(err), severity="warning")
                return
            self.notify("Updated. The old wording stays in history (h).")
            self.refresh_data(select=str(edited))

        shown_text = visible(current.text)
        dialog = PromptScreen("Edit fact", text if text is not None else shown_text)
        self.editing = (dialog, fact_id, shown_text)
        self.app.push_screen(dialog, edit)

    def action_pin(self) -> None:
        fact_id = self.current_fact()
        if fact_id is None:
            self.pick_first("fact")
            return
        current = next(f for f in store.live_facts(self.vault) if f.id == fact_id)
        store.set_pinned(self.vault, fact_id, not current.pinned)
        self.refresh_data()

    def action_forget(self) -> None:
        fact_id = self.current_fact()
        if fact_id is None:
            self.pick_first("fact")
            return

        def forget(yes: bool | None) -> None:
            if yes:
                forgetting.forget_fact(self.vault, fact_id)
                self.just_deleted = fact_id
                self.notify(
                    f"Deleted. I will not learn it again; u brings it back within "
                    f"{forgetting.UNDO_DAYS} days."
                )
                self.refresh_data()
                # No backup rewrite offered: the fact stays sealed in the vault for the week
                # it can be undone, about as long as backups keep it.

        current = next(f for f in store.live_facts(self.vault) if f.id == fact_id)
        question = (
            f"Delete “{one_line(shown(current), 60)}”? I will not learn it again. You can bring "
            f"it back for {forgetting.UNDO_DAYS} days; then its words leave the vault."
        )
        self.app.push_screen(ConfirmScreen(question, "Delete", danger=True), forget)

    def action_undo_forget(self) -> None:
        """The highlighted deleted fact back; right after a delete (the neighbour highlighted),
        the one just deleted, as the message after it offers."""
        ident = self.current()
        if ident and row_kind(ident) == "forgotten":
            fact_id = int(ident.split(":")[1])
        elif self.just_deleted is not None:
            fact_id = self.just_deleted
        else:
            self.pick_first("forgotten")
            return
        self.just_deleted = None
        try:
            back = forgetting.undo(self.vault, fact_id)
        except CompanionError as err:
            self.notify(said(err), severity="warning")
            return
        self.notify("Brought back.")
        self.refresh_data(select=str(back))

    def action_history(self) -> None:
        fact_id = self.current_fact()
        if fact_id is None:
            self.pick_first("fact")
            return
        lines = history_lines(store.history(self.vault, fact_id))
        self.app.push_screen(TextScreen("Was → now", "\n".join(lines)))

    def _pending_number(self) -> int | None:
        ident = self.current()
        if not ident or row_kind(ident) != "pending":
            self.pick_first("pending")
            return None
        return int(ident.split(":")[1])

    def action_accept(self) -> None:
        number = self._pending_number()
        if number is not None:
            try:
                pending.accept(self.vault, number)
            except CompanionError as err:
                self.notify(said(err), severity="warning")
                return
            self.notify("Accepted.")
            self.refresh_data()

    def action_reject(self) -> None:
        number = self._pending_number()
        if number is not None:
            pending.reject(self.vault, number)
            self.notify("Rejected; nothing changed.")
            self.refresh_data()

    def action_extract(self) -> None:
        if not self.companion.maybe_extract(force=True):
            self.notify(
                "Learning needs the coach's provider: set one up in Settings (F10).",
                severity="warning",
            )

    def action_review(self) -> None:
        latest = runs.latest_run(self.vault)
        if latest is None:
            self.notify("Nothing has been learned yet.")
            return
        details = latest[1]
        lines = [details.get("summary") or extraction_status(self.vault), ""]
        lines += details.get("changes", []) or ["No changes."]
        if details.get("dropped"):
            lines += [
                "",
                "Left out (not in the expected form, or not allowed):",
                *(f"  {d}" for d in details["dropped"]),
            ]
        self.app.push_screen(TextScreen("Last memory update", "\n".join(lines)))

    def action_fresh_start(self) -> None:
        def erase(choices: list[bool] | None) -> None:
            if choices is None:
                return
            erased = fresh_start.fresh_start(self.vault, *choices)
            self.notify(
                f"Fresh start: erased {erased.facts} facts, {erased.daily_memories} "
                f"daily memories and {erased.session_summaries} summaries."
            )
            self.refresh_data()
            if not choices[1]:  # the backups were kept: they still hold what was erased
                self.offer_backup_rewrite("what was erased")

        self.app.push_screen(
            TypedConfirmScreen(
                "Fresh start",
                "This erases everything Companion has learned about you: facts and their history, "
                "daily memories, session summaries and follow-ups. Your journal, check-ins and "
                "chats stay, and are not learned from again unless you ask.",
                fresh_start.CONFIRM_WORD,
                ["Also erase my profile", "Also delete all backups"],
            ),
            erase,
        )

    @on(OptionList.OptionSelected, "#facts")
    def selected(self, event: OptionList.OptionSelected) -> None:
        """Enter edits a fact; on a change to confirm or a deleted fact it says which keys
        act there."""
        kind = row_kind(event.option.id or "")
        if kind == "pending":
            self.notify("y accepts this change, n rejects it.")
        elif kind == "forgotten":
            self.notify("u brings this fact back.")
        else:
            self.action_edit()


def guessed_category(text: str) -> str:
    """Where the chat would file these words ("my sponsor is Dana": relationships), or
    "general": the dialog used to fill in "preferences", and every fact added went there."""
    from companion.coach import capture

    found = [c for c in capture.detect(text) if isinstance(c, capture.Capture)]
    # a reminder is the chat's to keep (it opens a follow-up): added here, it is a fact
    kept = [c.category for c in found if c.category != "reminders"]
    return kept[0] if kept else "general"
