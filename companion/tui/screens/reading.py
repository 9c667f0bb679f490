"""Reading an entry: its words rendered as Markdown, in a card over the journal; ``e`` edits.

Control characters are shown as symbols first (``visible``): an entry that holds escape codes
reads as written and never styles the screen."""

from __future__ import annotations

from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Markdown, Static

from companion.activity.journal import Entry
from companion.tui.screens.modals import Dialog
from companion.tui.text import literal, visible
from companion.tui.widgets.button import Button


def keeps_line_breaks() -> MarkdownIt:
    """Markdown as Textual reads it, with a line break within a paragraph kept as typed: a
    journal's lines are the writer's, not a text to reflow."""
    parser = MarkdownIt("gfm-like")

    def hard_breaks(state: StateCore) -> None:
        for token in state.tokens:
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type = "hardbreak"

    parser.core.ruler.push("hard_breaks", hard_breaks)
    return parser


class EntryScreen(Dialog[str]):
    """One entry to read; "edit" when the person asks to change it, ``None`` on close."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit", id="reading-edit", tooltip="Open this entry in the editor"),
        Binding("escape", "cancel", "Close", id="reading-close"),
    ]

    def __init__(self, entry: Entry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        entry = self.entry
        written = f"{entry.created_at:%A %-d %B %Y, %H:%M}"
        tags = "  ".join(f"#{t}" for t in entry.tags)
        meta = "   ".join(m for m in ((written if entry.title else ""), tags) if m)
        with Vertical():
            yield Static(literal(entry.title or written), classes="title")
            if meta:
                yield Static(literal(meta), classes="meta")
            with VerticalScroll(id="reading"):
                yield Markdown(visible(entry.text), parser_factory=keeps_line_breaks)
            with Horizontal(classes="buttons"):
                yield Button("Edit (e)", id="yes", variant="primary")
                yield Button("Close", id="no")

    def on_mount(self) -> None:
        self.query_one("#reading").focus()  # arrows and Page keys scroll the text

    @on(Button.Pressed, "#yes")
    def action_edit(self) -> None:
        self.dismiss("edit")

    @on(Button.Pressed, "#no")
    def close(self) -> None:
        self.dismiss(None)
