"""The key footer, fitted to the terminal's width (80 columns first)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ALWAYS = frozenset({"help", "sos"})
"""Actions whose keys always show: the way to every other key, and the way to help."""
MORE = "More keys"


def width(key: FooterKey) -> int:
    """Columns a compact key takes, with the gap after it."""
    return len(key.key_display) + 1 + len(key.description) + 1


def action_of(key: FooterKey) -> str:
    return key.action.rsplit(".", 1)[-1]


class KeyFooter(Footer):
    """Textual's footer, but never cut mid-word: SOS and Help always show, the screen's own
    keys follow in order while they fit, and when some do not, Help reads "More keys" (F1
    lists them all)."""

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._fitted_to = 0

    def compose(self) -> ComposeResult:
        parts = list(super().compose())
        keys = [p for p in parts if isinstance(p, FooterKey)]
        palette = [k for k in keys if k.has_class("-command-palette")]
        keys = [k for k in keys if k not in palette]
        others: list[Widget] = [p for p in parts if not isinstance(p, FooterKey)]  # key groups
        room = (self.size.width or self.app.size.width) - sum(width(k) for k in palette) - 1
        self._fitted_to = self.size.width
        cut = sum(width(k) for k in keys) > room
        kept = [k for k in keys if not cut or action_of(k) in ALWAYS]
        used = sum(width(k) for k in kept) + len(MORE) - len("Help")
        for key in keys if cut else ():
            if key in kept:
                continue
            if used + width(key) > room:
                break
            kept.append(key)
            used += width(key)
        shown = [self._more(k) if cut and action_of(k) == "help" else k for k in keys if k in kept]
        self.styles.grid_size_columns = len(shown) + len(others)
        yield from others
        yield from shown
        yield from palette

    @staticmethod
    def _more(key: FooterKey) -> FooterKey:
        return FooterKey(
            key.key,
            key.key_display,
            MORE,
            key.action,
            disabled=key.has_class("-disabled"),
            tooltip="Every key of this screen",
        )

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._fitted_to:
            self.call_after_refresh(self.recompose)
