"""The text editor of our screens: Textual's TextArea, with undo that stops at the last save,
Ctrl+Home and Ctrl+End to the start and end of the text (TextArea binds neither), its editing
keys acted on in the order they were typed (``field.py``), and without the crash below.

Textual 8.2.8 (textual/widgets/_text_area.py, ``_undo_batch``) refreshes the widget's size
before it moves the cursor back into the shortened document; when that adds or removes the
vertical scrollbar, the watcher scrolls to the cursor, which still points past the last line,
and ``WrappedDocument.get_offsets`` raises ValueError ("document line index 10 is out of
bounds"). Smallest reproduction: a soft-wrapping TextArea at 80x24, paste ten lines of about
100 characters, press Ctrl+Z. The cursor is put right a moment later by the same undo, so
scrolling to it then is what we skip.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import TextArea

from companion.tui.widgets.field import Holding, Typed, run_own_binding, typed_text


class Editor(TextArea, Holding):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+home", "text_start", "Start of text", show=False),
        Binding("ctrl+end", "text_end", "End of text", show=False),
        Binding("ctrl+shift+home", "text_start(True)", "Select to start", show=False),
        Binding("ctrl+shift+end", "text_end(True)", "Select to end", show=False),
    ]

    async def _on_key(self, event: events.Key) -> None:
        if self.hold(event) or await run_own_binding(self, event):
            return
        takes = event.is_printable or event.key == "enter"
        if self.tab_behavior == "indent":
            takes = takes or event.key in ("tab", "escape")
        if takes or not self.pass_up(event):
            await super()._on_key(event)

    def type_in(self, held: list[Typed]) -> None:
        text = typed_text(held, enter="\n")
        if text:
            self.insert(text)

    async def _on_paste(self, event: events.Paste) -> None:
        if not self.hold(event):
            await super()._on_paste(event)

    def _watch_show_vertical_scrollbar(self) -> None:
        # The cursor may be past the end for a moment; the undo puts it back (see above).
        with contextlib.suppress(ValueError):
            super()._watch_show_vertical_scrollbar()

    def action_text_start(self, select: bool = False) -> None:
        self.move_cursor(self.document.start, select=select)

    def action_text_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)

    def mark_saved(self) -> None:
        """Undo goes back to here and no further: what was saved is not undone by accident."""
        self.history.clear()
