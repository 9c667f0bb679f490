"""The vault file as it can be read (and, for `companion lock`, changed) without the key:
is it whole, its header, the unlock-session epoch, and the header's MAC once a key is known."""

from __future__ import annotations

import contextlib
import hmac
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from companion.errors import VaultBusy, VaultDamaged
from companion.paths import VaultPaths
from companion.vault import backup, integrity, session
from companion.vault.header import Header, HeaderError
from companion.vault.lock import VaultLock

SQLITE_MAGIC = b"SQLite format 3\x00"


def damaged(paths: VaultPaths, reason: str) -> VaultDamaged:
    newest = backup.newest_backup(paths)
    return VaultDamaged(
        f"The vault at {paths.db} is damaged ({reason}). It was not changed.",
        str(newest) if newest else None,
    )


def check_file(path: Path) -> str | None:
    """Why ``path`` is not a whole SQLite file, or ``None``. Cheap: reads 100 bytes."""
    size = path.stat().st_size
    if size == 0:
        return "the file is empty"
    with path.open("rb") as handle:
        head = handle.read(100)
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        return "the file is not a Companion vault or its start is missing"
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    valid_count = head[24:28] == head[92:96]
    if valid_count and pages and size < pages * page_size:
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 32:
            # A checkpoint stopped by a crash: SQLite copies the WAL in page order, page 1
            # (the new size) first; the WAL still holds every page and the next open copies
            # them again. Real loss is caught by SQLite and by the record checks.
            return None
        return "the file is truncated"
    return None


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection that leaves no trace: opening a WAL database read-only may
    create empty ``-wal`` and ``-shm`` files, which are removed again (a refused unlock leaves
    nothing behind)."""
    sidecars = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    existed = [p.exists() for p in sidecars]
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            yield conn
        finally:
            conn.close()
    finally:
        for sidecar, was_there in zip(sidecars, existed, strict=True):
            if not was_there:
                sidecar.unlink(missing_ok=True)


def read_header(path: Path, paths: VaultPaths) -> Header:
    """Read and check the header without writing to the database file."""
    problem = check_file(path)
    if problem:
        raise damaged(paths, problem)
    try:
        with read_only(path) as conn:
            cursor = conn.execute("SELECT * FROM header WHERE id = 1")
            names = [d[0] for d in cursor.description]
            found = cursor.fetchone()
            row = dict(zip(names, found, strict=True)) if found else None
    except sqlite3.DatabaseError:
        raise damaged(paths, "its database structure cannot be read") from None
    if row is None:
        raise damaged(paths, "the header is missing")
    # From schema 6 on the column exists; an emptied MAC is then damage, not "no MAC yet".
    mac = (row["hmac"] or "") if "hmac" in row else None
    try:
        return Header.parse(row["body"], row["sha256"], mac)
    except HeaderError as exc:
        raise damaged(paths, str(exc)) from None


def read_session_epoch(path: Path) -> bytes | None:
    """The current unlock-session epoch, read without writing (None: locked, or none yet)."""
    try:
        with read_only(path) as conn:
            row = conn.execute("SELECT value FROM session_epoch WHERE id = 1").fetchone()
    except sqlite3.DatabaseError:
        return None
    return bytes(row[0]) if row and row[0] else None


def end_sessions(paths: VaultPaths) -> bool:
    """`companion lock`: erase the epoch, so no copy of a session file opens the vault again,
    then delete this vault's session file. Needs no key. True when a session was open."""
    header = read_header(paths.db, paths)
    try:
        lock: VaultLock | None = VaultLock.acquire(paths)
    except VaultBusy:
        # The app has the vault open. It never reads the epoch, so erasing it under SQLite's
        # own locking is safe, and `lock` must work while the app is open.
        lock = None
    try:
        conn = sqlite3.connect(paths.db, isolation_level=None, timeout=10)
        try:
            conn.execute("PRAGMA secure_delete = ON")
            try:
                cursor = conn.execute(
                    "UPDATE session_epoch SET value = NULL WHERE value IS NOT NULL"
                )
                erased = cursor.rowcount > 0
            except sqlite3.OperationalError:
                erased = False  # a vault from before schema 6 has no epoch
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    finally:
        if lock is not None:
            lock.release()
    return session.end(header.vault_id) or erased


def check_header_mac(header: Header, mac_keys: integrity.Keys, paths: VaultPaths) -> None:
    """Right after unwrapping: a header edited on purpose is damage, not a wrong passphrase."""
    if header.stored_body is None or header.stored_mac is None:
        return  # a vault from before schema 6; its migration adds the MAC
    if not hmac.compare_digest(header.stored_mac, mac_keys.header(header.stored_body)):
        raise damaged(
            paths,
            "its header (key slots or key-derivation settings) was changed outside Companion",
        )
