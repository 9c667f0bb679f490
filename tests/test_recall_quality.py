"""What the coach is told when a user asks about their own past in everyday words: a word
that only frames the question does not hide the answer, a word no entry holds and a word like
"wanted" are not taken for a match, medicines are found by kind, and on the small budget the
lines shown say different things."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from companion import clock
from companion.activity import chat, journal, profile
from companion.coach import context
from companion.llm.tokens import CLAUDE_BUDGET, LOCAL_BUDGET
from companion.memory import store
from companion.vault import Vault

NOW = datetime(2026, 11, 26, 19, 30).astimezone()
PEOPLE = ["Maya", "Dan", "Rosa", "Eli"]
TOPICS = ["work", "the gym", "cooking", "money", "church", "the car", "sleep", "meetings"]
LINES = [
    "{who} and I had dinner, mostly talked about {topic}.",
    "Went to a meeting, talked a bit about {topic}.",
    "{who} called about {topic} and we went round in circles again.",
    "Slept badly, {topic} on my mind, coffee helped.",
]


@pytest.fixture
def lived(vault: Vault) -> Vault:
    """Two years of ordinary days about the same people and topics, and a few facts."""
    clock.set_clock(lambda: NOW)
    rng = random.Random(3)
    profile.update(vault, {"preferred_name": "Jo", "recovery_start_date": "2026-06-01"})
    store.add_fact(vault, "Maya is my sister", "relationships", "semantic", "said", [])
    store.add_fact(vault, "Dan is my sponsor", "relationships", "semantic", "said", [])
    with vault.transaction():
        for back in range(2, 700, 2):
            line = rng.choice(LINES).format(who=rng.choice(PEOPLE), topic=rng.choice(TOPICS))
            journal.add(vault, line, when=NOW - timedelta(days=back))
        for _ in range(200):
            store.add_fact(vault, f"Talks about {rng.choice(TOPICS)} with {rng.choice(PEOPLE)}",
                           "other", "semantic", "learned", [])  # fmt: skip
    return vault


def said_in_chat(vault: Vault, days_ago: int, text: str) -> None:
    clock.set_clock(lambda: NOW - timedelta(days=days_ago))
    session = chat.start(vault).id
    chat.add_message(vault, session, "user", text)
    chat.add_message(vault, session, "assistant", "Thanks for telling me.")
    chat.end(vault, session)
    clock.set_clock(lambda: NOW)


@pytest.mark.parametrize("budget", [LOCAL_BUDGET, CLAUDE_BUDGET])
def test_a_word_that_only_frames_the_question_does_not_hide_the_answer(lived, budget) -> None:
    said_in_chat(lived, 15, "Mrs. Kowalski upstairs says the rent is going up in March")
    for asked in ["what's the name of my landlord?", "how's the rent situation at the moment?"]:
        text = context.build(lived, asked, budget).text
        assert "Kowalski" in text
        assert context.NOTHING_FOUND not in text


def test_something_never_mentioned_is_not_answered_with_a_shared_everyday_word(lived) -> None:
    journal.add(lived, "Rosa wants to repaint the kitchen yellow", when=NOW - timedelta(days=4))
    for asked in [
        "did I tell you about the motorcycle I wanted?",
        "what did I say about my grandmother's cabin?",
    ]:
        text = context.build(lived, asked).text
        assert context.NOTHING_FOUND in text, asked
        assert "repaint" not in text


def test_an_unknown_word_beside_a_known_topic_still_finds_the_topic(lived) -> None:
    said_in_chat(lived, 9, "Maya lent me 300 dollars for the deposit, I need to pay her back")
    text = context.build(lived, "do I owe anybody money right now?", LOCAL_BUDGET).text
    assert "Maya lent me 300 dollars" in text
    assert context.NOTHING_FOUND not in text


@pytest.mark.parametrize("budget", [LOCAL_BUDGET, CLAUDE_BUDGET])
def test_a_medicine_is_found_by_its_kind(lived, budget) -> None:
    store.add_fact(lived, "Takes escitalopram 10 mg at night", "health")
    text = context.build(lived, "am I on any antidepressants?", budget).text
    assert "escitalopram" in text
    assert context.NOTHING_FOUND not in text


def test_on_the_small_budget_near_repeats_do_not_crowd_out_what_happened(lived) -> None:
    for back in (3, 5, 8, 11):  # newer, alike, about the same person
        journal.add(lived, f"Maya and I had dinner, mostly talked about {TOPICS[back % 8]}.",
                    when=NOW - timedelta(days=back))  # fmt: skip
    journal.add(lived, "Maya and I went bowling, she won twice", when=NOW - timedelta(days=13))
    text = context.build(lived, "what have I done with my sister lately?", LOCAL_BUDGET).text
    assert "bowling" in text
    assert text.count("Maya and I had dinner") <= 1


def test_a_long_entry_shows_the_part_that_was_asked_about(lived) -> None:
    journal.add(
        lived,
        "Long day at work, the printer jammed twice and the manager was in a mood. Took the "
        "bus home instead of walking because of the rain. Made pasta and watched the news "
        "for a while. Called Dan before bed and told him about the job offer in Tacoma.",
        when=NOW - timedelta(days=2),
    )
    text = context.build(lived, "what did I tell Dan about Tacoma?", LOCAL_BUDGET).text
    assert "job offer in Tacoma" in text
