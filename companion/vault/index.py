"""The search index, sealed in the vault: postings kept in step with every write, in the same
transaction, so search, recall and the coach's context never rebuild anything at unlock.

Three tables (docs/vault-format.md, "The search index"):

- ``index_bucket``: 1,024 rows. A term's postings live in the bucket that a keyed hash of its
  first three letters picks, so a prefix ("crav") is one bucket and no term is on disk in
  plaintext.
- ``index_delta``: the documents one write added, waiting to be merged into the buckets (an add
  costs one row, not one row per word). A merge folds them in; it runs at once when a write
  removes or changes a document, so no index record keeps words that are gone.
- ``index_state``: format version, the bucket key and per-kind counts for BM25.

What a posting list, the state and one write's changes are is in ``postings.py``; what a
table's row contributes (its document) in ``documents.py``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from companion.errors import RecordDamaged
from companion.vault import crypto, integrity
from companion.vault.crypto import Sealer
from companion.vault.documents import (
    CODES,
    RULES,
    SHIFT,
    document_of,
    kind_of,
    rows,
)
from companion.vault.models import IndexBucket, IndexDelta, IndexState, Record
from companion.vault.postings import (
    BUCKETS,
    PREFIX,
    VERSION,
    Added,
    Batch,
    Bucket,
    Postings,
    State,
)


class Records(Protocol):
    """The vault's row door (vault/records.py), as far as the index uses it."""

    sealer: Sealer
    keys: integrity.Keys

    @property
    def conn(self) -> sqlite3.Connection: ...

    def transaction(self) -> contextlib.AbstractContextManager[None]: ...

    def insert(self, model: type[Record], payload: dict[str, Any], **meta: Any) -> int: ...

    def put(self, model: type[Record], rid: Any, payload: dict[str, Any], **meta: Any) -> None: ...

    def delete_where(self, model: type[Record], where: Any) -> int: ...

    def manifest_reset(self, table: str) -> None: ...


MERGE_AFTER = 200
"""Deltas waiting before a write merges them itself (the app also merges when idle)."""
Progress = Callable[[int, int], None]
WARM_BYTES = 64 * 1024 * 1024
"""Sealed bucket payload opened after unlock, largest first (the ten-year vault's whole index
is 31 MB, about 29 MiB in memory once open)."""


class Index:
    """One vault's sealed index: the write side (``flush``, ``merge``, ``rebuild``) and the
    read side (``postings``, ``prefixed``, ``totals``), with decrypted buckets cached in memory
    until a write changes them."""

    def __init__(self, records: Records) -> None:
        self._records = records
        self._lock = threading.RLock()
        self._state: State | None = None
        self._buckets: dict[int, Bucket] = {}
        self._delta: dict[str, Postings] | None = None
        self._delta_counts: dict[str, list[int]] = {}
        self._delta_rows = 0
        self._delta_top = 0
        self._delta_check = False
        self.damaged = False
        """A bucket or delta failed its MAC: searches go on without it until a rebuild
        (``companion verify --rebuild-index``)."""

    # -- reading ----------------------------------------------------------------------

    def forget(self) -> None:
        """Drop what is cached (after a write, a rebuild or a rollback)."""
        with self._lock:
            self._state, self._buckets, self._delta = None, {}, None

    def warm(self, budget: int = WARM_BYTES) -> int:
        """Open the largest buckets ahead of the first question, up to ``budget`` bytes of
        sealed payload: they hold the common terms and are the slow ones to open cold (the
        small ones open in a millisecond when asked). Returns how many were opened."""
        if self.state() is None:
            return 0
        sizes = self._records.conn.execute(
            'SELECT "id", length("payload") FROM "index_bucket" ORDER BY 2 DESC'
        ).fetchall()
        opened = total = 0
        for number, size in sizes:
            if total + size > budget:
                break
            with self._lock:  # one bucket at a time: a question in between is not held up
                self._bucket(number)
            total += size
            opened += 1
        with self._lock:
            self._deltas()
        return opened

    def committed(self) -> None:
        """After a commit: deltas another thread read before it may be missing rows."""
        with self._lock:
            self._delta_check = True

    def state(self) -> State | None:
        """The index's state, or None while it has to be built (a new or upgraded vault)."""
        with self._lock:
            if self._state is None:
                row = next(integrity.rows(self._records.conn, IndexState, '"id" = 1'), None)
                if row is None:
                    return None
                self._state = State.from_payload(self._open(IndexState, row))
            return self._state if self._state.version == VERSION else None

    def ready(self) -> bool:
        return self.state() is not None

    def _open(self, model: type[Record], row: dict[str, Any]) -> dict[str, Any]:
        if not self._records.keys.check_row(model.kind(), row, "id"):
            raise RecordDamaged(model.kind(), row["id"])
        return self._records.sealer.open(model.kind(), row["id"], row["payload"])

    def _bucket(self, number: int) -> Bucket:
        found = self._buckets.get(number)
        if found is None:
            row = next(integrity.rows(self._records.conn, IndexBucket, '"id" = ?', (number,)), None)
            found = {}
            if row is not None:
                try:
                    data = self._open(IndexBucket, row)
                    found = {
                        str(t): Postings.from_bytes(crypto.unb64(str(b)))
                        for t, b in dict(data.get("terms", {})).items()
                    }
                except (RecordDamaged, ValueError, TypeError):
                    self.damaged = True
                    found = {}
            self._buckets[number] = found
        return found

    def _deltas(self) -> dict[str, Postings]:
        """The postings waiting in deltas, read once and then only the rows added since (a
        merge, which deletes them, starts over)."""
        conn = self._records.conn
        if self._delta is not None and self._delta_check:
            self._delta_check = False
            count, top = conn.execute(
                'SELECT count(*), coalesce(max(id), 0) FROM "index_delta"'
            ).fetchone()
            if (count, top) != (self._delta_rows, self._delta_top):
                fresh = list(
                    integrity.rows(conn, IndexDelta, '"id" > ? ORDER BY id', (self._delta_top,))
                )
                if self._delta_rows + len(fresh) == count:
                    self._take_deltas(fresh)
                else:
                    self._delta = None
        if self._delta is None:
            self._delta, self._delta_counts, self._delta_rows, self._delta_top = {}, {}, 0, 0
            self._delta_check = False
            self._take_deltas(integrity.rows(conn, IndexDelta, '"id" > 0 ORDER BY id'))
        assert self._delta is not None
        return self._delta

    def _take_deltas(self, rows: Iterable[dict[str, Any]]) -> None:
        delta, counts = self._delta, self._delta_counts
        assert delta is not None
        for row in rows:
            self._delta_rows += 1
            self._delta_top = max(self._delta_top, int(row["id"]))
            try:
                items = self._delta_docs(row)
            except RecordDamaged:
                self.damaged, items = True, []
            for added in items:
                kind = kind_of(added.key)[0]
                have = counts.setdefault(kind, [0, 0])
                have[0] += 1
                have[1] += added.length
                for term, count in added.counts.items():
                    delta.setdefault(term, Postings()).add(
                        added.key, added.day, count, added.length
                    )

    def _delta_docs(self, row: dict[str, Any]) -> list[Added]:
        return [Added.from_json(item) for item in self._open(IndexDelta, row).get("docs", [])]

    def postings(self, term: str) -> list[Postings]:
        """Where ``term`` occurs: the merged postings and those still waiting in deltas."""
        with self._lock:
            state = self.state()
            if state is None:
                return []
            out = []
            found = self._bucket(state.bucket_of(term)).get(term)
            if found is not None:
                out.append(found)
            waiting = self._deltas().get(term)
            if waiting is not None:
                out.append(waiting)
            return out

    def prefixed(self, prefix: str) -> list[str]:
        """Terms that begin with ``prefix`` (three letters or more: one bucket)."""
        with self._lock:
            state = self.state()
            if state is None or len(prefix) < PREFIX:
                return []
            terms = set(self._bucket(state.bucket_of(prefix)))
            terms |= set(self._deltas())
            return sorted(t for t in terms if t.startswith(prefix))

    def tags(self) -> dict[str, int]:
        """Each #tag and how many journal entries carry it."""
        with self._lock:
            state = self.state()
            if state is None:
                return {}
            counts = Counter({t: len(p) for t, p in self._bucket(0).items() if t.startswith("#")})
            counts.update({t: len(p) for t, p in self._deltas().items() if t.startswith("#")})
            return dict(counts)

    def totals(self, kinds: Iterable[str] | None = None) -> tuple[int, int]:
        """(documents, total length) of ``kinds`` (all when None): BM25's N and lengths."""
        with self._lock:
            state = self.state()
            if state is None:
                return 0, 0
            self._deltas()
            docs = length = 0
            for source in (state.counts, self._delta_counts):
                for kind, (n, total) in source.items():
                    if kinds is None or kind in kinds:
                        docs, length = docs + n, length + total
            return docs, length

    # -- writing ----------------------------------------------------------------------

    def flush(self, batch: Batch) -> None:
        """Write one transaction's changes (inside it): new documents as one delta row, and a
        merge at once when anything was removed, so no record keeps its words."""
        records = self._records
        state = self.state()
        if state is None:
            return  # not built yet: the build reads every table as it then is
        if (batch.removed or batch.cleared) and not self.damaged:
            try:
                self.merge(batch)
                return
            except RecordDamaged:  # a damaged bucket is not rewritten (that would hide it)
                self.damaged = True
                self.forget()
        # Removed documents stay in the postings until a rebuild; they no longer open, so no
        # result shows them.
        docs = [a.to_json() for a in batch.added.values()]
        if docs:
            records.insert(IndexDelta, {"docs": docs})
            with self._lock:
                self._delta_check = True
            # Counted, not taken from what a search last read: a process that only writes
            # (a script adding entries, an import) never reads its deltas.
            waiting = records.conn.execute('SELECT count(*) FROM "index_delta"').fetchone()[0]
            if waiting >= MERGE_AFTER and not self.damaged:
                try:
                    self.merge()
                except RecordDamaged:
                    self.damaged = True
                    self.forget()

    def merge(self, batch: Batch | None = None) -> int:
        """Fold the waiting deltas (and ``batch``) into the buckets; returns how many buckets
        were rewritten."""
        records = self._records
        with records.transaction(), self._lock:
            state = self.state()
            waiting = list(integrity.rows(records.conn, IndexDelta, '"id" > 0 ORDER BY id'))
            if state is None or (batch is None and not waiting):
                return 0  # not built yet, or nothing waits
            batch = batch if batch is not None else Batch()
            codes = {CODES[k] for k in batch.cleared}
            added = {
                one.key: one
                for row in waiting
                for one in self._delta_docs(row)
                if (one.key >> SHIFT) not in codes
            }
            removed: dict[int, Added] = {}
            for key, old in batch.removed.items():
                if added.pop(key, None) is None and (key >> SHIFT) not in codes:
                    removed[key] = old  # merged before: its buckets lose it
            added.update(batch.added)
            for kind in batch.cleared:
                state.counts.pop(kind, None)
            leaving: dict[str, set[int]] = {}
            for key, one in removed.items():
                state.add(kind_of(key)[0], -1, -one.length)
                for term in one.counts:
                    leaving.setdefault(term, set()).add(key)
            arriving: dict[int, dict[str, list[Added]]] = {}  # bucket -> term -> documents
            for one in added.values():
                state.add(kind_of(one.key)[0], 1, one.length)
                for term in one.counts:
                    arriving.setdefault(state.bucket_of(term), {}).setdefault(term, []).append(one)
            touched = set(range(BUCKETS)) if codes else set(arriving)
            touched.update(state.bucket_of(term) for term in leaving)
            for number in touched:
                bucket = dict(self._bucket(number))
                changed = False
                for term, held in list(bucket.items()):
                    gone = leaving.get(term, set())
                    if codes:
                        gone = gone | {k for k in held.keys if (k >> SHIFT) in codes}
                    if gone and not gone.isdisjoint(held.keys):
                        bucket[term] = held.without(gone)
                        changed = True
                for term, news in arriving.get(number, {}).items():
                    bucket[term] = bucket.get(term, Postings()).plus(
                        (one.key, one.day, one.counts[term], one.length) for one in news
                    )
                    changed = True
                if changed:
                    self._write_bucket(number, {t: p for t, p in bucket.items() if p})
            if waiting:
                records.delete_where(IndexDelta, IndexDelta.id << [row["id"] for row in waiting])
            self._write_state(state)
            self._delta = None
            return len(touched)

    def _write_bucket(self, number: int, bucket: Bucket) -> None:
        payload = {"terms": {t: crypto.b64(p.to_bytes()) for t, p in sorted(bucket.items())}}
        self._records.put(IndexBucket, number, payload)
        self._buckets[number] = bucket

    def _write_state(self, state: State) -> None:
        self._records.put(IndexState, 1, state.to_payload())
        self._state = state

    def rebuild(self, progress: Progress | None = None) -> int:
        """Index every table from scratch (a new or upgraded vault, a damaged or stale index);
        returns how many documents it holds."""
        records = self._records
        conn = records.conn
        total = sum(
            conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in RULES
        )
        done = 0

        def counted(table: str) -> Iterable[dict[str, Any]]:
            nonlocal done
            for row in rows(records, table):
                done += 1
                if progress is not None and done % 2000 == 0:
                    progress(done, total)
                yield row

        with records.transaction(), self._lock:
            state = State(os.urandom(16))
            buckets: dict[int, Bucket] = {}
            lists: dict[str, Postings] = {}
            for table in RULES:
                for row in counted(table):
                    doc = document_of(records, table, row)
                    if doc is None:
                        continue
                    one = Added.of(doc)
                    state.add(doc.kind, 1, one.length)
                    key, day, length = (
                        one.key,
                        min(max(one.day, 0), 0xFFFF),
                        min(one.length, 0xFFFF),
                    )
                    for term, count in one.counts.items():
                        held = lists.get(term)
                        if held is None:
                            held = lists[term] = Postings()
                        held.keys.append(key)
                        held.days.append(day)
                        held.counts.append(count if count < 0xFF else 0xFF)
                        held.lengths.append(length)
            for term, held in lists.items():
                buckets.setdefault(state.bucket_of(term), {})[term] = held.in_order()
            for model in (IndexBucket, IndexDelta, IndexState):
                records.delete_where(model, None)
                records.manifest_reset(model.kind())  # exact again, even after damage
            self._buckets = {}
            for number, bucket in sorted(buckets.items()):
                self._write_bucket(number, bucket)
            self._write_state(state)
            self._delta = None
            self.damaged = False
        if progress is not None:
            progress(total, total)
        return sum(n for n, _ in state.counts.values())
