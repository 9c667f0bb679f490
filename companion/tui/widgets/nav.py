"""The row of screen names at the top; click one, or use its function key."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

LABELS = {
    "today": "Today",
    "checkin": "Check-in",
    "journal": "Journal",
    "chat": "Chat",
    "memory": "Memory",
    "profile": "Profile",
    "insights": "Insights",
    "settings": "Settings",
}


class NavBar(Static):
    DEFAULT_CSS = """
    NavBar { height: 1; background: $panel; color: $text-muted; }
    """

    def __init__(self, active: str) -> None:
        super().__init__(self.render_bar(active))

    @staticmethod
    def render_bar(active: str) -> Content:
        parts = []
        for mode, label in LABELS.items():
            if mode == active:
                parts.append(f"[b reverse] {label} [/]")
            else:
                parts.append(f"[@click=app.go('{mode}')] {label} [/]")
        return Content.from_markup(" ".join(parts))
