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


_json_str = json.encoder.encode_basestring


def _json_value(value: Any) -> str:
    """One column value as canonical JSON: what crypto.canonical_json writes, without building
    an encoder per row (that was most of the time of a full check)."""
    kind = type(value)
    if kind is str:
        return str(_json_str(value))
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    return crypto.canonical_json(value).decode("utf-8")  # floats; bytes raise TypeError


class RowFormat:
    """How one table's rows are written into their MAC message: the plaintext columns in
    sorted order (as canonical JSON sorts an object's keys), encoded by hand."""

    def __init__(self, model: type[Record]) -> None:
        self.table = model.kind()
        self.pk = model.key_column()
        self.plain = sorted(c for c in columns_of(model) if c not in UNMACED and c != self.pk)
        self._head = '["row",' + _json_str(self.table) + ","
        self._keys = [_json_str(c) + ":" for c in self.plain]
        self.select = ", ".join(f'"{c}"' for c in [self.pk, "payload", "row_mac", *self.plain])

    def message(self, rid: Any, payload: Any, values: Iterable[Any]) -> bytes:
        """canonical_json(["row", table, str(id), {plain columns}, sha256(payload) hex]).

        Raises TypeError or UnicodeError for a value Companion never writes (a blob, invalid
        text): such a row cannot be authentic."""
        body = ",".join(
            k
            + (
                _json_str(v)
                if type(v) is str
                else int.__repr__(v)
                if type(v) is int
                else _json_value(v)
            )
            for k, v in zip(self._keys, values, strict=True)
        )
        digest = hashlib.sha256(bytes(payload or b"")).hexdigest()
        text = self._head + _json_str(str(rid)) + ",{" + body + '},"' + digest + '"]'
        return text.encode("utf-8")


_FORMATS: dict[str, RowFormat] = {}


def row_format(model: type[Record]) -> RowFormat:
    found = _FORMATS.get(model.kind())
    if found is None:
        found = _FORMATS[model.kind()] = RowFormat(model)
    return found


def _format_of(table: str) -> RowFormat:
    if table not in _FORMATS:
        for model in SEALED_TABLES:
            row_format(model)
    return _FORMATS[table]


class Keys:
    """The MAC key for rows and manifest, derived from the data key."""

    def __init__(self, data_key: bytes) -> None:
        self._key = crypto.hkdf(data_key, b"companion integrity v1")
        # HMAC's two padded-key blocks, hashed once: a full check MACs every row, and
        # re-deriving them per row was a third of its cost. Same bytes as hmac.digest.
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in self._key.ljust(64, b"\0")))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in self._key.ljust(64, b"\0")))

    def row(self, table: str, row: dict[str, Any], pk: str) -> bytes:
        fmt = _format_of(table)
        return self.mac(fmt.message(row[pk], row["payload"], (row[c] for c in fmt.plain)))

    def mac(self, message: bytes) -> bytes:
        """HMAC-SHA256 of ``message`` under the integrity key."""
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

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
        try:
            expected = self.row(table, row, pk)
        except (TypeError, ValueError):
            return False
        return hmac.compare_digest(bytes(mac), expected)


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


def write_manifest(conn: sqlite3.Connection, keys: Keys, manifest: Manifest) -> None:
    body = manifest.body()
    conn.execute(
        "INSERT INTO manifest (id, body, mac) VALUES (1, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET body = excluded.body, mac = excluded.mac",
        (body, keys.manifest(body)),
    )
