"""Dialogs: confirmations, the recovery key, help, SOS and small text prompts.

Each is a ``ModalScreen`` typed by the answer it dismisses with; Escape always backs out.
Their look is in ``dialogs.tcss``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Static, TextArea

from companion.errors import CompanionError
from companion.tui.navigation import keys_help
from companion.tui.screens.base import CompanionScreen
from companion.tui.text import literal
from companion.tui.widgets.button import Button
from companion.tui.widgets.editor import Editor

if TYPE_CHECKING:
    from companion.coach.safety import Danger

Answer = TypeVar("Answer")


class Dialog(ModalScreen[Answer | None], CompanionScreen[Answer | None]):
    # Loaded by Textual when a dialog is first shown, unless the app loaded it before (with the
    # screens' styles, see CompanionApp.load_styles): not needed for the first paint.
    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back", id="dialog-back"),
    ]

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(Dialog[bool]):
    """Yes or no; ``dismiss(True)`` only on an explicit yes."""

    def __init__(
        self, question: str, yes: str = "Yes", no: str = "Cancel", danger: bool = False
    ) -> None:
        super().__init__()
        self.question, self.yes, self.no, self.danger = question, yes, no, danger

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(literal(self.question), classes="title")
            with Horizontal(classes="buttons"):
                yield Button(self.yes, id="yes", variant="error" if self.danger else "primary")
                yield Button(self.no, id="no")

    def on_mount(self) -> None:
        self.query_one("#no" if self.danger else "#yes").focus()

    @on(Button.Pressed)
    def answer(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_cancel(self) -> None:
        self.dismiss(False)


class TypedConfirmScreen(Dialog[list[bool]]):
    """A dangerous action that needs a typed word, with optional extra choices."""

    def __init__(self, title: str, body: str, word: str, options: list[str] | None = None):
        super().__init__()
        self.title_text, self.body, self.word, self.options = title, body, word, options or []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            yield Static(self.body)
            for i, option in enumerate(self.options):
                yield Checkbox(option, id=f"option-{i}")
            yield Input(placeholder=f"Type {self.word} to confirm", id="word")
            yield Static("", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Erase", id="yes", variant="error")
                yield Button("Cancel", id="no")

    def on_mount(self) -> None:
        self.query_one("#word").focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#yes")
    def confirm(self) -> None:
        if self.query_one("#word", Input).value.strip().lower() != self.word:
            self.query_one(".error", Static).update(f"Type {self.word} to confirm.")
            return
        self.dismiss(
            [self.query_one(f"#option-{i}", Checkbox).value for i in range(len(self.options))]
        )

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(None)


class _Prompt(Dialog[Answer]):
    """Lines of text to fill in, Save and Cancel; subclasses say which and what comes back."""

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            yield from self.inputs()
            with Horizontal(classes="buttons"):
                yield Button("Save", id="yes", variant="primary")
                yield Button("Cancel", id="no")

    def inputs(self) -> ComposeResult:
        yield from ()

    def answer(self) -> Answer:
        raise NotImplementedError

    def on_mount(self) -> None:
        self.query_one("#value").focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#yes")
    def save(self) -> None:
        self.submit()

    def submit(self) -> None:
        """What Save does (a subclass may check first)."""
        self.dismiss(self.answer())

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(None)


class PromptScreen(_Prompt[str]):
    """One line of text (a title, a fact's new wording); ``None`` when cancelled."""

    def __init__(self, title: str, value: str = "", placeholder: str = "") -> None:
        super().__init__(title)
        self.value, self.placeholder = value, placeholder

    def inputs(self) -> ComposeResult:
        yield Input(self.value, placeholder=self.placeholder, id="value")

    def answer(self) -> str:
        return self.query_one("#value", Input).value


class PairPromptScreen(_Prompt[tuple[str, str]]):
    """Two lines (a fact and its category); ``None`` when cancelled."""

    def __init__(
        self, title: str, placeholder: str, second: str, second_value: str, value: str = ""
    ) -> None:
        super().__init__(title)
        self.placeholder, self.second, self.second_value = placeholder, second, second_value
        self.value = value

    def inputs(self) -> ComposeResult:
        yield Input(self.value, placeholder=self.placeholder, id="value")
        yield Input(self.second_value, placeholder=self.second, id="extra")

    def answer(self) -> tuple[str, str]:
        return self.query_one("#value", Input).value, self.query_one("#extra", Input).value


class PassphraseScreen(_Prompt[bool]):
    """The current passphrase and a new one typed twice. ``change(current, new)`` runs in a
    thread (two key derivations) and raises to refuse; the dialog stays open with the reason
    until it succeeds (True) or is cancelled (None)."""

    def __init__(self, change: Callable[[str, str], None]) -> None:
        super().__init__("Change your passphrase")
        self.change = change

    def inputs(self) -> ComposeResult:
        yield Input(placeholder="Current passphrase", password=True, id="value")
        yield Input(placeholder="New passphrase", password=True, id="new")
        yield Input(placeholder="Repeat the new passphrase", password=True, id="repeat")
        yield Static("", id="problem", classes="error")

    def answer(self) -> bool:
        return True

    def submit(self) -> None:
        current = self.query_one("#value", Input).value
        new = self.query_one("#new", Input).value
        repeat = self.query_one("#repeat", Input)
        problem = self.query_one("#problem", Static)
        if not current or not new:
            problem.update("Type your current passphrase and the new one.")
        elif self.focused is not repeat and not repeat.value:
            repeat.focus()
        elif repeat.value != new:
            problem.update("The two new passphrases differ. Type them again.")
            repeat.value = ""
            repeat.focus()
        else:
            problem.update("Checking…")
            self.query_one("#yes", Button).disabled = True
            self.apply(current, new)

    @work(thread=True, exclusive=True, group="passphrase")
    def apply(self, current: str, new: str) -> None:
        try:
            self.change(current, new)
        except CompanionError as err:
            self.app.call_from_thread(self.refused, str(err))
            return
        self.app.call_from_thread(self.dismiss, True)

    def refused(self, reason: str) -> None:
        self.query_one("#problem", Static).update(f"Not changed: {reason}")
        self.query_one("#yes", Button).disabled = False
        field = self.query_one("#value", Input)
        field.value = ""
        field.focus()


class TextScreen(Dialog[None]):
    """Read-only text (a fact's history, the last update), shown literally."""

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            with VerticalScroll():
                yield Static(literal(self.body))
            with Horizontal(classes="buttons"):
                yield Button("Close", id="no")

    @on(Button.Pressed, "#no")
    def close(self) -> None:
        self.dismiss(None)


class EditorScreen(Dialog[str]):
    """A longer text to edit (the extraction prompt); ``None`` when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back", id="editor-back"),
        Binding("ctrl+s", "save", "Save", id="editor-save"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text + "  (Ctrl+S saves, Escape cancels)", classes="title")
            yield Editor(self.text, id="editor", soft_wrap=True)
            with Horizontal(classes="buttons"):
                yield Button("Save", id="yes", variant="primary")
                yield Button("Cancel", id="no")

    def typed(self) -> str:
        return self.query_one("#editor", TextArea).text

    @on(Button.Pressed, "#yes")
    def action_save(self) -> None:
        self.dismiss(self.typed())

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(None)


class RecoveryKeyScreen(Dialog[bool]):
    """Shown once at creation. Leaving requires saying it was written down."""

    BINDINGS: ClassVar[list[BindingType]] = []

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Your recovery key", classes="title")
            yield Static(
                "Write this down and keep it somewhere safe, away from this computer. It is "
                "shown only now. If you forget your passphrase, this key is the only way back "
                "in: nobody, including us, can recover a lost passphrase."
            )
            yield Static(self.key, id="recovery-key")
            yield Checkbox("I have written it down", id="written")
            with Horizontal(classes="buttons"):
                yield Button("Continue", id="yes", variant="primary", disabled=True)

    @on(Checkbox.Changed)
    def toggle(self, event: Checkbox.Changed) -> None:
        self.query_one("#yes", Button).disabled = not event.value

    @on(Button.Pressed, "#yes")
    def done(self) -> None:
        self.dismiss(True)


class ForgotScreen(Dialog[tuple[str, str]]):
    """Recovery key plus a new passphrase, typed twice."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Forgot your passphrase?", classes="title")
            yield Static(
                "Enter the recovery key you wrote down when you created the vault, "
                "then choose a new passphrase."
            )
            yield Input(placeholder="Recovery key (ABCD-EFGH-...)", id="key")
            yield Input(placeholder="New passphrase", password=True, id="new")
            yield Input(placeholder="Repeat new passphrase", password=True, id="repeat")
            yield Static("", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Set new passphrase", id="yes", variant="primary")
                yield Button("Cancel", id="no")

    @on(Input.Submitted)
    @on(Button.Pressed, "#yes")
    def submit(self) -> None:
        from companion.vault.keys import MIN_PASSPHRASE

        key = self.query_one("#key", Input).value.strip()
        new = self.query_one("#new", Input).value
        error = self.query_one(".error", Static)
        if not key:
            error.update("Enter your recovery key.")
        elif len(new) < MIN_PASSPHRASE:
            error.update(f"Use at least {MIN_PASSPHRASE} characters for the new passphrase.")
        elif self.query_one("#repeat", Input).value != new:
            error.update("The two new passphrases differ.")
        else:
            self.dismiss((key, new))

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(None)


HELP = f"""\
Keys everywhere
  F1 or ?     this help
  F2          SOS: crisis lines and your coping plan, even when locked
{keys_help()}
  Ctrl+P      command palette: every screen and action by name
  Ctrl+L      lock now
  Escape      back
  Ctrl+Q      quit (unsaved text is kept as an encrypted draft)

Each screen's keys are in its footer; a few more are in the palette:
  What I know about you: p pin, h history (was -> now), f fresh start,
    y / n accept or reject a change that waits for you to confirm.

Check-in
  Digits set mood and cravings, Tab goes to the next field, Enter or
  Ctrl+S saves (in the note, Enter starts a new line).
  Page Up and Page Down pick another day, to back-fill one you missed.

Privacy
  Everything is encrypted in your vault. Companion locks itself after a
  few idle minutes (Settings); unsaved text is kept as a sealed draft.
"""


class HelpScreen(Dialog[None]):
    """The keys of the screen it was opened over, read from that screen's own bindings (so
    this list cannot drift from what the keys do), then the keys that work everywhere."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,question_mark", "cancel", "Close", id="help-close"),
    ]

    def __init__(self, keys: list[tuple[str, str]] | None = None, where: str = "") -> None:
        super().__init__()
        self.keys, self.where = keys or [], where

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Help", classes="title")
            with VerticalScroll():
                if self.keys:
                    width = max(len(key) for key, _ in self.keys) + 2
                    own = "\n".join(f"  {key:<{width}}{what}" for key, what in self.keys)
                    yield Static(
                        literal(f"Keys here{f' ({self.where})' if self.where else ''}\n{own}\n")
                    )
                yield Static(HELP)
            with Horizontal(classes="buttons"):
                yield Button("Close", id="no")

    @on(Button.Pressed, "#no")
    def close(self) -> None:
        self.dismiss(None)


class SosScreen(Dialog[None]):
    """Where to turn (always), and after unlock the user's coping plan and contacts. Raised by
    what was written, it says why in one sentence and orders the help for that danger: an
    emergency puts the emergency number and poison control first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f2", "cancel", "Close", id="sos-close"),
    ]

    def __init__(self, danger: Danger | None = None) -> None:
        super().__init__()
        self.danger = danger

    def compose(self) -> ComposeResult:
        from companion.coach import crisis

        help_kind = self.danger.help if self.danger else "crisis"
        lines = crisis.as_text(self.companion.config, help_kind)
        with Vertical():
            if self.danger is not None:
                yield Static(self.danger.reason, id="why")
            yield Static(crisis.heading(help_kind), classes="title")
            yield Static(literal(lines), id="lines")
            plan = self.personal()
            if plan:
                yield Static(literal(plan), id="plan")
            with Horizontal(classes="buttons"):
                yield Button("Close", id="no")

    def personal(self) -> str:
        unlocked = self.companion.unlocked
        if unlocked is None:
            return ""
        from companion.activity import profile

        prof = profile.load(unlocked.vault)
        parts = []
        if prof.get("coping_plan"):
            parts.append("Your coping plan:\n" + str(prof["coping_plan"]))
        contacts = prof.get("support_contacts") or []
        if prof.get("sponsor"):
            contacts = [f"Sponsor: {prof['sponsor']}", *contacts]
        if contacts:
            parts.append("People you can call:\n" + "\n".join(f"- {c}" for c in contacts))
        return "\n\n".join(parts)

    def on_mount(self) -> None:
        self.query_one("#no").focus()

    @on(Button.Pressed, "#no")
    def close(self) -> None:
        self.dismiss(None)
