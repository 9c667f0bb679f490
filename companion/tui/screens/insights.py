"""Insights from what the vault holds: mood, cravings and sleep over time, streaks, and a
Year in Pixels of mood. Heavy reading happens in a worker."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, Sparkline, Static

from companion import clock
from companion.activity import checkins, progress
from companion.tui.screens.base import DataScreen
from companion.tui.widgets.pixels import YearInPixels

WINDOW = 90


@dataclass
class Series:
    name: str
    values: list[float]

    def summary(self) -> str:
        if not self.values:
            return f"{self.name}: no data yet"
        avg = sum(self.values) / len(self.values)
        return f"{self.name}: avg {avg:.1f}, range {min(self.values):g}-{max(self.values):g}"


class InsightsScreen(DataScreen):
    MODE = "insights"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pageup", "year(-1)", "Prev year", id="insights-prev-year"),
        Binding("pagedown", "year(1)", "Next year", id="insights-next-year"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.year = clock.today().year

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="insights"):
            yield Static("", id="streaks")
            yield Static(f"Last {WINDOW} days", classes="section")
            with Horizontal(id="trend-charts"):
                for key in ("mood", "cravings", "sleep"):
                    with Vertical(classes="trend"):
                        yield Label("", id=f"{key}-summary")
                        yield Sparkline([], id=f"{key}-chart")
            yield Label("Year in Pixels (PgUp/PgDn: year)", classes="section")
            yield YearInPixels(id="pixels")

    def refresh_data(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="insights")
    def load(self) -> None:
        vault, today = self.vault, clock.today()
        recent = checkins.between(vault, today - timedelta(days=WINDOW - 1), today)
        series = [
            Series("Mood", [float(c.values["mood"]) for c in recent if "mood" in c.values]),
            Series(
                "Cravings", [float(c.values["cravings"]) for c in recent if "cravings" in c.values]
            ),
            Series(
                "Sleep (h)",
                [float(c.values["sleep_hours"]) for c in recent if "sleep_hours" in c.values],
            ),
        ]
        dates = progress.checkin_dates()
        year_rows = checkins.between(vault, date(self.year, 1, 1), date(self.year, 12, 31))
        moods = {c.date: int(c.values["mood"]) for c in year_rows if "mood" in c.values}
        streaks = (
            f"Check-in streak: {progress.streak(dates, today)} days now, longest "
            f"{progress.longest_streak(dates)} days, {len(dates)} check-ins in all."
        )
        self.app.call_from_thread(self.show, series, streaks, moods)

    def show(self, series: list[Series], streaks: str, moods: dict[date, int]) -> None:
        self.query_one("#streaks", Static).update(streaks)
        for key, data in zip(("mood", "cravings", "sleep"), series, strict=True):
            self.query_one(f"#{key}-summary", Label).update(data.summary())
            chart = self.query_one(f"#{key}-chart", Sparkline)
            chart.data = data.values
            chart.display = bool(data.values)
        self.query_one(YearInPixels).set_moods(moods, self.year)

    def action_year(self, step: int) -> None:
        if self.year + step > clock.today().year:
            return
        self.year += step
        self.load()
