"""The row of screen names at the top; click one, or use its function key."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from companion.tui.navigation import NAV


class NavBar(Static):
    DEFAULT_CSS = """
    NavBar { height: 1; background: $panel; color: $text-muted; }
    """

    def __init__(self, active: str) -> None:
        super().__init__(self.render_bar(active))

    @staticmethod
    def render_bar(active: str) -> Content:
        parts = []
        for d in NAV:
            if d.mode == active:
                parts.append(f"[b reverse] {d.label} [/]")
            else:
                parts.append(f"[@click=app.go('{d.mode}')] {d.label} [/]")
        return Content.from_markup(" ".join(parts))
