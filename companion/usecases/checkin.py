"""Saving a check-in with what follows it: the draft for that day goes, a note that sounds
like danger brings help, and "not sober" offers, gently, to count again from that day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from companion.activity import checkins, drafts, profile, progress
from companion.coach import safety
from companion.usecases.unlocked import Unlocked


@dataclass
class SavedCheckIn:
    checkin: checkins.CheckInView
    crisis: bool
    """The note sounds like danger: show the crisis lines now."""
    offer_slip: bool
    """Not sober on a day after the recovery start: offer to log a slip."""
    days_kept: int | None
    """The sober days a slip would close (they stay in the history)."""


def save(unlocked: Unlocked, day: date, values: dict[str, Any]) -> SavedCheckIn:
    vault = unlocked.vault
    saved = checkins.record(vault, day, **values)
    draft = drafts.load(vault, "checkin")
    if draft is not None and draft.get("day") == day.isoformat():
        drafts.discard(vault, "checkin")
    crisis = safety.detect(str(saved.values.get("note", "")))
    prof = profile.load(vault)
    start = prof.get("recovery_start_date")
    offer = saved.values.get("sober") is False and not (
        start and date.fromisoformat(start) >= day
    )
    return SavedCheckIn(saved, crisis, offer, progress.sober_days(prof, day))
