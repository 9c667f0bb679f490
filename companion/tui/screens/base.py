"""What every unlocked screen shares: the nav bar, the footer, Escape to go back, and a typed
handle on the vault."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer

from companion.errors import CompanionError
from companion.tui.widgets.nav import NavBar

if TYPE_CHECKING:
    from companion.tui.app import CompanionApp
    from companion.vault import Vault


class DataScreen(Screen[None]):
    """A screen over vault data: subclasses give ``compose_body`` and ``refresh_data``."""

    MODE: ClassVar[str] = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.back", "Back", show=False, id="back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        # All our stylesheets load at start (see CompanionApp.CSS_PATH), so a new screen has
        # nothing to add; without this Textual re-parses every style on a screen's first
        # visit, about 0.2 s on two cores.
        self._css_update_count = self.app._css_update_count
        self._shown = False
        self._generation = -1

    @property
    def companion(self) -> CompanionApp:
        return self.app  # type: ignore[return-value]

    @property
    def vault(self) -> Vault:
        vault = self.companion.vault
        assert vault is not None, "data screens exist only while unlocked"
        return vault

    def compose(self) -> ComposeResult:
        yield NavBar(self.MODE)
        yield from self.compose_body()
        yield Footer(compact=True)

    def compose_body(self) -> ComposeResult:
        yield from ()

    ALWAYS_REFRESH: ClassVar[bool] = True
    """Reload on every visit (the clock or settings matter), not only after a write."""

    def on_screen_resume(self) -> None:
        # Screens may be composed ahead of time (see CompanionApp.prewarm) while inactive.
        if self.companion.vault is not None and self.companion.current_mode == self.MODE:
            self.load()

    def load(self) -> None:
        vault = self.vault
        if not self._shown:
            self._shown = True
            self._reporting(self.first_show)
        if self.ALWAYS_REFRESH or vault.generation != self._generation:
            self._generation = vault.generation
            self._reporting(self.refresh_data)

    def _reporting(self, step: Callable[[], None]) -> None:
        try:
            step()
        except CompanionError as err:  # a damaged record or draft, a full disk: say so, go on
            self.notify(str(err), severity="error", markup=False, timeout=10)

    def first_show(self) -> None:
        """Once, the first time the screen is shown unlocked (restore drafts here)."""

    def refresh_data(self) -> None:
        """Reload what the screen shows from the vault (cheap; heavy work goes in workers)."""
