"""``companion``: the TUI with no arguments, headless subcommands for scripts and cron."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from companion import __version__, logs
from companion.errors import CompanionError

if TYPE_CHECKING:
    import argparse


def global_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", metavar="DIR", help="vault folder (or COMPANION_HOME)")
    parser.add_argument(
        "--passphrase-file", metavar="FILE", help="read the passphrase from the first line of FILE"
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="write a debug log (no personal content) to the log folder",
    )


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from companion.cli import (
        activity_cmds,
        coach_cmds,
        import_cmds,
        memory_cmds,
        report_cmds,
        vault_cmds,
    )

    parser = argparse.ArgumentParser(
        prog="companion",
        description="A private companion for recovery and journaling. "
        "With no command, opens the full-screen app.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    global_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    vault_cmds.register(commands)
    activity_cmds.register(commands)
    coach_cmds.register(commands)
    memory_cmds.register(commands)
    import_cmds.register(commands)
    report_cmds.register(commands)
    return parser


def open_app(data_dir: str | None) -> int:
    """The full-screen app. Only Textual and the unlock screen load before the first paint."""
    from companion.errors import VaultBusy
    from companion.paths import VaultPaths, resolve_data_dir
    from companion.vault.lock import VaultLock

    paths = VaultPaths(resolve_data_dir(data_dir))
    if paths.root.is_dir():
        try:
            VaultLock.acquire(paths).release()
        except VaultBusy as err:
            sys.stderr.write(f"companion: {err}\n")
            return err.exit_code
    from companion.tui.app import run

    run(paths)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout.isatty() and sys.stdin.isatty():
        if not argv:  # the app, as most people start it: argparse is not needed
            logs.configure(logs.debug_requested(False))
            logs.install_excepthook()
            return open_app(None)
        import argparse

        quick = argparse.ArgumentParser(add_help=False)
        global_options(quick)
        known, rest = quick.parse_known_args(argv)
        if not rest:
            logs.configure(logs.debug_requested(known.debug))
            logs.install_excepthook()
            return open_app(known.data_dir)
    parser = build_parser()
    args = parser.parse_args(argv)
    logs.configure(logs.debug_requested(args.debug))
    logs.install_excepthook()
    if args.command is None:
        from companion.cli.vault_cmds import no_command

        return no_command(args, parser)
    try:
        return int(args.handler(args) or 0)
    except CompanionError as err:
        sys.stderr.write(f"companion: {err}\n")
        return err.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("companion: interrupted; the last saved change is kept.\n")
        return 130
