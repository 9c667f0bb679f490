"""Helpers shared by the subcommands: opening the vault, printing user text safely."""

from __future__ import annotations

import argparse
import errno
import os
import re
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from companion.cli import secrets
from companion.errors import DiskFull, InvalidInput, ModelError, SessionEnded, VaultBusy
from companion.paths import VaultPaths, open_private, resolve_data_dir
from companion.usecases.unlocked import Unlocked
from companion.vault import Vault, session

if TYPE_CHECKING:
    from companion.coach.safety import Danger
    from companion.llm import Gateway

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def vault_paths(args: argparse.Namespace) -> VaultPaths:
    return VaultPaths(resolve_data_dir(args.data_dir))


@contextmanager
def open_vault(
    args: argparse.Namespace, allow_session: bool = True, read_only_ok: bool = False
) -> Iterator[Unlocked]:
    """The vault, opened by the unlock session in COMPANION_SESSION or by the passphrase,
    with what an unlocked app holds (built as the app builds it). ``read_only_ok``: a command
    that only reads also works while the app has the vault open, through a read-only
    connection; a command that writes is refused then (exit 75), before any prompt."""
    paths = vault_paths(args)
    if not paths.db.exists():
        # Say so before asking for a passphrase that cannot help.
        Vault.unlock(paths, "")
    read_only = False
    try:
        ensure_free(paths)
    except VaultBusy:
        if not read_only_ok:
            raise
        read_only = True
    token = os.environ.get(session.ENV_VAR) if allow_session else None
    vault = None
    if token and not args.passphrase_file:
        try:
            vault = Vault.unlock(
                paths, session_token=token, progress=upgrade_progress, read_only=read_only
            )
        except SessionEnded as err:
            if not secrets.can_ask():
                raise
            sys.stderr.write(f"companion: {err}\n")
    if vault is None:
        vault = Vault.unlock(
            paths,
            secrets.passphrase(args.passphrase_file),
            progress=upgrade_progress,
            read_only=read_only,
        )
    warn_damage(vault)
    try:
        unlocked = Unlocked.open(vault)
    except BaseException:
        vault.close()
        raise
    try:
        yield unlocked
    finally:
        unlocked.close()


def upgrade_progress(done: int, total: int) -> None:
    """A schema upgrade's progress on stderr: one line, rewritten in place on a terminal."""
    percent = 100 * done // total if total else 100
    if sys.stderr.isatty():
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\rUpgrading the vault's integrity checks: {percent}%{end}")
    elif done >= total:
        sys.stderr.write(f"Upgraded the vault's integrity checks ({total} records).\n")
    sys.stderr.flush()


def warn_damage(vault: Vault) -> None:
    """Say once, on stderr, what the unlock-time integrity check found."""
    if vault.findings:
        where = "; ".join(f.describe() for f in vault.findings[:3])
        sys.stderr.write(
            f"companion: warning: the vault has damage ({where}). Your other records are fine; "
            "run `companion verify` for the full list, or restore a backup.\n"
        )


def offer_backup_rewrite(vault: Vault, args: argparse.Namespace, why: str) -> None:
    """After a delete (or a rekey): the words are gone from the vault file, but older backups
    still hold them until they rotate out. Rewrite them when asked (--purge-backups, or yes at
    a terminal); otherwise say how."""
    from companion.vault import backup

    held = backup.held_copies(vault.paths)
    if not held:
        return
    if getattr(args, "purge_backups", False) or (
        sys.stdin.isatty()
        and input(
            f"{len(held)} older backup(s) still hold {why} until they rotate out (7 days). "
            "Rewrite them now from the vault as it is? Their older restore points go. (yes/no) "
        )
        .strip()
        .lower()
        in ("y", "yes")
    ):
        removed = vault.rewrite_backups()
        print(
            f"rewrote the backups: {removed} older cop{'ies' if removed != 1 else 'y'} removed, "
            "one backup of the vault as it is now kept",
            file=sys.stderr,
        )
    else:
        print(
            f"note: {len(held)} older backup(s) still hold {why} for up to 7 days; "
            "`companion backup --rewrite` removes them now.",
            file=sys.stderr,
        )


def ensure_free(paths: VaultPaths) -> None:
    """Refuse at once (exit 75) when another Companion holds the vault, before any prompt."""
    from companion.vault.lock import VaultLock

    if paths.root.is_dir():
        VaultLock.acquire(paths).release()


def output_file(name: str | None) -> Path | None:
    """The file ``-o NAME`` writes to, or None for standard output (no NAME, or ``-``).
    Checked before the passphrase is asked, so a mistyped folder is said plainly at once."""
    if not name or name == "-":
        return None
    path = Path(name)
    folder = path.parent
    if not folder.exists():
        raise InvalidInput(
            f"the folder {folder} does not exist: create it first "
            f"(mkdir -p {shlex.quote(str(folder))}) or write somewhere else; nothing was written."
        )
    if not folder.is_dir():
        raise InvalidInput(f"{folder} is not a folder, so {path} cannot be written there.")
    if path.is_dir():
        raise InvalidInput(f"{path} is a folder: name a file in it, like {path / 'export'}.")
    return path


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to a file only its owner can read; a file that cannot be written is
    said plainly (exit 2, or 74 when the disk is full), not as a crash."""
    try:
        with open_private(path) as handle:
            handle.write(text)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise DiskFull(
                f"the disk is full: {path} is incomplete. Free some space and run it again."
            ) from None
        reason = exc.strerror or type(exc).__name__
        raise InvalidInput(f"cannot write {path}: {reason}; nothing was written.") from None


def safe(text: str) -> str:
    """On a terminal, show control characters (ANSI escapes included) instead of obeying them."""
    if not sys.stdout.isatty():
        return text
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def out(text: str = "") -> None:
    sys.stdout.write(safe(text) + "\n")


def confirmed(args: argparse.Namespace, question: str, answers: tuple[str, ...], what: str) -> bool:
    """``--yes``, or the person's answer on the terminal; with neither, say how to go ahead."""
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise InvalidInput(f"add --yes to {what} without a terminal to confirm on.")
    return input(question).strip().lower() in answers


def model_for(unlocked: Unlocked, purpose: str) -> Gateway:
    """The model for ``purpose``; offline, a clear error (exit 69) instead."""
    from companion.llm import OFFLINE_HELP

    gateway = unlocked.gateway(purpose)
    if gateway is None:
        raise ModelError(OFFLINE_HELP, "offline")
    return gateway


def show_help(danger: Danger | None) -> None:
    """Danger in what was just written: say why, and where to turn, on standard error (the
    command's output and exit status stay as they are)."""
    if danger is None:
        return
    from companion import config
    from companion.coach import crisis

    lines = crisis.as_text(config.load(), danger.help)
    sys.stderr.write(f"{danger.reason}\n{crisis.heading(danger.help)}\n{lines}\n\n")
