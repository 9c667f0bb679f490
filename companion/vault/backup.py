"""Encrypted backups through SQLite's online backup API (a file copy can catch a half-written
page). A backup is a whole vault: it opens with the passphrase that was current when it was made.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from companion import clock
from companion.paths import VaultPaths, private_dir, touch_private

KEEP = 7


def list_backups(paths: VaultPaths) -> list[Path]:
    """Backups, oldest first (names sort by time)."""
    if not paths.backups.is_dir():
        return []
    return sorted(paths.backups.glob("vault-*.db"))


def newest_backup(paths: VaultPaths) -> Path | None:
    found = list_backups(paths)
    return found[-1] if found else None


def has_backup_for_today(paths: VaultPaths) -> bool:
    prefix = "vault-" + clock.now().strftime("%Y%m%d")
    return any(p.name.startswith(prefix) for p in list_backups(paths))


def copy_database(source: sqlite3.Connection, target: Path, wal: bool) -> None:
    """Copy a live database page by page into ``target`` (created 0600)."""
    touch_private(target)
    dest = sqlite3.connect(target, isolation_level=None)
    try:
        source.backup(dest)
        # A copy never carries the unlock-session epoch: with it, a session file copied
        # together with a backup would open the vault.
        dest.execute("PRAGMA secure_delete = ON")
        with contextlib.suppress(sqlite3.OperationalError):
            dest.execute("UPDATE session_epoch SET value = NULL")
        dest.execute(f"PRAGMA journal_mode = {'WAL' if wal else 'DELETE'}")
        dest.execute("PRAGMA synchronous = FULL")
    finally:
        dest.close()
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_backup(source: sqlite3.Connection, paths: VaultPaths, reason: str) -> Path:
    """Write a new backup and keep only the newest seven."""
    private_dir(paths.backups)
    name = f"vault-{clock.now().strftime('%Y%m%d-%H%M%S')}-{reason}"
    target = paths.backups / f"{name}.db"
    counter = 1
    while target.exists():
        counter += 1
        target = paths.backups / f"{name}-{counter}.db"
    partial = target.with_suffix(".partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    copy_database(source, partial, wal=False)
    os.replace(partial, target)
    prune(paths)
    return target


def prune(paths: VaultPaths, keep: int = KEEP) -> None:
    for old in list_backups(paths)[:-keep]:
        old.unlink()


def sweep_leftovers(paths: VaultPaths, keep_days: int = KEEP) -> int:
    """Remove what a killed backup, restore or create left behind, and vaults that
    `companion restore` moved aside once they are older than the backups we keep: each is a
    readable copy of words the user may since have deleted. Returns how many files went."""
    leftovers = [paths.root / "vault.db.creating", paths.root / "vault.db.restoring"]
    if paths.backups.is_dir():
        leftovers += list(paths.backups.glob("*.partial"))
    replaced = paths.root / "replaced"
    if replaced.is_dir():
        cutoff = clock.now().timestamp() - keep_days * 86400
        with contextlib.suppress(OSError):
            leftovers += [p for p in replaced.iterdir() if p.stat().st_mtime < cutoff]
    removed = 0
    for path in leftovers:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed += 1
    return removed


def held_copies(paths: VaultPaths) -> list[Path]:
    """Every copy of the vault besides itself: backups and vaults set aside by restore."""
    replaced = paths.root / "replaced"
    aside = sorted(replaced.iterdir()) if replaced.is_dir() else []
    return [*list_backups(paths), *aside]


def delete_all(paths: VaultPaths) -> int:
    found = list_backups(paths)
    for path in found:
        path.unlink()
    return len(found)
