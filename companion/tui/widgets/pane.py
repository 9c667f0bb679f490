"""A pane of text to read beside a list: Tab stops on it only while it holds more than fits (the
arrows and PgUp/PgDn then scroll it), and it shows that it has the keys. Textual's scrolling
containers are always a Tab stop and look the same focused or not, so Tab seemed to lose the
keys (Down and Enter went to a pane that did nothing visible)."""

from __future__ import annotations

from textual.containers import VerticalScroll


class ReadingPane(VerticalScroll):
    DEFAULT_CSS = """
    ReadingPane:focus {
        background-tint: $foreground 5%;
    }
    """

    def allow_focus(self) -> bool:
        return self.allow_vertical_scroll
