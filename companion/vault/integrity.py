"""Row MACs and the manifest: what lets the vault notice a flipped flag, a deleted row or a row
rolled back to an older copy of itself, without anyone holding the key being able to hide it.

Each sealed row carries ``row_version`` (one more on every write) and ``row_mac``: HMAC-SHA256,
under a key derived from the data key, over the table, the id, every plaintext column and the
SHA-256 of the sealed payload. The manifest keeps, per table, the number of rows and the XOR of
their MACs, so a write changes it in constant time and a missing, extra or older row shows as a
difference. The manifest is MACed too. See docs/vault-format.md, "Integrity".
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from companion.errors import RecordDamaged
from companion.vault import crypto
from companion.vault.models import SEALED_TABLES, Record

MAC_BYTES = 32
UNMACED = ("payload", "row_mac")


def columns_of(model: type[Record]) -> list[str]:
    """The model's columns in the order ``SELECT *`` over its fields returns them."""
    return [f.column_name for f in model._meta.sorted_fields]


def stored(model: type[Record], values: dict[str, Any]) -> dict[str, Any]:
    """Field names and Python values -> column names and what SQLite will hold."""
    out: dict[str, Any] = {}
    fields = model._meta.fields
    for name, value in values.items():
        column = fields[name].column_name if name in fields else name
        if isinstance(value, Record):
            value = value.get_id()
        if isinstance(value, bool):
            value = int(value)
        out[column] = value
    return out


class Keys:
    """The MAC key for rows and manifest, derived from the data key."""

    def __init__(self, data_key: bytes) -> None:
        self._key = crypto.hkdf(data_key, b"companion integrity v1")

    def row(self, table: str, row: dict[str, Any], pk: str) -> bytes:
        plain = {k: v for k, v in row.items() if k not in UNMACED and k != pk}
        digest = hashlib.sha256(bytes(row["payload"] or b"")).hexdigest()
        message = crypto.canonical_json(["row", table, str(row[pk]), plain, digest])
        return hmac.digest(self._key, message, "sha256")  # one call into OpenSSL

    def manifest(self, body: str) -> str:
        message = b"manifest" + body.encode("utf-8")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def header(self, body: str) -> str:
        message = b"header" + body.encode("utf-8")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def check_row(self, table: str, row: dict[str, Any], pk: str) -> bool:
        mac = row.get("row_mac")
        if mac is None:
            return False
        return hmac.compare_digest(bytes(mac), self.row(table, row, pk))


@dataclass
class Manifest:
    """Per table: how many rows, and the XOR of their MACs (as an int, for cheap XOR)."""

    tables: dict[str, list[int]] = field(default_factory=dict)

    def add(self, table: str, mac: bytes) -> None:
        entry = self.tables.setdefault(table, [0, 0])
        entry[0] += 1
        entry[1] ^= int.from_bytes(mac, "big")

    def remove(self, table: str, mac: bytes | None) -> None:
        entry = self.tables.setdefault(table, [0, 0])
        entry[0] -= 1
        if mac is not None:
            entry[1] ^= int.from_bytes(bytes(mac), "big")

    def copy(self) -> Manifest:
        return Manifest({t: list(v) for t, v in self.tables.items()})

    def body(self) -> str:
        tables = {
            t: {"count": c, "xor": x.to_bytes(MAC_BYTES, "big").hex()}
            for t, (c, x) in sorted(self.tables.items())
        }
        return crypto.canonical_json({"format": 1, "tables": tables}).decode("utf-8")

    @classmethod
    def parse(cls, body: str) -> Manifest:
        data = json.loads(body)
        if not isinstance(data, dict) or data.get("format") != 1:
            raise ValueError("unknown manifest format")
        tables: dict[str, list[int]] = {}
        for table, entry in dict(data["tables"]).items():
            count, xor = entry["count"], entry["xor"]
            if not isinstance(count, int) or isinstance(count, bool) or len(xor) != 64:
                raise ValueError("malformed manifest entry")
            tables[str(table)] = [count, int(xor, 16)]
        return cls(tables)


def rows(
    conn: sqlite3.Connection, model: type[Record], where: str = "", args: Iterable[Any] = ()
) -> Iterator[dict[str, Any]]:
    """Raw rows (column -> stored value) of one table, optionally filtered by SQL."""
    names = columns_of(model)
    select = ", ".join(f'"{n}"' for n in names)
    sql = f'SELECT {select} FROM "{model.kind()}"' + (f" WHERE {where}" if where else "")
    for values in conn.execute(sql, tuple(args)):
        yield dict(zip(names, values, strict=True))


def row_of(instance: Record) -> dict[str, Any]:
    """A model instance read with every field -> the raw row its MAC covers."""
    data = instance.__data__
    out: dict[str, Any] = {}
    for f in type(instance)._meta.sorted_fields:
        if f.name not in data:
            raise ValueError(f"{f.name} was not read; an integrity check needs the whole row")
        value = data[f.name]
        out[f.column_name] = int(value) if isinstance(value, bool) else value
    return out


# -- whole-vault checks -----------------------------------------------------------------


@dataclass
class Finding:
    table: str
    record: str | None  # the id, when it can be named
    what: str

    def describe(self) -> str:
        where = f"{self.table} {self.record}" if self.record else self.table
        return f"{where}: {self.what}"


def read_manifest(conn: sqlite3.Connection, keys: Keys) -> tuple[Manifest | None, str | None]:
    """The stored manifest and, if it cannot be trusted, why."""
    try:
        row = conn.execute("SELECT body, mac FROM manifest WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return None, "the integrity manifest is missing"
    if row is None:
        return None, "the integrity manifest is missing"
    body, mac = row
    if not isinstance(body, str) or not hmac.compare_digest(str(mac), keys.manifest(body)):
        return None, "the integrity manifest fails its check"
    try:
        return Manifest.parse(body), None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, "the integrity manifest is malformed"


def quick_check(conn: sqlite3.Connection, keys: Keys) -> tuple[list[Finding], Manifest | None]:
    """What unlock can afford: the manifest's own MAC and each table's row count. Returns the
    findings and the manifest (None when it cannot be trusted)."""
    found = foreign_triggers(conn)
    manifest, problem = read_manifest(conn, keys)
    if manifest is None:
        return [*found, Finding("manifest", None, problem or "damaged")], None
    for model in SEALED_TABLES:
        table = model.kind()
        expected = manifest.tables.get(table, [0, 0])[0]
        (count,) = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()
        if count != expected:
            found.append(Finding(table, None, _count_change(expected, count)))
    return found, manifest


def foreign_triggers(conn: sqlite3.Connection) -> list[Finding]:
    """Companion uses no triggers; one in the file could rewrite rows as we write them."""
    names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
    return [
        Finding("schema", None, f"a trigger ({n}) was added outside Companion") for (n,) in names
    ]


def _count_change(expected: int, count: int) -> str:
    if count < expected:
        missing = expected - count
        return f"{missing} record{'s' if missing != 1 else ''} deleted outside Companion"
    extra = count - expected
    return f"{extra} record{'s' if extra != 1 else ''} added outside Companion"


def full_check(
    conn: sqlite3.Connection, keys: Keys, sealer: crypto.Sealer | None = None
) -> tuple[list[Finding], Manifest]:
    """Every row's MAC (and, given a ``sealer``, its payload, in the same read), and the
    manifest rebuilt from the rows compared with the stored one.

    Returns the findings and the manifest the rows themselves add up to."""
    stored_manifest, problem = read_manifest(conn, keys)
    found = foreign_triggers(conn)
    if problem:
        found.append(Finding("manifest", None, problem))
    actual = Manifest()
    for model in SEALED_TABLES:
        table, pk = model.kind(), model.key_column()
        actual.tables[table] = [0, 0]
        for row in rows(conn, model):
            mac = row.get("row_mac")
            if not keys.check_row(table, row, pk) or (
                sealer is not None and not _opens(sealer, table, row[pk], row["payload"])
            ):
                found.append(Finding(table, str(row[pk]), "changed outside Companion"))
            actual.add(table, bytes(mac) if mac is not None else bytes(MAC_BYTES))
        if stored_manifest is None:
            continue
        want = stored_manifest.tables.get(table, [0, 0])
        have = actual.tables[table]
        if have[0] != want[0]:
            found.append(Finding(table, None, _count_change(want[0], have[0])))
        elif have[1] != want[1] and not any(f.table == table for f in found):
            found.append(
                Finding(table, None, "a record was rolled back to an older copy, or replaced")
            )
    return found, actual


def _opens(sealer: crypto.Sealer, table: str, rid: Any, sealed: bytes) -> bool:
    try:
        sealer.open(table, rid, sealed)
    except RecordDamaged:
        return False
    return True


def seal_all(conn: sqlite3.Connection, keys: Keys, progress: Any = None) -> Manifest:
    """Give every row a version and a MAC and return the manifest they add up to (migration
    and rekey; never used for an ordinary write)."""
    manifest = Manifest()
    total = sum(
        conn.execute(f'SELECT count(*) FROM "{m.kind()}"').fetchone()[0] for m in SEALED_TABLES
    )
    done = 0
    for model in SEALED_TABLES:
        table, pk = model.kind(), model.key_column()
        manifest.tables[table] = [0, 0]
        updates = []
        for row in rows(conn, model):
            row["row_version"] = int(row.get("row_version") or 0) + 1
            mac = keys.row(table, row, pk)
            manifest.add(table, mac)
            updates.append((row["row_version"], mac, row[pk]))
        conn.executemany(
            f'UPDATE "{table}" SET row_version = ?, row_mac = ? WHERE "{pk}" = ?', updates
        )
        done += len(updates)
        if progress is not None:
            progress(done, total)
    return manifest


def write_manifest(conn: sqlite3.Connection, keys: Keys, manifest: Manifest) -> None:
    body = manifest.body()
    conn.execute(
        "INSERT INTO manifest (id, body, mac) VALUES (1, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET body = excluded.body, mac = excluded.mac",
        (body, keys.manifest(body)),
    )
