"""Daily memories and session summaries, each sealed: what extraction writes about a day and
about a chat session, and the queries the coach, the screens and the index need."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, NamedTuple

from companion import clock
from companion.activity import chat
from companion.errors import RecordDamaged
from companion.memory.common import expiry, normalized, readable
from companion.vault import Vault, tuples
from companion.vault.models import DailyMemory, SessionSummary


@dataclass(frozen=True)
class DailyInfo:
    id: int
    date: str
    covering_from: str
    covering_to: str


class DailyMemoryView(NamedTuple):
    info: DailyInfo
    content: dict[str, Any]


@dataclass(frozen=True)
class SummaryView:
    session_id: int
    updated_at: datetime
    content: dict[str, Any]


def add_daily_memory(
    vault: Vault, day: date, covering_from: date, covering_to: date, content: dict[str, Any]
) -> int:
    return vault.insert(
        DailyMemory,
        content,
        date=day.isoformat(),
        covering_from=covering_from.isoformat(),
        covering_to=covering_to.isoformat(),
        created_at=clock.stamp(),
    )


def _daily(vault: Vault, row: DailyMemory) -> DailyMemoryView:
    info = DailyInfo(row.id, row.date, row.covering_from, row.covering_to)
    return DailyMemoryView(info, vault.open(row))


def newest_daily_memory(vault: Vault) -> DailyMemoryView | None:
    row = DailyMemory.select().order_by(DailyMemory.date.desc(), DailyMemory.id.desc()).first()
    return _daily(vault, row) if row else None


def daily_memories(vault: Vault, first: date | None = None) -> list[DailyMemoryView]:
    """Daily memories dated ``first`` or later (all by default), oldest first."""
    rows = DailyMemory.select().order_by(DailyMemory.date)
    if first is not None:
        rows = rows.where(DailyMemory.date >= first.isoformat())
    return readable(rows, lambda r: _daily(vault, r))


def put_session_summary(
    vault: Vault, session_id: int, content: dict[str, Any], tier: str = "semantic"
) -> int:
    """One summary per session: a session that grew gets its summary replaced."""
    now = clock.stamp()
    with vault.transaction():
        row = SessionSummary.get_or_none(SessionSummary.session == session_id)
        if row is None:
            return vault.insert(
                SessionSummary,
                content,
                session=session_id,
                tier=tier,
                created_at=now,
                updated_at=now,
                expires_at=expiry(tier),
            )
        vault.update(
            SessionSummary, row.id, content, tier=tier, updated_at=now, expires_at=expiry(tier)
        )
        return int(row.id)


def _unexpired(column: Any) -> Any:
    return column.is_null() | (column > clock.stamp())


def next_expiry(after: str) -> str | None:
    """The stamp at which the next summary still fresh at ``after`` expires (None: none
    will), for what keeps the fresh ones until then (coach/standing.py)."""
    found = (
        SessionSummary.select(SessionSummary.expires_at)
        .where(SessionSummary.expires_at > after)
        .order_by(SessionSummary.expires_at)
        .first()
    )
    return str(found.expires_at) if found is not None else None


def _summary(vault: Vault, row: SessionSummary) -> SummaryView:
    content = vault.open(row)
    return SummaryView(row.session_id, clock.parse_stamp(row.updated_at), content)


def session_summaries(
    vault: Vault,
    limit: int | None = None,
    on_record: bool = True,
    fresh: bool = True,
    newest_first: bool = True,
) -> list[SummaryView]:
    """Newest first (else in the order they were written). ``on_record``: off-the-record
    sessions left out (they have none to give anyway); ``fresh``: summaries past their tier's
    TTL left out."""
    order = SessionSummary.updated_at.desc() if newest_first else SessionSummary.id
    rows = SessionSummary.select().order_by(order)
    if fresh:
        rows = rows.where(_unexpired(SessionSummary.expires_at))
    if on_record:
        rows = rows.where(SessionSummary.session.not_in(list(chat.off_record_ids(vault))))
    if limit is not None:
        rows = rows.limit(limit)
    return readable(rows, lambda r: _summary(vault, r))


def summaries_updated_between(vault: Vault, start: str, end: str) -> list[SummaryView]:
    rows = SessionSummary.select().where(
        (SessionSummary.updated_at >= start) & (SessionSummary.updated_at < end)
    )
    return readable(rows, lambda r: _summary(vault, r))


def summaries_of(vault: Vault, session_ids: list[int]) -> dict[int, dict[str, Any]]:
    rows = SessionSummary.select().where(SessionSummary.session.in_(session_ids))
    return {view.session_id: view.content for view in (_summary(vault, r) for r in rows)}


def has_summary(session_id: int) -> bool:
    return SessionSummary.get_or_none(SessionSummary.session == session_id) is not None


def scrub_daily_memories(vault: Vault, texts: list[str]) -> None:
    """Drop a forgotten fact from the daily memories' list of facts learned that day."""
    needles = {normalized(t) for t in texts if t.strip()}
    for row in DailyMemory.select():
        try:
            content = vault.open(row)
        except RecordDamaged:
            continue
        facts = content.get("user_facts")
        if isinstance(facts, list):
            kept = [f for f in facts if normalized(str(f)) not in needles]
            if len(kept) != len(facts):
                vault.update(DailyMemory, row.id, {**content, "user_facts": kept})


def erase_all(vault: Vault) -> tuple[int, int]:
    """(daily memories, session summaries) erased: a fresh start."""
    return vault.delete_where(DailyMemory, None), vault.delete_where(SessionSummary, None)


# -- what the retrieval index reads ----------------------------------------------------------


def summary_ids_of(session_ids: Iterable[int]) -> set[int]:
    """The summaries of these sessions."""
    wanted = list(session_ids)
    rows = SessionSummary.select(SessionSummary.id).where(SessionSummary.session << wanted)
    return {int(rid) for (rid,) in tuples(rows)} if wanted else set()


def fresh_summary_ids() -> set[int]:
    """Session summaries within their tier's time (expired ones stay out of recall)."""
    rows = SessionSummary.select(SessionSummary.id).where(_unexpired(SessionSummary.expires_at))
    return {int(rid) for (rid,) in tuples(rows)}
