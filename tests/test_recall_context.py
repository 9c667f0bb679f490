"""The coach's memory section as a user with a long history meets it: what must be said is
said at every budget, people are found by relation, dates are dates, and "I don't know" is
allowed."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from companion import clock
from companion.activity import chat, checkins, journal, profile
from companion.coach import context
from companion.llm.tokens import CLAUDE_BUDGET, LOCAL_BUDGET
from companion.memory import followups, forgetting, store

NOW = datetime(2026, 11, 26, 19, 30).astimezone()  # a Thursday evening
PLACES = ["the gym", "the library", "work", "the park", "church", "the diner", "the bus stop"]
THINGS = [
    "likes strong black coffee in the morning",
    "walks the dog before breakfast",
    "keeps a gratitude list on the fridge",
    "plays bass in a garage band on Fridays",
    "is learning to cook Thai curries",
    "reads crime novels before bed",
    "finds Sunday evenings the hardest",
    "volunteers at the food bank once a month",
    "is saving for a used car",
    "prefers texting to phone calls",
]


def many_facts(count: int) -> list[str]:
    """Facts in the voice a memory update writes them, varied, none about the people below."""
    rng = random.Random(7)
    out = []
    for i in range(count):
        thing = rng.choice(THINGS)
        place = rng.choice(PLACES)
        out.append(f"{thing.capitalize()}; mentioned it at {place} (note {i})")
    return out


@pytest.fixture
def history(vault):  # type: ignore[no-untyped-def]
    clock.set_clock(lambda: NOW)
    today = NOW.date()
    profile.update(vault, {"preferred_name": "Jo", "recovery_start_date": "2026-10-01"})
    with vault.transaction():
        for text in many_facts(1000):
            store.add_fact(vault, text, "misc", "semantic", "learned", [])
    store.add_fact(vault, "Maya is my sister", "people", "semantic", "said", [])
    store.add_fact(vault, "Maya lent Jo money in the spring and wants it back", "people")
    old = store.add_fact(vault, "Works nights at the warehouse", "work")
    store.edit_fact(vault, old, "Works days at the print shop")
    gone = store.add_fact(vault, "Owes money to a dealer called Rick", "misc")
    forgetting.forget_fact(vault, gone)
    checkins.record(
        vault, today - timedelta(days=1), mood=3, sober=False, note="used after the fight"
    )
    followups.add(vault, "Call the sponsor about the weekend", due=today)
    clock.set_clock(lambda: NOW - timedelta(days=1))  # Wednesday
    session = chat.start(vault).id
    chat.add_message(vault, session, "user", "Talked through the job interview nerves")
    chat.add_message(vault, session, "assistant", "That took courage.")
    chat.end(vault, session)
    clock.set_clock(lambda: NOW)
    journal.add(vault, "My dad called and we actually laughed", when=NOW - timedelta(days=20))
    journal.add(vault, "Long shift, nothing to report", when=NOW - timedelta(days=19))
    return vault


@pytest.mark.parametrize("budget", [LOCAL_BUDGET, CLAUDE_BUDGET])
@pytest.mark.parametrize(
    "message",
    [
        "hi",
        "I'm craving tonight after another fight with my sister",
        "what did I say about my dad?",
        "tell me a joke about penguins and the moon landing",
    ],
)
def test_what_must_be_said_is_said_at_every_budget(history, budget, message) -> None:
    built = context.build(history, message, budget)
    assert built.tokens <= budget
    text = built.text
    assert "relapse on 2026-11-25 after 55 days" in text  # the cue
    assert "Call the sponsor about the weekend" in text  # the follow-up due today
    assert "1 day since" in text  # the sobriety line, reset
    assert "sober since 2026-10-01 (56 days)" not in text  # never the old streak


def test_a_fight_with_my_sister_brings_what_is_known_about_maya(history) -> None:
    text = context.build(history, "I'm craving tonight after another fight with my sister").text
    assert "Maya lent Jo money" in text


def test_what_did_i_say_about_my_dad_finds_the_entry(history) -> None:
    text = context.build(history, "what did I say about my dad?", LOCAL_BUDGET).text
    assert "journal: My dad called and we actually laughed" in text
    assert "[2026-11-06]" in text


def test_something_never_mentioned_is_said_to_be_unknown(history) -> None:
    text = context.build(history, "what did I tell you about my trip to Lisbon?").text
    assert context.NOTHING_FOUND in text


def test_a_deleted_or_superseded_fact_never_appears(history) -> None:
    for message in ["where do I work?", "do I owe anyone money?", "warehouse nights", "Rick"]:
        text = context.build(history, message).text
        assert "warehouse" not in text and "Rick" not in text
    assert "print shop" in context.build(history, "where do I work?").text


def test_the_old_words_of_a_replaced_fact_find_the_fact_now_in_force(history) -> None:
    text = context.build(history, "am I still on nights at the warehouse?").text
    assert "Works days at the print shop" in text
    assert "warehouse" not in text and context.NOTHING_FOUND not in text


@pytest.mark.parametrize("budget", [LOCAL_BUDGET, CLAUDE_BUDGET])
def test_a_question_in_other_words_finds_what_was_written(history, budget) -> None:
    journal.add(history, "Couldn't switch my head off, lay awake till 4", when=NOW)
    assert "Maya lent Jo money" in context.build(history, "do I still owe Maya?", budget).text
    assert "lay awake till 4" in context.build(history, "any insomnia lately?", budget).text


def test_what_did_we_talk_about_on_wednesday_gives_that_days_session(history) -> None:
    for asked in ["what did we talk about on Wednesday?", "what did we go over wednesday night?"]:
        text = context.build(history, asked).text
        assert "[2026-11-25] you said in chat: Talked through the job interview nerves" in text
        assert context.NOTHING_FOUND not in text


def test_a_long_check_in_streak_is_told_in_full_before_today_s_check_in(vault) -> None:
    today = clock.today()
    with vault.transaction():
        for back in range(1, 76):  # 75 days in a row, up to yesterday
            checkins.record(vault, today - timedelta(days=back), mood=6)
    text = context.build(vault, "evening", CLAUDE_BUDGET).text
    assert "Check-in streak: 75 days" in text


def test_a_month_long_ago_is_searched_whole_for_a_word_written_every_day(vault) -> None:
    """A word most entries hold is read only in its newest mentions for an everyday message;
    a question about a time must still find that time's entries, however old."""
    clock.set_clock(lambda: NOW)
    topics = ["the garden", "a film", "a run", "the choir", "a long bath"]
    with vault.transaction():
        for back in range(450, 0, -1):  # a year and more of daily entries
            day = NOW - timedelta(days=back)
            if (day.year, day.month) == (2025, 10) and day.day <= 3:
                text = f"Work was awful: the promotion interview went badly (day {back})"
            elif (day.year, day.month) == (2025, 10):
                text = f"A quiet evening with {topics[back % 5]} (day {back})"
            else:
                text = f"At work again, then {topics[back % 5]} in the evening (day {back})"
            journal.add(vault, text, when=day)
    vault.index.merge()
    text = context.build(vault, "what did I write about work in October 2025?").text
    assert text.count("the promotion interview went badly") == 3
    assert context.NOTHING_FOUND not in text
