"""Days sober as the coach and Today tell them: derived from what was logged, never stored.

A relapse logged after the recovery start (a check-in saying "not sober" or an urge that ended
in a relapse, in a check-in or noticed by the memory update) changes the count at once: "relapse
on 2026-11-24 after 41 days; 1 day since". The start date in the profile changes only when the
user accepts it (pending.py); while a new one waits, both are told.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from datetime import date
from typing import Any

from companion.activity import checkins, profile, progress
from companion.memory import pending, urges
from companion.vault import Vault


@dataclass(frozen=True)
class Sobriety:
    start: date | None  # the recovery start the user set
    relapse: date | None = None  # the latest relapse logged after it
    days_before: int | None = None  # days sober up to that relapse
    days: int | None = None  # days since the start, or since the relapse
    proposed_start: str | None = None  # a new start date waiting for the user

    def describe(self) -> str:
        """One line for the coach ("" when no start is set)."""
        if self.start is None:
            return ""
        if self.relapse is not None:
            since = f"{self.days} day{'s' if self.days != 1 else ''} since"
            text = (
                f"relapse on {self.relapse.isoformat()} after {self.days_before} days sober "
                f"(since {self.start.isoformat()}); {since}"
            )
        else:
            text = f"sober since {self.start.isoformat()} ({self.days} days)"
        if self.proposed_start:
            text += f"; a new start date, {self.proposed_start}, waits for their confirmation"
        return text

    def for_you(self) -> str:
        """Two lines for the person, the same on Today and Insights: the days, the slip
        (with the days before it kept), and the next milestone ("" when no start is set)."""
        if self.start is None or self.days is None:
            return ""
        days = self.days
        plural = "s" if days != 1 else ""
        head = (
            f"{days} day{plural} since the slip on {self.relapse:%d %b} "
            f"(after {self.days_before} days sober)"
            if self.relapse is not None
            else f"{days} day{plural} sober"
        )
        mark = progress.next_milestone(days)
        left = mark - days
        # "1 day in 1 day" on the first day read like a stutter.
        when = ", tomorrow" if left == 1 else f" in {left} days"
        return f"{head}\nnext milestone: {progress.milestone_label(mark)}{when}"


_CACHE: weakref.WeakKeyDictionary[Vault, tuple[tuple[object, ...], date | None]] = (
    weakref.WeakKeyDictionary()
)


def latest_relapse(vault: Vault, after: date) -> date | None:
    """The newest day after ``after`` with a relapse logged. Read newest first, so a recent one
    costs a few decryptions; kept until a check-in or an urge changes."""
    mark = (after, vault.changes(("checkin", "urge_event")))
    cached = _CACHE.get(vault)
    if cached is not None and cached[0] == mark:
        return cached[1]
    # Urge stamps are UTC: one from the evening before the start may read as after it.
    later = (
        next((d for d in source if d > after), None)
        for source in (checkins.relapse_days(vault, after), urges.relapse_days(vault, after))
    )
    found = max((d for d in later if d is not None), default=None)
    _CACHE[vault] = (mark, found)
    return found


def current(vault: Vault, today: date, prof: dict[str, Any] | None = None) -> Sobriety:
    """``prof``: the profile, when the caller has it open already."""
    prof = profile.load(vault) if prof is None else prof
    proposed = next(
        (str(c.value) for c in pending.waiting(vault) if c.field == "recovery_start_date"), None
    )
    start_text = prof.get("recovery_start_date")
    if not start_text:
        return Sobriety(None, proposed_start=proposed)
    start = date.fromisoformat(str(start_text))
    relapse = latest_relapse(vault, start)
    if relapse is None:
        return Sobriety(start, days=max(0, (today - start).days), proposed_start=proposed)
    return Sobriety(
        start,
        relapse,
        days_before=max(0, (relapse - start).days),
        days=max(0, (today - relapse).days),
        proposed_start=proposed,
    )
