"""Urges extraction noticed: when, the trigger and strategy as vocabulary labels, the outcome
and intensity. Counted by insights and by the "same trigger again" cue, never shown as text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from companion import clock
from companion.errors import RecordDamaged
from companion.vault import Vault
from companion.vault.models import UrgeEvent

FIELDS = ("trigger", "strategy", "outcome", "intensity", "evidence")


def add(vault: Vault, when: datetime, details: dict[str, Any], run_id: int | None = None) -> int:
    return vault.insert(
        UrgeEvent,
        {k: details.get(k) for k in FIELDS},
        occurred_at=clock.stamp(when),
        created_at=clock.stamp(),
        extraction_run=run_id,
    )


def between(vault: Vault, start: str, end: str) -> list[dict[str, Any]]:
    """Urges in [start, end) (stored stamps), each with ``at``, its local time."""
    in_range = (UrgeEvent.occurred_at >= start) & (UrgeEvent.occurred_at < end)
    rows = UrgeEvent.select().where(in_range)
    return [{**vault.open(row), "at": clock.parse_stamp(row.occurred_at)} for row in rows]


def trigger_counts(vault: Vault, since: datetime) -> Counter[str]:
    counts: Counter[str] = Counter()
    for row in UrgeEvent.select().where(UrgeEvent.occurred_at >= clock.stamp(since)):
        label = vault.open(row).get("trigger")
        if label:
            counts[str(label)] += 1
    return counts


def relapse_days(vault: Vault, after: date) -> Iterator[date]:
    """Local days after ``after`` with an urge that ended in a relapse, newest first; each
    row checked against its MAC, as ``checkins.relapse_days`` does."""
    rows = (
        UrgeEvent.select()
        .where(UrgeEvent.occurred_at > after.isoformat())
        .order_by(UrgeEvent.occurred_at.desc())
    )
    for row in rows:
        try:
            outcome = vault.open(row).get("outcome")
        except RecordDamaged:
            continue
        if outcome == "relapsed":
            yield clock.parse_stamp(str(row.occurred_at)).date()


def erase_all(vault: Vault) -> int:
    return vault.delete_where(UrgeEvent, None)
