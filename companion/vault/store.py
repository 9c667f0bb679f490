"""Opening and creating the vault, its keys and its backups (rows: see records.py).

The database is opened read-only until the passphrase has unwrapped the data key, so a wrong
passphrase or a damaged file never changes a byte.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from pathlib import Path

import peewee as pw

from companion.errors import (
    VaultBusy,
    VaultDamaged,
    VaultExists,
    VaultMissing,
)
from companion.paths import VaultPaths, private_dir, touch_private
from companion.vault import backup, checks, crypto, integrity, keys, migrations, session
from companion.vault.crypto import Sealer
from companion.vault.files import check_header_mac, damaged, read_header, read_session_epoch
from companion.vault.header import Header
from companion.vault.lock import VaultLock
from companion.vault.models import SEALED_TABLES, HeaderRow, db
from companion.vault.records import Records, storage_errors

log = logging.getLogger("companion.vault")

RekeyHook = Callable[[Sealer, Sealer], None]
"""Called with the old sealer and the new one, inside rekey's transaction."""

PRAGMAS = {
    "journal_mode": "wal",
    "synchronous": "full",
    "secure_delete": "on",
    "foreign_keys": 1,
    "busy_timeout": 5000,
    "temp_store": "memory",  # no temporary files on disk
}


class Vault(Records):
    """An unlocked vault: the database, the sealer, and the lock that keeps it ours."""

    def __init__(
        self,
        paths: VaultPaths,
        header: Header,
        data_key: bytes,
        lock: VaultLock,
        read_only: bool = False,
    ) -> None:
        if read_only:  # beside the app that holds the vault: reads only, through SQLite's locks
            database = pw.SqliteDatabase(
                f"file:{paths.db}?mode=ro",
                uri=True,
                pragmas={"foreign_keys": 1, "busy_timeout": 5000, "temp_store": "memory"},
                thread_safe=False,
                check_same_thread=False,
            )
        else:
            database = pw.SqliteDatabase(
                str(paths.db), pragmas=PRAGMAS, thread_safe=False, check_same_thread=False
            )
        self.read_only = read_only
        super().__init__(database, Sealer(data_key, header.vault_id), integrity.Keys(data_key))
        self.paths = paths
        self.header = header
        self._data_key = data_key
        self._lock = lock
        self.findings: list[checks.Finding] = []
        """What the unlock-time integrity check found (see :meth:`check_integrity`)."""
        db.initialize(self.database)
        self.database.connect()
        # Text that is not UTF-8 (planted in a plaintext column) is read with its bad bytes
        # escaped instead of stopping the query: the row then fails its MAC, as damage does.
        self.conn.text_factory = checks.lenient_text

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
                    migrations.migrate(
                        conn, _keyed_steps(mac_keys, Sealer(data_key, header.vault_id))
                    )
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
            vault.rebuild_index()
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
        read_only: bool = False,
    ) -> Vault:
        """Open the vault. ``progress(done, total)`` hears how far a schema upgrade is.
        ``read_only``: beside another Companion that holds the vault (the app), for commands
        that only read; nothing is upgraded, backed up or written."""
        if not paths.db.exists():
            raise VaultMissing(
                f"no vault at {paths.db}. Create one with `companion init`, or point to yours "
                "with --data-dir or COMPANION_HOME."
            )
        lock = VaultLock.shared(paths) if read_only else VaultLock.acquire(paths)
        try:
            header = read_header(paths.db, paths)
            epoch = read_session_epoch(paths.db) if session_token is not None else None
            opened = keys.open_data_key(header, passphrase, recovery_key, session_token, epoch)
            check_header_mac(header, integrity.Keys(opened.data_key), paths)
            vault = cls(paths, header, opened.data_key, lock, read_only)
        except BaseException:
            lock.release()
            raise
        try:
            if read_only:
                vault._check_read_only()
            else:
                vault._after_unlock(daily_backup, progress, opened)
        except BaseException:
            vault.close()
            raise
        log.info("vault unlocked")
        return vault

    def _after_unlock(
        self, daily_backup: bool, progress: Progress | None, opened: keys.Opened
    ) -> None:
        conn = self.conn
        try:
            version = migrations.schema_version(conn)
            if version < opened.floor:
                raise damaged(
                    self.paths,
                    "its tables were taken back to a format from before every record was "
                    "authenticated, outside Companion",
                )
            if version > migrations.CURRENT_VERSION:
                raise VaultDamaged(
                    f"this vault uses schema {version}, newer than this Companion understands "
                    f"({migrations.CURRENT_VERSION}). Upgrade Companion; the vault was not changed."
                )
            if version < migrations.CURRENT_VERSION:
                with storage_errors():
                    self.backup(f"pre-migration-v{version}")
                    header = self._rewrapped(opened)
                    reached = migrations.migrate(
                        conn, _keyed_steps(self.keys, self.sealer, progress, header)
                    )
                    if header is not None and 6 in reached:
                        self.header = header
                log.info("migrated schema to %s", reached[-1] if reached else version)
            self.check_integrity()
            if self.manifest is not None and not self.index.ready():
                with storage_errors():  # a new schema, or a new way of cutting words
                    self.rebuild_index(progress)
            backup.sweep_leftovers(self.paths)
            if daily_backup and not backup.has_backup_for_today(self.paths):
                with storage_errors():
                    self.backup("daily")
        except sqlite3.DatabaseError:
            raise damaged(self.paths, "its database structure cannot be read") from None

    def _check_read_only(self) -> None:
        """What a reader beside the app can check: the schema is current, the manifest."""
        try:
            if migrations.schema_version(self.conn) != migrations.CURRENT_VERSION:
                raise VaultBusy(
                    "the vault is open in another Companion and needs an upgrade this one "
                    "cannot do while it is open. Close the app and run the command again."
                )
            self.check_integrity()
        except sqlite3.DatabaseError:
            raise damaged(self.paths, "its database structure cannot be read") from None

    def _rewrapped(self, opened: keys.Opened) -> Header | None:
        """The header with the slot just opened wrapped again for schema 6 (see
        crypto.SCHEMA_FLOOR); the other slot follows when it is next used or replaced."""
        slot = opened.rewrapped(self.header.vault_id)
        if slot is None:
            return None
        return self.header.replaced({**self.header.slots, slot.kind: slot})

    def check_integrity(self) -> list[checks.Finding]:
        """The cheap check (manifest MAC, row counts, no foreign triggers); a full check of
        every row is :func:`companion.vault.maintenance.verify`."""
        self.findings, self.manifest = checks.quick_check(self.conn, self.keys)
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
        old and the new sealer inside the same transaction, after every payload is sealed under
        the new one. A vault with damage is not rekeyed: new MACs over damaged rows would hide
        the damage."""
        found, _ = checks.full_check(self.conn, self.keys)
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
                hook(self.sealer, sealer)
            manifest = checks.seal_all(conn, mac_keys)
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
        older copies went; their restore points go with them. A damaged vault keeps its
        backups: they may be what the user restores from."""
        found, _ = checks.full_check(self.conn, self.keys)
        if found:
            raise VaultDamaged(
                f"the vault has damage ({found[0].describe()}), so its backups were kept: one "
                "of them may be what you restore from. Run `companion verify` to see it all."
            )
        self.erase_traces()
        fresh = self.backup("rewritten")
        removed = 0
        for old in backup.held_copies(self.paths):
            if old != fresh:
                old.unlink(missing_ok=True)
                removed += 1
        return removed


Progress = Callable[[int, int], None]


def _keyed_steps(
    mac_keys: integrity.Keys,
    sealer: Sealer,
    progress: Progress | None = None,
    header: Header | None = None,
) -> migrations.Keyed:
    """The parts of schema steps that need the key, run inside the step's own transaction."""

    def keyed(conn: sqlite3.Connection, version: int) -> None:
        if version == 6:
            manifest = checks.seal_all(conn, mac_keys, progress, sealer)
            integrity.write_manifest(conn, mac_keys, manifest)
            if header is not None:  # the opened slot, wrapped again with the schema floor
                body = header.to_body()
                conn.execute(
                    "UPDATE header SET body = ?, sha256 = ?, hmac = ? WHERE id = 1",
                    (body, Header.checksum(body), mac_keys.header(body)),
                )
                header.stored_body, header.stored_mac = body, mac_keys.header(body)
                return
            row = conn.execute("SELECT body FROM header WHERE id = 1").fetchone()
            if row is not None:
                conn.execute("UPDATE header SET hmac = ? WHERE id = 1", (mac_keys.header(row[0]),))

    return keyed
