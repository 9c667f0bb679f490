"""Today: the check-in (or a nudge), days sober and the next milestone, the check-in streak,
30-day mood and cravings, open follow-ups, and entries from this date in the past."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from companion import clock
from companion.activity import checkins, journal, profile, progress
from companion.memory import followups, sobriety
from companion.tui.screens.base import DataScreen
from companion.tui.screens.journal import JournalScreen
from companion.tui.text import literal, one_line
from companion.tui.widgets.picklist import PickList
from companion.tui.widgets.trend import TrendChart


def checkin_line(view: checkins.CheckInView | None) -> str:
    if view is None:
        return "No check-in yet today. Press c (or F4) to check in: it takes a few keys."
    v = view.values
    parts = []
    if "mood" in v:
        parts.append(f"mood {v['mood']}/10")
    if "cravings" in v:
        parts.append(f"cravings {v['cravings']}/10")
    if "sleep_hours" in v:
        parts.append(f"slept {v['sleep_hours']:g} h")
    if "sober" in v:
        parts.append("sober today" if v["sober"] else "not sober today")
    return "Checked in: " + ", ".join(parts)


class TodayScreen(DataScreen):
    MODE = "today"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "c",
            "app.go('checkin')",
            "Check in",
            id="today-checkin",
            tooltip="Record today's check-in",
        ),
        Binding("j", "write", "Write", id="today-journal", tooltip="Write in the journal"),
        Binding(
            "d",
            "done",
            "Follow-up done",
            id="today-done",
            tooltip="Mark the highlighted follow-up done",
        ),
    ]

    async def action_write(self) -> None:
        """The journal, ready for words: its editor has the focus, wherever it was left."""
        await self.companion.action_go("journal")
        if isinstance(self.app.screen, JournalScreen):
            self.app.screen.write()

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="today"):
            yield Static("", id="greeting")
            yield Static("", id="checkin-status")
            with Horizontal(id="counters"):
                yield Static("", id="sober", classes="counter")
                yield Static("", id="streak", classes="counter")
            with Horizontal(id="charts"):
                with Vertical(classes="chart"):
                    yield Label("Mood, last 30 days", id="mood-label")
                    yield TrendChart(1, 10, id="mood-chart")
                with Vertical(classes="chart"):
                    yield Label("Cravings, last 30 days", id="cravings-label")
                    yield TrendChart(0, 10, id="cravings-chart")
            yield Label("Follow-ups", classes="section")
            yield PickList(id="followups")
            yield Label("On this day", classes="section")
            yield Static("", id="on-this-day")

    def refresh_data(self) -> None:
        vault, today = self.vault, clock.today()
        prof = profile.load(vault)
        name = prof.get("preferred_name")
        self.query_one("#greeting", Static).update(
            literal(f"{today:%A, %d %B %Y}" + (f" · Hello, {name}" if name else ""))
        )
        self.query_one("#checkin-status", Static).update(checkin_line(checkins.get(vault, today)))
        state = sobriety.current(vault, today, prof)
        sober = (
            state.for_you() or "Set your recovery start date in Profile (F8) to count your days."
        )
        self.query_one("#sober", Static).update(sober)
        streak = progress.streak(checkins.dates(), today)
        self.query_one("#streak", Static).update(
            f"{streak} day check-in streak" if streak else "No check-in streak yet"
        )
        start = today - timedelta(days=29)
        recent = checkins.between(vault, start, today)
        for key, title in (("mood", "Mood"), ("cravings", "Cravings")):
            points = {c.date: float(c.values[key]) for c in recent if key in c.values}
            chart = self.query_one(f"#{key}-chart", TrendChart)
            chart.show(points, start, today)
            chart.display = bool(points)
            values = list(points.values())
            self.query_one(f"#{key}-label", Label).update(
                f"{title}, last 30 days: average {sum(values) / len(values):.1f}"
                if values
                else f"{title}: no check-ins in the last 30 days"
            )
        items = followups.open_items(vault)
        options = self.query_one("#followups", OptionList)
        options.clear_options()
        if items:
            options.add_options([Option(literal(item.text), id=str(item.id)) for item in items])
        else:
            options.add_option(Option("Nothing open.", disabled=True))
        past = journal.on_this_day(vault, today)
        self.query_one("#on-this-day", Static).update(
            literal(
                "\n".join(f"{e.created_at:%Y-%m-%d}  {one_line(e.headline, 60)}" for e in past)
                or "Nothing from this date yet."
            )
        )

    @on(OptionList.OptionSelected, "#followups")
    def selected(self) -> None:
        self.action_done()

    def action_done(self) -> None:
        options = self.query_one("#followups", OptionList)
        option = options.highlighted_option
        if option is None or option.disabled or option.id is None:
            # a key that did nothing, silently, looked broken: say how to pick one
            listed = any(not o.disabled for o in options.options)
            if listed:
                options.focus()
                if options.highlighted is None:
                    options.highlighted = 0
            self.notify(
                "Pick the follow-up with the arrows, then press d."
                if listed
                else "No follow-up is open.",
                markup=False,
            )
            return
        followups.mark_done(self.vault, int(option.id))
        self.notify("Follow-up marked done.")
        self.refresh_data()
