"""Create, unlock, wrong passphrase, forgotten passphrase, damaged vault, SOS while locked."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from companion.tui.screens.access import ForgotScreen, RecoveryKeyScreen
from companion.tui.screens.help import SosScreen
from companion.tui.screens.today import TodayScreen
from companion.tui.screens.unlock import UnlockScreen
from companion.vault import Vault
from tests.conftest import PASSPHRASE
from tests.tui_helpers import burst, drive, screen_text, settle, unlock


def test_first_run_creates_a_vault_and_shows_the_recovery_key_once(paths) -> None:
    async def scenario(app, pilot):
        screen = app.screen
        assert isinstance(screen, UnlockScreen) and screen.creating
        screen.query_one("#passphrase").value = "short"
        await pilot.pause()
        assert "Too short" in str(screen.query_one("#strength").render())
        screen.query_one("#passphrase").value = PASSPHRASE
        screen.query_one("#repeat").value = PASSPHRASE + " typo"
        await pilot.press("enter")
        await settle(pilot)
        assert "differ" in screen_text(app)
        screen.query_one("#repeat").value = PASSPHRASE
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RecoveryKeyScreen)
        key = app.screen.key
        assert key in screen_text(app) and "nobody" in screen_text(app)
        await pilot.press("escape")  # the key is never shown again: Escape does not skip it
        await settle(pilot)
        assert isinstance(app.screen, RecoveryKeyScreen)
        assert 'Tick "I have written it down" first' in screen_text(app)
        await pilot.click("#yes")  # must confirm it was written down first
        await settle(pilot)
        assert isinstance(app.screen, RecoveryKeyScreen)
        assert 'Tick "I have written it down" first' in screen_text(app)
        box = next(line for line in screen_text(app).splitlines() if "written it down" in line)
        assert "X" not in box  # an empty box, not an X in another colour
        await pilot.click("#written")
        await settle(pilot)
        box = next(line for line in screen_text(app).splitlines() if "written it down" in line)
        assert "X" in box
        await pilot.click("#yes")
        await settle(pilot)
        assert isinstance(app.screen, TodayScreen)
        return key

    key = drive(paths, scenario)
    assert paths.db.exists()
    from companion.vault import crypto

    with Vault.unlock(paths, recovery_key=crypto.parse_recovery_key(key), daily_backup=False):
        pass


def test_wrong_passphrase_shows_inline_error_then_unlocks(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, "not it at all", opens=False)
        assert isinstance(app.screen, UnlockScreen)
        assert "Wrong passphrase" in screen_text(app)
        assert app.vault is None
        await unlock(pilot, PASSPHRASE)
        assert isinstance(app.screen, TodayScreen) and app.vault is not None

    drive(paths, scenario)


def test_keys_typed_while_the_key_is_derived_go_to_the_screen_that_opens(created) -> None:
    """People type on as soon as they press Enter: "j" and the evening's first words land in a
    new journal entry instead of nowhere. After a wrong passphrase they are dropped, never
    typed into the passphrase field."""
    paths, _ = created

    def typed(text: str) -> list[str]:
        return ["space" if c == " " else c for c in text]

    async def scenario(app, pilot):
        field = app.screen.query_one("#passphrase")
        field.value = "not it at all"
        burst(app, "enter", *typed("jabc"))
        await settle(pilot)
        assert "Wrong passphrase" in screen_text(app) and field.value == ""
        field.value = PASSPHRASE
        burst(app, "enter", *typed("jgot thru the evening"))
        for _ in range(200):
            await settle(pilot)
            if app.current_mode == "journal":
                break
        return app.screen.query_one("#editor").text

    assert drive(paths, scenario) == "got thru the evening"


def test_forgot_passphrase_with_the_recovery_key(created) -> None:
    paths, recovery = created

    async def scenario(app, pilot):
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, ForgotScreen)
        app.screen.query_one("#key").value = recovery
        app.screen.query_one("#new").value = "my new passphrase"
        app.screen.query_one("#repeat").value = "my new passphrase"
        await pilot.click("#yes")
        await settle(pilot)
        assert isinstance(app.screen, TodayScreen)

    drive(paths, scenario)
    Vault.unlock(paths, "my new passphrase", daily_backup=False).close()


def test_enter_in_the_recovery_dialog_goes_from_field_to_field(created) -> None:
    """Recovery key, Enter, new passphrase, Enter, again, Enter: each Enter moves to the next
    empty field, as on the first run (the first one used to say "Enter your new passphrase"
    instead), also when the keys come in one burst."""
    paths, recovery = created

    async def scenario(app, pilot):
        await pilot.press("ctrl+r")
        await settle(pilot)
        new = ["space" if char == " " else char for char in "my new passphrase"]
        burst(app, *recovery, "enter", *new, "enter", *new, "enter")
        await settle(pilot)
        return isinstance(app.screen, TodayScreen)

    assert drive(paths, scenario)
    Vault.unlock(paths, "my new passphrase", daily_backup=False).close()


def test_damaged_vault_offers_the_newest_backup(created) -> None:
    paths, _ = created
    Vault.unlock(paths, PASSPHRASE).close()  # writes today's backup
    paths.db.write_bytes(b"")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        assert "damaged" in screen_text(app)
        restore = app.screen.query_one("#restore")
        assert restore.display
        app.screen.query_one("#passphrase").value = PASSPHRASE
        await pilot.click("#restore")
        await settle(pilot)
        assert isinstance(app.screen, TodayScreen)

    drive(paths, scenario)
    assert (paths.root / "replaced").is_dir()


def test_sos_works_on_the_unlock_screen(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, SosScreen)
        text = screen_text(app)
        assert "findahelpline.com" in text or "988" in text or "116 123" in text
        assert "coping plan" not in text  # nothing personal before unlock
        assert "once your vault is open" in text  # F10 does nothing before
        # A card in the middle, as after unlock: its styles load with it (not at start).
        card = app.screen.query_one("SosScreen > Vertical")
        assert card.styles.border_top[0] == "thick" and card.region.x > 0
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, UnlockScreen)

    drive(paths, scenario)


async def to_recovery_key(app, pilot) -> None:
    """A new vault's passphrase, typed twice: the recovery key is shown next."""
    app.screen.query_one("#passphrase").value = PASSPHRASE
    app.screen.query_one("#repeat").value = PASSPHRASE
    await pilot.press("enter")
    await settle(pilot)


def test_space_tab_enter_typed_at_once_leaves_the_recovery_key(paths) -> None:
    """Space ticks "I have written it down", Tab reaches Continue, Enter leaves. Typed in one
    burst, the Tab was acted on before Continue was enabled, went back to the box, and the
    Enter unticked it."""

    async def scenario(app, pilot):
        await to_recovery_key(app, pilot)
        assert isinstance(app.screen, RecoveryKeyScreen)
        burst(app, "space", "tab", "enter")
        await settle(pilot)
        return isinstance(app.screen, TodayScreen)

    assert drive(paths, scenario)


def test_the_lock_screen_after_creating_a_vault_is_the_unlock_form(paths) -> None:
    async def scenario(app, pilot):
        await to_recovery_key(app, pilot)
        await pilot.click("#written")
        await pilot.click("#yes")
        await settle(pilot)
        assert isinstance(app.screen, TodayScreen)
        await pilot.press("ctrl+l")
        await settle(pilot)
        locked = app.screen
        assert isinstance(locked, UnlockScreen) and not locked.creating
        text = screen_text(app)
        assert "Locked." in text and "Unlock" in text
        assert "Create vault" not in text and "Strength" not in text
        assert not locked.query("#repeat")
        await unlock(pilot, PASSPHRASE)
        assert isinstance(app.screen, TodayScreen)

    drive(paths, scenario)


def test_the_first_run_form_fits_80x24_with_its_button_on_screen(paths) -> None:
    """A new user on a small terminal sees the whole create form, button included, without
    scrolling."""

    async def scenario(app, pilot):
        await pilot.pause()
        card = app.screen.query_one("#card")
        button = app.screen.query_one("#go")
        return card.max_scroll_y, card.region, button.region, str(button.label), screen_text(app)

    max_scroll, card, button, label, text = drive(paths, scenario, size=(80, 24))
    assert label == "Create vault"
    assert max_scroll == 0  # nothing to scroll to
    assert button.height == 3 and card.y >= 0 and card.bottom <= 24  # the whole card
    assert "F2 SOS · F1 Help" in text  # the keys that work before unlock, in its border


def test_the_forgot_passphrase_dialog_fits_80x24_title_and_all(created) -> None:
    """At 80x24 the dialog scrolled: its title was out of sight, the recovery key field first."""
    paths, _ = created

    async def scenario(app, pilot):
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, ForgotScreen)
        card = app.screen.query_one("Vertical")
        return card.max_scroll_y, screen_text(app)

    max_scroll, text = drive(paths, scenario, size=(80, 24))
    assert max_scroll == 0 and "Forgot your passphrase?" in text and "Set new passphrase" in text


def test_a_chosen_theme_shows_from_the_first_paint(paths) -> None:
    """A light theme chosen in Settings is the unlock form's look, not a dark flash first."""
    from companion import config

    config.save(config.Config(theme="textual-light"))

    async def scenario(app, pilot):
        card = app.screen.query_one("#card")
        return app.theme, app.has_class("-light-mode"), app.has_class("-dark-mode"), card

    theme, light, dark, card = drive(paths, scenario)
    assert (theme, light, dark) == ("textual-light", True, False)
    assert card.styles.background.brightness > 0.8  # the light theme's surface


def test_in_a_real_terminal_the_unlock_form_is_drawn_whole(created) -> None:
    """`companion` in a pseudo-terminal (not headless): the form, its words and its border
    reach the terminal (Textual drops the frame it draws while starting up; the app draws
    it whole once start-up ends)."""
    paths, _ = created
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ, TERM="xterm-256color", COMPANION_HOME=str(paths.root))
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "╰".encode() not in seen:
            if select.select([master], [], [], 0.5)[0]:
                seen += os.read(master, 65536)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)
    text = seen.decode("utf-8", "replace")
    assert "╰" in text and "Companion" in text
    assert "Welcome back. Enter your passphrase to unlock." in text
