"""Attacks on a closed vault file with sqlite3 and no key: each is reported as damage that
names what was hit, and nothing that fails its check reaches a model or the coach's context."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from companion.activity import chat, journal
from companion.errors import VaultDamaged
from companion.llm import configured
from companion.memory import extraction, forgetting, store
from companion.paths import VaultPaths
from companion.vault import Vault
from tests.conftest import PASSPHRASE, child_env, run_cli
from tests.extraction_helpers import answer
from tests.fake_llm import tool

pytestmark = pytest.mark.damages_vault


@pytest.fixture
def db(created: tuple[VaultPaths, str]) -> Path:
    return created[0].db


def edit(db: Path, *statements: str, args: tuple[object, ...] = ()) -> None:
    """What someone with the file and sqlite3, but no key, can do."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        for sql in statements:
            conn.execute(sql, args if "?" in sql else ())
    finally:
        conn.close()


def opened(paths: VaultPaths) -> Vault:
    return Vault.unlock(paths, PASSPHRASE, daily_backup=False)


def verify_cli(paths: VaultPaths, passfile: Path) -> tuple[int, str]:
    result = run_cli("--data-dir", str(paths.root), "--passphrase-file", str(passfile), "verify")
    return result.returncode, result.stdout


def test_flipping_off_record_is_damage_and_extraction_never_sends_it(
    created: tuple[VaultPaths, str], db: Path, passfile: Path, fake_llm
) -> None:
    paths = created[0]
    with opened(paths) as vault:
        private = chat.start(vault, "not for memory", off_record=True).id
        chat.add_message(vault, private, "user", "the secret I only said off the record")
        public = chat.start(vault, "fine").id
        chat.add_message(vault, public, "user", "an ordinary thing to remember")
    edit(db, f"UPDATE chat_session SET off_record = 0 WHERE id = {private}")

    code, out = verify_cli(paths, passfile)
    assert code == 65
    assert f"DAMAGED: chat_session {private}" in out

    with opened(paths) as vault:
        fake_llm.push(tool(answer()))
        result = asyncio.run(extraction.extract(vault, configured(vault, "extraction")))
        assert result.ran and not result.error, result.error
        assert chat.get_session(vault, private).off_record  # treated as off the record
    sent = json.dumps(fake_llm.requests)
    assert "an ordinary thing to remember" in sent
    assert "the secret I only said off the record" not in sent


def test_an_undeleted_fact_is_damage_and_stays_out_of_the_context(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    from companion.coach import prompt

    paths = created[0]
    with opened(paths) as vault:
        kept = store.add_fact(vault, "Likes long walks", "preference", "semantic", "learned", [])
        gone = store.add_fact(vault, "Works at the brewery", "work", "semantic", "learned", [])
        forgetting.forget_fact(vault, gone)
    edit(db, f"UPDATE fact SET deleted = 0 WHERE id = {gone}")

    code, out = verify_cli(paths, passfile)
    assert code == 65 and f"DAMAGED: fact {gone}" in out
    with opened(paths) as vault:
        assert [f.id for f in store.live_facts(vault)] == [kept]
        system, _ = prompt.build(vault, "what do you know about my work?", 600)
        assert "brewery" not in system
        assert "long walks" in system


def test_a_deleted_row_is_reported_by_table_at_unlock_and_by_verify(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    paths = created[0]
    with opened(paths) as vault:
        ids = [journal.add(vault, f"entry {n}").id for n in range(3)]
    edit(db, f"DELETE FROM journal_entry WHERE id = {ids[1]}")

    with opened(paths) as vault:
        assert [f.describe() for f in vault.findings] == [
            "journal_entry: 1 record deleted outside Companion"
        ]
        # What is intact stays readable and writable.
        assert journal.get(vault, ids[0]).text == "entry 0"
        journal.edit(vault, ids[2], "entry two, edited")
    code, out = verify_cli(paths, passfile)
    assert code == 65 and "journal_entry: 1 record deleted outside Companion" in out


def test_an_edited_date_or_role_names_the_record(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    paths = created[0]
    with opened(paths) as vault:
        entry = journal.add(vault, "a day I want to keep").id
        session = chat.start(vault).id
        said = chat.add_message(vault, session, "user", "hello").id
    edit(
        db,
        f"UPDATE journal_entry SET local_date = '2019-01-01' WHERE id = {entry}",
        f"UPDATE chat_message SET role = 'assistant' WHERE id = {said}",
    )
    code, out = verify_cli(paths, passfile)
    assert code == 65
    assert f"DAMAGED: journal_entry {entry}" in out
    assert f"DAMAGED: chat_message {said}" in out


def test_a_row_rolled_back_to_an_older_copy_of_itself_is_caught(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    paths = created[0]
    with opened(paths) as vault:
        entry = journal.add(vault, "I will relapse, I know it").id
    cursor = sqlite3.connect(db).execute("SELECT * FROM journal_entry WHERE id = ?", (entry,))
    names = [d[0] for d in cursor.description if d[0] != "id"]
    old = cursor.fetchone()[1:]
    with opened(paths) as vault:
        journal.edit(vault, entry, "I got through it; ninety days today")
    assignments = ", ".join(f'"{n}" = ?' for n in names)
    edit(db, f"UPDATE journal_entry SET {assignments} WHERE id = {entry}", args=tuple(old))
    code, out = verify_cli(paths, passfile)
    assert code == 65
    assert "journal_entry: a record was rolled back to an older copy, or replaced" in out
    with opened(paths) as vault:  # unlock says so too, before anyone runs verify
        assert [f.describe() for f in vault.findings] == [
            "journal_entry: a record was rolled back to an older copy, or replaced"
        ]


def test_a_relapse_moved_to_another_day_in_the_file_is_not_believed(
    created: tuple[VaultPaths, str], db: Path
) -> None:
    """The day is a plain column (the vault queries by it): moved, its row fails its MAC,
    and the coach is not told of a relapse on a day nobody logged one."""
    from datetime import date

    from companion.activity import checkins, profile
    from companion.memory import sobriety

    paths = created[0]
    with opened(paths) as vault:
        profile.update(vault, {"recovery_start_date": "2026-10-01"})
        checkins.record(vault, date(2026, 8, 1), sober=False, mood=2)  # before this start
    edit(db, "UPDATE checkin SET date = '2026-11-20'")
    with opened(paths) as vault:
        now = sobriety.current(vault, date(2026, 11, 29))
        assert now.relapse is None and now.days == 59


def test_a_row_copied_into_a_new_id_is_caught(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    paths = created[0]
    with opened(paths) as vault:
        journal.add(vault, "only once")
    edit(
        db,
        "INSERT INTO journal_entry (created_at, local_date, updated_at, memorized, starred, "
        "imported, payload, row_version, row_mac) SELECT created_at, local_date, updated_at, "
        "memorized, starred, imported, payload, row_version, row_mac FROM journal_entry",
    )
    code, out = verify_cli(paths, passfile)
    assert code == 65 and "DAMAGED: journal_entry 2" in out


def _rewrite_header(db: Path, change) -> None:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        body = json.loads(conn.execute("SELECT body FROM header").fetchone()[0])
        change(body)
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        checksum = hashlib.sha256(text.encode()).hexdigest()
        conn.execute("UPDATE header SET body = ?, sha256 = ?", (text, checksum))
    finally:
        conn.close()


def test_an_edited_recovery_slot_reads_as_damage_not_a_wrong_passphrase(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    paths = created[0]

    def weaken(body: dict) -> None:  # type: ignore[type-arg]
        body["slots"]["recovery"]["kdf"]["salt"] = "AAAAAAAAAAAAAAAAAAAAAA=="

    _rewrite_header(db, weaken)
    with pytest.raises(VaultDamaged) as info:
        opened(paths)
    assert "header" in str(info.value)
    code, _ = verify_cli(paths, passfile)
    assert code == 65


def test_an_edited_passphrase_slot_is_told_apart_through_the_recovery_key(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    paths, recovery = created

    def new_salt(body: dict) -> None:  # type: ignore[type-arg]
        body["slots"]["passphrase"]["kdf"]["salt"] = "AAAAAAAAAAAAAAAAAAAAAA=="

    _rewrite_header(db, new_salt)
    by_passphrase = run_cli(
        "--data-dir", str(paths.root), "--passphrase-file", str(passfile), "verify"
    )
    assert by_passphrase.returncode == 77
    assert "wrong passphrase, or the vault's header is damaged" in by_passphrase.stderr
    by_recovery = run_cli(
        "--data-dir",
        str(paths.root),
        "verify",
        "--recovery-key",
        env={**child_env(), "COMPANION_RECOVERY_KEY": recovery},
    )
    assert by_recovery.returncode == 65, by_recovery.stdout + by_recovery.stderr
    assert "header" in by_recovery.stderr


@pytest.mark.parametrize("value", ['"3"', "3.7", "true"])
def test_key_derivation_numbers_must_be_integers(
    created: tuple[VaultPaths, str], db: Path, value: str
) -> None:
    def loosen(body: dict) -> None:  # type: ignore[type-arg]
        body["slots"]["passphrase"]["kdf"]["t"] = json.loads(value)

    _rewrite_header(db, loosen)
    with pytest.raises(VaultDamaged):
        opened(created[0])


def test_a_trigger_planted_in_the_file_is_reported(
    created: tuple[VaultPaths, str], db: Path
) -> None:
    edit(
        db,
        "CREATE TRIGGER sneaky AFTER UPDATE ON chat_session BEGIN "
        "UPDATE chat_session SET off_record = 0; END",
    )
    with opened(created[0]) as vault:
        assert any("trigger" in f.describe() for f in vault.findings)


def _take_back_to_schema_5(db: Path) -> None:
    """Drop what schema 6 added, as a v5 vault looked: the next upgrade would then MAC rows
    whatever they hold."""
    from companion.vault import migrations

    statements = []
    for table in migrations.SEALED:
        statements.append(f'ALTER TABLE "{table}" DROP COLUMN "row_mac"')
        statements.append(f'ALTER TABLE "{table}" DROP COLUMN "row_version"')
    edit(
        db,
        *statements,
        'ALTER TABLE "header" DROP COLUMN "hmac"',
        'DROP TABLE "manifest"',
        'DROP TABLE "session_epoch"',
        "PRAGMA user_version = 5",
    )


def test_tables_taken_back_to_schema_5_are_damage_not_an_upgrade(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    paths = created[0]
    with opened(paths) as vault:
        private = chat.start(vault, "not for memory", off_record=True).id
        chat.add_message(vault, private, "user", "said off the record")
    _take_back_to_schema_5(db)
    edit(db, f"UPDATE chat_session SET off_record = 0 WHERE id = {private}")

    code, _ = verify_cli(paths, passfile)
    assert code == 65
    with pytest.raises(VaultDamaged) as info:
        opened(paths)
    assert "taken back to a format from before every record was authenticated" in str(info.value)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 5  # nothing was upgraded
    conn.close()


def test_an_honest_old_vault_upgrades_and_its_slot_then_carries_the_floor(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    """A real schema 5 vault (its slots wrapped as schema 5 wrapped them) upgrades; afterwards
    taking it back again is caught, and a payload damaged before the upgrade stays damaged."""
    from benchmarks.vault_bench import downgrade_to_schema_5

    paths = created[0]
    with opened(paths) as vault:
        kept = journal.add(vault, "a good day").id
        broken = journal.add(vault, "a day the disk ate").id
    downgrade_to_schema_5(db, PASSPHRASE)
    conn = sqlite3.connect(db, isolation_level=None)
    sql = "SELECT payload FROM journal_entry WHERE id = ?"
    (payload,) = conn.execute(sql, (broken,)).fetchone()
    flipped = bytearray(payload)
    flipped[-1] ^= 1
    conn.execute("UPDATE journal_entry SET payload = ? WHERE id = ?", (bytes(flipped), broken))
    conn.close()

    with opened(paths) as vault:  # the upgrade
        assert journal.get(vault, kept).text == "a good day"
    code, out = verify_cli(paths, passfile)
    assert code == 65 and f"DAMAGED: journal_entry {broken}" in out
    assert f"journal_entry {kept}" not in out

    _take_back_to_schema_5(db)
    with pytest.raises(VaultDamaged):
        opened(paths)


def test_text_that_is_not_utf8_in_a_column_is_reported_not_a_crash(
    created: tuple[VaultPaths, str], db: Path, passfile: Path
) -> None:
    paths = created[0]
    with opened(paths) as vault:
        session = chat.start(vault).id
        said = chat.add_message(vault, session, "user", "hello").id
    edit(db, f"UPDATE chat_message SET role = CAST(X'FF75' AS TEXT) WHERE id = {said}")
    code, out = verify_cli(paths, passfile)
    assert code == 65, out
    assert f"DAMAGED: chat_message {said}" in out


def test_the_row_mac_message_is_the_canonical_json_the_format_document_gives() -> None:
    """Rows are MACed over a hand-built encoding (for speed); it must stay byte for byte the
    documented canonical JSON, or an independent reader could not check a row."""
    from companion.vault import crypto, integrity
    from companion.vault.models import Fact

    fmt = integrity.row_format(Fact)
    tricky = ['say "no"', "back\\slash", "line\nbreak\ttab\x01", "Zoë 🌊", "", None, -3, 0, 2**70]
    for i in range(len(tricky)):
        values = [tricky[(i + k) % len(tricky)] for k in range(len(fmt.plain))]
        payload = bytes([i]) * 40
        expected = crypto.canonical_json(
            [
                "row",
                "fact",
                str(1000 + i),
                dict(zip(fmt.plain, values, strict=True)),
                hashlib.sha256(payload).hexdigest(),
            ]
        )
        assert fmt.message(1000 + i, payload, values) == expected


def test_a_garbled_date_leaves_the_rest_searchable(
    created: tuple[VaultPaths, str], db: Path
) -> None:
    """A row whose date was edited into nonsense is left out of search and recall; every
    other record is still found."""
    from companion.coach import recall
    from companion.retrieval.search import SearchIndex

    paths = created[0]
    with opened(paths) as vault:
        session = chat.start(vault).id
        broken = chat.add_message(vault, session, "user", "the lighthouse at dawn").id
        journal.add(vault, "walked to the lighthouse again")
    edit(db, f"UPDATE chat_message SET created_at = 'garbage' WHERE id = {broken}")
    with opened(paths) as vault:
        hits = SearchIndex(vault).search("lighthouse")
        assert [h.kind for h in hits] == ["journal"]
        assert recall.recall(vault, "what about the lighthouse?")
