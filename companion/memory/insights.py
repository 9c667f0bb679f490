"""Weekly insights per ISO week: sessions completed, average urge intensity, streak, common
triggers ranked, strategy success rates, vulnerable times, mood and cravings trends.

Triggers and strategies are counted as vocabulary labels (from extraction, or mapped locally
from check-in fields), never as the user's words; the shareable report holds aggregates only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from companion import clock
from companion.activity import chat, checkins, progress
from companion.errors import InvalidInput
from companion.memory import summaries, urges
from companion.memory.vocabulary import plain, strategy_label, trigger_label
from companion.vault import Vault


def week_bounds(week: str | None) -> tuple[date, date, str]:
    """``YYYY-Www`` (default: this week) -> Monday, Sunday, label."""
    if week is None:
        year, number, _ = clock.today().isocalendar()
    else:
        try:
            year, number = int(week[:4]), int(week.split("W")[1])
            date.fromisocalendar(year, number, 1)
        except (ValueError, IndexError):
            raise InvalidInput(
                f"'{week}' is not an ISO week: use YYYY-Www, like 2026-W47."
            ) from None
    monday = date.fromisocalendar(year, number, 1)
    return monday, monday + timedelta(days=6), f"{year}-W{number:02d}"


@dataclass
class Week:
    week: str
    start: str
    end: str
    sessions_completed: int = 0
    chats: int = 0  # on the record, started this week, ended or not
    average_urge_intensity: float | None = None
    streak_at_week_end: int = 0
    check_ins: int = 0
    common_triggers: list[tuple[str, int]] = field(default_factory=list)
    strategy_success: list[tuple[str, float, int]] = field(default_factory=list)
    vulnerable_times_of_day: list[tuple[str, int]] = field(default_factory=list)
    vulnerable_days: list[tuple[str, int]] = field(default_factory=list)
    mood: list[float | None] = field(default_factory=list)  # Monday..Sunday
    cravings: list[float | None] = field(default_factory=list)
    mood_change: float | None = None  # against the week before
    cravings_change: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def part_of_day(moment: datetime) -> str:
    hour = moment.hour
    return (
        "night" if hour < 6 else "morning" if hour < 12 else "afternoon" if hour < 18 else "evening"
    )


def _average(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 1) if values else None


def weekly(vault: Vault, week: str | None = None) -> Week:
    monday, sunday, label = week_bounds(week)
    result = Week(label, monday.isoformat(), sunday.isoformat())
    days = checkins.between(vault, monday - timedelta(days=7), sunday)
    this_week = [c for c in days if c.date >= monday]
    last_week = [c for c in days if c.date < monday]
    result.check_ins = len(this_week)
    by_day = {c.date: c.values for c in this_week}
    result.mood = [by_day.get(monday + timedelta(d), {}).get("mood") for d in range(7)]
    result.cravings = [by_day.get(monday + timedelta(d), {}).get("cravings") for d in range(7)]
    for key, attr in (("mood", "mood_change"), ("cravings", "cravings_change")):
        now = _average([c.values[key] for c in this_week if key in c.values])
        before = _average([c.values[key] for c in last_week if key in c.values])
        if now is not None and before is not None:
            setattr(result, attr, round(now - before, 1))
    last = min(sunday, clock.today())  # this week's streak is the one running now
    result.streak_at_week_end = progress.streak([d for d in checkins.dates() if d <= last], last)
    start, end = (
        clock.stamp(datetime.combine(monday, datetime.min.time()).astimezone()),
        clock.stamp(datetime.combine(sunday + timedelta(days=1), datetime.min.time()).astimezone()),
    )
    result.sessions_completed = chat.completed_between(start, end)
    result.chats = chat.started_between(start, end)
    seen = urges.between(vault, start, end)
    for c in this_week:  # check-ins with urge fields count too, mapped to labels
        v = c.values
        if any(k in v for k in ("urge_intensity", "trigger", "strategy")):
            seen.append(
                {
                    "trigger": trigger_label(v.get("trigger", "")),
                    "strategy": strategy_label(v.get("strategy", "")),
                    "outcome": v.get("outcome"),
                    "intensity": v.get("urge_intensity"),
                    "at": datetime.combine(c.date, datetime.min.time())
                    .astimezone()
                    .replace(hour=20),
                }
            )
    intensities = [float(u["intensity"]) for u in seen if u.get("intensity") is not None]
    for summary in summaries.summaries_updated_between(vault, start, end):
        value = summary.content.get("urge_intensity")
        if isinstance(value, int):
            intensities.append(float(value))
    result.average_urge_intensity = _average(intensities)
    triggers = Counter(str(u["trigger"]) for u in seen if u.get("trigger"))
    result.common_triggers = triggers.most_common()
    tried: dict[str, list[bool]] = {}
    for u in seen:
        if u.get("strategy") and u.get("outcome"):
            tried.setdefault(str(u["strategy"]), []).append(u["outcome"] == "urge_passed")
    result.strategy_success = sorted(
        ((name, round(sum(wins) / len(wins), 2), len(wins)) for name, wins in tried.items()),
        key=lambda item: (-item[1], -item[2], item[0]),
    )
    result.vulnerable_times_of_day = Counter(part_of_day(u["at"]) for u in seen).most_common()
    result.vulnerable_days = Counter(u["at"].strftime("%A") for u in seen).most_common()
    return result


def share_report(data: Week) -> str:
    """For a sponsor or therapist: aggregates and vocabulary labels only, never user text."""

    def fmt(value: float | None) -> str:
        return "-" if value is None else f"{value:g}"

    lines = [
        f"# Weekly recovery summary, {data.week} ({data.start} to {data.end})",
        "",
        f"- Check-ins: {data.check_ins} of 7 days",
        f"- Check-in streak at the end of the week (or now): {data.streak_at_week_end} days",
        f"- Coaching sessions completed: {data.sessions_completed}",
        f"- Average urge intensity: {fmt(data.average_urge_intensity)} / 10",
        f"- Mood by day (Mon-Sun): {', '.join(fmt(v) for v in data.mood)}"
        f" (change on the week before: {fmt(data.mood_change)})",
        f"- Cravings by day (Mon-Sun): {', '.join(fmt(v) for v in data.cravings)}"
        f" (change on the week before: {fmt(data.cravings_change)})",
        "",
        "## Common triggers",
    ]
    lines += [f"- {plain(label)}: {count}" for label, count in data.common_triggers] or ["- none"]
    lines += ["", "## What helped (success rate)"]
    lines += [f"- {plain(name)}: {rate:.0%} of {n}" for name, rate, n in data.strategy_success] or [
        "- none recorded"
    ]
    lines += ["", "## Vulnerable times"]
    lines += [
        f"- {name}: {count}" for name, count in data.vulnerable_times_of_day + data.vulnerable_days
    ] or ["- none recorded"]
    return "\n".join(lines) + "\n"
