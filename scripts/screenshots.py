"""Regenerate ``screenshots/*.svg``: build the demo vault, drive the real app, save each screen.

python -m scripts.screenshots
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from companion import clock
from companion.tui.app import CompanionApp
from scripts.demo_vault import DEMO_NOW, DEMO_PASSPHRASE, build

OUT = Path(__file__).resolve().parent.parent / "screenshots"
SIZE = (100, 32)


async def settle(pilot: Pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    # A blinking cursor would make every picture depend on when it was taken.
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause()


async def unlock(pilot: Pilot, passphrase: str = DEMO_PASSPHRASE) -> None:
    pilot.app.screen.query_one("#passphrase").value = passphrase  # type: ignore[attr-defined]
    await pilot.press("enter")
    await settle(pilot)
    # Screens are composed ahead of use and the search index is built last: wait for all
    # of it, so every picture starts from the same state.
    await asyncio.wait_for(pilot.app.warmed.wait(), timeout=60)  # type: ignore[attr-defined]
    await settle(pilot)


def go(key: str) -> Callable[[Pilot], Awaitable[None]]:
    async def step(pilot: Pilot) -> None:
        await unlock(pilot)
        await pilot.press(key)
        await settle(pilot)

    return step


def keys(*pressed: str) -> Callable[[Pilot], Awaitable[None]]:
    async def step(pilot: Pilot) -> None:
        await unlock(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return step


def command(errand: str) -> Callable[[Pilot], Awaitable[None]]:
    """A palette command's dialog (``companion.tui.commands.<errand>``)."""

    async def step(pilot: Pilot) -> None:
        from companion.tui import commands

        await unlock(pilot)
        getattr(commands, errand)(pilot.app)
        await settle(pilot)

    return step


async def creating(pilot: Pilot) -> None:
    """The first run's form (the demo vault exists, so the form is switched to it)."""
    screen = pilot.app.screen
    screen.creating = True  # type: ignore[attr-defined]
    await screen.recompose()
    await settle(pilot)


async def forget_fact(pilot: Pilot) -> None:
    """Delete pressed on the first fact: the question before anything is forgotten."""
    await unlock(pilot)
    await pilot.press("f7")
    await settle(pilot)
    facts = pilot.app.screen.query_one("#facts")
    facts.focus()
    facts.action_first()  # type: ignore[attr-defined]
    await pilot.press("delete")
    await settle(pilot)


async def recovery_key(pilot: Pilot) -> None:
    """Shown once, when the vault is made (a made-up key: the demo's is not on screen)."""
    from companion.tui.screens.access import RecoveryKeyScreen

    pilot.app.push_screen(RecoveryKeyScreen("WXYZ-2345-ABCD-6789-EFGH-JKLM-NPQR-STUV"))
    await settle(pilot)


async def light_today(pilot: Pilot) -> None:
    await unlock(pilot)
    pilot.app.theme = "textual-light"
    await settle(pilot)
    await settle(pilot)  # the charts take the new theme's colours a message later


async def locked(pilot: Pilot) -> None:
    await settle(pilot)


async def sos_unlocked(pilot: Pilot) -> None:
    await unlock(pilot)
    await pilot.press("f2")
    await settle(pilot)


def open_first(key: str, widget: str) -> Callable[[Pilot], Awaitable[None]]:
    """Go to a screen and open the first item of its list."""

    async def step(pilot: Pilot) -> None:
        await unlock(pilot)
        await pilot.press(key)
        await settle(pilot)
        pilot.app.screen.query_one(widget).focus()
        await pilot.press("enter")  # focus highlights the first row
        await settle(pilot)

    return step


async def sos_after_an_overdose(pilot: Pilot) -> None:
    """The help raised by an entry that sounds like an overdose taken: emergency first."""
    await unlock(pilot)
    await pilot.press("f5")
    await settle(pilot)
    pilot.app.screen.query_one("#editor").insert(  # type: ignore[attr-defined]
        "took the whole bottle of my pills about an hour ago and my heart is racing"
    )
    await pilot.press("ctrl+s")
    await settle(pilot)


# name -> what to do before the picture
SHOTS: dict[str, Callable[[Pilot], Awaitable[None]]] = {
    "unlock": locked,
    "create": creating,
    "recovery-key": recovery_key,
    "today": go("f3"),
    "checkin": go("f4"),
    "journal": open_first("f5", "#entries"),
    "calendar": keys("f5", "ctrl+g", "pageup"),
    "chat": open_first("f6", "#sessions"),
    "memory": go("f7"),
    "add-fact": keys("f7", "a"),
    "fresh-start": keys("f7", "f"),
    "forget-fact": forget_fact,
    "profile": go("f8"),
    "insights": go("f9"),
    "settings": go("f10"),
    "extraction-prompt": keys("f10", "ctrl+t"),
    "sos": sos_unlocked,
    "sos-emergency": sos_after_an_overdose,
    "help": go("f1"),
    "passphrase": command("change_passphrase"),
    "import": command("import_history"),
    "today-light": light_today,
}


async def shoot(vault_root: Path, name: str, out: Path, size: tuple[int, int] = SIZE) -> None:
    from companion.paths import VaultPaths

    app = CompanionApp(VaultPaths(vault_root))
    async with app.run_test(size=size) as pilot:
        await SHOTS[name](pilot)
        app.save_screenshot(f"{name}.svg", str(out))


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="companion-shots-"))
    # The pictures must not depend on this machine's settings or locale.
    os.environ["XDG_CONFIG_HOME"] = str(work / "config")
    os.environ["LANG"] = "en_US.UTF-8"
    try:
        template = build(work / "template")
        clock.set_clock(lambda: DEMO_NOW)
        small = OUT / "80x24"
        small.mkdir(parents=True, exist_ok=True)
        for name in SHOTS:
            for out, size in ((OUT, SIZE), (small, (80, 24))):
                root = work / f"{name}-{size[0]}"
                shutil.copytree(template.root, root)
                asyncio.run(shoot(root, name, out, size))
                print(f"{out.relative_to(OUT.parent)}/{name}.svg", file=sys.stderr)
    finally:
        clock.set_clock(None)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
