"""Create a vault on first run, unlock it afterwards, or get back in with the recovery key.

Key derivation runs in a thread worker behind a loading indicator; nothing here imports the
vault modules until the user submits, so the first paint stays light.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from companion.paths import VaultPaths
from companion.tui.screens.base import CompanionScreen
from companion.tui.text import literal, said
from companion.tui.widgets.button import Button
from companion.tui.widgets.field import Field, Typed, fresh

if TYPE_CHECKING:
    from companion.errors import CompanionError
    from companion.vault import Vault


def strength_hint(passphrase: str) -> str:
    """A rough guess in words; long and unrelated beats short and clever."""
    from companion.vault.keys import MIN_PASSPHRASE  # the vault loads after first paint

    if not passphrase:
        return "Use a passphrase: four or more unrelated words work well."
    pool = sum(
        size
        for test, size in (
            (str.islower, 26),
            (str.isupper, 26),
            (str.isdigit, 10),
            (lambda c: not c.isalnum(), 33),
        )
        if any(test(c) for c in passphrase)
    )
    bits = len(passphrase) * math.log2(max(pool, 2))
    if len(passphrase) < MIN_PASSPHRASE:
        return f"Too short: at least {MIN_PASSPHRASE} characters."
    if bits < 50:
        return "Strength: weak. Add a few more words."
    if bits < 80:
        return "Strength: fair. Longer is stronger."
    return "Strength: strong."


W = TypeVar("W", bound=Widget)


def hidden(widget: W) -> W:
    """A widget that starts hidden (shown when there is something to show)."""
    widget.display = False
    return widget


class UnlockScreen(CompanionScreen[None]):
    class Opened(Message):
        """The vault is open: created, unlocked, recovered or restored."""

        def __init__(self, vault: Vault, typed: list[Typed] | None = None) -> None:
            super().__init__()
            self.vault = vault
            self.typed = typed or []
            """Keys typed while the key was derived, for the screen that opens next."""

    AUTO_FOCUS = "#passphrase"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+r",
            "forgot",
            "Forgot passphrase",
            id="forgot",
            tooltip="Use your recovery key to set a new passphrase",
        ),
        Binding(
            "ctrl+b",
            "restore_newest",
            "Restore backup",
            id="restore",
            tooltip="Replace a damaged vault with the newest backup",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        # Made from the stylesheet as it is now: without this, Textual re-parses every style
        # once before the first paint (a new screen starts as "styles out of date").
        self._css_update_count = self.app._css_update_count
        self.creating = not self.app_paths.db.exists()
        self.reason = ""
        """Why the vault was locked, said above the form."""
        self.typed_ahead: list[Typed] | None = None
        """Keys typed while an unlock derives the key: people type on as soon as they press
        Enter ("j", then the evening's entry). They go to Today once it opens, in order, and
        are dropped with a wrong passphrase (they must not land in the passphrase field)."""

    @property
    def app_paths(self) -> VaultPaths:
        return self.companion.paths

    def compose(self) -> ComposeResult:
        # The name and the keys are drawn in the card's border: two widgets fewer to lay out
        # and style before the first paint.
        with Vertical(id="card") as card:
            card.border_title = "Companion"
            card.border_subtitle = "F2 SOS · F1 Help · Ctrl+Q Quit"
            if self.creating:
                yield Static(
                    "Welcome. Choose a passphrase for your private vault. Everything you write "
                    "is encrypted with it, on this computer only.",
                    id="intro",
                )
                yield Field(placeholder="Passphrase", password=True, id="passphrase")
                yield Field(placeholder="Repeat passphrase", password=True, id="repeat")
                yield Static(strength_hint(""), id="strength")
            else:
                yield Static(
                    f"{self.reason} Enter your passphrase to unlock."
                    if self.reason
                    else "Welcome back. Enter your passphrase to unlock.",
                    id="intro",
                )
                yield Field(placeholder="Passphrase", password=True, id="passphrase")
            with Horizontal(id="actions"):
                yield Button(
                    "Create vault" if self.creating else "Unlock", variant="primary", id="go"
                )
                if not self.creating:
                    yield Button("Forgot passphrase", id="forgot")

    def on_mount(self) -> None:
        self.set_timer(0.3, self.preload)

    @work(thread=True, group="preload")
    def preload(self) -> None:
        """Import the vault and the screens while the passphrase is typed, after first paint."""
        import companion.tui.screens.registry
        import companion.vault  # noqa: F401

        if not self.creating:
            # Compose Today now, so the key derivation later has both cores to itself.
            self.app.call_from_thread(self.companion.prewarm)

    # -- feedback -----------------------------------------------------------------------

    def show_error(self, message: str) -> None:
        """Say what went wrong above the buttons ("" hides the line)."""
        line = self._error_line()
        line.update(literal(message))
        line.display = bool(message)

    def _error_line(self) -> Static:
        """The error line, the spinner and the upgrade bar are mounted when first needed:
        fewer widgets (and their styles) before the first paint."""
        found = self.query("#error")
        if found:
            return found.first(Static)
        line = Static("", id="error")
        self.query_one("#card").mount(line, before=self.query_one("#actions"))
        return line

    def _below_error(self, ident: str, make: Callable[[], Widget]) -> Widget:
        found = self.query(f"#{ident}")
        if found:
            return found.first()
        widget = make()
        self.query_one("#card").mount(widget, after=self._error_line())
        return widget

    def busy(self, working: bool) -> None:
        from textual.widgets import LoadingIndicator  # not needed for the first paint

        if working:
            self.show_error("")  # a new try: the last one's message no longer holds
            self._below_error("working", lambda: LoadingIndicator(id="working")).display = True
        else:
            for widget in self.query("#working, #upgrade"):
                widget.display = False
        for button in self.query(Button):
            button.disabled = working
        for field in self.query(Input):
            field.disabled = working

    def show_locked(self, reason: str) -> None:
        """Locked (by the user or for being idle): always the unlock form, even when this
        screen last showed the form that created the vault."""
        self.creating, self.reason = False, reason
        self.refresh(recompose=True)
        self.call_after_refresh(lambda: self.query_one("#passphrase", Input).focus())

    def upgrade_progress(self, done: int, total: int) -> None:
        """From the unlock worker, while a vault from an older Companion is upgraded."""
        self.app.call_from_thread(self._show_upgrade, done, total)

    def _show_upgrade(self, done: int, total: int) -> None:
        from textual.widgets import ProgressBar  # not needed for the first paint

        bar = self._below_error(
            "upgrade", lambda: hidden(ProgressBar(id="upgrade", show_eta=False))
        )
        assert isinstance(bar, ProgressBar)
        if not bar.display:
            bar.display = True
            for spinner in self.query("#working"):
                spinner.display = False
            self.query_one("#intro", Static).update(
                "Upgrading your vault so that every record is checked for changes made outside "
                "Companion. This happens once; a backup was made first."
            )
        bar.update(total=total, progress=done)

    @on(Input.Changed, "#passphrase")
    def update_strength(self, event: Input.Changed) -> None:
        if self.creating:
            self.query_one("#strength", Static).update(strength_hint(event.value))

    def on_key(self, event: events.Key) -> None:
        if self.typed_ahead is not None:
            event.stop()
            event.prevent_default()
            self.typed_ahead.append(fresh(event))

    def on_paste(self, event: events.Paste) -> None:
        if self.typed_ahead is not None:
            event.stop()
            event.prevent_default()
            self.typed_ahead.append(fresh(event))

    # -- actions ------------------------------------------------------------------------

    @on(Input.Submitted)
    @on(Button.Pressed, "#go")
    def submit(self) -> None:
        passphrase = self.query_one("#passphrase", Input).value
        if not passphrase:
            self.show_error("Type your passphrase first.")
            return
        if self.creating:
            from companion.vault.keys import MIN_PASSPHRASE

            repeat = self.query_one("#repeat", Input)
            if len(passphrase) < MIN_PASSPHRASE:
                self.show_error(f"Use at least {MIN_PASSPHRASE} characters.")
                return
            if self.focused is not repeat and not repeat.value:
                repeat.focus()
                return
            if repeat.value != passphrase:
                self.show_error("The two passphrases differ. Type them again.")
                repeat.value = ""
                repeat.focus()
                return
            self.busy(True)
            self.create(passphrase)
        else:
            self.busy(True)
            self.typed_ahead = []
            self.unlock(passphrase)

    @work(thread=True, exclusive=True, group="unlock")
    def unlock(self, passphrase: str) -> None:
        from companion.errors import CompanionError
        from companion.vault import Vault

        try:
            vault = Vault.unlock(
                self.app_paths, passphrase, daily_backup=False, progress=self.upgrade_progress
            )
        except CompanionError as err:
            self.app.call_from_thread(self.failed, err)
        else:
            self.app.call_from_thread(self.succeeded, vault)

    @work(thread=True, exclusive=True, group="unlock")
    def create(self, passphrase: str) -> None:
        from companion.errors import CompanionError
        from companion.vault import Vault

        try:
            vault, recovery = Vault.create(self.app_paths, passphrase)
        except CompanionError as err:
            self.app.call_from_thread(self.failed, err)
        else:
            self.app.call_from_thread(self.created, vault, recovery)

    def failed(self, err: CompanionError) -> None:
        from companion.errors import VaultDamaged, WrongPassphrase

        self.busy(False)
        self.typed_ahead = None
        passphrase = self.query_one("#passphrase", Input)
        if isinstance(err, WrongPassphrase):
            self.show_error("Wrong passphrase. Try again, or use your recovery key (Ctrl+R).")
            passphrase.value = ""
        elif isinstance(err, VaultDamaged):
            self.show_error(said(err))
            if err.newest_backup and not self.query("#restore"):
                # Made only when a damaged vault has a backup (rare; not for every first paint)
                restore = Button("Restore newest backup", id="restore", variant="warning")
                self.query_one("#actions").mount(restore)
                self.refresh_bindings()
        else:
            self.show_error(said(err))
        passphrase.focus()

    def succeeded(self, vault: Vault) -> None:
        self.busy(False)
        self.query_one("#passphrase", Input).value = ""
        typed, self.typed_ahead = self.typed_ahead, None
        self.post_message(self.Opened(vault, typed))

    def created(self, vault: Vault, recovery: str) -> None:
        from companion.tui.screens.access import RecoveryKeyScreen

        self.busy(False)
        self.creating = False
        self.app.push_screen(RecoveryKeyScreen(recovery), lambda _: self.succeeded(vault))

    @on(Button.Pressed, "#forgot")
    def action_forgot(self) -> None:
        if self.creating:
            return
        from companion.tui.screens.access import ForgotScreen

        def reset(result: tuple[str, str] | None) -> None:
            if result:
                self.busy(True)
                self.recover(*result)

        self.app.push_screen(ForgotScreen(), reset)

    @work(thread=True, exclusive=True, group="unlock")
    def recover(self, recovery_text: str, new_passphrase: str) -> None:
        from companion.errors import CompanionError
        from companion.vault import Vault, crypto

        try:
            vault = Vault.unlock(
                self.app_paths,
                recovery_key=crypto.parse_recovery_key(recovery_text),
                daily_backup=False,
                progress=self.upgrade_progress,
            )
            vault.change_passphrase(new_passphrase)
        except CompanionError as err:
            self.app.call_from_thread(self.failed, err)
        else:
            self.app.call_from_thread(self.app.notify, "Passphrase changed. Welcome back.")
            self.app.call_from_thread(self.succeeded, vault)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "restore_newest":  # only offered once the vault proved damaged
            if not self.is_mounted:
                return False
            found = self.query("#restore")
            return bool(found) and found[0].display
        return True

    @on(Button.Pressed, "#restore")
    def action_restore_newest(self) -> None:
        passphrase = self.query_one("#passphrase", Input).value
        if not passphrase:
            self.show_error("Type the passphrase for the backup, then choose Restore.")
            return
        self.busy(True)
        self.restore(passphrase)

    @work(thread=True, exclusive=True, group="unlock")
    def restore(self, passphrase: str) -> None:
        from companion.errors import CompanionError
        from companion.vault import Vault, backup
        from companion.vault.maintenance import restore

        try:
            newest = backup.newest_backup(self.app_paths)
            if newest is None:
                raise FileNotFoundError
            restore(newest, self.app_paths, passphrase)
            vault = Vault.unlock(
                self.app_paths, passphrase, daily_backup=False, progress=self.upgrade_progress
            )
        except CompanionError as err:
            self.app.call_from_thread(self.failed, err)
        except FileNotFoundError:
            self.app.call_from_thread(self.show_error, "There is no backup to restore.")
        else:
            self.app.call_from_thread(
                self.app.notify, "Restored the newest backup; the damaged vault was kept aside."
            )
            self.app.call_from_thread(self.succeeded, vault)
