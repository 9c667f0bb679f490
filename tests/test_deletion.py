"""Deleted means deleted: after a delete and a rewrite of the backups, no file in the vault's
folder (vault, WAL, backups, vaults set aside by restore, leftovers of killed backups)
decrypts the deleted words, under the old key or the new one."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from companion.activity import journal
from companion.paths import VaultPaths
from companion.vault import Vault
from companion.vault.crypto import Sealer
from companion.vault.models import SEALED_TABLES
from tests.conftest import PASSPHRASE, run_cli

SECRET = "I drank at Maya's wedding and nobody knows"


def readable_copies(root: Path, keys: list[bytes], vault_id: str) -> list[str]:
    """Every file under ``root`` whose bytes or whose decryptable rows hold the secret."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if SECRET.encode() in path.read_bytes():
            found.append(f"{path.name}: plaintext")
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError:
            continue
        try:
            for model in SEALED_TABLES:
                if model.kind() not in tables:
                    continue
                pk = model.key_column()
                for rid, sealed in conn.execute(f'SELECT "{pk}", payload FROM "{model.kind()}"'):
                    for key in keys:
                        try:
                            plain = Sealer(key, vault_id).open_bytes(
                                model.kind(), rid, "payload", sealed
                            )
                        except Exception:
                            continue
                        if SECRET.encode() in plain:
                            found.append(f"{path.name}: {model.kind()} {rid}")
        finally:
            conn.close()
    return found


def test_a_deleted_entry_leaves_every_copy_once_the_backups_are_rewritten(
    created: tuple[VaultPaths, str], passfile: Path
) -> None:
    paths = created[0]
    with Vault.unlock(paths, PASSPHRASE) as vault:
        entry = journal.add(vault, SECRET).id
        journal.add(vault, "an ordinary day")
        vault.backup("manual")
        old_key, vault_id = vault._data_key, vault.header.vault_id
    # What a killed backup and an earlier restore leave behind.
    newest = sorted(paths.backups.glob("vault-*.db"))[-1]
    shutil.copy(newest, paths.backups / "vault-20260101-000000-daily.partial")
    aside = paths.root / "replaced"
    aside.mkdir(mode=0o700)
    shutil.copy(newest, aside / "vault-20260101-000000.db")
    week_ago = time.time() - 8 * 86400
    os.utime(aside / "vault-20260101-000000.db", (week_ago, week_ago))

    rekeyed = run_cli("--passphrase-file", str(passfile), "rekey")
    assert rekeyed.returncode == 0, rekeyed.stderr
    assert "backup --rewrite" in rekeyed.stderr  # the offer, made without a terminal
    with Vault.unlock(paths, PASSPHRASE) as vault:
        new_key = vault._data_key
        # Unlocking swept the leftovers and the set-aside vault older than a week.
        assert not list(paths.backups.glob("*.partial"))
        assert not any(aside.iterdir())
    assert readable_copies(paths.root, [old_key, new_key], vault_id)  # the backups hold it

    deleted = run_cli(
        "--passphrase-file", str(passfile), "journal", "delete", str(entry), "--yes",
        "--purge-backups",
    )  # fmt: skip
    assert deleted.returncode == 0, deleted.stderr
    assert "rewrote the backups" in deleted.stderr
    assert readable_copies(paths.root, [old_key, new_key], vault_id) == []
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert [e.text for e in journal.newest(vault, 5)] == ["an ordinary day"]


def test_without_the_rewrite_the_command_says_where_the_words_remain(
    created: tuple[VaultPaths, str], passfile: Path
) -> None:
    paths = created[0]
    with Vault.unlock(paths, PASSPHRASE) as vault:
        entry = journal.add(vault, SECRET).id
        vault.backup("manual")
    deleted = run_cli("--passphrase-file", str(passfile), "journal", "delete", str(entry), "--yes")
    assert deleted.returncode == 0
    assert "still hold the deleted entry for up to 7 days" in deleted.stderr
    assert "companion backup --rewrite" in deleted.stderr


def test_the_app_offers_to_rewrite_the_backups_after_a_delete(
    created: tuple[VaultPaths, str],
) -> None:
    from companion.tui.screens.modals import ConfirmScreen
    from tests.tui_helpers import drive, screen_text, settle, unlock

    paths = created[0]
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, SECRET)
        vault.backup("manual")
        key, vault_id = vault._data_key, vault.header.vault_id
    assert readable_copies(paths.backups, [key], vault_id)

    async def scenario(app, pilot):  # type: ignore[no-untyped-def]
        await unlock(pilot, PASSPHRASE)
        await pilot.press("f5")
        await settle(pilot)
        entries = app.screen.query_one("#entries")
        entries.focus()
        entries.highlighted = 0
        await pilot.press("delete")
        await settle(pilot)
        await pilot.click("#yes")  # delete the entry
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        offer = screen_text(app)
        assert "the deleted entry until" in offer and "restore points go" in offer
        await pilot.click("#yes")  # rewrite the backups
        await settle(pilot)

    drive(paths, scenario)
    assert readable_copies(paths.root, [key], vault_id) == []


@pytest.mark.damages_vault
def test_a_damaged_vault_keeps_its_backups(created: tuple[VaultPaths, str], passfile: Path) -> None:
    """Rewriting the backups of a vault with damage would drop the copies it can be restored
    from: refused, and said why."""
    paths = created[0]
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "kept in the backup")
        journal.add(vault, "another day")
        vault.backup("manual")
    before = sorted(p.name for p in paths.backups.iterdir())
    conn = sqlite3.connect(paths.db, isolation_level=None)
    conn.execute("DELETE FROM journal_entry WHERE id = 1")
    conn.close()
    rewrite = run_cli(
        "--data-dir", str(paths.root), "--passphrase-file", str(passfile), "backup", "--rewrite"
    )
    assert rewrite.returncode == 65, rewrite.stderr
    assert "backups were kept" in rewrite.stderr
    assert sorted(p.name for p in paths.backups.iterdir()) == before


def test_a_forgotten_fact_leaves_the_vault_and_is_not_learned_again(
    created: tuple[VaultPaths, str],
) -> None:
    """Forgotten: out of every readable record at once, sealed in its tombstone for the week
    the user may undo it, then gone from the file, the WAL and every page; a fingerprint of
    its meaning keeps it from being learned again."""
    from datetime import timedelta

    from companion import clock
    from companion.activity import chat
    from companion.memory import forgetting, runs, store
    from companion.usecases.unlocked import Unlocked

    paths = created[0]
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        session = chat.start(vault).id
        said = chat.add_message(vault, session, "user", "keep what I told you")
        first = store.add_fact(
            vault, SECRET, "history", "semantic", "said", [f"chat_message:{said.id}"]
        )
        newer = store.edit_fact(vault, first, SECRET + ", not even Dan")
        run = runs.start_run(vault)
        runs.finish_run(vault, run, "done", {"changes": [f"+ {SECRET}", "+ Likes tea"]})
        forgetting.forget_fact(vault, newer)
        latest = runs.latest_run(vault)
        assert latest is not None and latest[1]["changes"] == ["+ Likes tea"]
        assert store.live_facts(vault) == [] and store.all_facts(vault) == []
        assert forgetting.is_forgotten(vault, SECRET) and forgetting.is_forgotten(
            vault, SECRET.upper() + "."
        )
        assert [f.text for f in forgetting.undoable(vault)] == [SECRET + ", not even Dan"]
        key, vault_id = vault._data_key, vault.header.vault_id
    later = clock.now() + timedelta(days=forgetting.UNDO_DAYS, minutes=1)
    clock.set_clock(lambda: later)
    try:
        with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
            Unlocked.open(vault)  # the unlock empties week-old tombstones
            assert forgetting.undoable(vault) == []
            assert forgetting.is_forgotten(vault, SECRET + ", not even Dan")
    finally:
        clock.set_clock(None)
    assert readable_copies(paths.root, [key], vault_id) == []
