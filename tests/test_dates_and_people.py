"""What a question's words mean for time, and who "my sister" is."""

from __future__ import annotations

from datetime import date

import pytest

from companion.memory import entities, forgetting, store
from companion.retrieval.dates import parse

TUESDAY = date(2026, 11, 24)


@pytest.mark.parametrize(
    ("said", "first", "last"),
    [
        ("what did we talk about on Wednesday?", "2026-11-18", "2026-11-18"),
        ("how was last week", "2026-11-16", "2026-11-22"),  # the calendar week, from Monday
        ("anything last month?", "2026-10-01", "2026-10-31"),
        ("over the past week", "2026-11-18", "2026-11-24"),
        ("what happened in October", "2026-10-01", "2026-10-31"),
        ("two weeks ago I was fine", "2026-11-09", "2026-11-15"),
        ("yesterday evening was hard", "2026-11-23", "2026-11-23"),
        ("this morning I woke up calm", "2026-11-24", "2026-11-24"),
        ("at the start of the month", "2026-11-01", "2026-11-10"),
        ("on 2026-03-02", "2026-03-02", "2026-03-02"),
        ("what did we go over on wednesday night?", "2026-11-18", "2026-11-18"),
        ("what happened back in september", "2026-09-01", "2026-09-30"),
        ("March 2025", "2025-03-01", "2025-03-31"),  # a year named is that year
        ("14 March 2025", "2025-03-14", "2025-03-14"),
        ("what did I write on March 14, 2025", "2025-03-14", "2025-03-14"),
        ("2024", "2024-01-01", "2024-12-31"),
        ("how was I doing in 2025", "2025-01-01", "2025-12-31"),
        ("what did I write this year, in 2026", "2026-01-01", "2026-11-24"),
    ],
)
def test_a_date_in_a_question_is_a_span(said: str, first: str, last: str) -> None:
    when = parse(said, TUESDAY)
    assert when is not None
    assert (str(when.first), str(when.last)) == (first, last)


def test_a_plural_day_recurs_and_january_looks_back_a_year() -> None:
    mondays = parse("I always struggle on Mondays", TUESDAY)
    assert mondays is not None and mondays.weekday == 0 and mondays.first is None
    nights = parse("friday nights are the worst", TUESDAY)
    assert nights is not None and nights.weekday == 4 and nights.first is None
    december = parse("what did I write last month", date(2026, 1, 15))
    assert december is not None and (str(december.first), str(december.last)) == (
        "2025-12-01",
        "2025-12-31",
    )


@pytest.mark.parametrize(
    "said",
    [
        "I had maybe 3 beers",
        "ran 3 marathons",
        "2 decaf coffees and a nap",
        "Mark 12 says something about that",
        "this may sound weird",
        "it felt like a million years, 1000000 days ago",
        "30000 months ago",
        "what about my dad",
        "paid 2000 dollars for the car",
    ],
)
def test_words_that_only_look_like_dates_are_not_dates(said: str) -> None:
    assert parse(said, TUESDAY) is None


def test_people_are_found_by_relation_and_leave_with_a_forgotten_fact(vault) -> None:  # type: ignore[no-untyped-def]
    found = entities.found_in("Chris is my brother, and my sister Maya called")
    assert sorted((e.name, e.relation) for e in found) == [("Chris", "brother"), ("Maya", "sister")]
    fact = store.add_fact(vault, "Maya is my sister", "people", "semantic", "said", [])
    known = entities.known(vault, {}, ["Maya is my sister"])
    assert [(e.name, e.relation) for e in known] == [("Maya", "sister")]
    assert entities.related_words(known, {"sister"}) == {"maya"}
    forgetting.forget_fact(vault, fact)
    assert entities.load(vault) == []  # the name is not kept once its only fact is forgotten
