"""The screens a person moves between, in one table: the app's keys, the nav bar, the help
text, the palette and the stylesheets are all built from it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Destination:
    mode: str
    """The app mode, the screen's ``MODE`` and its stylesheet's name."""
    title: str
    """What the palette and the help call it."""
    label: str
    """What the nav bar calls it (short: eight fit in 80 columns)."""
    key: str


NAV: tuple[Destination, ...] = (
    Destination("today", "Today", "Today", "f3"),
    Destination("checkin", "Check-in", "Check-in", "f4"),
    Destination("journal", "Journal", "Journal", "f5"),
    Destination("chat", "Chat", "Chat", "f6"),
    Destination("memory", "What I know about you", "Memory", "f7"),
    Destination("profile", "Profile", "Profile", "f8"),
    Destination("insights", "Insights", "Insights", "f9"),
    Destination("settings", "Settings", "Settings", "f10"),
)
MODES = tuple(d.mode for d in NAV)


def keys_help(width: int = 72, column: int = 18) -> str:
    """The screen keys as the help shows them: cells on a grid of ``column``, packed into
    lines of ``width``."""
    lines: list[str] = []
    line = ""
    for d in NAV:
        cell = f"{d.key.upper():<4}{d.title}"
        cell = cell.ljust((len(cell) // column + 1) * column)  # at least one space after
        if line and len(line) + len(cell) > width:
            lines.append(line.rstrip())
            line = ""
        line += cell
    lines.append(line.rstrip())
    return "\n".join("  " + text for text in lines)
