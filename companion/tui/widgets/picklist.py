"""A list to pick from with the keyboard: focusing it (Tab) highlights a row, so Enter opens
something at once instead of doing nothing until an arrow key is pressed."""

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
