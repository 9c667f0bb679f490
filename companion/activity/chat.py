"""Chat sessions and their messages, appended as the conversation goes."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import peewee as pw

from companion import clock
from companion.errors import InvalidInput, RecordDamaged
from companion.vault import Vault, integrity, tuples
from companion.vault.models import ChatMessage, ChatSession

ROLES = ("user", "assistant")
PROMPT_VERSION = "coach-v1"


@dataclass
class Session:
    id: int
    started_at: datetime
    ended_at: datetime | None
    title: str
    off_record: bool


@dataclass
class Message:
    id: int
    session_id: int
    role: str
    content: str
    created_at: datetime
    incomplete: bool = False


def start(vault: Vault, title: str = "", off_record: bool = False) -> Session:
    moment = clock.now()
    payload = {"title": title, "timezone": moment.tzname() or "", "prompt_version": PROMPT_VERSION}
    rid = vault.insert(ChatSession, payload, started_at=clock.stamp(moment), off_record=off_record)
    return Session(rid, moment, None, title, off_record)


def _session_row(session_id: int) -> ChatSession:
    row = ChatSession.get_or_none(ChatSession.id == session_id)
    if row is None:
        raise InvalidInput(f"there is no chat session {session_id}.")
    return row


def session_view(vault: Vault, row: ChatSession) -> Session:
    """A session; a damaged one is treated as off the record (its flag may have been flipped),
    so nothing of it is summarized, recalled or sent to a model."""
    damaged = False
    try:
        data = vault.open(row)
    except RecordDamaged:
        data, damaged = {"title": f"Damaged chat {row.id}"}, True
    return Session(
        row.id,
        clock.parse_stamp(row.started_at),
        clock.parse_stamp(row.ended_at) if row.ended_at else None,
        str(data.get("title", "")),
        bool(row.off_record) or damaged,
    )


def get_session(vault: Vault, session_id: int) -> Session:
    return session_view(vault, _session_row(session_id))


def sessions(vault: Vault, limit: int = 100) -> list[Session]:
    rows = ChatSession.select().order_by(ChatSession.started_at.desc()).limit(limit)
    return [session_view(vault, row) for row in rows]


def newest_session(vault: Vault) -> Session | None:
    """The session started last, by creation order: after the clock went back, the one with
    the latest start time may be an older one."""
    row = ChatSession.select().order_by(ChatSession.id.desc()).first()
    return session_view(vault, row) if row is not None else None


def add_message(
    vault: Vault, session_id: int, role: str, content: str, incomplete: bool = False
) -> Message:
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}")
    _session_row(session_id)
    moment = clock.now()
    payload: dict[str, object] = {"content": content}
    if incomplete:
        payload["incomplete"] = True
    rid = vault.insert(
        ChatMessage, payload, session=session_id, created_at=clock.stamp(moment), role=role
    )
    return Message(rid, session_id, role, content, moment, incomplete)


def _message(vault: Vault, row: ChatMessage, tolerant: bool = True) -> Message:
    """A message; damaged, it shows as a placeholder (``tolerant``) or raises."""
    try:
        data = vault.open(row)
    except RecordDamaged:
        if not tolerant:
            raise
        data = {"content": f"[Message {row.id} is damaged and cannot be read.]"}
    return Message(
        row.id,
        row.session_id,
        row.role,
        str(data.get("content", "")),
        clock.parse_stamp(row.created_at),
        bool(data.get("incomplete", False)),
    )


def messages(vault: Vault, session_id: int) -> list[Message]:
    rows = ChatMessage.select().where(ChatMessage.session == session_id).order_by(ChatMessage.id)
    return [_message(vault, row) for row in rows]


def message_count(session_id: int) -> int:
    """How many messages a session holds, without decrypting them."""
    return int(ChatMessage.select().where(ChatMessage.session == session_id).count())


def last_activity(session: Session) -> datetime:
    """When the session last moved (its newest message, else its start), from plaintext
    timestamps: deciding whether it went idle needs no decryption."""
    stamp = (
        ChatMessage.select(pw.fn.MAX(ChatMessage.created_at))
        .where(ChatMessage.session == session.id)
        .scalar()
    )
    return clock.parse_stamp(stamp) if stamp else session.started_at


def end(vault: Vault, session_id: int, at: datetime | None = None) -> None:
    """``at``: when it really ended, for a session found idle long after its last message."""
    vault.update(ChatSession, session_id, ended_at=clock.stamp(at))


def rename(vault: Vault, session_id: int, title: str) -> None:
    row = _session_row(session_id)
    data = vault.open(row)
    vault.update(ChatSession, row.id, {**data, "title": title})


def delete(vault: Vault, session_id: int) -> None:
    _session_row(session_id)
    vault.delete_where(ChatSession, ChatSession.id == session_id)
    vault.erase_traces()


def set_off_record(vault: Vault, session_id: int, off_record: bool) -> None:
    """Off the record: kept in history, never memorized, recalled or extracted."""
    _session_row(session_id)
    vault.update(ChatSession, session_id, off_record=off_record)


_CHECKED: weakref.WeakKeyDictionary[Vault, dict[int, tuple[tuple[Any, ...], bool]]] = (
    weakref.WeakKeyDictionary()
)
_OFF_RECORD: weakref.WeakKeyDictionary[
    Vault, tuple[tuple[object, ...], tuple[int, int, int], frozenset[int]]
] = weakref.WeakKeyDictionary()


def message_ids_in(session_ids: Iterable[int]) -> frozenset[int]:
    """The messages of these sessions (what recall leaves out for them)."""
    wanted = list(session_ids)
    rows = ChatMessage.select(ChatMessage.id).where(ChatMessage.session << wanted)
    return frozenset(int(rid) for (rid,) in tuples(rows)) if wanted else frozenset()


def off_record_ids(vault: Vault) -> frozenset[int]:
    """Sessions kept out of memory: off the record, or damaged (a flag that fails its MAC may
    have been flipped, so a damaged session is treated as off the record). Kept until a
    session is added, changed or deleted: every message asks."""
    stamp = vault.changes(("chat_session",))
    cached = _OFF_RECORD.get(vault)
    if cached is not None and cached[0] == stamp:
        return cached[2]
    mark = vault.table_mark("chat_session")
    found: set[int] | None = None
    if cached is not None and mark[0] > cached[1][0]:
        # Sessions were only added (a chat begun): only they are read, when the table's
        # mark says nothing else moved (as many more rows, their versions all the change).
        before = cached[1]
        added = list(integrity.rows(vault.conn, ChatSession, '"id" > ?', (before[1],)))
        if len(added) == mark[0] - before[0] and (
            sum(int(row["row_version"]) for row in added) == mark[2] - before[2]
        ):
            found = set(cached[2]) | _off_record_in(vault, added)
    if found is None:
        found = _off_record_in(vault, integrity.rows(vault.conn, ChatSession))
    _OFF_RECORD[vault] = (stamp, mark, frozenset(found))
    return frozenset(found)


def _off_record_in(vault: Vault, rows: Iterable[dict[str, Any]]) -> set[int]:
    """Of these session rows, those off the record or damaged. A row's MAC is checked again
    only when one of its columns changed (a session begun or ended changes the table, and
    there may be thousands of them)."""
    checked = _CHECKED.setdefault(vault, {})
    found = set()
    for row in rows:
        seen = tuple(row.values())
        verdict = checked.get(row["id"])
        if verdict is None or verdict[0] != seen:
            verdict = checked[row["id"]] = (seen, vault.authentic_row(ChatSession, row))
        if row["off_record"] or not verdict[1]:
            found.add(row["id"])
    return found


def _on_record_between(column: Any, start: str, end: str) -> int:
    """Sessions on the record whose ``column`` (a stored stamp) falls in [start, end)."""
    query = (column >= start) & (column < end) & (ChatSession.off_record == 0)
    return int(ChatSession.select().where(query).count())


def completed_between(start: str, end: str) -> int:
    """Sessions on the record that ended in [start, end) (stored stamps)."""
    return _on_record_between(ChatSession.ended_at, start, end)


def started_between(start: str, end: str) -> int:
    """Sessions on the record that began in [start, end), ended or not: a chat still open
    counts as one held."""
    return _on_record_between(ChatSession.started_at, start, end)


def said_since(vault: Vault, since: datetime, leave_out: int | None = None) -> list[Message]:
    """What the user said on the record since ``since``, except in session ``leave_out``."""
    rows = (
        ChatMessage.select(ChatMessage, ChatSession)
        .join(ChatSession)
        .where(
            (ChatSession.off_record == 0)
            & (ChatMessage.created_at >= clock.stamp(since))
            & (ChatMessage.role == "user")
            & (ChatMessage.session != leave_out)
        )
    )
    return _intact(vault, rows)


def unmemorized(vault: Vault) -> list[Message]:
    """Messages extraction has not read, off-the-record sessions left out."""
    rows = (
        ChatMessage.select(ChatMessage, ChatSession)
        .join(ChatSession)
        .where((ChatMessage.memorized == 0) & (ChatSession.off_record == 0))
    )
    return _intact(vault, rows)


def _intact(vault: Vault, rows: Iterable[ChatMessage]) -> list[Message]:
    """Messages that read, in sessions that pass their check (the rows were selected with
    their session); a damaged one is left out (never recalled or sent to a model)."""
    found, sessions_ok = [], {}  # each session's MAC checked once, not once per message
    for row in rows:
        if row.session_id not in sessions_ok:
            sessions_ok[row.session_id] = vault.authentic(row.session)
        if not sessions_ok[row.session_id]:
            continue
        try:
            found.append(_message(vault, row, tolerant=False))
        except RecordDamaged:
            continue
    return found


def mark_memorized(vault: Vault, message_ids: list[int]) -> None:
    if message_ids:
        vault.update_where(ChatMessage, ChatMessage.id.in_(message_ids), memorized=True)


def mark_all_unmemorized(vault: Vault) -> int:
    return vault.update_where(ChatMessage, ChatMessage.memorized == True, memorized=False)  # noqa: E712
