"""Dates in questions, as filters and never as required words.

"on Wednesday" is the most recent Wednesday before today; "on Wednesdays" is every Wednesday;
"last week" and "last month" are the previous calendar week (from Monday) and month; "the past
week" is the last seven days; "in October" is the most recent October; also "yesterday
evening", "two weeks ago", "at the start of the month", "over the weekend", explicit dates.
Written here rather than taken from a date library: parsedatetime (tried) gives points, not
spans, looks forward ("on Wednesday" is the coming one, "in October" next year's) and knows no
recurring days; dateparser was not tried.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = [m.lower() for m in calendar.month_name[1:]]
MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)}
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2,
    "few": 3,
}  # fmt: skip
NUMBER = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple of|few)"
DAYPART = r"(?:\s+(?:morning|afternoon|evening|night))?"


@dataclass(frozen=True)
class When:
    """What a question's words say about time: a span of days, or a weekday that recurs."""

    first: date | None = None
    last: date | None = None
    weekday: int | None = None  # 0 = Monday: "on Mondays"
    phrases: tuple[str, ...] = field(default=())
    """The words that said it (their terms are not required to match)."""

    def contains(self, day: date) -> bool:
        if self.weekday is not None and day.weekday() != self.weekday:
            return False
        if self.first is not None and day < self.first:
            return False
        return not (self.last is not None and day > self.last)


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word]


def _week_of(day: date) -> tuple[date, date]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _month_of(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _months_back(today: date, count: int) -> tuple[date, date]:
    index = today.year * 12 + today.month - 1 - count
    return _month_of(index // 12, index % 12 + 1)


def _clip(span: tuple[date, date], today: date) -> tuple[date, date]:
    return span[0], min(span[1], today)


def _explicit(match: re.Match[str], today: date) -> tuple[date, date] | None:
    text = match.group(0)
    iso = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text)
    try:
        if iso:
            day = date(int(iso[1]), int(iso[2]), int(iso[3]))
            return day, day
        parts = re.findall(r"[a-z]+|\d+", text)
        month = next(MONTH_ABBR[p[:3]] for p in parts if p[:3] in MONTH_ABBR)
        numbers = [p for p in parts if p.isdigit()]
        number = int(numbers[0])
        if len(numbers) > 1 and len(numbers[1]) == 4:  # "14 March 2025": that year
            day = date(int(numbers[1]), month, number)
            return day, day
        day = date(today.year, month, number)
        if day > today:
            day = date(today.year - 1, month, number)
        return day, day
    except (ValueError, StopIteration):
        return None


MONTH_WORD = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
)
EXPLICIT = re.compile(
    rf"\b(\d{{4}}-\d{{2}}-\d{{2}}|{MONTH_WORD}\.?\s+\d{{1,2}}(st|nd|rd|th)?(,?\s+\d{{4}})?|"
    rf"\d{{1,2}}(st|nd|rd|th)?\s+(of\s+)?{MONTH_WORD}(,?\s+\d{{4}})?)\b"
)


def parse(text: str, today: date) -> When | None:
    """The time ``text`` points at, or None when it names none."""
    lowered = " ".join(text.lower().replace("’", "'").split())
    rules: list[tuple[str, object]] = [
        (r"\bthe day before yesterday\b", lambda m: (today - timedelta(2),) * 2),
        (rf"\b(yesterday{DAYPART}|last night)\b", lambda m: (today - timedelta(1),) * 2),
        (
            r"\b(today|this (morning|afternoon|evening)|tonight|earlier today)\b",
            lambda m: (today, today),
        ),
        (
            rf"\b{NUMBER} days? ago\b",
            lambda m: (today - timedelta(_number(m[1])),) * 2,
        ),
        (
            rf"\b{NUMBER} weeks? ago\b",
            lambda m: _week_of(today - timedelta(weeks=_number(m[1]))),
        ),
        (rf"\b{NUMBER} months? ago\b", lambda m: _months_back(today, _number(m[1]))),
        (r"\b(last|previous) week\b", lambda m: _week_of(today - timedelta(weeks=1))),
        (r"\bthis week\b", lambda m: _clip(_week_of(today), today)),
        (
            r"\b(the )?(past|last) (7|seven) days\b|\bthe past week\b|\bover the past week\b",
            lambda m: (today - timedelta(6), today),
        ),
        (
            r"\b(the )?(past|last) (30|thirty) days\b|\bthe past month\b",
            lambda m: (today - timedelta(29), today),
        ),
        (
            r"\b(at the )?(start|beginning) of (the|this) month\b",
            lambda m: _clip((today.replace(day=1), today.replace(day=10)), today),
        ),
        (
            r"\b(at the )?end of last month\b",
            lambda m: (_months_back(today, 1)[1] - timedelta(9), _months_back(today, 1)[1]),
        ),
        (
            r"\b(at the )?(start|beginning) of last month\b",
            lambda m: (_months_back(today, 1)[0], _months_back(today, 1)[0] + timedelta(9)),
        ),
        (r"\b(last|previous) month\b", lambda m: _months_back(today, 1)),
        (r"\bthis month\b", lambda m: (today.replace(day=1), today)),
        (r"\blast year\b", lambda m: (date(today.year - 1, 1, 1), date(today.year - 1, 12, 31))),
        (r"\bthis year\b", lambda m: (date(today.year, 1, 1), today)),
        (
            r"\b(over |on |at )?(the |this |last )?weekend\b",
            lambda m: _weekend(today, "last" in m.group(0)),
        ),
    ]
    for pattern, make in rules:
        match = re.search(pattern, lowered)
        if match:
            try:
                first, last = make(match)  # type: ignore[operator]
            except (ValueError, OverflowError):  # "a million days ago": no date we can use
                return None
            return When(first, last, phrases=(match.group(0),))
    match = EXPLICIT.search(lowered)
    if match:
        span = _explicit(match, today)
        if span:
            return When(span[0], span[1], phrases=(match.group(0),))
    months = "|".join(MONTHS)  # "back in October" says it too; "March 2025" names the year
    match = re.search(
        rf"\b(?:(?:way )?back )?(in |during |last |this )?({months})(?:,? ((?:19|20)\d\d))?\b",
        lowered,
    )
    if match and not (match[2] == "may" and match[1] in (None, "this ") and not match[3]):
        month = MONTHS.index(match[2]) + 1
        year = today.year if month <= today.month else today.year - 1
        first, last = _month_of(int(match[3]) if match[3] else year, month)
        return When(first, min(last, today), phrases=(match.group(0),))
    match = re.search(r"^((?:19|20)\d\d)$|\b(?:in|during|back in) ((?:19|20)\d\d)\b", lowered)
    if match:  # a year on its own, or "in 2024" (not "2000 dollars")
        year = int(match[1] or match[2])
        first, last = date(year, 1, 1), date(year, 12, 31)
        if first <= today:
            return When(first, min(last, today), phrases=(match.group(0),))
    match = re.search(
        rf"\b(on |last |this |every |back on )?({'|'.join(WEEKDAYS)})(s)?{DAYPART}(s)?\b",
        lowered,
    )
    if match:
        index = WEEKDAYS.index(match[2])
        if match[3] or match[4] or match[1] == "every ":
            return When(weekday=index, phrases=(match.group(0),))
        back = (today.weekday() - index) % 7 or 7
        day = today - timedelta(days=back)
        return When(day, day, phrases=(match.group(0),))
    return None


def _weekend(today: date, last: bool) -> tuple[date, date]:
    saturday = today - timedelta(days=(today.weekday() - 5) % 7)
    if last and today.weekday() >= 5:
        saturday -= timedelta(days=7)
    return saturday, min(saturday + timedelta(days=1), today)
