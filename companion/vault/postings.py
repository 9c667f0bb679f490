"""The search index, sealed in the vault: postings kept in step with every write, in the same
transaction, so search, recall and the coach's context never rebuild anything at unlock.

Three tables (docs/vault-format.md, "The search index"):

- ``index_bucket``: 1,024 rows. A term's postings live in the bucket that a keyed hash of its
  first three letters picks, so a prefix ("crav") is one bucket and no term is on disk in
  plaintext. Each posting: document key, day, term count and document length.
- ``index_delta``: the documents one write added, waiting to be merged into the buckets (an add
  costs one row, not one row per word). A merge folds them in; it runs at once when a write
  removes or changes a document, so no index record keeps words that are gone.
- ``index_state``: format version, the bucket key and per-kind counts for BM25.

What a table's row contributes (its document) is decided here, by :data:`RULES`.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import hmac
import json
import os
import sqlite3
import sys
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, NamedTuple, Protocol

from companion import clock
from companion.errors import RecordDamaged
from companion.vault import crypto, integrity, words
from companion.vault.crypto import Sealer
from companion.vault.models import IndexBucket, IndexDelta, IndexState, Record


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


VERSION = 1
"""Raise when what a document holds or how its words are cut changes: the index is rebuilt."""
BUCKETS = 1024
PREFIX = 3
MERGE_AFTER = 200
"""Deltas waiting before a write merges them itself (the app also merges when idle)."""
KINDS = ("journal", "checkin", "chat", "reply", "fact", "daily", "summary")
CODES = {kind: number + 1 for number, kind in enumerate(KINDS)}
SHIFT = 28
EPOCH = date(2000, 1, 1).toordinal()
LITTLE = sys.byteorder == "little"
Progress = Callable[[int, int], None]


class Document(NamedTuple):
    kind: str
    ref: int
    day: date
    text: str
    stamp: str = ""  # sortable moment: ties and "newest first"
    session: int | None = None


class Ref(NamedTuple):
    """A document as ranking sees it before opening it."""

    kind: str
    ref: int
    day: date


def key_of(kind: str, ref: int) -> int:
    return (CODES[kind] << SHIFT) | ref


def kind_of(key: int) -> tuple[str, int]:
    return KINDS[(key >> SHIFT) - 1], key & ((1 << SHIFT) - 1)


# -- what each table's row says ----------------------------------------------------------


def _local_day(stamp: str) -> date:
    return clock.parse_stamp(stamp).date()


def _journal(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    tags = " ".join(f"#{t}" for t in data.get("tags") or [])
    body = f"{data.get('title', '')}\n{data.get('text', '')}\n{tags}".strip()
    day = date.fromisoformat(row["local_date"])
    return Document("journal", row["id"], day, body, row["created_at"]) if body else None


def _checkin(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    note = str(data.get("note") or "")
    day = date.fromisoformat(row["date"])
    return Document("checkin", row["id"], day, note, row["date"]) if note.strip() else None


def _chat(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    content = str(data.get("content") or "")
    kind = "chat" if row["role"] == "user" else "reply"
    day = _local_day(row["created_at"])
    if not content.strip():
        return None
    return Document(kind, row["id"], day, content, row["created_at"], row["session_id"])


def _fact(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    """Every fact not forgotten; whether one is in force is the reader's question."""
    text = str(data.get("text") or "")
    if row["deleted"] or not text.strip():
        return None
    return Document("fact", row["id"], _local_day(row["created_at"]), text, row["created_at"])


DAILY_FIELDS = ("conversation_summary", "journal_summary", "checkin_summary", "emotional_state")


def _daily(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    parts = [str(data.get(k) or "") for k in DAILY_FIELDS]
    parts += [str(p) for p in data.get("notable_patterns") or []]
    body = " ".join(p for p in parts if p).strip()
    day = date.fromisoformat(row["covering_to"])
    return Document("daily", row["id"], day, body, row["covering_to"]) if body else None


def _summary(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    body = str(data.get("summary_text") or data.get("outcome") or "")
    if not body.strip():
        return None
    day = _local_day(row["updated_at"])
    return Document("summary", row["id"], day, body, row["updated_at"], row["session_id"])


@dataclass(frozen=True)
class Rule:
    kinds: tuple[str, ...]
    columns: tuple[str, ...]  # the plaintext columns a document depends on (besides the id)
    document: Callable[[dict[str, Any], dict[str, Any]], Document | None]
    when: str  # the column that dates a row: a local date, or a UTC stamp (``stamped``)
    stamped: bool = True
    where: dict[str, str] = field(default_factory=dict)  # kind -> its rows, when a table has two


RULES: dict[str, Rule] = {
    "journal_entry": Rule(
        ("journal",), ("local_date", "created_at"), _journal, "local_date", False
    ),
    "checkin": Rule(("checkin",), ("date",), _checkin, "date", False),
    "chat_message": Rule(
        ("chat", "reply"),
        ("created_at", "role", "session_id"),
        _chat,
        "created_at",
        where={"chat": "role = 'user'", "reply": "role != 'user'"},
    ),
    "fact": Rule(("fact",), ("created_at", "deleted"), _fact, "created_at"),
    "daily_memory": Rule(("daily",), ("covering_to",), _daily, "covering_to", False),
    "session_summary": Rule(("summary",), ("updated_at", "session_id"), _summary, "updated_at"),
}
TABLE_OF = {kind: table for table, rule in RULES.items() for kind in rule.kinds}


def document_of(
    records: Records, table: str, row: dict[str, Any], data: dict[str, Any] | None = None
) -> Document | None:
    """A row's document (``data``: its payload, opened here when not given); None for a row
    with no words to find, or one that does not open (verify names it)."""
    try:
        if data is None:
            data = records.sealer.open(table, row["id"], row["payload"])
        return RULES[table].document(row, data)
    except (RecordDamaged, ValueError, TypeError, KeyError):
        return None


def documents(records: Records, kind: str, refs: Iterable[int]) -> dict[int, Document]:
    """The documents of ``refs`` (one kind), read and opened now: the words a result shows."""
    table = TABLE_OF[kind]
    cols = ", ".join(f'"{c}"' for c in ("id", "payload", *RULES[table].columns))
    names = ["id", "payload", *RULES[table].columns]
    wanted = sorted(set(refs))
    out: dict[int, Document] = {}
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        sql = f'SELECT {cols} FROM "{table}" WHERE id IN ({", ".join("?" * len(part))})'
        for values in records.conn.execute(sql, part):
            doc = document_of(records, table, dict(zip(names, values, strict=True)))
            if doc is not None and doc.kind == kind:
                out[doc.ref] = doc
    return out


def newest_refs(
    records: Records, kind: str, first: date | None, last: date | None, chunk: int = 50
) -> Iterator[list[Ref]]:
    """Rows of ``kind`` dated between ``first`` and ``last`` (either may be open), newest
    first, a chunk at a time, read from plaintext columns (whether each has words is known once
    it is opened)."""
    table = TABLE_OF[kind]
    rule = RULES[table]
    conditions, args = [], []
    if first is not None:
        conditions.append(f'"{rule.when}" >= ?')
        args.append(_bound(first, rule.stamped))
    if last is not None:
        conditions.append(f'"{rule.when}" < ?')
        args.append(_bound(date.fromordinal(last.toordinal() + 1), rule.stamped))
    if kind in rule.where:
        conditions.append(rule.where[kind])
    where = " WHERE " + " AND ".join(conditions) if conditions else ""
    sql = f'SELECT id, "{rule.when}" FROM "{table}"{where} ORDER BY "{rule.when}" DESC, id DESC'
    rows = records.conn.execute(sql, args)
    while True:
        part = rows.fetchmany(chunk)
        if not part:
            return
        refs = []
        for rid, when in part:
            try:
                day = _local_day(when) if rule.stamped else date.fromisoformat(when)
            except (ValueError, TypeError):
                continue
            refs.append(Ref(kind, int(rid), day))
        yield refs


def _bound(day: date, stamped: bool) -> str:
    """Local midnight starting ``day``, as the column that dates rows holds it."""
    if not stamped:
        return day.isoformat()
    return clock.stamp(datetime.combine(day, time.min).astimezone())


# -- postings ---------------------------------------------------------------------------


class Postings:
    """One term's documents: parallel arrays of key, day (days since 2000), count, length.
    Stored postings are in key order, so each kind is one run, oldest row first
    (``ordered``); those waiting in deltas are in the order they came."""

    __slots__ = ("counts", "days", "keys", "lengths", "ordered")

    def __init__(self, ordered: bool = False) -> None:
        self.keys = array("I")
        self.days = array("H")
        self.counts = array("B")
        self.lengths = array("H")
        self.ordered = ordered

    def in_order(self) -> Postings:
        """These postings sorted by key."""
        order = sorted(range(len(self.keys)), key=self.keys.__getitem__)
        out = Postings(ordered=True)
        out.keys = array("I", [self.keys[i] for i in order])
        out.days = array("H", [self.days[i] for i in order])
        out.counts = array("B", [self.counts[i] for i in order])
        out.lengths = array("H", [self.lengths[i] for i in order])
        return out

    def run_of(self, code: int) -> tuple[int, int]:
        """Where kind ``code``'s postings are (ordered postings only)."""
        return (
            bisect.bisect_left(self.keys, code << SHIFT),
            bisect.bisect_left(self.keys, (code + 1) << SHIFT),
        )

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: int, day: int, count: int, length: int) -> None:
        self.keys.append(key)
        self.days.append(min(max(day, 0), 0xFFFF))
        self.counts.append(min(count, 0xFF))
        self.lengths.append(min(length, 0xFFFF))

    def without(self, gone: set[int]) -> Postings:
        kept = Postings(self.ordered)
        for i, key in enumerate(self.keys):
            if key not in gone:
                kept.add(key, self.days[i], self.counts[i], self.lengths[i])
        return kept

    def to_bytes(self) -> bytes:
        parts = [self.keys, self.days, self.counts, self.lengths]
        if not LITTLE:
            parts = [array(a.typecode, a) for a in parts]
            for a in parts:
                a.byteswap()
        return b"".join(a.tobytes() for a in parts)

    @classmethod
    def from_bytes(cls, data: bytes) -> Postings:
        n, rest = divmod(len(data), 9)
        if rest:
            raise ValueError("postings of the wrong length")
        out = cls(ordered=True)
        at = 0
        for name, width in (("keys", 4), ("days", 2), ("counts", 1), ("lengths", 2)):
            part: array[int] = getattr(out, name)
            part.frombytes(data[at : at + n * width])
            if not LITTLE:
                part.byteswap()
            at += n * width
        return out


Bucket = dict[str, Postings]


def _day(d: date) -> int:
    return d.toordinal() - EPOCH


@dataclass
class State:
    salt: bytes
    counts: dict[str, list[int]] = field(default_factory=dict)  # kind -> [documents, length]
    version: int = VERSION
    _numbers: dict[str, int] = field(default_factory=dict, repr=False)

    def to_payload(self) -> dict[str, Any]:
        return {"v": self.version, "salt": crypto.b64(self.salt), "kinds": self.counts}

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> State:
        kinds = {str(k): [int(v[0]), int(v[1])] for k, v in dict(data.get("kinds", {})).items()}
        return cls(crypto.unb64(str(data["salt"])), kinds, int(data.get("v", 0)))

    def bucket_of(self, term: str) -> int:
        found = self._numbers.get(term)
        if found is None:
            if term.startswith("#"):
                found = 0  # every tag in one bucket: the journal lists them all at once
            else:
                prefix = term[:PREFIX].encode("utf-8")
                digest = hmac.digest(self.salt, prefix, hashlib.sha256)
                found = int.from_bytes(digest[:4], "big") % BUCKETS
            self._numbers[term] = found
        return found

    def add(self, kind: str, docs: int, length: int) -> None:
        have = self.counts.setdefault(kind, [0, 0])
        have[0] += docs
        have[1] += length


# -- one write's changes ------------------------------------------------------------------


@dataclass
class Added:
    key: int
    day: int
    length: int
    counts: dict[str, int]

    def to_json(self) -> list[Any]:
        return [self.key, self.day, self.length, sorted(self.counts.items())]

    @classmethod
    def from_json(cls, item: list[Any]) -> Added:
        return cls(int(item[0]), int(item[1]), int(item[2]), {str(t): int(c) for t, c in item[3]})

    @classmethod
    def of(cls, doc: Document) -> Added:
        terms = words.terms(doc.text)
        counts = dict(Counter(terms))
        if doc.kind == "journal":
            counts.update(dict.fromkeys(words.tags(doc.text), 1))
        return cls(key_of(doc.kind, doc.ref), _day(doc.day), len(terms), counts)


@dataclass
class Batch:
    """What the current transaction did to documents; written when it commits."""

    added: dict[int, Added] = field(default_factory=dict)
    removed: dict[int, Added] = field(default_factory=dict)  # the words they had
    cleared: set[str] = field(default_factory=set)  # kinds whose every document went

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.cleared)

    def clear(self, kinds: Iterable[str]) -> None:
        """Every document of ``kinds`` went (a whole table emptied)."""
        codes = {CODES[k] for k in kinds}
        self.cleared.update(kinds)
        self.added = {k: a for k, a in self.added.items() if (k >> SHIFT) not in codes}

    def changed(self, old: Document | None, new: Document | None) -> None:
        if old is not None and new is not None and (old.text, old.day) == (new.text, new.day):
            return
        if old is not None:
            key = key_of(old.kind, old.ref)
            if self.added.pop(key, None) is None or key in self.removed:
                self.removed.setdefault(key, Added.of(old))
        if new is not None:
            self.added[key_of(new.kind, new.ref)] = Added.of(new)


# -- reading and writing ------------------------------------------------------------------


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
                items = self._open(IndexDelta, row).get("docs", [])
            except RecordDamaged:
                self.damaged, items = True, []
            for item in items:
                added = Added.from_json(item)
                kind = kind_of(added.key)[0]
                have = counts.setdefault(kind, [0, 0])
                have[0] += 1
                have[1] += added.length
                for term, count in added.counts.items():
                    delta.setdefault(term, Postings()).add(
                        added.key, added.day, count, added.length
                    )

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
                waiting = self._delta_rows + 1
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
            if state is None:
                return 0
            cleared = set(batch.cleared) if batch is not None else set()
            codes = {CODES[k] for k in cleared}
            if (
                batch is None
                and not self._records.conn.execute('SELECT 1 FROM "index_delta" LIMIT 1').fetchone()
            ):
                return 0  # nothing waits
            added: dict[int, Added] = {}
            delta_ids = []
            for row in integrity.rows(records.conn, IndexDelta, '"id" > 0 ORDER BY id'):
                delta_ids.append(row["id"])
                for item in self._open(IndexDelta, row).get("docs", []):
                    one = Added.from_json(item)
                    if (one.key >> SHIFT) not in codes:
                        added[one.key] = one
            removed: dict[int, Added] = {}
            if batch is not None:
                for key, gone in batch.removed.items():
                    if added.pop(key, None) is None and (key >> SHIFT) not in codes:
                        removed[key] = gone  # merged before: its buckets lose it
                added.update(batch.added)
            touched: dict[int, None] = {}
            if codes:
                touched.update(dict.fromkeys(range(BUCKETS)))
            for one in (*added.values(), *removed.values()):
                for term in one.counts:
                    touched[state.bucket_of(term)] = None
            gone_by_term: dict[str, set[int]] = {}
            for key, one in removed.items():
                for term in one.counts:
                    gone_by_term.setdefault(term, set()).add(key)
                kind = kind_of(key)[0]
                state.add(kind, -1, -one.length)
            for kind in cleared:
                state.counts.pop(kind, None)
            new_by_term: dict[str, list[Added]] = {}
            for one in added.values():
                for term in one.counts:
                    new_by_term.setdefault(term, []).append(one)
                state.add(kind_of(one.key)[0], 1, one.length)
            news_by_bucket: dict[int, dict[str, list[Added]]] = {}
            for term, news in new_by_term.items():
                news_by_bucket.setdefault(state.bucket_of(term), {})[term] = news
            for number in touched:
                bucket = dict(self._bucket(number))
                changed = False
                for term in list(bucket):
                    held = bucket[term]
                    leaving = gone_by_term.get(term, set())
                    if codes:
                        leaving = leaving | {k for k in held.keys if (k >> SHIFT) in codes}
                    if leaving and any(k in leaving for k in held.keys):
                        bucket[term] = held.without(leaving)
                        changed = True
                        if not bucket[term]:
                            del bucket[term]
                for term, news in news_by_bucket.get(number, {}).items():
                    copy = Postings()
                    before = bucket.get(term)
                    if before is not None:
                        for name in Postings.__slots__[:4]:
                            getattr(copy, name).extend(getattr(before, name))
                    for one in news:
                        copy.add(one.key, one.day, one.counts[term], one.length)
                    bucket[term] = copy.in_order()
                    changed = True
                if changed:
                    self._write_bucket(number, bucket)
            if delta_ids:
                records.delete_where(IndexDelta, IndexDelta.id << delta_ids)
            self._write_state(state)
            self._delta = None
            return sum(1 for _ in touched)

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
        with records.transaction(), self._lock:
            state = State(os.urandom(16))
            buckets: dict[int, Bucket] = {}
            lists: dict[str, Postings] = {}
            done = 0
            for table, rule in RULES.items():
                names = ["id", "payload", *rule.columns]
                cols = ", ".join(f'"{c}"' for c in names)
                for values in conn.execute(f'SELECT {cols} FROM "{table}" ORDER BY id'):
                    done += 1
                    if progress is not None and done % 2000 == 0:
                        progress(done, total)
                    doc = document_of(records, table, dict(zip(names, values, strict=True)))
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

    def records_hold(self, needle: str) -> bool:
        """Whether any index record, opened, contains ``needle`` (the tests' way to prove a
        deleted word is gone)."""
        for model in (IndexBucket, IndexDelta, IndexState):
            for row in integrity.rows(self._records.conn, model):
                data = self._open(model, row)
                if needle in json.dumps(data, ensure_ascii=False):
                    return True
        return False
