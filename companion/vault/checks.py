"""Whole-vault checks over the row MACs and the manifest (integrity.py): the cheap one unlock
runs, the full one `verify` runs, and the sealing of every row that an upgrade or a rekey does.
"""

from __future__ import annotations

import contextlib
import hmac
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import reduce
from operator import xor
from typing import Any

from companion.errors import RecordDamaged
from companion.vault import crypto, integrity
from companion.vault.models import SEALED_TABLES, Record

PROGRESS_EVERY = 2000
NO_MAC = bytes(integrity.MAC_BYTES)  # what a row without a MAC adds to its table's XOR
ROLLED_BACK = "a record was rolled back to an older copy, or replaced"


@dataclass
class Finding:
    table: str
    record: str | None  # the id, when it can be named
    what: str

    def describe(self) -> str:
        where = f"{self.table} {self.record}" if self.record else self.table
        return f"{where}: {self.what}"


def read_manifest(
    conn: sqlite3.Connection, keys: integrity.Keys
) -> tuple[integrity.Manifest | None, str | None]:
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
        return integrity.Manifest.parse(body), None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, "the integrity manifest is malformed"


def quick_check(
    conn: sqlite3.Connection, keys: integrity.Keys
) -> tuple[list[Finding], integrity.Manifest | None]:
    """What unlock can afford: the manifest's own MAC, and each table's row count and the XOR
    of its stored row MACs (one column read, no HMAC computed) against the manifest's. The XOR
    catches a row put back from an older copy of the file with its own genuine MAC (a fact
    deleted, an API key removed, coming back), which the count alone did not. A column edited
    under an unchanged MAC is caught when its row is read (``Vault.open``) and by verify.
    Returns the findings and the manifest (None when it cannot be trusted)."""
    found = foreign_triggers(conn)
    manifest, problem = read_manifest(conn, keys)
    if manifest is None:
        return [*found, Finding("manifest", None, problem or "damaged")], None
    for model in SEALED_TABLES:
        table = model.kind()
        expected, want = manifest.tables.get(table, [0, 0])
        (count,) = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()
        macs = conn.execute(f"SELECT row_mac FROM \"{table}\" WHERE typeof(row_mac) = 'blob'")
        have = reduce(xor, map(int.from_bytes, (mac for (mac,) in macs)), 0)  # ~25 ms in 10 years
        if count != expected:
            found.append(Finding(table, None, _count_change(expected, count)))
        elif have != want:
            found.append(Finding(table, None, ROLLED_BACK))
    return found, manifest


def present_tables(conn: sqlite3.Connection) -> list[type[Record]]:
    """The sealed tables this file has (a backup or an upgrade may be from before some)."""
    present = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [m for m in SEALED_TABLES if m.kind() in present]


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
    conn: sqlite3.Connection, keys: integrity.Keys
) -> tuple[list[Finding], integrity.Manifest]:
    """Every row's MAC, and the manifest rebuilt from the rows compared with the stored one.

    A row's MAC covers the SHA-256 of its sealed payload, and Companion only MACs a payload it
    sealed itself or found authentic (see ``seal_all``), so a row that passes holds exactly the
    ciphertext Companion wrote: decrypting it again would add a third to the time and nothing
    to what is found. Returns the findings and the manifest the rows add up to."""
    stored_manifest, problem = read_manifest(conn, keys)
    found = foreign_triggers(conn)
    if problem:
        found.append(Finding("manifest", None, problem))
    actual = integrity.Manifest()
    for model in present_tables(conn):
        table, fmt = model.kind(), integrity.row_format(model)
        actual.tables[table] = [0, 0]
        total = actual.tables[table]
        for values in _raw_rows(conn, f'SELECT {fmt.select} FROM "{table}"'):
            rid, payload, mac = values[0], values[1], values[2]
            try:
                good = mac is not None and hmac.compare_digest(
                    bytes(mac), keys.mac(fmt.message(rid, payload, values[3:]))
                )
            except (TypeError, ValueError):
                good = False
            if not good:
                found.append(Finding(table, str(rid), "changed outside Companion"))
            total[0] += 1
            total[1] ^= int.from_bytes(bytes(mac) if mac is not None else NO_MAC, "big")
        if stored_manifest is None:
            continue
        want = stored_manifest.tables.get(table, [0, 0])
        have = actual.tables[table]
        if have[0] != want[0]:
            found.append(Finding(table, None, _count_change(want[0], have[0])))
        elif have[1] != want[1] and not any(f.table == table for f in found):
            found.append(Finding(table, None, ROLLED_BACK))
    return found, actual


def _opens(sealer: crypto.Sealer, table: str, rid: Any, sealed: Any) -> bool:
    """The payload decrypts and authenticates (parsing it adds nothing once it does)."""
    try:
        sealer.open_bytes(table, rid, "payload", sealed)
    except (RecordDamaged, TypeError):
        return False
    return True


def lenient_text(data: bytes) -> str:
    """SQLite text -> str, with bytes that are not UTF-8 escaped: such a value cannot be
    encoded into a row message again, so its row fails its check instead of stopping a read."""
    return data.decode("utf-8", "surrogateescape")


@contextlib.contextmanager
def _lenient_text(conn: sqlite3.Connection) -> Iterator[None]:
    saved = conn.text_factory
    conn.text_factory = lenient_text
    try:
        yield
    finally:
        conn.text_factory = saved


def _raw_rows(conn: sqlite3.Connection, sql: str) -> Iterator[tuple[Any, ...]]:
    """Every row of ``sql``, read leniently also on a connection that is not the vault's own
    (a backup being verified)."""
    with _lenient_text(conn):
        yield from conn.execute(sql)


def seal_all(
    conn: sqlite3.Connection,
    keys: integrity.Keys,
    progress: Callable[[int, int], None] | None = None,
    sealer: crypto.Sealer | None = None,
) -> integrity.Manifest:
    """Give every row a version and a MAC and return the manifest they add up to (migration
    and rekey; never used for an ordinary write).

    Given a ``sealer`` (the migration: payloads nobody has checked yet), a row whose payload
    does not open, or whose columns hold what Companion never writes, gets no MAC: it was
    damaged before, and a MAC would vouch for it. ``progress`` hears (done, total) every few
    thousand rows."""
    manifest = integrity.Manifest()
    models = present_tables(conn)
    total = sum(conn.execute(f'SELECT count(*) FROM "{m.kind()}"').fetchone()[0] for m in models)
    done = 0
    for model in models:
        table, fmt = model.kind(), integrity.row_format(model)
        manifest.tables[table] = [0, 0]
        updates: list[tuple[int, bytes | None, Any]] = []
        at = fmt.plain.index("row_version")
        for values in list(_raw_rows(conn, f'SELECT {fmt.select} FROM "{table}"')):
            rid, payload, plain = values[0], values[1], list(values[3:])
            version = plain[at] = int(plain[at] or 0) + 1
            mac: bytes | None
            try:
                mac = keys.mac(fmt.message(rid, payload, plain))
            except (TypeError, ValueError):
                mac = None
            if mac is not None and sealer is not None and not _opens(sealer, table, rid, payload):
                mac = None
            manifest.add(table, mac if mac is not None else NO_MAC)
            updates.append((version, mac, rid))
            done += 1
            if progress is not None and done % PROGRESS_EVERY == 0:
                progress(done, total)
        conn.executemany(
            f'UPDATE "{table}" SET row_version = ?, row_mac = ? WHERE "{fmt.pk}" = ?', updates
        )
    if progress is not None:
        progress(done, total)
    return manifest
