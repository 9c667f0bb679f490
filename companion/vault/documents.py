"""What each indexed table's row says, as the search index sees it: one document (kind, day,
words) per row that has words, decided by :data:`RULES`; and the reads that open documents
again for the results shown (the index itself holds no text)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, NamedTuple, Protocol

from companion import clock
from companion.errors import RecordDamaged
from companion.vault import words
from companion.vault.crypto import Sealer

KINDS = ("journal", "checkin", "chat", "reply", "fact", "daily", "summary")
CODES = {kind: number + 1 for number, kind in enumerate(KINDS)}
SHIFT = 28


class Rows(Protocol):
    """What reading documents needs of the vault (vault/records.py)."""

    sealer: Sealer

    @property
    def conn(self) -> sqlite3.Connection: ...


class Document(NamedTuple):
    kind: str
    ref: int
    day: date
    text: str
    stamp: str = ""  # sortable moment: ties and "newest first"
    session: int | None = None
    terms: str = ""  # words it is also found by (extraction's search terms), never shown
    tags: tuple[str, ...] = ()  # a journal entry's tags as index terms ("#new job"), whole


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
    """Its tags are found by their words, and listed as they were stored: the #tag pattern
    of the text would cut "new job" or a dotted "İ" short, and skip "2024"."""
    given = [str(t) for t in data.get("tags") or []]
    written = f"{data.get('title', '')}\n{data.get('text', '')}"
    body = f"{written}\n{' '.join(f'#{t}' for t in given)}".strip()
    tags = tuple(dict.fromkeys([*(f"#{t}" for t in given if t), *words.tags(written)]))
    day = date.fromisoformat(row["local_date"])
    return Document("journal", row["id"], day, body, row["created_at"], tags=tags) if body else None


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


def _also(data: dict[str, Any]) -> str:
    """The search terms extraction wrote for an item, and the names and relations of what a
    fact is about."""
    words = [str(t) for t in data.get("search_terms") or []]
    for about in data.get("about") or []:
        if isinstance(about, dict):
            words += [str(about.get("name") or ""), str(about.get("relation") or "")]
    return " ".join(w for w in words if w)


def _fact(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    """Every fact not forgotten; whether one is in force is the reader's question."""
    text = str(data.get("text") or "")
    if row["deleted"] or not text.strip():
        return None
    day, stamp = _local_day(row["created_at"]), row["created_at"]
    return Document("fact", row["id"], day, text, stamp, None, _also(data))


DAILY_FIELDS = ("conversation_summary", "journal_summary", "checkin_summary", "emotional_state")


def _daily(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    parts = [str(data.get(k) or "") for k in DAILY_FIELDS]
    parts += [str(p) for p in data.get("notable_patterns") or []]
    body = " ".join(p for p in parts if p).strip()
    day = date.fromisoformat(row["covering_to"])
    if not body:
        return None
    return Document("daily", row["id"], day, body, row["covering_to"], None, _also(data))


def _summary(row: dict[str, Any], data: dict[str, Any]) -> Document | None:
    body = str(data.get("summary_text") or data.get("outcome") or "")
    if not body.strip():
        return None
    day = _local_day(row["updated_at"])
    session = row["session_id"]
    return Document("summary", row["id"], day, body, row["updated_at"], session, _also(data))


@dataclass(frozen=True)
class Rule:
    kinds: tuple[str, ...]
    columns: tuple[str, ...]  # the plaintext columns a document depends on (besides the id)
    document: Callable[[dict[str, Any], dict[str, Any]], Document | None]
    when: str  # the column that dates a row: a local date, or a UTC stamp (``stamped``)
    stamped: bool = True
    where: dict[str, str] = field(default_factory=dict)  # kind -> its rows, when a table has two
    then: str | None = None  # the column that orders rows of one ``when`` as their stamps do


RULES: dict[str, Rule] = {
    "journal_entry": Rule(
        ("journal",), ("local_date", "created_at"), _journal, "local_date", False, then="created_at"
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
    records: Rows, table: str, row: dict[str, Any], data: dict[str, Any] | None = None
) -> Document | None:
    """A row's document (``data``: its payload, opened here when not given); None for a row
    with no words to find, or one that does not open (verify names it)."""
    try:
        if data is None:
            data = records.sealer.open(table, row["id"], row["payload"])
        return RULES[table].document(row, data)
    except (RecordDamaged, ValueError, TypeError, KeyError):
        return None


def rows(records: Rows, table: str, ids: Iterable[int] | None = None) -> Iterator[dict[str, Any]]:
    """The rows of ``table`` (``ids``, or all in id order), with the columns a document needs."""
    names = ["id", "payload", *RULES[table].columns]
    columns = ", ".join(f'"{c}"' for c in names)
    select = f'SELECT {columns} FROM "{table}"'
    if ids is None:
        batches: Iterable[Iterable[Any]] = [records.conn.execute(f"{select} ORDER BY id")]
    else:
        wanted = sorted(set(ids))
        batches = (
            records.conn.execute(f"{select} WHERE id IN ({', '.join('?' * len(part))})", part)
            for part in (wanted[at : at + 500] for at in range(0, len(wanted), 500))
        )
    for batch in batches:
        for values in batch:
            yield dict(zip(names, values, strict=True))


def table_documents(records: Rows, table: str, ids: Iterable[int]) -> Iterator[Document]:
    """The documents of these rows of ``table`` (rows without words give none)."""
    for row in rows(records, table, ids):
        doc = document_of(records, table, row)
        if doc is not None:
            yield doc


def documents(records: Rows, kind: str, refs: Iterable[int]) -> dict[int, Document]:
    """The documents of ``refs`` (one kind), read and opened now: the words a result shows."""
    return {
        doc.ref: doc for doc in table_documents(records, TABLE_OF[kind], refs) if doc.kind == kind
    }


def newest_refs(
    records: Rows, kind: str, first: date | None, last: date | None, chunk: int = 50
) -> Iterator[list[Ref]]:
    """Rows of ``kind`` dated between ``first`` and ``last`` (either may be open), newest
    first (by day, then as their documents' stamps go), a chunk at a time, read from plaintext
    columns (whether each has words is known once it is opened)."""
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
    then = f'"{rule.then}" DESC, ' if rule.then else ""
    order = f'"{rule.when}" DESC, {then}id DESC'
    sql = f'SELECT id, "{rule.when}" FROM "{table}"{where} ORDER BY {order}'
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
