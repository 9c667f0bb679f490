"""Counting what matters: days sober, milestones and check-in streaks."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any

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
