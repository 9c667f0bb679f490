"""The way to a quick first paint: the first screen (the unlock form) drawn whole as soon as
Textual's start-up batch ends, the chosen theme in place before the styles are first parsed,
and the other screens' styles parsed once, after that paint (``load_styles``). All of it leans
on private Textual names: this is the file to check on a Textual upgrade. It knows nothing of
Companion's screens."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App


class QuickStartApp(App[None]):
    """An app that paints its first screen sooner (the Companion app is one)."""

    LATER_CSS: ClassVar[tuple[str, ...]] = ()
    """Stylesheets (paths from this folder) that ``load_styles`` reads after the first paint."""

    def __init__(self) -> None:
        super().__init__()
        self._started = False

    def _end_batch(self) -> None:
        """Show the unlock form as soon as Textual's start-up batch ends.

        Textual holds the display while it starts (``batch_update``); a screen laid out in
        that window has its frame dropped, yet its compositor takes it as shown and sends
        only changes afterwards, until its refresh timer redraws everything (about 20 ms
        later in a real terminal). The form is there to draw: draw it whole now. Private
        Textual names (check on upgrades); without them the first paint is only later."""
        super()._end_batch()
        if self._started or self._batch_count or not self._running:
            return
        self._started = True
        screen = self.screen
        if screen.is_attached and screen.size:
            full = screen._compositor.render_update(
                full=True, screen_stack=self._background_screens
            )
            self._display(screen, full)

    def _start_in_theme(self, name: str) -> None:
        """The configured theme, in place before the styles are first parsed. Set in on_mount
        (the usual way), Textual's watcher re-parses every style right after the first parse:
        about 30 ms more before the first paint for anyone who chose a theme. What the watcher
        does besides is done here (private method: check on Textual upgrades)."""
        if name == self.theme or name not in self.available_themes:
            return
        self.set_reactive(App.theme, name)
        dark = self.current_theme.dark
        self.set_class(dark, "-dark-mode", update=False)
        self.set_class(not dark, "-light-mode", update=False)
        self.set_class(True, f"-theme-{name}", update=False)
        self._refresh_truecolor_filter(self.ansi_theme)
        self.stylesheet.set_variables(self.get_css_variables())  # nothing parsed yet: cheap

    def load_styles(self) -> None:
        """The other screens' stylesheets, in one re-parse (about 20 ms), after the first
        paint: the first screen made after unlock calls this."""
        folder = Path(__file__).resolve().parent  # resolved, as Textual names screens' files
        later = [folder / name for name in self.LATER_CSS]
        missing = [path for path in later if not self.stylesheet.has_source(str(path), "")]
        if missing:
            for path in missing:
                self.stylesheet.read(path)
            self.stylesheet.reparse()
            self.stylesheet.update(self)
