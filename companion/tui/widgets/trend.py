"""A day-by-day chart with dates on its axis: a day without a value stays empty, a lone value
is a point, and only consecutive days are joined by a line (a gap never looks like data)."""

from __future__ import annotations

from datetime import date, timedelta

from textual.app import RenderResult
from textual_plotext import PlotextPlot

from companion import clock


def runs(days: list[int]) -> list[list[int]]:
    """Consecutive day numbers grouped: [0, 1, 2, 5, 9, 10] -> [[0, 1, 2], [5], [9, 10]]."""
    groups: list[list[int]] = []
    for day in sorted(days):
        if groups and day == groups[-1][-1] + 1:
            groups[-1].append(day)
        else:
            groups.append([day])
    return groups


def tick_days(span: int, width: int) -> list[int]:
    """Where the date labels go: both ends, and between them as many as leave about 11
    columns each. Closer labels make plotext nudge them aside in an order that changes from
    run to run (it follows Python's string hashing), so the same chart drew differently."""
    count = max(2, min(span // 7 + 1, width // 11))
    if count >= span:
        return list(range(span))
    step = (span - 1) / (count - 1)
    return sorted({round(i * step) for i in range(count)})


FRAME_ROWS = 3
"""Rows of a chart that are not plot: the top border, the date axis and its labels."""


def value_ticks(low: float, high: float, rows: int) -> list[float]:
    """Where the value labels go: both ends, and the middle only when a row stands for it.
    A point sits on the row nearest its value, so with 5 rows for a 1-10 mood a label "6"
    on the middle row (which stands for 5.5) put a mood of 5 beside a 6."""
    if rows >= 3 and rows % 2 == 1:
        return [low, (low + high) / 2, high]
    return [low, high]


def label(day: date) -> str:
    return f"{day.day} {day:%b}"


class TrendChart(PlotextPlot):
    """One measure over a span of days (``show``); redrawn when resized."""

    DEFAULT_CSS = """
    TrendChart { height: 9; }
    """

    def __init__(self, low: float = 0, high: float = 10, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.low, self.high = low, high
        self.points: dict[date, float] = {}
        self.start = self.end = clock.today()

    def show(
        self,
        points: dict[date, float],
        start: date,
        end: date,
        bounds: tuple[float, float] | None = None,
    ) -> None:
        """The values of the days ``start`` to ``end``; ``bounds`` replace the axis's."""
        self.points, self.start, self.end = points, start, end
        if bounds is not None:
            self.low, self.high = bounds
        self.draw()

    def draw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        span = (self.end - self.start).days + 1
        by_day = {
            (d - self.start).days: v for d, v in self.points.items() if self.start <= d <= self.end
        }
        for group in runs(list(by_day)):
            if len(group) > 1:
                plt.plot(group, [by_day[d] for d in group], marker="braille", color="cyan")
        plt.scatter(list(by_day), list(by_day.values()), marker="●", color="cyan")
        plt.xlim(-0.5, span - 0.5)
        plt.ylim(self.low, self.high)
        self.refresh()

    def render(self) -> RenderResult:
        # The date labels depend on the width, known for certain only now.
        span = (self.end - self.start).days + 1
        ticks = tick_days(span, self.size.width)
        labels = [label(self.start + timedelta(days=d)) for d in ticks]
        self.plt.xticks([float(d) for d in ticks], labels)
        marks = value_ticks(self.low, self.high, self.size.height - FRAME_ROWS)
        self.plt.yticks(marks, [f"{v:g}" for v in marks])
        return super().render()
