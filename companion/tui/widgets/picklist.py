"""A list to pick from with the keyboard: focusing it (Tab) highlights a row, so Enter opens
something at once instead of doing nothing until an arrow key is pressed; a row that wraps
keeps all its lines when the scrollbar comes or goes."""

from __future__ import annotations

from textual import events
from textual.widgets import OptionList


class PickList(OptionList):
    def _on_focus(self, event: events.Focus) -> None:
        super()._on_focus(event)
        if self.highlighted is None:
            for index in range(self.option_count):
                if not self.get_option_at_index(index).disabled:
                    self.highlighted = index
                    break

    def watch_show_vertical_scrollbar(self) -> None:
        """Rows wrap to the width beside the scrollbar, and Textual measures them again only
        on a resize: refilled while the list was short (no scrollbar, two columns wider), a
        row that needs three lines beside it was drawn in two, and its date was lost."""
        self._clear_caches()
