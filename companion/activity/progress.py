"""Counting what matters: days sober, milestones, check-in streaks, and a slip logged without
shame (the old start date stays in history)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any

from companion import clock
from companion.activity import profile
from companion.errors import InvalidInput
from companion.vault import Vault
from companion.vault.models import CheckIn, Profile

MILESTONES = (1, 7, 30, 60, 90, 180, 365)


def sober_days(prof: dict[str, Any], today: date) -> int | None:
    start = prof.get("recovery_start_date")
    if not start:
        return None
    return max(0, (today - date.fromisoformat(start)).days)


def next_milestone(days: int) -> int:
    for mark in MILESTONES:
        if days < mark:
            return mark
    return (days // 365 + 1) * 365


def milestone_label(days: int) -> str:
    if days % 365 == 0 and days >= 365:
        years = days // 365
        return f"{years} year" + ("s" if years > 1 else "")
    return f"{days} day" + ("s" if days != 1 else "")


def streak(days: Iterable[date], today: date) -> int:
    """Consecutive days with a check-in, ending today (or yesterday, until today is over)."""
    have = set(days)
    cursor = today if today in have else today - timedelta(days=1)
    count = 0
    while cursor in have:
        count += 1
        cursor -= timedelta(days=1)
    return count


def longest_streak(days: Iterable[date]) -> int:
    best = run = 0
    previous: date | None = None
    for day in sorted(set(days)):
        run = run + 1 if previous and day - previous == timedelta(days=1) else 1
        best, previous = max(best, run), day
    return best


def checkin_dates() -> list[date]:
    return [date.fromisoformat(d) for (d,) in CheckIn.select(CheckIn.date).tuples()]


def log_slip(vault: Vault, day: date) -> dict[str, Any]:
    """Reset the recovery start date to ``day``, keeping the previous run in history."""
    if day > clock.today():
        raise InvalidInput("a slip cannot be logged in the future.")
    with vault.transaction():
        current = profile.load(vault)
        history = list(current.get("recovery_history", []))
        start = current.get("recovery_start_date")
        if start:
            history.append(
                {
                    "start": start,
                    "end": day.isoformat(),
                    "days": (day - date.fromisoformat(start)).days,
                }
            )
        current.update(recovery_start_date=day.isoformat(), recovery_history=history)
        sealed = vault.sealer.seal(Profile.kind(), 1, current)
        Profile.insert(
            id=1, updated_at=clock.stamp(), payload=sealed
        ).on_conflict_replace().execute()
    return current
