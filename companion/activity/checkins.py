"""Daily check-ins: one per local date, back-filling allowed, the future refused."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from companion import clock
from companion.errors import InvalidInput, RecordDamaged
from companion.vault import Vault, tuples
from companion.vault.models import CheckIn

OUTCOMES = ("urge_passed", "relapsed", "ongoing_struggle")
NOTE_LIMIT = 100_000
FIELDS = (
    "mood",
    "cravings",
    "sleep_hours",
    "sober",
    "note",
    "urge_intensity",
    "trigger",
    "strategy",
    "outcome",
)


@dataclass
class CheckInView:
    id: int
    date: date
    values: dict[str, Any] = field(default_factory=dict)
    memorized: bool = False
    updated_at: str = ""
    """The stored stamp of the last save, to notice an edit made while a model read it."""

    def get(self, name: str) -> Any:
        return self.values.get(name)


def parse_day(text: str | None) -> date:
    """``YYYY-MM-DD``, ``today`` or ``yesterday`` (default today); the future is refused."""
    today = clock.today()
    if text in (None, "", "today"):
        day = today
    elif text == "yesterday":
        day = today - timedelta(days=1)
    else:
        try:
            day = date.fromisoformat(str(text))
        except ValueError:
            raise InvalidInput(
                f"'{text}' is not a date: use YYYY-MM-DD, today or yesterday."
            ) from None
    if day > today:
        raise InvalidInput(f"{day} is in the future; you can check in for today or earlier.")
    return day


def _int_in(name: str, value: Any, low: int, high: int) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise InvalidInput(f"{name} must be a whole number from {low} to {high}.") from None
    if not low <= number <= high:
        raise InvalidInput(f"{name} {number} is out of range: use {low} to {high}.")
    return number


def parse_sober(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("yes", "y", "true", "1"):
        return True
    if text in ("no", "n", "false", "0"):
        return False
    raise InvalidInput("sober must be yes or no.")


def parse_sleep(value: Any) -> float:
    """Hours of sleep, 0 to 24. A decimal comma counts as a point ("7,5" is 7.5), as many
    people write it, in the app and on the command line alike."""
    text = str(value).strip()
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    try:
        hours = float(text)
    except ValueError:
        raise InvalidInput("sleep must be a number of hours from 0 to 24.") from None
    if not math.isfinite(hours) or not 0 <= hours <= 24:
        raise InvalidInput(f"sleep {value} is out of range: use 0 to 24 hours.")
    return round(hours, 2)


def added_note(earlier: str, note: str) -> str:
    """``note`` on a line of its own after the ``earlier`` note, so words added later (from
    the command line, say) never take the place of words written before. When ``earlier``
    already has those lines, it stays as it is: running the same command again does not
    write them twice."""
    addition = note.strip()
    if not earlier.strip():
        return note
    if not addition:
        return earlier
    lines = [line.strip() for line in earlier.splitlines()]
    wanted = [line.strip() for line in addition.splitlines()]
    if any(lines[i : i + len(wanted)] == wanted for i in range(len(lines) - len(wanted) + 1)):
        return earlier
    return f"{earlier.rstrip()}\n{addition}"


def validate(values: dict[str, Any]) -> dict[str, Any]:
    """Check and normalise the given fields; ``None`` means "not given"."""
    clean: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        if name not in FIELDS:
            raise InvalidInput(f"unknown check-in field {name}.")
        if name == "mood":
            clean[name] = _int_in("mood", value, 1, 10)
        elif name in ("cravings", "urge_intensity"):
            clean[name] = _int_in(name.replace("_", " "), value, 0, 10)
        elif name == "sleep_hours":
            clean[name] = parse_sleep(value)
        elif name == "sober":
            clean[name] = parse_sober(value)
        elif name == "outcome":
            if value not in OUTCOMES:
                raise InvalidInput(f"outcome must be one of {', '.join(OUTCOMES)}.")
            clean[name] = value
        else:
            text = str(value)
            if len(text) > NOTE_LIMIT:
                raise InvalidInput(
                    f"the {name} is {len(text):,} characters; the limit is {NOTE_LIMIT:,}."
                )
            clean[name] = text
    return clean


def record(vault: Vault, day: date, *, add_note: bool = False, **values: Any) -> CheckInView:
    """Check in for ``day``: given values replace old ones, the rest are kept. With
    ``add_note``, a given note is added to the day's note instead (``added_note``)."""
    if day > clock.today():
        raise InvalidInput(f"{day} is in the future; you can check in for today or earlier.")
    given = validate(values)
    if not given:
        raise InvalidInput("nothing to record: give at least one of mood, cravings, sleep, sober.")
    now = clock.stamp()
    with vault.transaction():
        row = CheckIn.get_or_none(CheckIn.date == day.isoformat())
        if row is None:
            rid = vault.insert(CheckIn, given, date=day.isoformat(), created_at=now, updated_at=now)
            return CheckInView(rid, day, given)
        stored = vault.open(row)
        if add_note and "note" in given:
            given["note"] = added_note(str(stored.get("note", "")), given["note"])
        merged = {**stored, **given}
        vault.update(CheckIn, row.id, merged, updated_at=now, memorized=False)
        return CheckInView(row.id, day, merged)


def _view(vault: Vault, row: CheckIn) -> CheckInView:
    return CheckInView(
        row.id,
        date.fromisoformat(row.date),
        vault.open(row),
        bool(row.memorized),
        row.updated_at,
    )


def get(vault: Vault, day: date) -> CheckInView | None:
    row = CheckIn.get_or_none(CheckIn.date == day.isoformat())
    return _view(vault, row) if row else None


def between(vault: Vault, first: date, last: date) -> list[CheckInView]:
    rows = (
        CheckIn.select()
        .where((CheckIn.date >= first.isoformat()) & (CheckIn.date <= last.isoformat()))
        .order_by(CheckIn.date)
    )
    return [_view(vault, row) for row in rows]


def all_checkins(vault: Vault) -> list[CheckInView]:
    return [_view(vault, row) for row in CheckIn.select().order_by(CheckIn.date)]


def dates(since: date | None = None) -> list[date]:
    """Every day with a check-in (from ``since`` on), from plaintext dates (no decryption)."""
    query = CheckIn.select(CheckIn.date)
    if since is not None:
        query = query.where(CheckIn.date >= since.isoformat())
    return [date.fromisoformat(d) for (d,) in tuples(query)]


def relapse_days(vault: Vault, after: date) -> Iterator[date]:
    """Days after ``after`` whose check-in logs a relapse (not sober, or an urge that ended in
    one), newest first: a caller that wants the latest stops at the first. Each row is read
    whole and checked against its MAC: a date moved in the file must not hide a relapse (a
    damaged row is skipped here; verify names it)."""
    rows = CheckIn.select().where(CheckIn.date > after.isoformat()).order_by(CheckIn.date.desc())
    for row in rows:
        try:
            values = vault.open(row)
        except RecordDamaged:
            continue
        if values.get("sober") is False or values.get("outcome") == "relapsed":
            yield date.fromisoformat(row.date)


def unmemorized(vault: Vault) -> list[CheckInView]:
    """Check-ins extraction has not read; a damaged one is never sent (verify names it)."""
    found = []
    for row in CheckIn.select().where(CheckIn.memorized == 0):
        try:
            found.append(_view(vault, row))
        except RecordDamaged:
            continue
    return found


def mark_memorized(vault: Vault, checkin_id: int, updated_at: str) -> None:
    """Memorized, unless the check-in changed after ``updated_at`` (it is learned again)."""
    vault.update_where(
        CheckIn, (CheckIn.id == checkin_id) & (CheckIn.updated_at == updated_at), memorized=True
    )


def mark_all_unmemorized(vault: Vault) -> int:
    return vault.update_where(CheckIn, CheckIn.memorized == True, memorized=False)  # noqa: E712
