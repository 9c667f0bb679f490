"""What our screens share: the typed way to reach the app, and for screens over vault data the
nav bar, the footer, Escape to go back, and the hooks the app calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen

from companion.errors import CompanionError
from companion.tui.text import said
from companion.tui.widgets.nav import NavBar

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from companion.memory import store
    from companion.tui.app import CompanionApp
    from companion.usecases.unlocked import Unlocked
    from companion.vault import Vault

ResultType = TypeVar("ResultType")


class CompanionScreen(Screen[ResultType]):
    """Every screen of ours, dialogs included."""

    @property
    def companion(self) -> CompanionApp:
        """The app, typed: the one way a screen reaches it."""
        return cast("CompanionApp", self.app)


class DataScreen(CompanionScreen[None]):
    """A screen over vault data: subclasses give ``compose_body`` and ``refresh_data``, and
    may use the hooks below, which the app calls on every data screen."""

    MODE: ClassVar[str] = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.back", "Back", show=False, id="back"),
    ]
    ALWAYS_REFRESH: ClassVar[bool] = True
    """Reload on every visit (the clock or settings matter), not only after a write."""

    def __init__(self) -> None:
        super().__init__()
        # All our stylesheets load at start (see CompanionApp.CSS_PATH), so a new screen has
        # nothing to add; without this Textual re-parses every style on a screen's first
        # visit, about 0.2 s on two cores (a private attribute: check on Textual upgrades).
        self._css_update_count = self.app._css_update_count
        self._shown = False
        self._generation = -1
        self._prefill_on_mount = False
        self._when_shown: list[Callable[[], None]] = []

    @property
    def unlocked(self) -> Unlocked:
        unlocked = self.companion.unlocked
        assert unlocked is not None, "data screens exist only while unlocked"
        return unlocked

    @property
    def vault(self) -> Vault:
        return self.unlocked.vault

    def compose(self) -> ComposeResult:
        yield NavBar(self.MODE)
        from companion.tui.widgets.footer import KeyFooter  # after the unlock screen's paint

        yield from self.compose_body()
        yield KeyFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_screen_resume(self) -> None:
        # Screens may be composed ahead of time (see CompanionApp.prewarm) while inactive.
        if self.companion.unlocked is not None and self.companion.current_mode == self.MODE:
            self.load()
            steps, self._when_shown = self._when_shown, []
            for step in steps:
                step()

    def when_shown(self, step: Callable[[], None]) -> None:
        """Run ``step`` now if this screen is shown, else at its next visit: a screen loaded
        ahead of the visit (a draft found while Today was shown) must not speak or open a
        dialog over another screen."""
        if self.is_current:
            step()
        else:
            self._when_shown.append(step)

    def notice(self, message: str, severity: SeverityLevel = "information") -> None:
        """A toast about this screen, when it shows."""
        self.when_shown(lambda: self.notify(message, severity=severity, markup=False))

    def prefill(self) -> None:
        """Load ahead of the visit (the app prewarms screens); a screen not composed yet
        loads as soon as it is."""
        if self.is_mounted:
            self.load()
        else:
            self._prefill_on_mount = True

    def on_mount(self) -> None:
        if self._prefill_on_mount and self.companion.unlocked is not None:
            self.load()

    def load(self) -> None:
        """Show fresh data: the first time, then after writes (or always, see above)."""
        vault = self.vault
        if not self._shown:
            self._shown = True
            self.reporting(self.first_show)
        if self.ALWAYS_REFRESH or vault.generation != self._generation:
            self._generation = vault.generation
            self.reporting(self.refresh_data)

    def reporting(self, step: Callable[[], None]) -> None:
        """Run ``step``; a damaged record or draft, a full disk: say so, and go on."""
        try:
            step()
        except CompanionError as err:
            self.notify(said(err), severity="error", markup=False, timeout=10)

    # -- what subclasses fill in ----------------------------------------------------------

    def first_show(self) -> None:
        """Once, the first time the screen is shown unlocked (restore drafts here)."""

    def refresh_data(self) -> None:
        """Reload what the screen shows from the vault (cheap; heavy work goes in workers)."""

    def after_delete(self, learned: list[store.FactView], what: str) -> None:
        """After deleting something: offer to forget what was learned from it, then to take
        it out of the backups too."""
        self.offer_forget(learned, what, then=lambda: self.offer_backup_rewrite(what))

    def offer_forget(
        self, learned: list[store.FactView], what: str, then: Callable[[], None] | None = None
    ) -> None:
        """After deleting something, offer to forget what was learned from it."""
        from companion.tui.screens.modals import ConfirmScreen
        from companion.usecases import journaling

        if not learned:
            if then is not None:
                then()
            return

        def forget(yes: bool | None) -> None:
            if yes:
                journaling.forget(self.unlocked, learned)
                self.notify(f"Forgot {len(learned)} thing(s) learned from {what}.")
            if then is not None:
                then()

        listing = "\n".join(f"- {f.text}" for f in learned[:8])
        self.app.push_screen(
            ConfirmScreen(
                f"{len(learned)} thing(s) I learned came from {what}:\n{listing}\nForget them too?",
                "Forget them",
                "Keep them",
            ),
            forget,
        )

    def offer_backup_rewrite(self, what: str) -> None:
        """The words just deleted are gone from the vault file, but older backups hold them
        until they rotate out: offer to rewrite the backups now."""
        from companion.tui.screens.modals import ConfirmScreen
        from companion.vault import backup

        held = len(backup.held_copies(self.vault.paths))
        if not held:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.notify("Rewriting the backups...", timeout=3)
                self.rewrite_backups()

        if held == 1:
            holding = f"An older backup still holds {what} until it rotates out"
        else:
            holding = f"{held} older backups still hold {what} until they rotate out"
        self.app.push_screen(
            ConfirmScreen(
                f"{holding} (after 7 days). Rewrite the backups now from your vault as it "
                "is? The older restore points go.",
                "Rewrite backups",
                "Keep for now",
            ),
            answer,
        )

    @work(thread=True, exclusive=True, group="backups")
    def rewrite_backups(self) -> None:
        try:
            removed = self.vault.rewrite_backups()
        except CompanionError as err:
            self.app.call_from_thread(
                self.notify, said(err), severity="error", markup=False, timeout=10
            )
            return
        self.app.call_from_thread(
            self.notify,
            f"Backups rewritten: {removed} older cop{'ies' if removed != 1 else 'y'} removed, "
            "one backup of your vault as it is now kept.",
        )

    # -- hooks the app calls ----------------------------------------------------------------

    def stash(self) -> None:
        """Lock or quit is coming: keep unsaved text as an encrypted draft."""

    def memory_changed(self) -> None:
        """What Companion has learned changed (an extraction ran, or is running)."""
