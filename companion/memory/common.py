"""What the memory tables' modules share: how long a tier keeps a record in the coach's
context (from when it was learned, or from the life dates sealed with it), reading past a
damaged record, and words as compared. Nothing here reads or writes a table: facts are
``store``'s, daily memories and summaries ``summaries``', the update log ``runs``'."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from companion import clock
from companion.errors import InvalidInput, RecordDamaged

TIERS = {"semantic": None, "episodic": timedelta(days=30), "conversation": timedelta(days=7)}


def expiry(tier: str) -> str | None:
    """When a record of ``tier`` learned now leaves the context (None: never)."""
    if tier not in TIERS:
        raise InvalidInput(f"tier must be one of {', '.join(TIERS)}.")
    ttl = TIERS[tier]
    return clock.stamp(clock.now() + ttl) if ttl else None


def event_expiry(tier: str, data: dict[str, Any], learned: datetime | None) -> datetime | None:
    """A tier's time counts from when the thing happened in the person's life (the sealed
    ``valid_to``, else ``valid_from``), not from when the app learned it. Life dates stay in
    the payload: the plaintext column only bounds it by the learning time."""
    ttl = TIERS.get(tier)
    if ttl is None:
        return None
    days = [
        life_date(data.get("valid_to") or data.get("valid_from")),
        life_date(data.get("said")),
    ]
    known = [d for d in days if d is not None]
    if not known:
        return learned
    try:
        return datetime.combine(max(known), datetime.min.time()).astimezone() + ttl
    except (OverflowError, ValueError):  # a date at the edge of the calendar: learning time
        return learned


def life_date(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def normalized(text: str) -> str:
    """Words as compared (a fact's, a summary's, a log line's): lower case, spaces collapsed,
    no final period."""
    return " ".join(text.lower().split()).rstrip(".")


def readable(rows: Any, show: Any) -> list[Any]:
    """Every record that reads; a damaged one is left out (`companion verify` names it)."""
    out = []
    for row in rows:
        try:
            out.append(show(row))
        except RecordDamaged:
            continue
    return out
