"""The Companion app: modes for each screen, the lock, auto-lock and the global keys. (The
quick first paint it is built on is startup.py's; the palette's errands are commands.py's.)

Decrypted data lives only in the screens of the data modes and in the unlocked session's
search index; locking removes those modes (and re-adds them empty), drops the index and
closes the vault.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from companion import clock
from companion import config as app_config
from companion.paths import VaultPaths
from companion.tui import commands
from companion.tui.navigation import MODES, NAV
from companion.tui.screens.unlock import UnlockScreen
from companion.tui.startup import QuickStartApp
from companion.tui.stranded import StrandedKeys
from companion.tui.widgets.field import gate

if TYPE_CHECKING:
    from companion.coach.safety import Danger
    from companion.retrieval.search import SearchIndex
    from companion.tui.screens.base import DataScreen
    from companion.usecases.unlocked import Unlocked
    from companion.vault import Vault


def screen_factory(app: CompanionApp, mode: str) -> Callable[[], Screen]:
    """Screens are imported on first use, after the unlock screen has painted, and find
    their styles loaded."""

    def make() -> Screen:
        from companion.tui.screens import registry

        app.load_styles()
        screen = registry.SCREENS[mode]()
        # Styled from the stylesheet as it is: Textual would otherwise re-parse every style
        # for each new screen (tens of ms on the UI thread, once per screen).
        screen._css_update_count = app._css_update_count
        return screen

    return make


class CompanionApp(QuickStartApp):
    TITLE = "Companion"
    # The unlock screen's styles load at start, the other screens' and the dialogs' all
    # together before the first screen after it is made (``load_styles``): each stylesheet
    # added makes Textual re-parse every style, which visit after visit would pay. A dialog
    # shown before that (SOS, Help) loads its own (``Dialog.CSS_PATH``).
    CSS_PATH: ClassVar[list[str | PurePath]] = ["app.tcss", "screens/unlock.tcss"]
    LATER_CSS: ClassVar[tuple[str, ...]] = (
        "screens/dialogs.tcss",  # first: screens' files refine the dialogs' rules
        *(f"screens/{mode}.tcss" for mode in MODES),
    )
    MODES: ClassVar[dict[str, str | Callable[[], Screen]]] = {"lock": UnlockScreen}
    DEFAULT_MODE = "lock"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="help", tooltip="Keys and how things work"),
        Binding("question_mark", "help", "Help", show=False, id="help-alt"),
        Binding("f2", "sos", "SOS", priority=True, id="sos", tooltip="Crisis lines, right now"),
        # Priority: a dialog open (its bindings hide the app's) must not keep the vault open.
        Binding("ctrl+l", "lock", "Lock", id="lock", tooltip="Lock the vault", priority=True),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit"),
        # Priority, so focus moves before the next key is read: otherwise a key that arrives
        # with the Tab (typed fast over ssh, or by a password manager) lands in the field
        # being left ("7", Tab, "3" gave a mood of 73).
        Binding("tab", "focus_next", show=False, priority=True, id="focus-next"),
        Binding("shift+tab", "focus_previous", show=False, priority=True, id="focus-previous"),
        *[
            Binding(d.key, f"go('{d.mode}')", d.title, show=False, priority=True, id=f"go-{d.mode}")
            for d in NAV
        ],
    ]

    def __init__(self, paths: VaultPaths) -> None:
        super().__init__()
        self.paths = paths
        self.config = app_config.load()
        self._start_in_theme(self.config.theme)
        self.unlocked: Unlocked | None = None
        """The open vault and what goes with it; ``None`` while locked."""
        self.last_activity: datetime = clock.now()
        self.mode_history: list[str] = []
        self.warmed = asyncio.Event()
        """Set once, after unlock, every screen is composed."""
        self.stranded = StrandedKeys(self)
        for mode in MODES:
            self.add_mode(mode, screen_factory(self, mode))

    @property
    def vault(self) -> Vault | None:
        return self.unlocked.vault if self.unlocked is not None else None

    @property
    def index(self) -> SearchIndex | None:
        """Search over the open vault (``None`` while locked)."""
        return self.unlocked.index if self.unlocked is not None else None

    def data_screens(self) -> Iterable[DataScreen]:
        """Every data screen composed so far (the hooks' audience)."""
        from companion.tui.screens.base import DataScreen

        for stack in self._screen_stacks.values():
            yield from (screen for screen in stack if isinstance(screen, DataScreen))

    def on_mount(self) -> None:
        # Hand the GIL back to the UI thread sooner while workers decrypt or parse.
        sys.setswitchinterval(0.001)
        self.set_interval(15, self.check_auto_lock, name="auto-lock")

    # -- activity and auto-lock ---------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if isinstance(
            event,
            (
                events.Key,
                events.MouseDown,
                events.MouseScrollDown,
                events.MouseScrollUp,
                events.Paste,
            ),
        ):
            self.last_activity = clock.now()
        if isinstance(event, (events.Key, events.Paste)) and gate(self).hold(event):
            return  # a field's key is being acted on: what was typed after it waits
        if isinstance(event, events.Key):
            self.stranded.read(event)
        await super().on_event(event)

    async def _on_key(self, event: events.Key) -> None:
        """Before Textual's own (bindings, then ``key_`` methods): a key read on a screen
        since covered by a dialog goes to the dialog (see ``stranded.py``)."""
        if self.stranded.rescue(event):
            event.prevent_default()

    async def check_auto_lock(self) -> None:
        """Lock after the configured idle minutes (tests move the clock and call this)."""
        if self.vault is None:
            return
        idle = (clock.now() - self.last_activity).total_seconds()
        if idle >= self.config.auto_lock_minutes * 60:
            await self.lock(reason="Locked after inactivity. Your drafts are saved.")

    # -- unlock and lock ----------------------------------------------------------------

    def prewarm(self, modes: tuple[str, ...] = ("today",)) -> None:
        """Compose screens before they are needed, one per tick so input is never held up:
        Today while the passphrase is typed, the rest once Today shows."""
        from companion.tui.screens.base import DataScreen

        if not self.is_running:  # quitting: Textual is closing the stacks this would add to
            return
        for mode in modes:
            if mode not in self._screen_stacks and mode in self._modes:
                self._init_mode(mode)  # Textual's own lazy set-up of a mode, done early
                screen = self._screen_stacks[mode][0]
                if self.unlocked is not None and isinstance(screen, DataScreen):
                    self.call_after_refresh(screen.prefill)  # its data too, ahead of the visit
                self.set_timer(0.05, lambda: self.prewarm(modes))
                return
        if modes != ("today",) and self.unlocked is not None and not self.warmed.is_set():
            self.warmed_up()

    def on_unlock_screen_opened(self, message: UnlockScreen.Opened) -> None:
        """The unlock screen opened the vault (created, unlocked, recovered or restored)."""
        from companion.usecases.unlocked import Unlocked

        self.unlocked = Unlocked.open(message.vault, self.config)
        self.last_activity = clock.now()
        self.mode_history.clear()
        self.switch_mode("today")
        if message.typed:  # typed while the key was derived: read on Today, as typed
            self.call_after_refresh(gate(self).open, message.typed)
        self.call_after_refresh(self.prewarm, ("journal", "checkin", "chat", "memory"))
        self.after_unlock()
        if message.vault.findings:
            where = "; ".join(f.describe() for f in message.vault.findings[:3])
            self.notify(
                f"Some of the vault was changed outside Companion ({where}). Your other records "
                "are fine. `companion verify` lists everything; `companion restore` goes back "
                "to a backup.",
                title="Damage found",
                severity="error",
                markup=False,
                timeout=30,
            )

    def warmed_up(self) -> None:
        """Every screen is composed: what is loaded by now lives until lock, so the
        collector stops rescanning it on every full pass (undone on lock); then the SDK
        and extraction start in the background."""
        gc.freeze()
        self.warmed.set()
        self.preload_sdk()
        self.warm_index()
        self.maybe_extract()

    # -- daily memory -------------------------------------------------------------------

    def maybe_extract(self, force: bool = False) -> bool:
        """The unlock rule (or "Run extraction now"): learn in the background, never blocking."""
        from companion.memory import extraction

        unlocked = self.unlocked
        if unlocked is None or unlocked.gateway("extraction") is None:
            return False
        if not force and not extraction.needs_run(unlocked.vault):
            return False
        self.run_extraction(force)
        return True

    @work(exclusive=True, group="extraction")
    async def run_extraction(self, force: bool) -> None:
        from companion.usecases import remembering

        unlocked = self.unlocked
        gateway = unlocked.gateway("extraction") if unlocked is not None else None
        if unlocked is None or gateway is None:
            return
        self.memory_changed()
        result = await remembering.learn(
            unlocked, gateway, force=force, progress=lambda _step: self.memory_changed()
        )
        if self.unlocked is not unlocked:
            return
        self.memory_changed()
        if result.error:
            self.notify(
                f"{result.line} It tries again later (sooner with r in the memory panel).",
                severity="warning",
                timeout=8,
            )
        elif result.ran:
            self.notify(
                f"{result.line}. Review it in What I know about you (F7, then v).",
                title="Daily memory",
                timeout=8,
            )

    def memory_changed(self) -> None:
        for screen in self.data_screens():
            screen.memory_changed()

    @work(thread=True, group="preload")
    def preload_sdk(self) -> None:
        """The anthropic SDK takes a second or two to import; pay that here, in a thread,
        rather than on the first message."""
        from companion.llm import claude

        claude.preload()

    @work(thread=True, group="preload")
    def warm_index(self) -> None:
        """The index's largest buckets and the coach's caches, read now so the first
        search or message after unlock does not wait for them. What they read lives until
        lock, like the screens: out of the collector's full passes too (a pass over the
        index's buckets took 30 ms, in the middle of whatever message it fell on). Frozen
        from the UI thread, and only if this session is still open: a lock in between has
        unfrozen, and what it closed must not outlive it."""
        unlocked = self.unlocked
        if unlocked is not None:
            unlocked.warm()
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                self.call_from_thread(self._freeze_for, unlocked)

    def _freeze_for(self, unlocked: Unlocked) -> None:
        if self.unlocked is unlocked:
            gc.freeze()

    @work(thread=True, exclusive=True, group="backup")
    def after_unlock(self) -> None:
        """The daily backup, after Today has painted."""
        from companion.vault import backup

        vault = self.vault
        if vault is not None and not backup.has_backup_for_today(vault.paths):
            vault.backup("daily")

    async def stash_drafts(self) -> None:
        await self.let_typed_keys_land()
        for screen in list(self.data_screens()):
            screen.stash()

    async def let_typed_keys_land(self) -> None:
        """Wait for keys already handed to the screen's fields.

        A priority key (lock, quit, another day) is acted on as soon as the app reads it,
        while the keys typed just before it may still wait in their field's queue: without
        this, "6 Tab 3 Ctrl+L" in one burst locked before the 6 and the 3 were in the form,
        and both were lost.
        """
        landed = []
        for widget in self.screen.focus_chain:
            done = asyncio.Event()
            if widget.call_later(done.set):
                landed.append(done.wait())
        if landed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*landed), timeout=1.0)
        gate(self).keep_in_place()  # keys held behind Enter or Ctrl+F, typed before this one

    async def lock(self, reason: str = "Locked.") -> None:
        if self.unlocked is None:
            return
        await self.stash_drafts()
        # An extraction in flight is abandoned (its chunk was not saved; the next unlock
        # tries again); everything else may finish.
        self.workers.cancel_group(self, "extraction")
        await self.workers.wait_for_complete()  # nothing may still be reading
        await self.switch_mode("lock")
        for mode in MODES:
            await self.remove_mode(mode)
            self.add_mode(mode, screen_factory(self, mode))
        unlocked, self.unlocked = self.unlocked, None
        self.warmed.clear()
        unlocked.close(settle=True)
        del unlocked
        gc.unfreeze()
        gc.collect()
        screen = self.screen
        if isinstance(screen, UnlockScreen):
            screen.show_locked(reason)

    async def action_lock(self) -> None:
        await self.lock()

    async def action_quit(self) -> None:
        if self.unlocked is not None:
            await self.stash_drafts()
            self.workers.cancel_group(self, "extraction")
            await self.workers.wait_for_complete()
            self.unlocked.close(settle=True)
            self.unlocked = None
        self.exit()

    # -- navigation ---------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action in ("go", "lock") and self.vault is None)

    async def action_go(self, mode: str) -> None:
        if self.vault is None or mode == self.current_mode:
            return
        self.mode_history.append(self.current_mode)
        await self.switch_mode(mode)

    async def action_back(self) -> None:
        previous = self.mode_history.pop() if self.mode_history else "today"
        if previous != self.current_mode and self.vault is not None:
            await self.switch_mode(previous)

    def action_import(self) -> None:
        """Settings' import button (and the palette)."""
        commands.import_history(self)

    def action_help(self) -> None:
        from companion.tui.screens.help import HelpScreen

        screen = self.screen
        keys: list[tuple[str, str]] = []
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            what = binding.tooltip or binding.description
            own = active.node is screen or (binding.show and active.node is not self)
            if not own or not what or binding.action in seen or not active.enabled:
                continue  # the app's keys are in the text below; a text box's are the usual
            seen.add(binding.action)
            keys.append((self.get_key_display(binding), what))
        where = getattr(screen, "MODE", "") or ""
        self.push_screen(HelpScreen(keys, where.replace("_", " ")))

    def action_sos(self, danger: Danger | None = None) -> None:
        """Where to turn: one key from every screen, locked or not; ``danger`` when what
        was just written raised it."""
        from companion.tui.screens.help import SosScreen

        if not isinstance(self.screen, SosScreen):
            self.push_screen(SosScreen(danger))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from commands.system_commands(self, screen)

    def _fatal_error(self) -> None:
        """Replace Textual's crash report, which prints local variables (user text among
        them), with a plain one; frames and line numbers go to the debug log only."""
        from companion import logs

        error = self._exception or sys.exc_info()[1]
        if error is not None:
            logs.log.error("crash: %s", logs.plain_traceback(error))
        name = type(error).__name__ if error is not None else "error"
        self.bell()
        self._exit_renderables.append(
            f"Companion stopped after an unexpected {name}. What you saved is safe. Run with "
            "--debug to write details (no personal content) to the log."
        )
        self._close_messages_no_wait()

    async def on_unmount(self) -> None:
        if self.unlocked is not None:
            self.unlocked.close()
            self.unlocked = None
        gc.unfreeze()


def run(paths: VaultPaths) -> None:
    CompanionApp(paths).run()
