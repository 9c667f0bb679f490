"""The one clock every module reads, so tests can move time instead of sleeping.

In-process tests call :func:`set_clock`. Subprocess tests set ``COMPANION_NOW`` to an ISO
timestamp (for testing only: it freezes the app's idea of "now").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, date, datetime

_override: Callable[[], datetime] | None = None


def now() -> datetime:
    """The current moment as an aware datetime in the local time zone."""
    if _override is not None:
        return _override().astimezone()
    frozen = os.environ.get("COMPANION_NOW")
    if frozen:
        moment = datetime.fromisoformat(frozen)
        return moment.astimezone()
    return datetime.now().astimezone()


def today() -> date:
    """The user's local date, which is what a check-in or a daily memory belongs to."""
    return now().date()


def set_clock(source: Callable[[], datetime] | None) -> None:
    """Replace the clock (``None`` restores the real one)."""
    global _override
    _override = source


def stamp(moment: datetime | None = None) -> str:
    """A sortable UTC timestamp for storage: ``2026-11-22T15:04:05.123456Z``."""
    moment = now() if moment is None else moment
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_stamp(text: str) -> datetime:
    """Read a stored timestamp back as an aware local datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone()
