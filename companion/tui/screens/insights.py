"""Insights from what the vault holds: mood, cravings and sleep over time, streaks, and a
Year in Pixels of mood. Heavy reading happens in a worker."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from companion import clock
from companion.activity import checkins, profile, progress
from companion.memory import insights, sobriety
from companion.memory.vocabulary import plain
from companion.tui.screens.base import DataScreen
from companion.tui.text import counted
from companion.tui.widgets.pixels import YearInPixels
from companion.tui.widgets.trend import TrendChart

WINDOW = 90


@dataclass
class Series:
    name: str
    points: dict[date, float]
    low: float
    high: float

    @property
    def values(self) -> list[float]:
        return list(self.points.values())

    def summary(self) -> str:
        if not self.values:
            return f"{self.name}: no data yet"
        avg = sum(self.values) / len(self.values)
        # Short enough for a third of 80 columns: "Sleep (h) 7.0 avg, 5-9".
        return f"{self.name} {avg:.1f} avg, {min(self.values):g}-{max(self.values):g}"


def bar(count: int, most: int, width: int = 20) -> str:
    return "█" * max(1, round(width * count / most)) if most else ""


def week_text(week: insights.Week) -> str:
    def fmt(value: float | None) -> str:
        return "-" if value is None else f"{value:g}"

    lines = [
        f"Check-ins {week.check_ins}/7 · check-in streak {week.streak_at_week_end} · chats "
        f"{week.chats} · average urge {fmt(week.average_urge_intensity)}/10",
        f"Mood  Mon-Sun: {'  '.join(fmt(v) for v in week.mood)}   "
        f"(vs week before {fmt(week.mood_change)})",
        f"Cravings     : {'  '.join(fmt(v) for v in week.cravings)}   "
        f"(vs week before {fmt(week.cravings_change)})",
    ]
    if week.common_triggers:
        most = week.common_triggers[0][1]
        lines.append("Triggers:")
        lines += [
            f"  {plain(label):<12} {bar(n, most)} {n}" for label, n in week.common_triggers[:6]
        ]
    if week.strategy_success:
        lines.append("What helped (urge passed):")
        lines += [
            f"  {plain(name):<21} {bar(round(rate * 10), 10, 10)} {rate:.0%} of {n}"
            for name, rate, n in week.strategy_success[:6]
        ]
    if week.vulnerable_times_of_day:
        times = ", ".join(f"{name} {n}" for name, n in week.vulnerable_times_of_day)
        days = ", ".join(f"{name} {n}" for name, n in week.vulnerable_days[:3])
        lines.append(f"Vulnerable times: {times}; days: {days}")
    if week.average_urge_intensity is None and not (week.common_triggers or week.strategy_success):
        lines.append(
            "No urges recorded this week. Urge fields in a check-in, or what you "
            "tell the coach, show up here."
        )
    elif not (week.common_triggers or week.strategy_success):
        lines.append("Add a trigger and what you did to an urge to see what helps.")
    return "\n".join(lines)


class InsightsScreen(DataScreen):
    MODE = "insights"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "week(-1)", "Prev week", id="insights-prev-week", priority=True),
        Binding("right", "week(1)", "Next week", id="insights-next-week", priority=True),
        Binding("pageup", "year(-1)", "Prev year", id="insights-prev-year", priority=True),
        Binding("pagedown", "year(1)", "Next year", id="insights-next-year", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.year = clock.today().year
        self.week_start = clock.today() - timedelta(days=clock.today().weekday())

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="insights"):
            yield Static("", id="streaks")
            yield Static(f"Last {WINDOW} days", classes="section")
            with Vertical(id="trend-charts"):
                for key in ("mood", "cravings", "sleep"):
                    with Vertical(classes="trend"):
                        yield Label("", id=f"{key}-summary")
                        yield TrendChart(id=f"{key}-chart")  # its axis comes with its data
            yield Static("", id="week-title", classes="section")
            yield Static("", id="week")
            yield Label("Year in Pixels (PgUp/PgDn: year)", classes="section")
            yield YearInPixels(id="pixels")

    def refresh_data(self) -> None:
        self.load_charts()

    @work(thread=True, exclusive=True, group="insights")
    def load_charts(self) -> None:
        """Read and compute in a thread; ``show`` paints on the UI thread."""
        vault, today = self.vault, clock.today()
        start = today - timedelta(days=WINDOW - 1)
        recent = checkins.between(vault, start, today)

        def points(key: str) -> dict[date, float]:
            return {c.date: float(c.values[key]) for c in recent if key in c.values}

        sleep = points("sleep_hours")
        series = [
            Series("Mood", points("mood"), 1, 10),
            Series("Cravings", points("cravings"), 0, 10),
            # Hours of sleep vary by a few: the axis spans them with room either side.
            Series(
                "Sleep (h)",
                sleep,
                max(0, math.floor(min(sleep.values(), default=6)) - 2),
                min(24, math.ceil(max(sleep.values(), default=8)) + 2),
            ),
        ]
        dates = checkins.dates()
        year_rows = checkins.between(vault, date(self.year, 1, 1), date(self.year, 12, 31))
        moods = {c.date: int(c.values["mood"]) for c in year_rows if "mood" in c.values}
        sober = sobriety.current(vault, today, profile.load(vault)).for_you()
        streaks = (
            (f"{sober}\n" if sober else "")
            + f"Check-in streak: {counted(progress.streak(dates, today), 'day')} now, longest "
            f"{counted(progress.longest_streak(dates), 'day')}, "
            f"{counted(len(dates), 'check-in')} in all."
        )
        year, number, _ = self.week_start.isocalendar()
        week = insights.weekly(vault, f"{year}-W{number:02d}")
        self.app.call_from_thread(self.show, series, streaks, moods, week, (start, today))

    def show(
        self,
        series: list[Series],
        streaks: str,
        moods: dict[date, int],
        week: insights.Week,
        span: tuple[date, date],
    ) -> None:
        self.query_one("#streaks", Static).update(streaks)
        self.query_one("#week-title", Static).update(
            f"Week {week.week} ({week.start} to {week.end}), left/right: another week"
        )
        self.query_one("#week", Static).update(week_text(week))
        for key, data in zip(("mood", "cravings", "sleep"), series, strict=True):
            self.query_one(f"#{key}-summary", Label).update(data.summary())
            chart = self.query_one(f"#{key}-chart", TrendChart)
            chart.show(data.points, *span, bounds=(data.low, data.high))
            chart.display = bool(data.points)
        self.query_one(YearInPixels).set_moods(moods, self.year)

    def action_week(self, step: int) -> None:
        target = self.week_start + timedelta(weeks=step)
        if target > clock.today():
            return
        self.week_start = target
        self.load_charts()

    def action_year(self, step: int) -> None:
        if self.year + step > clock.today().year:
            return
        self.year += step
        self.load_charts()
