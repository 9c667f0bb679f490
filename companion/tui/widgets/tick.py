"""A checkbox whose box is empty until it is ticked. Textual's draws an X in both states and
tells them apart by colour alone, which read the same at a glance (and not at all to someone
who cannot tell the two colours apart)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class Tick(Checkbox):
    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "
        return super()._button
