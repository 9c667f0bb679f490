"""Opening, creating and writing the vault.

The database is opened read-only until the passphrase has unwrapped the data key, so a wrong
passphrase or a damaged file never changes a byte. Writes go through :meth:`Vault.transaction`,
which turns "disk full" into an error a person can act on.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import peewee as pw

from companion.errors import (
    DiskFull,
    VaultDamaged,
    VaultExists,
    VaultMissing,
)
from companion.paths import VaultPaths, private_dir, touch_private
from companion.vault import backup, crypto, keys, migrations, session
from companion.vault.crypto import Sealer
from companion.vault.header import Header, HeaderError
from companion.vault.lock import VaultLock
from companion.vault.models import HeaderRow, Record, db

log = logging.getLogger("companion.vault")

RekeyHook = Callable[[Sealer], None]

PRAGMAS = {
    "journal_mode": "wal",
    "synchronous": "full",
    "secure_delete": "on",
    "foreign_keys": 1,
    "busy_timeout": 5000,
    "temp_store": "memory",  # no temporary files on disk
}
SQLITE_MAGIC = b"SQLite format 3\x00"


def tuples(query: Any) -> Iterator[tuple[Any, ...]]:
    """A select's rows as SQLite gives them, without building models or converting values
    (a whole table reads a third faster)."""
    return iter(query.model._meta.database.execute(query))


def _damaged(paths: VaultPaths, reason: str) -> VaultDamaged:
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
        return "the file is truncated"
    return None


def read_header(path: Path, paths: VaultPaths) -> Header:
    """Read and check the header without writing to the database file."""
    problem = check_file(path)
    if problem:
        raise _damaged(paths, problem)
    sidecars = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    existed = [p.exists() for p in sidecars]
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT body, sha256 FROM header WHERE id = 1").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        raise _damaged(paths, "its database structure cannot be read") from None
    finally:
        # A read-only look may create empty WAL files; a refused unlock leaves none behind.
        for sidecar, was_there in zip(sidecars, existed, strict=True):
            if not was_there:
                sidecar.unlink(missing_ok=True)
    if row is None:
        raise _damaged(paths, "the header is missing")
    try:
        return Header.parse(row[0], row[1])
    except HeaderError as exc:
        raise _damaged(paths, str(exc)) from None


def is_storage_error(exc: BaseException | None) -> bool:
    """True when ``exc`` or what it arose from is "no space" (a failed COMMIT is often
    followed by a failed ROLLBACK, which hides the first error)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
            return True
        text = str(exc).lower()
        if any(word in text for word in ("full", "disk i/o", "too large", "file size")):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


@contextlib.contextmanager
def storage_errors() -> Iterator[None]:
    """Translate out-of-space failures; the transaction has already rolled back."""
    try:
        yield
    except (sqlite3.DatabaseError, pw.DatabaseError, OSError) as exc:
        if is_storage_error(exc):
            raise DiskFull(
                "could not save: the disk is full (or a file size limit was reached). "
                "Nothing was changed and what you had before is intact; free some space and "
                "try again."
            ) from None
        raise


class Vault:
    """An unlocked vault: the database, the sealer, and the lock that keeps it ours."""

    def __init__(self, paths: VaultPaths, header: Header, data_key: bytes, lock: VaultLock) -> None:
        self.paths = paths
        self.header = header
        self.sealer = Sealer(data_key, header.vault_id)
        self._data_key = data_key
        self._lock = lock
        self._write_lock = threading.RLock()
        self.generation = 0
        """Counts committed writes, so views can tell whether what they show is stale."""
        self.database = pw.SqliteDatabase(
            str(paths.db), pragmas=PRAGMAS, thread_safe=False, check_same_thread=False
        )
        db.initialize(self.database)
        self.database.connect()

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def create(
        cls, paths: VaultPaths, passphrase: str, kdf_memory_mib: int | None = None
    ) -> tuple[Vault, str]:
        """Create a vault; returns it and the recovery key, in the form to write down."""
        if paths.db.exists():
            raise VaultExists(
                f"a vault already exists at {paths.db}; it was not touched. Unlock it, or "
                "choose another folder with --data-dir."
            )
        kdf = crypto.choose_kdf(kdf_memory_mib)
        private_dir(paths.root)
        lock = VaultLock.acquire(paths)
        try:
            header, data_key, recovery_key = keys.new_header(passphrase, kdf)
            partial = paths.root / "vault.db.creating"
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()
            with storage_errors():
                touch_private(partial)
                conn = sqlite3.connect(partial, isolation_level=None)
                try:
                    conn.execute("PRAGMA journal_mode = DELETE")
                    migrations.create_v1(conn)
                    migrations.migrate(conn)
                    body = header.to_body()
                    conn.execute(
                        "INSERT INTO header (id, body, sha256) VALUES (1, ?, ?)",
                        (body, Header.checksum(body)),
                    )
                finally:
                    conn.close()
                os.replace(partial, paths.db)
            vault = cls(paths, header, data_key, lock)
        except BaseException:
            lock.release()
            raise
        log.info("vault created")
        return vault, crypto.format_recovery_key(recovery_key)

    @classmethod
    def unlock(
        cls,
        paths: VaultPaths,
        passphrase: str | None = None,
        recovery_key: bytes | None = None,
        daily_backup: bool = True,
        session_token: str | None = None,
    ) -> Vault:
        if not paths.db.exists():
            raise VaultMissing(
                f"no vault at {paths.db}. Create one with `companion init`, or point to yours "
                "with --data-dir or COMPANION_HOME."
            )
        lock = VaultLock.acquire(paths)
        try:
            header = read_header(paths.db, paths)
            data_key = keys.open_data_key(header, passphrase, recovery_key, session_token)
            vault = cls(paths, header, data_key, lock)
        except BaseException:
            lock.release()
            raise
        try:
            vault._after_unlock(daily_backup)
        except BaseException:
            vault.close()
            raise
        log.info("vault unlocked")
        return vault

    def _after_unlock(self, daily_backup: bool) -> None:
        conn = self.conn
        try:
            version = migrations.schema_version(conn)
            if version > migrations.CURRENT_VERSION:
                raise VaultDamaged(
                    f"this vault uses schema {version}, newer than this Companion understands "
                    f"({migrations.CURRENT_VERSION}). Upgrade Companion; the vault was not changed."
                )
            if version < migrations.CURRENT_VERSION:
                with storage_errors():
                    self.backup(f"pre-migration-v{version}")
                    reached = migrations.migrate(conn)
                log.info("migrated schema to %s", reached[-1] if reached else version)
            if daily_backup and not backup.has_backup_for_today(self.paths):
                with storage_errors():
                    self.backup("daily")
        except sqlite3.DatabaseError:
            raise _damaged(self.paths, "its database structure cannot be read") from None

    def close(self) -> None:
        """Close the database and release the lock; the data key is dropped with the object."""
        with contextlib.suppress(Exception):
            self.database.close()
        self._lock.release()
        self._data_key = b""

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ------------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        connection: sqlite3.Connection = self.database.connection()
        return connection

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One durable write transaction (BEGIN IMMEDIATE ... COMMIT with fsync)."""
        with self._write_lock, storage_errors(), self.database.atomic("IMMEDIATE"):
            yield
        self.generation += 1

    def insert(self, model: type[Record], payload: dict[str, Any], **meta: Any) -> int:
        """Insert a row and seal its payload under the id SQLite gave it."""
        with self.transaction():
            rid = model.insert(payload=b"", **meta).execute()
            sealed = self.sealer.seal(model.kind(), rid, payload)
            model.update(payload=sealed).where(model._meta.primary_key == rid).execute()
        return int(rid)

    def update(
        self, model: type[Record], rid: Any, payload: dict[str, Any] | None = None, **meta: Any
    ) -> None:
        values = dict(meta)
        if payload is not None:
            values["payload"] = self.sealer.seal(model.kind(), rid, payload)
        with self.transaction():
            model.update(**values).where(model._meta.primary_key == rid).execute()

    def unseal(self, model: type[Record], rid: Any, sealed: bytes) -> dict[str, Any]:
        return self.sealer.open(model.kind(), rid, sealed)

    # -- keys ---------------------------------------------------------------------------

    def _write_header(self, header: Header) -> None:
        body = header.to_body()
        HeaderRow.update(body=body, sha256=Header.checksum(body)).where(HeaderRow.id == 1).execute()
        # Sessions are bound to the old header and could no longer open the vault; a session
        # file wrapping a retired data key is also one thing fewer to leak.
        session.end(header.vault_id)

    def start_session(self, length: timedelta = session.DEFAULT_LENGTH) -> tuple[str, datetime]:
        """A token that opens this vault without the passphrase until it expires."""
        return session.start(self.header, self._data_key, length)

    def change_passphrase(self, new_passphrase: str) -> None:
        """Re-wrap the data key under a new passphrase in one transaction."""
        header = Header(self.header.vault_id, self.header.created_at, dict(self.header.slots))
        kdf = keys.same_cost_new_salt(self.header)
        header.slots["passphrase"] = keys.passphrase_slot(
            header.vault_id, self._data_key, new_passphrase, kdf
        )
        with self.transaction():
            self._write_header(header)
        self.header = header

    def new_recovery_key(self) -> str:
        """Issue a new recovery key; the old one stops working in the same transaction."""
        header = Header(self.header.vault_id, self.header.created_at, dict(self.header.slots))
        header.slots["recovery"], recovery_key = keys.recovery_slot(header.vault_id, self._data_key)
        with self.transaction():
            self._write_header(header)
        self.header = header
        return crypto.format_recovery_key(recovery_key)

    def rekey(self, passphrase: str, hooks: Iterable[RekeyHook]) -> str:
        """Re-encrypt every record under a fresh data key; returns the new recovery key.

        ``hooks`` come from the owners of keyed columns (journal fingerprints): each gets the
        new sealer inside the same transaction, after every payload is sealed under it."""
        from companion.vault.models import SEALED_TABLES

        data_key = crypto.new_data_key()
        sealer = Sealer(data_key, self.header.vault_id)
        kdf = keys.same_cost_new_salt(self.header)
        header = Header(self.header.vault_id, self.header.created_at, {})
        header.slots["passphrase"] = keys.passphrase_slot(
            header.vault_id, data_key, passphrase, kdf
        )
        header.slots["recovery"], recovery_key = keys.recovery_slot(header.vault_id, data_key)
        conn = self.conn
        with self.transaction():
            for model in SEALED_TABLES:
                table, pk = model.kind(), model.key_column()
                rows = conn.execute(f'SELECT "{pk}", payload FROM "{table}"').fetchall()
                for rid, sealed in rows:
                    plain = self.sealer.open_bytes(table, rid, "payload", sealed)
                    conn.execute(
                        f'UPDATE "{table}" SET payload = ? WHERE "{pk}" = ?',
                        (sealer.seal_bytes(table, rid, "payload", plain), rid),
                    )
            for hook in hooks:
                hook(sealer)
            self._write_header(header)
        self.header, self.sealer, self._data_key = header, sealer, data_key
        return crypto.format_recovery_key(recovery_key)

    # -- backups ------------------------------------------------------------------------

    def backup(self, reason: str = "manual") -> Path:
        with self._write_lock:
            path = backup.make_backup(self.conn, self.paths, reason)
        log.info("backup written (%s)", reason)
        return path
