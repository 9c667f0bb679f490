"""Rows in and out of the vault: the one door every write goes through (sealing the payload,
versioning and MACing the row, keeping the manifest), and reads that check a row before its
payload is opened. Writes go through :meth:`Records.transaction`, which turns "disk full" into
an error a person can act on.
"""

from __future__ import annotations

import contextlib
import errno
import sqlite3
import threading
from collections.abc import Iterator
from typing import Any

import peewee as pw

from companion.errors import DiskFull, RecordDamaged
from companion.vault import documents, index, integrity, postings
from companion.vault.crypto import Sealer
from companion.vault.models import Record


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


class Records:
    """Authenticated rows over one open database (the vault adds the file, keys and backups)."""

    read_only: bool = False
    """A reader beside the Companion that holds the vault (the vault sets it)."""

    def __init__(self, database: pw.SqliteDatabase, sealer: Sealer, keys: integrity.Keys) -> None:
        self.database = database
        self.sealer = sealer
        self.keys = keys
        self._write_lock = threading.RLock()
        self.generation = 0
        """Counts committed writes, so views can tell whether what they show is stale."""
        self.manifest: integrity.Manifest | None = None
        """The integrity manifest as of the last write; None while it cannot be trusted."""
        self._manifest_dirty = False
        self.index = index.Index(self)
        """The sealed search index, written in the same transaction as what it indexes."""
        self._index_batch = postings.Batch()

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
            flushed = False
            try:
                with storage_errors(), self.database.atomic("IMMEDIATE"):
                    yield
                    if outermost and self._index_batch:
                        batch, self._index_batch = self._index_batch, postings.Batch()
                        self.index.flush(batch)
                        flushed = True
                    if outermost and self._manifest_dirty and self.manifest is not None:
                        integrity.write_manifest(self.conn, self.keys, self.manifest)
                        self._manifest_dirty = False
            except BaseException:
                self.manifest = saved
                if outermost:
                    self._index_batch = postings.Batch()
                    self.index.forget()
                raise
            if flushed:
                self.index.committed()
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
        stored = integrity.stored(model, changes)
        row = {**old, **stored}
        rule = documents.RULES.get(table)
        if rule is not None and (payload is not None or any(c in stored for c in rule.columns)):
            before = None if fresh else documents.document_of(self, table, old)
            self._index_batch.changed(before, documents.document_of(self, table, row, payload))
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
            self._index_deleted(model, where, ids)
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

    def _index_deleted(self, model: type[Record], where: Any, ids: list[Any]) -> None:
        """The documents of rows about to be deleted leave the index with them."""
        table = model.kind()
        rule = documents.RULES.get(table)
        if rule is None or not ids:
            return
        if where is None:
            self._index_batch.clear(rule.kinds)
            return
        for doc in documents.table_documents(self, table, ids):
            self._index_batch.changed(doc, None)

    def manifest_reset(self, table: str) -> None:
        """After deleting every row of ``table``: its manifest entry is exactly empty (also
        when a damaged row's MAC was not the one the manifest held)."""
        if self.manifest is not None:
            self.manifest.tables[table] = [0, 0]
            self._manifest_dirty = True

    def rebuild_index(self, progress: index.Progress | None = None) -> int:
        """Build the search index again from every table; returns how many documents."""
        with self.transaction():
            self._index_batch = postings.Batch()  # the build reads what this wrote
            return self.index.rebuild(progress)

    def table_mark(self, table: str) -> tuple[int, int, int]:
        """(rows, highest id, sum of row versions) of a sealed table: it moves on every insert,
        update and delete, so a reader that kept the last one knows when to look again."""
        sums = "count(*), coalesce(max(rowid), 0), coalesce(sum(row_version), 0)"
        (count, top, total) = self.conn.execute(f'SELECT {sums} FROM "{table}"').fetchone()
        return int(count), int(top), int(total)

    def table_marks(self, tables: tuple[str, ...]) -> tuple[tuple[int, int, int], ...]:
        """:meth:`table_mark` of each of ``tables``, in one statement (a cache that reads
        several tables asks on every use)."""
        sums = "count(*), coalesce(max(rowid), 0), coalesce(sum(row_version), 0)"
        parts = " UNION ALL ".join(f'SELECT {n}, {sums} FROM "{t}"' for n, t in enumerate(tables))
        found = {int(n): (int(c), int(m), int(v)) for n, c, m, v in self.conn.execute(parts)}
        return tuple(found[n] for n in range(len(tables)))

    def changes(self, tables: tuple[str, ...]) -> tuple[object, ...]:
        """A stamp of ``tables`` that moves on every insert, update and delete, for caches
        that only ask "changed since?": each table's count and the XOR of its rows' MACs as
        the manifest keeps them (each write's MAC covers the row's new version), so nothing
        is read; :meth:`table_marks` (a scan of every row) while the manifest is not trusted,
        and in a reader beside the app that holds the vault (its writes move no manifest
        here). Otherwise no write but ours can move a table: one process holds a vault."""
        manifest = self.manifest
        if manifest is None or self.read_only or not all(t in manifest.tables for t in tables):
            return self.table_marks(tables)
        return tuple((entry[0], entry[1]) for entry in map(manifest.tables.__getitem__, tables))

    def row_versions(self, table: str, after: int = 0) -> dict[int, int]:
        """id -> row version of a sealed table's rows with an id above ``after``."""
        sql = f'SELECT id, row_version FROM "{table}" WHERE id > ?'
        return {int(rid): int(version) for rid, version in self.conn.execute(sql, (after,))}

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
        return self.authentic_row(type(instance), integrity.row_of(instance))

    def authentic_row(self, model: type[Record], row: dict[str, Any]) -> bool:
        """Whether a raw row (column -> stored value) carries the MAC of what Companion wrote."""
        return self.keys.check_row(model.kind(), row, model.key_column())

    def open(self, instance: Record) -> dict[str, Any]:
        """A row read whole: its payload, once every column is checked against its MAC."""
        if not self.authentic(instance):
            raise RecordDamaged(type(instance).kind(), instance.get_id())
        return self.unseal(type(instance), instance.get_id(), instance.payload)  # type: ignore[attr-defined]


def _chunks(ids: list[Any], size: int = 500) -> Iterator[list[Any]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]
