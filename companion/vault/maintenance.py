"""Checking every record, checking a backup, and restoring one."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from companion import clock
from companion.errors import InvalidInput, RecordDamaged, VaultDamaged, WrongPassphrase
from companion.paths import VaultPaths, private_dir
from companion.vault import backup, checks, integrity, keys, migrations, session
from companion.vault.crypto import Sealer
from companion.vault.files import check_file, check_header_mac, read_header
from companion.vault.lock import VaultLock
from companion.vault.models import IndexBucket, IndexDelta, IndexState
from companion.vault.store import Vault

INDEX_TABLES = {m.kind() for m in (IndexBucket, IndexDelta, IndexState)}


@dataclass
class VerifyReport:
    counts: dict[str, int] = field(default_factory=dict)
    damaged: list[tuple[str, str]] = field(default_factory=list)
    """(table, id) of each record whose payload or columns fail their check."""
    findings: list[checks.Finding] = field(default_factory=list)
    """Damage found by the integrity manifest (deleted, added or rolled-back rows)."""
    structure: str = "ok"

    @property
    def index_only(self) -> bool:
        """Damage only in the search index (rebuilt from the records, nothing lost)."""
        tables = {t for t, _ in self.damaged} | {f.table for f in self.findings}
        return bool(tables) and tables <= INDEX_TABLES and self.structure == "ok"

    @property
    def clean(self) -> bool:
        return not self.damaged and not self.findings and self.structure == "ok"


def verify_connection(
    conn: sqlite3.Connection, sealer: Sealer, keys: integrity.Keys
) -> VerifyReport:
    """Authenticate every record (its row MAC covers the sealed payload too, see
    checks.full_check) and the manifest; report damage by kind and id only."""
    report = VerifyReport()
    result = conn.execute("PRAGMA integrity_check").fetchall()
    if [r[0] for r in result] != ["ok"]:
        report.structure = "; ".join(str(r[0]) for r in result[:5])
    if migrations.schema_version(conn) >= 6:
        found, actual = checks.full_check(conn, keys)
        report.counts = {table: count for table, (count, _) in actual.tables.items()}
        for finding in found:
            if finding.record is None:
                report.findings.append(finding)
            else:
                report.damaged.append((finding.table, finding.record))
        return report
    # A backup from before rows had MACs: its payloads are all it has (and only its tables).
    for model in checks.present_tables(conn):
        table, pk = model.kind(), model.key_column()
        count = 0
        for rid, sealed in conn.execute(f'SELECT "{pk}", payload FROM "{table}"'):
            count += 1
            try:
                sealer.open(table, rid, sealed)
            except RecordDamaged:
                report.damaged.append((table, str(rid)))
        report.counts[table] = count
    return report


def verify(vault: Vault) -> VerifyReport:
    """Every record of the open vault, authenticated."""
    return verify_connection(vault.conn, vault.sealer, vault.keys)


def verify_backup(file: Path, paths: VaultPaths, passphrase: str) -> VerifyReport:
    """Open a backup read-only with the passphrase it was made under and check it all."""
    if not file.is_file():
        raise InvalidInput(f"no backup file at {file}.")
    problem = check_file(file)
    if problem:
        raise VaultDamaged(f"the backup {file} is damaged ({problem}).")
    header = read_header(file, VaultPaths(file.parent))
    opened = keys.open_with_passphrase(header, passphrase)
    if opened is None:
        raise WrongPassphrase(
            "that passphrase does not open this backup (or its header is damaged). A backup "
            "opens with the passphrase that was current when it was made."
        )
    data_key = opened.data_key
    mac_keys = integrity.Keys(data_key)
    check_header_mac(header, mac_keys, VaultPaths(file.parent))
    conn = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
    try:
        if migrations.schema_version(conn) < opened.floor:
            raise VaultDamaged(
                f"the backup {file} is damaged (its tables were taken back to a format from "
                "before every record was authenticated, outside Companion)."
            )
        return verify_connection(conn, Sealer(data_key, header.vault_id), mac_keys)
    except sqlite3.DatabaseError:
        raise VaultDamaged(
            f"the backup {file} is damaged (its structure cannot be read)."
        ) from None
    finally:
        conn.close()


def restore(file: Path, paths: VaultPaths, passphrase: str) -> Path | None:
    """Replace the vault with a checked backup; the current vault is kept aside.

    Works when the current vault is damaged or missing: it is never opened.
    Returns where the previous vault was moved, if there was one.
    """
    report = verify_backup(file, paths, passphrase)
    if not report.clean:
        raise VaultDamaged(
            f"the backup {file} has damaged records ({len(report.damaged)}); it was not restored."
        )
    private_dir(paths.root)
    lock = VaultLock.acquire(paths)
    try:
        aside = None
        stamp = clock.now().strftime("%Y%m%d-%H%M%S")
        if paths.db.exists():
            folder = private_dir(paths.root / "replaced")
            aside = folder / f"vault-{stamp}.db"
            for src in paths.sidecars():
                if src.exists():
                    os.replace(src, folder / (aside.name + src.name[len(paths.db.name) :]))
        incoming = paths.root / "vault.db.restoring"
        with contextlib.suppress(FileNotFoundError):
            incoming.unlink()
        source = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            backup.copy_database(source, incoming, wal=True)
        finally:
            source.close()
        os.replace(incoming, paths.db)
        # A session belongs to the vault it was started on, not to whatever replaces it.
        session.end_all()
        return aside
    finally:
        lock.release()
