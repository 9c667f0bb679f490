"""Sealed values: any flipped bit, or a value moved to another row, field or vault, fails
with an error naming the record, and every other record still reads."""

from __future__ import annotations

import sqlite3

import pytest

from companion.activity import journal
from companion.errors import RecordDamaged
from companion.vault import Vault, crypto
from companion.vault.crypto import Sealer
from companion.vault.maintenance import verify

KEY = bytes(range(32))


def flip(blob: bytes, index: int) -> bytes:
    data = bytearray(blob)
    data[index] ^= 0x01
    return bytes(data)


def test_round_trip_and_padding() -> None:
    sealer = Sealer(KEY, "vault-a")
    for size in (0, 1, 251, 252, 253, 1000):
        blob = sealer.seal("journal_entry", 7, {"text": "a" * size})
        assert sealer.open("journal_entry", 7, blob) == {"text": "a" * size}
        # version byte + nonce + padded body (multiple of 256) + tag
        assert (len(blob) - 1 - 12 - 16) % 256 == 0


def test_same_plaintext_never_gives_same_ciphertext() -> None:
    sealer = Sealer(KEY, "vault-a")
    assert sealer.seal("fact", 1, {"t": "x"}) != sealer.seal("fact", 1, {"t": "x"})


@pytest.mark.parametrize(
    ("where", "index"),
    [
        ("version", 0),
        ("nonce", 1),
        ("nonce", 12),
        ("body", 13),
        ("body", 100),
        ("tag", -1),
        ("tag", -16),
    ],
)
def test_flipped_bit_names_the_record(where: str, index: int) -> None:
    sealer = Sealer(KEY, "vault-a")
    blob = sealer.seal("journal_entry", 42, {"text": "private words"})
    with pytest.raises(RecordDamaged) as info:
        sealer.open("journal_entry", 42, flip(blob, index))
    assert "journal_entry 42" in str(info.value)
    assert "private words" not in str(info.value)


def test_moved_values_fail() -> None:
    sealer = Sealer(KEY, "vault-a")
    blob = sealer.seal("journal_entry", 1, {"text": "one"})
    for kind, rid in (("journal_entry", 2), ("chat_message", 1), ("fact", 1)):
        with pytest.raises(RecordDamaged):
            sealer.open(kind, rid, blob)
    with pytest.raises(RecordDamaged):
        Sealer(KEY, "vault-b").open("journal_entry", 1, blob)
    with pytest.raises(RecordDamaged):
        sealer.open_bytes(
            "journal_entry", 1, "title", sealer.seal_bytes("journal_entry", 1, "text", b"x")
        )


@pytest.mark.damages_vault
def test_swapped_rows_in_the_database_are_caught(vault: Vault) -> None:
    first = journal.add(vault, "first entry").id
    second = journal.add(vault, "second entry").id
    third = journal.add(vault, "third entry").id
    conn = vault.conn
    a = conn.execute("SELECT payload FROM journal_entry WHERE id=?", (first,)).fetchone()[0]
    b = conn.execute("SELECT payload FROM journal_entry WHERE id=?", (second,)).fetchone()[0]
    conn.execute("UPDATE journal_entry SET payload=? WHERE id=?", (b, first))
    conn.execute("UPDATE journal_entry SET payload=? WHERE id=?", (a, second))
    report = verify(vault)
    assert sorted(report.damaged) == [("journal_entry", str(first)), ("journal_entry", str(second))]
    assert journal.get(vault, third).text == "third entry"


@pytest.mark.damages_vault
def test_value_moved_to_another_table_is_caught(vault: Vault) -> None:
    from companion.activity import chat

    entry = journal.add(vault, "journal words").id
    session = chat.start(vault, "s").id
    msg = chat.add_message(vault, session, "user", "chat words").id
    conn = vault.conn
    blob = conn.execute("SELECT payload FROM journal_entry WHERE id=?", (entry,)).fetchone()[0]
    conn.execute("UPDATE chat_message SET payload=? WHERE id=?", (blob, msg))
    shown = chat.messages(vault, session)  # the conversation still opens...
    assert shown[0].content == f"[Message {msg} is damaged and cannot be read.]"
    report = verify(vault)  # ...and verify names the record
    assert report.damaged == [("chat_message", str(msg))]
    assert journal.get(vault, entry).text == "journal words"


def test_bit_flipped_on_disk_is_reported_by_verify(created, passfile) -> None:
    from tests.conftest import PASSPHRASE, run_cli

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        ids = [journal.add(vault, f"entry number {i}").id for i in range(3)]
    conn = sqlite3.connect(paths.db)
    blob = conn.execute("SELECT payload FROM journal_entry WHERE id=?", (ids[1],)).fetchone()[0]
    conn.execute("UPDATE journal_entry SET payload=? WHERE id=?", (flip(blob, 40), ids[1]))
    conn.commit()
    conn.close()
    result = run_cli("--passphrase-file", str(passfile), "verify")
    assert result.returncode == 65
    assert f"DAMAGED: journal_entry {ids[1]}" in result.stdout
    shown = run_cli("--passphrase-file", str(passfile), "journal", "show", str(ids[2]))
    assert shown.returncode == 0 and "entry number 2" in shown.stdout
    broken = run_cli("--passphrase-file", str(passfile), "journal", "show", str(ids[1]))
    assert broken.returncode == 65
    assert f"journal_entry {ids[1]} is damaged" in broken.stderr


def test_recovery_key_text_form() -> None:
    key = crypto.new_recovery_key()
    text = crypto.format_recovery_key(key)
    assert len(text.replace("-", "")) == 32 and len(key) * 8 >= 128
    assert crypto.parse_recovery_key(text.lower().replace("-", " ")) == key
    assert crypto.parse_recovery_key(text.replace("O", "0").replace("I", "1")) == key


def test_an_independent_reader_following_the_format_document_opens_records(created) -> None:
    """docs/vault-format.md is enough: derive, unwrap and open with the primitives alone."""
    import base64
    import json
    import struct
    import unicodedata

    from argon2.low_level import Type, hash_secret_raw
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from tests.conftest import PASSPHRASE

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        entry = journal.add(vault, "Naïve café, day 1 #reading", title="Über")

    def canonical(value: object) -> bytes:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

    conn = sqlite3.connect(paths.db)
    body = json.loads(conn.execute("SELECT body FROM header WHERE id = 1").fetchone()[0])
    slot, kdf = body["slots"]["passphrase"], body["slots"]["passphrase"]["kdf"]
    kek = hash_secret_raw(
        unicodedata.normalize("NFC", PASSPHRASE).encode(), base64.b64decode(kdf["salt"]),
        kdf["t"], kdf["m_kib"], kdf["p"], 32, Type.ID,
    )  # fmt: skip
    data_key = AESGCM(kek).decrypt(
        base64.b64decode(slot["nonce"]),
        base64.b64decode(slot["wrapped"]),
        canonical(["companion-slot", 1, body["vault_id"], "passphrase", 6]),
    )
    record_key = HKDF(hashes.SHA256(), 32, None, b"companion record seal v1").derive(data_key)
    sealed = conn.execute("SELECT payload FROM journal_entry WHERE id = ?", (entry.id,)).fetchone()[
        0
    ]
    conn.close()
    assert sealed[0] == 1
    aad = canonical([1, body["vault_id"], "journal_entry", str(entry.id), "payload"])
    padded = AESGCM(record_key).decrypt(sealed[1:13], sealed[13:], aad)
    assert len(padded) % 256 == 0
    (length,) = struct.unpack(">I", padded[:4])
    payload = json.loads(padded[4 : 4 + length])
    assert payload["text"] == "Naïve café, day 1 #reading" and payload["title"] == "Über"

    # Integrity, from the document's "Integrity" section alone.
    import hashlib
    import hmac

    mac_key = HKDF(hashes.SHA256(), 32, None, b"companion integrity v1").derive(data_key)
    conn = sqlite3.connect(paths.db)
    cursor = conn.execute("SELECT * FROM journal_entry WHERE id = ?", (entry.id,))
    row = dict(zip([d[0] for d in cursor.description], cursor.fetchone(), strict=True))
    columns = {k: v for k, v in row.items() if k not in ("id", "payload", "row_mac")}
    message = canonical(
        ["row", "journal_entry", str(entry.id), columns, hashlib.sha256(row["payload"]).hexdigest()]
    )
    assert hmac.new(mac_key, message, hashlib.sha256).digest() == row["row_mac"]
    assert row["row_version"] == 1
    manifest_body, manifest_mac = conn.execute("SELECT body, mac FROM manifest").fetchone()
    expected = hmac.new(mac_key, b"manifest" + manifest_body.encode(), hashlib.sha256).hexdigest()
    assert manifest_mac == expected
    tables = json.loads(manifest_body)["tables"]
    assert tables["journal_entry"] == {"count": 1, "xor": row["row_mac"].hex()}
    header_body, header_mac = conn.execute("SELECT body, hmac FROM header").fetchone()
    conn.close()
    assert (
        header_mac
        == hmac.new(mac_key, b"header" + header_body.encode(), hashlib.sha256).hexdigest()
    )


@pytest.mark.parametrize("record_id", [7, "42", "theme", "clé-ü", "\u0663", 'quote"d'])
def test_associated_data_is_the_documented_canonical_json(record_id: object) -> None:
    sealer = Sealer(KEY, "ab" * 16)
    expected = crypto.canonical_json([1, "ab" * 16, "setting", str(record_id), "payload"])
    assert sealer.aad("setting", record_id, "payload") == expected


def test_a_payload_that_is_not_utf8_is_reported_as_damage() -> None:
    sealer = Sealer(KEY, "ab" * 16)
    sealed = sealer.seal_bytes("journal_entry", 3, "payload", b"\xff\xfe not text")
    with pytest.raises(RecordDamaged) as caught:
        sealer.open("journal_entry", 3, sealed)
    assert (caught.value.kind, caught.value.record_id) == ("journal_entry", 3)
