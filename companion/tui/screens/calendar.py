"""A month calendar to go to a day or a month in the journal: the days with entries are
marked, the arrows move a day or a week, PgUp and PgDn a month."""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import date, timedelta
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static

from companion.retrieval import dates
from companion.retrieval.dates import When
from companion.tui.screens.modals import Dialog, PromptScreen
from companion.tui.widgets.button import Button

Counter = Callable[[date, date], dict[date, int]]
"""Entries written on each day from the first date to the last."""


def month_span(day: date) -> tuple[date, date]:
    last = calendar.monthrange(day.year, day.month)[1]
    return day.replace(day=1), day.replace(day=last)


def add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def month_grid(cursor: date, written: dict[date, int], today: date) -> Content:
    """Seven columns, Monday first; a day with entries is bold with a dot after it, the
    cursor's day reversed, today underlined."""
    lines = [Content.from_markup("[dim] Mo  Tu  We  Th  Fr  Sa  Su[/]")]
    for week in calendar.Calendar().monthdatescalendar(cursor.year, cursor.month):
        cells = []
        for day in week:
            if day.month != cursor.month:
                cells.append(Content("    "))
                continue
            mark = "•" if written.get(day) else " "
            style = []
            if written.get(day):
                style.append("bold $accent")
            if day == today:
                style.append("underline")
            if day == cursor:
                style.append("reverse")
            text = f"{day.day:>3}"
            if style:
                cell = Content.from_markup(f"[{' '.join(style)}]$day[/]", day=text)
            else:
                cell = Content(text)
            cells.append(cell + Content(mark))
        lines.append(Content("").join(cells))
    return Content("\n").join(lines)


class CalendarScreen(Dialog[When]):
    """Answers the day picked (Enter), the whole month (m), no span for the newest entries
    (n), or ``None`` (Escape: nothing changes)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "Day before", show=False),
        Binding("right", "move(1)", "Day after", show=False),
        Binding("up", "move(-7)", "Week before", show=False),
        Binding("down", "move(7)", "Week after", show=False),
        Binding("pageup", "month(-1)", "Month before"),
        Binding("pagedown", "month(1)", "Month after"),
        Binding("home", "today", "Today", show=False),
        Binding("enter", "pick_day", "Open the day"),
        Binding("m", "pick_month", "Whole month"),
        Binding("slash", "type_date", "Type a date"),
        Binding("n", "newest", "Newest entries"),
    ]

    def __init__(self, counter: Counter, cursor: date, today: date) -> None:
        super().__init__()
        self.counter, self.cursor, self.today = counter, cursor, today
        self.written: dict[date, int] = {}
        self.shown_month: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="calendar"):
            yield Static("", id="month", classes="title")
            yield Static("", id="grid")
            yield Static("", id="day-note")
            yield Static(
                "Arrows: day and week · PgUp/PgDn: month · Enter: that day · m: the whole "
                "month · /: type a date · n: newest entries · Esc: back",
                id="calendar-keys",
            )
            with Horizontal(classes="buttons"):
                yield Button("Open day", id="yes", variant="primary")
                yield Button("Whole month", id="month-button")
                yield Button("Cancel", id="no")

    def on_mount(self) -> None:
        self.draw()

    def draw(self) -> None:
        month = (self.cursor.year, self.cursor.month)
        if month != self.shown_month:  # one count per month shown, not per key
            self.written = self.counter(*month_span(self.cursor))
            self.shown_month = month
        in_month = sum(self.written.values())
        plural = "y" if in_month == 1 else "ies"
        self.query_one("#month", Static).update(
            f"{self.cursor:%B %Y}: {in_month} entr{plural}" if in_month else f"{self.cursor:%B %Y}"
        )
        self.query_one("#grid", Static).update(month_grid(self.cursor, self.written, self.today))
        count = self.written.get(self.cursor, 0)
        note = f"{count} entr{'y' if count == 1 else 'ies'}" if count else "nothing written"
        self.query_one("#day-note", Static).update(f"{self.cursor:%A %-d %B}: {note}")

    def action_move(self, days: int) -> None:
        self.cursor += timedelta(days=days)
        self.draw()

    def action_month(self, months: int) -> None:
        self.cursor = add_months(self.cursor, months)
        self.draw()

    def action_today(self) -> None:
        self.cursor = self.today
        self.draw()

    @on(Button.Pressed, "#yes")
    def action_pick_day(self) -> None:
        self.dismiss(When(self.cursor, self.cursor))

    @on(Button.Pressed, "#month-button")
    def action_pick_month(self) -> None:
        first, last = month_span(self.cursor)
        self.dismiss(When(first, last))

    @on(Button.Pressed, "#no")
    def cancel_button(self) -> None:
        self.dismiss(None)

    def action_newest(self) -> None:
        self.dismiss(When())

    def action_type_date(self) -> None:
        """The typed way: "2025-03-14", "March 2025", "2024", "last Friday"."""

        def go(text: str | None) -> None:
            if not text or not text.strip():
                return
            when = dates.parse(text, self.today)
            if when is None or when.first is None or when.last is None:
                self.notify(
                    "I could not read a date in that. Try 2025-03-14, March 2025, 2024 or "
                    "last Friday.",
                    severity="warning",
                )
                return
            self.dismiss(when)

        self.app.push_screen(
            PromptScreen("Go to a day, a month or a year", placeholder="March 2025", confirm="Go"),
            go,
        )
