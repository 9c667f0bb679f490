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
    RecordDamaged,
    VaultDamaged,
    VaultExists,
    VaultMissing,
)
from companion.paths import VaultPaths, private_dir, touch_private
from companion.vault import backup, crypto, integrity, keys, migrations, session
from companion.vault.crypto import Sealer
from companion.vault.files import check_header_mac, damaged, read_header, read_session_epoch
from companion.vault.header import Header
from companion.vault.lock import VaultLock
from companion.vault.models import SEALED_TABLES, HeaderRow, Record, db

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


def tuples(query: Any) -> Iterator[tuple[Any, ...]]:
    """A select's rows as SQLite gives them, without building models or converting values
    (a whole table reads a third faster)."""
    return iter(query.model._meta.database.execute(query))


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
        self.keys = integrity.Keys(data_key)
        self._data_key = data_key
        self._lock = lock
        self._write_lock = threading.RLock()
        self.generation = 0
        """Counts committed writes, so views can tell whether what they show is stale."""
        self.manifest: integrity.Manifest | None = None
        """The integrity manifest as of the last write; None while it cannot be trusted."""
        self.findings: list[integrity.Finding] = []
        """What the unlock-time integrity check found (see :meth:`check_integrity`)."""
        self._manifest_dirty = False
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
                    mac_keys = integrity.Keys(data_key)
                    migrations.migrate(conn, _keyed_steps(mac_keys))
                    body = header.to_body()
                    conn.execute(
                        "INSERT INTO header (id, body, sha256, hmac) VALUES (1, ?, ?, ?)",
                        (body, Header.checksum(body), mac_keys.header(body)),
                    )
                finally:
                    conn.close()
                os.replace(partial, paths.db)
            vault = cls(paths, header, data_key, lock)
            vault.manifest = integrity.Manifest({m.kind(): [0, 0] for m in SEALED_TABLES})
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
        progress: Progress | None = None,
    ) -> Vault:
        """Open the vault. ``progress(done, total)`` hears how far a schema upgrade is."""
        if not paths.db.exists():
            raise VaultMissing(
                f"no vault at {paths.db}. Create one with `companion init`, or point to yours "
                "with --data-dir or COMPANION_HOME."
            )
        lock = VaultLock.acquire(paths)
        try:
            header = read_header(paths.db, paths)
            epoch = read_session_epoch(paths.db) if session_token is not None else None
            data_key = keys.open_data_key(header, passphrase, recovery_key, session_token, epoch)
            check_header_mac(header, integrity.Keys(data_key), paths)
            vault = cls(paths, header, data_key, lock)
        except BaseException:
            lock.release()
            raise
        try:
            vault._after_unlock(daily_backup, progress)
        except BaseException:
            vault.close()
            raise
        log.info("vault unlocked")
        return vault

    def _after_unlock(self, daily_backup: bool, progress: Progress | None) -> None:
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
                    reached = migrations.migrate(conn, _keyed_steps(self.keys, progress))
                log.info("migrated schema to %s", reached[-1] if reached else version)
            self.check_integrity()
            backup.sweep_leftovers(self.paths)
            if daily_backup and not backup.has_backup_for_today(self.paths):
                with storage_errors():
                    self.backup("daily")
        except sqlite3.DatabaseError:
            raise damaged(self.paths, "its database structure cannot be read") from None

    def check_integrity(self) -> list[integrity.Finding]:
        """The cheap check (manifest MAC, row counts, no foreign triggers); a full check of
        every row is :func:`companion.vault.maintenance.verify`."""
        self.findings, self.manifest = integrity.quick_check(self.conn, self.keys)
        if self.findings:
            log.warning("integrity check found damage in %d place(s)", len(self.findings))
        return self.findings

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
        """One durable write transaction (BEGIN IMMEDIATE ... COMMIT with fsync). The manifest
        is written once, at the end of the outermost one; a rollback restores it."""
        with self._write_lock:
            saved = self.manifest.copy() if self.manifest is not None else None
            outermost = not self.database.in_transaction()
            try:
                with storage_errors(), self.database.atomic("IMMEDIATE"):
                    yield
                    if outermost and self._manifest_dirty and self.manifest is not None:
                        integrity.write_manifest(self.conn, self.keys, self.manifest)
                        self._manifest_dirty = False
            except BaseException:
                self.manifest = saved
                raise
        self.generation += 1

    def _row(self, model: type[Record], rid: Any) -> dict[str, Any] | None:
        pk = model.key_column()
        found = integrity.rows(self.conn, model, f'"{pk}" = ?', (rid,))
        return next(found, None)

    def _write(
        self,
        model: type[Record],
        old: dict[str, Any],
        changes: dict[str, Any],
        payload: dict[str, Any] | None,
        fresh: bool = False,
    ) -> None:
        """Write one row's new values with its next version and MAC, and account for it in
        the manifest. A row that fails its MAC is not rewritten: that would launder the damage."""
        table, pk = model.kind(), model.key_column()
        if not fresh and not self.keys.check_row(table, old, pk):
            raise RecordDamaged(table, old[pk])
        row = {**old, **integrity.stored(model, changes)}
        if payload is not None:
            row["payload"] = self.sealer.seal(table, row[pk], payload)
        row["row_version"] = int(old.get("row_version") or 0) + 1
        row["row_mac"] = self.keys.row(table, row, pk)
        names = [n for n in row if n != pk and (n not in old or row[n] != old[n])]
        assignments = ", ".join(f'"{n}" = ?' for n in names)
        self.conn.execute(
            f'UPDATE "{table}" SET {assignments} WHERE "{pk}" = ?',
            [*(row[n] for n in names), row[pk]],
        )
        if self.manifest is not None:
            if not fresh:
                self.manifest.remove(table, old.get("row_mac"))
            self.manifest.add(table, row["row_mac"])
            self._manifest_dirty = True

    def insert(self, model: type[Record], payload: dict[str, Any], **meta: Any) -> int:
        """Insert a row and seal its payload under the id SQLite gave it."""
        with self.transaction():
            rid = model.insert(payload=b"", **meta).execute()
            if model.key_column() != "id":
                rid = meta.get(model.key_column(), rid)
            row = self._row(model, rid)
            assert row is not None
            self._write(model, row, {}, payload, fresh=True)
        return int(rid) if isinstance(rid, int) else rid

    def update(
        self, model: type[Record], rid: Any, payload: dict[str, Any] | None = None, **meta: Any
    ) -> None:
        with self.transaction():
            row = self._row(model, rid)
            if row is not None:
                self._write(model, row, meta, payload)

    def put(self, model: type[Record], rid: Any, payload: dict[str, Any], **meta: Any) -> None:
        """Insert or replace the row with this key (settings, the profile)."""
        with self.transaction():
            row = self._row(model, rid)
            if row is None:
                self.insert(model, payload, **{model.key_column(): rid}, **meta)
            else:
                self._write(model, row, meta, payload)

    def update_where(self, model: type[Record], where: Any, **meta: Any) -> int:
        """Change plaintext columns of every row ``where`` selects; damaged rows are left as
        they are (and stay reported). Returns how many rows changed."""
        names = integrity.columns_of(model)
        changed = 0
        with self.transaction():
            query = model.select() if where is None else model.select().where(where)
            for values in list(tuples(query)):
                row = dict(zip(names, values, strict=True))
                try:
                    self._write(model, row, meta, None)
                except RecordDamaged:
                    continue
                changed += 1
        return changed

    def delete_where(self, model: type[Record], where: Any) -> int:
        """Delete the rows ``where`` selects (None: all), with what depends on them: rows that
        cascade are deleted, links that would go null are cleared, each through this door."""
        table, pk = model.kind(), model.key_column()
        key = model._meta.primary_key
        with self.transaction():
            query = model.select(key, model.row_mac)
            found = list(tuples(query if where is None else query.where(where)))
            ids = [rid for rid, _ in found]
            for chunk in _chunks(ids):
                for fk, child in model._meta.backrefs.items():
                    if fk.on_delete == "CASCADE":
                        self.delete_where(child, fk << chunk)
                    else:
                        self.update_where(child, fk << chunk, **{fk.name: None})
                marks = ", ".join("?" * len(chunk))
                self.conn.execute(f'DELETE FROM "{table}" WHERE "{pk}" IN ({marks})', chunk)
            if self.manifest is not None and found:
                for _, mac in found:
                    self.manifest.remove(table, mac)
                self._manifest_dirty = True
        return len(found)

    def erase_traces(self) -> None:
        """After a delete: fold the WAL into the file and empty it, so the deleted words'
        old pages are gone from disk (secure_delete already zeroes them in the file)."""
        with self._write_lock, contextlib.suppress(sqlite3.DatabaseError):
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def unseal(self, model: type[Record], rid: Any, sealed: bytes) -> dict[str, Any]:
        """The payload alone; use :meth:`open` where the row's flags and links matter."""
        return self.sealer.open(model.kind(), rid, sealed)

    def authentic(self, instance: Record) -> bool:
        """Whether a row read whole still carries the MAC of what Companion wrote."""
        model = type(instance)
        return self.keys.check_row(model.kind(), integrity.row_of(instance), model.key_column())

    def open(self, instance: Record) -> dict[str, Any]:
        """A row read whole: its payload, once every column is checked against its MAC."""
        if not self.authentic(instance):
            raise RecordDamaged(type(instance).kind(), instance.get_id())
        return self.unseal(type(instance), instance.get_id(), instance.payload)  # type: ignore[attr-defined]

    # -- keys ---------------------------------------------------------------------------

    def _write_header(self, header: Header, mac_keys: integrity.Keys | None = None) -> None:
        body = header.to_body()
        mac = (mac_keys or self.keys).header(body)
        HeaderRow.update(body=body, sha256=Header.checksum(body), hmac=mac).where(
            HeaderRow.id == 1
        ).execute()
        header.stored_body, header.stored_mac = body, mac
        # Sessions are bound to the old header and could no longer open the vault; a session
        # file wrapping a retired data key is also one thing fewer to leak.
        session.end(header.vault_id)

    def start_session(self, length: timedelta = session.DEFAULT_LENGTH) -> tuple[str, datetime]:
        """A token that opens this vault without the passphrase until it expires or until
        `companion lock`. A new session gets a new epoch, which ends any earlier one."""
        epoch = session.new_epoch()
        with self.transaction():
            self.conn.execute(
                "INSERT INTO session_epoch (id, value) VALUES (1, ?) "
                "ON CONFLICT (id) DO UPDATE SET value = excluded.value",
                (epoch,),
            )
        self.erase_traces()
        return session.start(self.header, self._data_key, epoch, length)

    def change_passphrase(self, new_passphrase: str) -> None:
        """Re-wrap the data key under a new passphrase in one transaction."""
        header = self.header.replaced(dict(self.header.slots))
        kdf = keys.renewed_cost(self.header)
        header.slots["passphrase"] = keys.passphrase_slot(
            header.vault_id, self._data_key, new_passphrase, kdf
        )
        with self.transaction():
            self._write_header(header)
        self.header = header

    def new_recovery_key(self) -> str:
        """Issue a new recovery key; the old one stops working in the same transaction."""
        header = self.header.replaced(dict(self.header.slots))
        header.slots["recovery"], recovery_key = keys.recovery_slot(header.vault_id, self._data_key)
        with self.transaction():
            self._write_header(header)
        self.header = header
        return crypto.format_recovery_key(recovery_key)

    def rekey(self, passphrase: str, hooks: Iterable[RekeyHook]) -> str:
        """Re-encrypt every record under a fresh data key; returns the new recovery key.

        ``hooks`` come from the owners of keyed columns (journal fingerprints): each gets the
        new sealer inside the same transaction, after every payload is sealed under it. A vault
        with damage is not rekeyed: new MACs over damaged rows would hide the damage."""
        found, _ = integrity.full_check(self.conn, self.keys)
        if found:
            raise VaultDamaged(
                f"the vault has damage ({found[0].describe()}), so it was not re-encrypted. "
                "Run `companion verify` to see it all."
            )
        data_key = crypto.new_data_key()
        sealer, mac_keys = Sealer(data_key, self.header.vault_id), integrity.Keys(data_key)
        kdf = keys.renewed_cost(self.header)
        header = self.header.replaced({})
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
            manifest = integrity.seal_all(conn, mac_keys)
            integrity.write_manifest(conn, mac_keys, manifest)
            self._write_header(header, mac_keys)
            self._manifest_dirty = False
        self.header, self.sealer, self._data_key = header, sealer, data_key
        self.keys, self.manifest = mac_keys, manifest
        return crypto.format_recovery_key(recovery_key)

    # -- backups ------------------------------------------------------------------------

    def backup(self, reason: str = "manual") -> Path:
        with self._write_lock:
            path = backup.make_backup(self.conn, self.paths, reason)
        log.info("backup written (%s)", reason)
        return path

    def rewrite_backups(self) -> int:
        """Replace every backup and set-aside vault with one backup of the vault as it is now,
        so what was deleted (or sealed under a retired key) is in no copy. Returns how many
        older copies went; their restore points go with them."""
        self.erase_traces()
        fresh = self.backup("rewritten")
        removed = 0
        for old in backup.held_copies(self.paths):
            if old != fresh:
                old.unlink(missing_ok=True)
                removed += 1
        return removed


Progress = Callable[[int, int], None]


def _chunks(ids: list[Any], size: int = 500) -> Iterator[list[Any]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _keyed_steps(mac_keys: integrity.Keys, progress: Progress | None = None) -> migrations.Keyed:
    """The parts of schema steps that need the key, run inside the step's own transaction."""

    def keyed(conn: sqlite3.Connection, version: int) -> None:
        if version == 6:
            manifest = integrity.seal_all(conn, mac_keys, progress)
            integrity.write_manifest(conn, mac_keys, manifest)
            row = conn.execute("SELECT body FROM header WHERE id = 1").fetchone()
            if row is not None:
                conn.execute("UPDATE header SET hmac = ? WHERE id = 1", (mac_keys.header(row[0]),))

    return keyed
