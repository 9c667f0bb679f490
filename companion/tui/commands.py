"""What the command palette offers beyond the screens' own keys: import, a backup, an export
and a change of passphrase, each working on the open vault.

Kept apart from ``app.py``, which owns the app's life (unlock, lock, modes, keys); these are
errands run on it. Slow ones (a backup, an export) run in thread workers.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from companion import clock
from companion.errors import CompanionError
from companion.tui.navigation import NAV
from companion.tui.text import said

if TYPE_CHECKING:
    from companion.tui.app import CompanionApp


def system_commands(app: CompanionApp, screen: Screen) -> Iterable[SystemCommand]:
    """SOS and Help always; once unlocked, every screen, the errands below and the keys of
    the screen the palette was opened over."""
    yield SystemCommand("SOS", "Crisis lines and your coping plan", app.action_sos)
    yield SystemCommand("Help", "Keys and how things work", app.action_help)
    if app.vault is None:
        return
    for d in NAV:
        yield SystemCommand(
            d.title,
            f"Go to {d.title} ({d.key.upper()})",
            lambda m=d.mode: app.run_action(f"go('{m}')"),
        )
    yield SystemCommand("Lock", "Lock the vault now (Ctrl+L)", app.action_lock)
    yield SystemCommand(
        "Import history", "From jrnl, Day One or a Markdown folder", partial(import_history, app)
    )
    yield SystemCommand("Back up now", "An encrypted copy of the vault", partial(back_up_now, app))
    yield SystemCommand(
        "Export everything",
        "Your writing and memory as a plain-text file",
        partial(export_everything, app),
    )
    yield SystemCommand(
        "Change passphrase", "Asks for the current one first", partial(change_passphrase, app)
    )
    for binding in getattr(screen, "BINDINGS", []):
        if (
            isinstance(binding, Binding)
            and binding.description
            and binding.id
            and binding.action != "app.back"
        ):
            yield SystemCommand(
                binding.description,
                binding.tooltip or f"{binding.key}",
                lambda b=binding, s=screen: s.run_action(b.action),
            )


def import_history(app: CompanionApp) -> None:
    """The import dialog; the screen below shows what came in when it closes."""
    if app.vault is None:
        return
    from companion.tui.screens.base import DataScreen
    from companion.tui.screens.importer import ImportScreen

    def done(_: object) -> None:
        screen = app.screen
        if isinstance(screen, DataScreen):
            screen.refresh_data()

    app.push_screen(ImportScreen(), done)


def back_up_now(app: CompanionApp) -> None:
    """An encrypted copy now, in a thread (it reads the whole vault)."""
    vault = app.vault
    if vault is None:
        return

    def write() -> None:
        try:
            written = vault.backup("manual")
        except CompanionError as err:
            app.call_from_thread(app.notify, said(err), severity="error")
            return
        app.call_from_thread(app.notify, f"Backup written: {written.name}")

    app.run_worker(write, thread=True, exclusive=True, group="backup")


def export_everything(app: CompanionApp) -> None:
    """Asks where, then writes there in a thread; the format follows the file's suffix."""
    default = Path.home() / f"companion-export-{clock.today().isoformat()}.md"

    def chosen(where: str | None) -> None:
        if where and where.strip():
            export_to(app, Path(where.strip()).expanduser())

    from companion.tui.screens.modals import PromptScreen

    app.push_screen(
        PromptScreen(
            "Export everything (.md, .json, .csv; plain text: keep it private)", str(default)
        ),
        chosen,
    )


def export_to(app: CompanionApp, path: Path) -> None:
    vault = app.vault
    if vault is None:
        return

    def write() -> None:
        from companion.usecases import export

        try:
            fmt = export.write(vault, path)
        except (CompanionError, OSError) as err:
            app.call_from_thread(app.notify, f"Nothing exported: {err}", severity="error")
            return
        app.call_from_thread(
            app.notify, f"Wrote {path} ({fmt}). It is plain text: delete it when done."
        )

    app.run_worker(write, thread=True, exclusive=True, group="export")


def change_passphrase(app: CompanionApp) -> None:
    """Current passphrase first; the dialog stays open with the reason until it works."""
    vault = app.vault
    if vault is None:
        return
    from companion.tui.screens.access import PassphraseScreen
    from companion.usecases import keys

    def changed(done: bool | None) -> None:
        if done:
            app.notify(
                "Passphrase changed. Your recovery key still works; backups made before "
                "now open with the old passphrase."
            )

    app.push_screen(
        PassphraseScreen(lambda current, new: keys.change_passphrase(vault, current, new)),
        changed,
    )
