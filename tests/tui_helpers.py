"""Driving the real app with Pilot."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import Console
from textual import events
from textual.pilot import Pilot

from companion.paths import VaultPaths
from companion.tui.app import CompanionApp

SIZE = (100, 32)


def drive(
    paths: VaultPaths,
    scenario: Callable[[CompanionApp, Pilot], Awaitable[Any]],
    size: tuple[int, int] = SIZE,
) -> Any:
    """Run ``scenario`` against a fresh app on ``paths`` and return what it returns."""

    async def main() -> Any:
        app = CompanionApp(paths)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            return await scenario(app, pilot)

    return asyncio.run(main())


async def settle(pilot: Pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def unlock(pilot: Pilot, passphrase: str, opens: bool = True, to: str = "") -> None:
    """Type the passphrase and press Enter; when it ``opens`` the vault, return once Today is
    the screen (the switch comes a message or two after the key derivation's worker ends),
    or, given the key ``to`` of another screen (``"f5"``), once that screen has settled."""
    app = pilot.app
    app.screen.query_one("#passphrase").value = passphrase  # type: ignore[attr-defined]
    await pilot.press("enter")
    await settle(pilot)
    for _ in range(200):
        if not opens or (app.unlocked is not None and app.current_mode != "lock"):  # type: ignore[attr-defined]
            break
        await pilot.pause()
    await pilot.pause()
    if to:
        await pilot.press(to)
        await settle(pilot)


def burst(app: CompanionApp, *keys: str) -> None:
    """Queue ``keys`` all at once, as fast typing over ssh or a password manager's auto-type
    delivers them (``pilot.press`` lets each key settle before the next)."""
    named = {"space": " ", "tab": "\t"}
    for key in keys:
        char = named.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, char))


def screen_text(app: CompanionApp) -> str:
    """Everything on screen as plain text, as a person would read it."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text()
