"""Year in Pixels: one cell per day, coloured by that day's mood."""

from __future__ import annotations

import calendar
from datetime import date

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

# mood 1 (hard) .. 10 (good): red through amber to green
PALETTE = [
    "#b71c1c",
    "#d32f2f",
    "#e64a19",
    "#f57c00",
    "#ffa000",
    "#fbc02d",
    "#c0ca33",
    "#7cb342",
    "#43a047",
    "#2e7d32",
]


class YearInPixels(Widget):
    DEFAULT_CSS = """
    YearInPixels { height: 15; width: auto; }
    """
    year: reactive[int] = reactive(2000)
    """The year on show."""

    def __init__(
        self,
        moods: dict[date, int] | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.moods: dict[date, int] = moods or {}

    def set_moods(self, moods: dict[date, int], year: int) -> None:
        self.moods = moods
        self.year = year
        self.refresh()

    def render(self) -> Text:
        text = Text()
        text.append(
            f"{self.year}  "
            + "".join(f"{d:<2}" if d % 5 == 1 else "  " for d in range(1, 32))
            + "\n",
            style="dim",
        )
        for month in range(1, 13):
            text.append(f"{calendar.month_abbr[month]:<5}", style="bold")
            days = calendar.monthrange(self.year, month)[1]
            for day in range(1, 32):
                if day > days:
                    text.append("  ")
                    continue
                mood = self.moods.get(date(self.year, month, day))
                if mood is None:
                    text.append("· ", style="dim")
                else:
                    text.append("██", style=PALETTE[max(1, min(10, mood)) - 1])
            text.append("\n")
        text.append("mood  1 ", style="dim")
        for colour in PALETTE:
            text.append("█", style=colour)
        text.append(" 10", style="dim")
        return text
