"""Backups (daily, before migrations, seven kept), restoring one, and schema migration."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

import pytest

from companion import clock
from companion.activity import journal
from companion.errors import VaultDamaged, WrongPassphrase
from companion.paths import VaultPaths, touch_private
from companion.vault import Vault, backup, keys, migrations
from companion.vault.crypto import Sealer, choose_kdf
from companion.vault.header import Header
from companion.vault.maintenance import restore, verify_backup
from tests.conftest import PASSPHRASE, run_cli

START = datetime(2026, 5, 1, 9, 0).astimezone()


def test_one_backup_a_day_and_seven_kept(created) -> None:
    paths, _ = created
    for day in range(10):
        for hour in (9, 18):  # the second unlock of a day adds nothing
            clock.set_clock(lambda d=day, h=hour: START + timedelta(days=d, hours=h - 9))
            Vault.unlock(paths, PASSPHRASE).close()
    names = [p.name for p in backup.list_backups(paths)]
    assert len(names) == 7
    assert names[0].startswith("vault-20260504") and names[-1].startswith("vault-20260510")


def test_backup_verify_and_restore(created, passfile) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "in the backup")
        saved = vault.backup("manual")
        journal.add(vault, "after the backup")
    checked = run_cli("--passphrase-file", str(passfile), "verify", "--backup", str(saved))
    assert checked.returncode == 0 and "vault OK" in checked.stdout
    result = run_cli("--passphrase-file", str(passfile), "restore", str(saved))
    assert result.returncode == 0, result.stderr
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert [e.text for e in journal.newest(vault)] == ["in the backup"]
    aside = next((paths.root / "replaced").glob("vault-*.db"))
    conn = sqlite3.connect(aside)
    assert conn.execute("SELECT count(*) FROM journal_entry").fetchone()[0] == 2
    conn.close()


def test_restore_works_when_the_vault_is_destroyed(created) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "precious")
        saved = vault.backup("manual")
    paths.db.write_bytes(b"\0" * 100)
    with pytest.raises(VaultDamaged) as info:
        Vault.unlock(paths, PASSPHRASE)
    assert str(saved) in str(info.value)
    restore(saved, paths, PASSPHRASE)
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert journal.get(vault, 1).text == "precious"


def test_a_backup_needs_its_own_passphrase_and_damage_blocks_restore(created) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "x")
        saved = vault.backup("manual")
    with pytest.raises(WrongPassphrase):
        verify_backup(saved, paths, "something else")
    conn = sqlite3.connect(saved)
    blob = bytearray(conn.execute("SELECT payload FROM journal_entry").fetchone()[0])
    blob[20] ^= 1
    conn.execute("UPDATE journal_entry SET payload=?", (bytes(blob),))
    conn.commit()
    conn.close()
    assert verify_backup(saved, paths, PASSPHRASE).damaged == [("journal_entry", "1")]
    with pytest.raises(VaultDamaged):
        restore(saved, paths, PASSPHRASE)


def build_v1_vault(paths: VaultPaths) -> None:
    """A vault exactly as schema 1 wrote it, with one sealed journal entry."""
    paths.root.mkdir(parents=True)
    header, data_key, _ = keys.new_header(PASSPHRASE, choose_kdf(64), floor=0)
    touch_private(paths.db)
    conn = sqlite3.connect(paths.db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    migrations.create_v1(conn)
    body = header.to_body()
    conn.execute("INSERT INTO header VALUES (1, ?, ?)", (body, Header.checksum(body)))
    conn.execute(
        "INSERT INTO journal_entry (id, created_at, local_date, updated_at, payload) "
        "VALUES (1, '2025-01-01T10:00:00.000000Z', '2025-01-01', '2025-01-01T10:00:00.000000Z', ?)",
        (
            Sealer(data_key, header.vault_id).seal(
                "journal_entry", 1, {"text": "from the old days", "title": "", "tags": []}
            ),
        ),
    )
    conn.close()


def test_migration_from_schema_1(paths) -> None:
    build_v1_vault(paths)
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert migrations.schema_version(vault.conn) == migrations.CURRENT_VERSION
        entry = journal.get(vault, 1)
        assert entry.text == "from the old days" and entry.starred is False
        journal.add(vault, "new and starred", starred=True)
    names = [p.name for p in backup.list_backups(paths)]
    assert any("pre-migration-v1" in n for n in names)
    pre = next(p for p in backup.list_backups(paths) if "pre-migration-v1" in p.name)
    with sqlite3.connect(pre) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1


def test_a_newer_schema_is_refused_untouched(created) -> None:
    paths, _ = created
    conn = sqlite3.connect(paths.db)
    conn.execute(f"PRAGMA user_version = {migrations.CURRENT_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(VaultDamaged) as info:
        Vault.unlock(paths, PASSPHRASE)
    assert "newer than this Companion" in str(info.value)


def test_a_backup_from_before_the_search_index_still_checks_out(created, tmp_path) -> None:
    """A schema 5 backup has none of the tables later schemas added; verify (and so restore)
    checks what it has instead of calling it damaged."""
    import shutil

    from benchmarks.vault_bench import downgrade_to_schema_5

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        journal.add(vault, "An entry from the old days")
    old = tmp_path / "old-backup.db"
    shutil.copy(paths.db, old)
    downgrade_to_schema_5(old, PASSPHRASE)
    report = verify_backup(old, paths, PASSPHRASE)
    assert report.clean, (report.damaged, report.findings)
    assert report.counts["journal_entry"] == 1
    assert "index_bucket" not in report.counts
