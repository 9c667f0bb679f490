"""A checkbox whose box is empty until it is ticked, and that acts on Space where it meets it.

Textual's draws an X in both states and tells them apart by colour alone, which read the same
at a glance (and not at all to someone who cannot tell the two colours apart). And it ticks on
Space only when the key has bubbled up to the app, by which time a Tab typed just after it had
moved the focus (Tab is acted on as soon as it is read): "Space, Tab, Enter" typed at once
never ticked the box. Our fields run their own bindings the same way (``field``)."""

from __future__ import annotations

from textual import events
from textual.widgets import Checkbox

from companion.tui.widgets.field import run_own_binding


class Tick(Checkbox):
    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # Textual's class attribute
        return "X" if self.value else " "

    async def _on_key(self, event: events.Key) -> None:
        await run_own_binding(self, event)
