"""Dialogs: confirmations, small text prompts, a longer text to read or edit.

Each is a ``ModalScreen`` typed by the answer it dismisses with; Escape always backs out.
Their look is in ``dialogs.tcss``.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Static, TextArea

from companion.tui.screens.base import CompanionScreen
from companion.tui.text import literal
from companion.tui.widgets.button import Button
from companion.tui.widgets.editor import Editor
from companion.tui.widgets.field import Field
from companion.tui.widgets.tick import Tick

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

    def next_empty(self, event: Input.Submitted | Button.Pressed) -> bool:
        """Enter in one of several fields goes on to the next empty one, as a person filling
        them in expects, before anything is checked (not to one that may stay empty, class
        "optional"); True if it did."""
        if not isinstance(event, Input.Submitted):
            return False
        fields = list(self.query(Input))
        later = fields[fields.index(event.input) + 1 :] if event.input in fields else []
        empty = next((f for f in later if not f.value and not f.has_class("optional")), None)
        if empty is not None:
            empty.focus()
        return empty is not None


class ConfirmScreen(Dialog[bool]):
    """Yes or no; ``dismiss(True)`` only on an explicit yes."""

    def __init__(
        self,
        question: str,
        yes: str = "Yes",
        no: str = "Cancel",
        danger: bool = False,
        no_first: bool = False,
    ) -> None:
        super().__init__()
        self.question, self.yes, self.no, self.danger = question, yes, no, danger
        self.no_first = danger or no_first
        """"No" has the focus: an Enter meant for something else does not say yes."""
        self.typed: list[str] = []
        """Writing that reached the question instead of a field: the key that asked it and
        the next words came in one burst. The asker may type it where the answer leads."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(literal(self.question), classes="title")
            with Horizontal(classes="buttons"):
                yield Button(self.yes, id="yes", variant="error" if self.danger else "primary")
                yield Button(self.no, id="no")

    def on_mount(self) -> None:
        self.query_one("#no" if self.no_first else "#yes").focus()

    @on(Button.Pressed)
    def answer(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character:  # a button takes none of them
            self.typed.append(event.character)

    def on_paste(self, event: events.Paste) -> None:
        self.typed.append(event.text)

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
                yield Tick(option, id=f"option-{i}")
            yield Field(placeholder=f"Type {self.word} to confirm", id="word")
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


class InputDialog(Dialog[Answer]):
    """Lines of text to fill in, Save (or what ``confirm`` says) and Cancel; subclasses say
    which and what comes back."""

    def __init__(self, title: str, confirm: str = "Save") -> None:
        super().__init__()
        self.title_text, self.confirm = title, confirm

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            yield from self.inputs()
            with Horizontal(classes="buttons"):
                yield Button(self.confirm, id="yes", variant="primary")
                yield Button("Cancel", id="no")

    def inputs(self) -> ComposeResult:
        yield from ()

    def answer(self) -> Answer:
        raise NotImplementedError

    def on_mount(self) -> None:
        self.query_one("#value").focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#yes")
    def save(self, event: Input.Submitted | Button.Pressed) -> None:
        if not self.next_empty(event):
            self.submit()

    def submit(self) -> None:
        """What Save does (a subclass may check first)."""
        self.dismiss(self.answer())

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(None)


class PromptScreen(InputDialog[str]):
    """One line of text (a title, a fact's new wording); ``None`` when cancelled."""

    def __init__(
        self, title: str, value: str = "", placeholder: str = "", confirm: str = "Save"
    ) -> None:
        super().__init__(title, confirm)
        self.value, self.placeholder = value, placeholder

    def inputs(self) -> ComposeResult:
        yield Field(self.value, placeholder=self.placeholder, id="value")

    def answer(self) -> str:
        return self.query_one("#value", Input).value


class PairPromptScreen(InputDialog[tuple[str, str]]):
    """Two lines (a fact and its category, which may stay empty); ``None`` when cancelled."""

    def __init__(
        self, title: str, placeholder: str, second: str, second_value: str, value: str = ""
    ) -> None:
        super().__init__(title)
        self.placeholder, self.second, self.second_value = placeholder, second, second_value
        self.value = value

    def inputs(self) -> ComposeResult:
        yield Field(self.value, placeholder=self.placeholder, id="value")
        yield Field(self.second_value, placeholder=self.second, id="extra", classes="optional")

    def answer(self) -> tuple[str, str]:
        return self.query_one("#value", Input).value, self.query_one("#extra", Input).value


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
