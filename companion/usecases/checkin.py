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
    danger: safety.Danger | None
    """What the note's new words sound like, if danger: show that help now."""
    offer_slip: bool
    """Not sober on a day after the recovery start, and this save said so first: offer to log
    a slip (once: saving the day's note after "Not now" does not ask again)."""
    days_kept: int | None
    """The sober days a slip would close (they stay in the history)."""
    earlier_note: str = ""
    """The day's note before this save, to say what became of it."""


def save(
    unlocked: Unlocked,
    day: date,
    values: dict[str, Any],
    *,
    from_form: bool = False,
    add_note: bool = False,
) -> SavedCheckIn:
    """Check in for ``day``. Saved from the app's form (``from_form``), the draft the form
    kept goes; a command leaves the app's draft alone. The form shows the whole note, so its
    note replaces the day's; a command that only has new words passes ``add_note``."""
    vault = unlocked.vault
    earlier = checkins.get(vault, day)
    saved = checkins.record(vault, day, add_note=add_note, **values)
    if from_form:
        drafts.discard(vault, "checkin")
    before = str(earlier.values.get("note", "")) if earlier is not None else ""
    danger = safety.assess(safety.new_sentences(before, str(saved.values.get("note", ""))))
    offer, days = False, None
    already = earlier is not None and earlier.values.get("sober") is False
    if saved.values.get("sober") is False and not already:
        prof = profile.load(vault)
        start = prof.get("recovery_start_date")
        offer = not (start and date.fromisoformat(start) >= day)
        days = progress.sober_days(prof, day)
    return SavedCheckIn(saved, danger, offer, days, before)
