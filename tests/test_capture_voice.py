"""Captured facts speak about the person (they go into the coach's system prompt), and a
sobriety date said in chat waits for the user's confirmation like one extraction finds."""

from __future__ import annotations

import asyncio
import re
from datetime import date, datetime

import pytest

from companion import clock
from companion.activity import chat, profile
from companion.coach import service
from companion.coach.capture import Capture, Proposal, detect, recovery_day
from companion.coach.third_person import third_person
from companion.memory import followups, pending, store
from companion.vault import Vault

FIRST_PERSON = re.compile(r"\b(i|me|my|mine|myself|we|us|our|ours|ourselves)\b", re.IGNORECASE)

SAID = [  # (what the user typed, the fact as the coach reads it)
    ("I don't like my job.", "Does not like their job"),
    (
        "I don't like it when you bring up my ex.",
        "Does not like it when the coach brings up their ex",
    ),
    (
        "I don’t like it when you’re vague with me.",
        "Does not like it when the coach is vague with them",
    ),
    (
        "I love Sunday dinners with my family, we cook together.",
        "Likes Sunday dinners with their family, they cook together",
    ),
    ("Please always ask me how I slept.", "Wants the coach to always ask them how they slept"),
    (
        "Remind me to call my sponsor before the meeting.",
        "Asked to be reminded to call their sponsor before the meeting",
    ),
    ("remind me to take my meds at 9", "Asked to be reminded to take their meds at 9"),
    (
        "Remind me to thank Maya for having us over.",
        "Asked to be reminded to thank Maya for having them over",
    ),
    ("I use my gratitude list for bad mornings", "Uses their gratitude list for bad mornings"),
    ("I use running for when I'm anxious.", "Uses running for when they're anxious"),
    ("My wife is the reason I'm still here.", "Their wife is the reason they're still here"),
    ("Don't call me sweetie.", "Wants the coach not to call them sweetie"),
    (
        "Never tell me to just pray about it.",
        "Wants the coach to never tell them to just pray about it",
    ),
    (
        "I really like it when you check in on me after a meeting.",
        "Likes it when the coach checks in on them after a meeting",
    ),
    (
        "I love walking my dog Biscuit in the mornings.",
        "Likes walking their dog Biscuit in the mornings",
    ),
    (
        "I enjoy cooking for my kids, it keeps me busy.",
        "Likes cooking for their kids, it keeps them busy",
    ),
    ("Call me Jo.", "Wants to be called Jo"),
    (
        "My best friend is Maya, we met in rehab.",
        "Their best friend is Maya, they met in rehab",
    ),
    (
        "I prefer texting because phone calls make me anxious.",
        "Prefers texting because phone calls make them anxious",
    ),
    (
        "I strongly prefer meetings where I don't have to share.",
        "Prefers meetings where they don't have to share",
    ),
    (
        "Always remind me that I've come a long way.",
        "Wants the coach to always remind them that they've come a long way",
    ),
    (
        "Please don't bring up my dad unless I do.",
        "Wants the coach not to bring up their dad unless they do",
    ),
    (
        "I don't like talking about myself in groups.",
        "Does not like talking about themselves in groups",
    ),
    (
        "My therapist is Dr. Okafor, I see her on Thursdays.",
        "Their therapist is Dr. Okafor, they see her on Thursdays",
    ),
    (
        "I like it when you're blunt with me, I was lied to a lot.",
        "Likes it when the coach is blunt with them, they were lied to a lot",
    ),
    (
        "I don't like how my mornings go when I skip breakfast.",
        "Does not like how their mornings go when they skip breakfast",
    ),
    (
        "i prefer short replies cause i'm usually on my phone",
        "Prefers short replies cause they're usually on their phone",
    ),
    ("I like it when you use my name.", "Likes it when the coach uses their name"),
    (
        "Please never mention my ex-husband by name.",
        "Wants the coach to never mention their ex-husband by name",
    ),
    (
        "I enjoy the quiet at our house after the kids go to bed",
        "Likes the quiet at their house after the kids go to bed",
    ),
    ("My partner's name is Alex.", "Their partner's name is Alex"),
    (
        "My kids are Leo and Mia, they're my whole world.",
        "Their kids are Leo and Mia, they're their whole world",
    ),
    (
        "I use the Calm app for sleep when I can't switch my brain off.",
        "Uses the Calm app for sleep when they can't switch their brain off",
    ),
    (
        "I don't like it when you ask me about my mum.",
        "Does not like it when the coach asks them about their mum",
    ),
    # what people add after they tell something is not part of it
    ("my sponsor is Dana btw", "Their sponsor is Dana"),
    ("my dog is called Rufus lol", "Their dog is called Rufus"),
    ("I prefer mornings, to be honest.", "Prefers mornings"),
    ("my therapist is Dr Ruth Okafor fyi :)", "Their therapist is Dr Ruth Okafor"),
]


@pytest.mark.parametrize(("said", "fact"), SAID)
def test_captured_facts_are_about_the_person(said: str, fact: str) -> None:
    found = detect(said)
    assert [c.text for c in found if isinstance(c, Capture)] == [fact]
    assert not FIRST_PERSON.search(fact)


def test_the_labelled_set_is_varied_and_free_of_first_person() -> None:
    assert len(SAID) >= 30
    assert sum(bool(FIRST_PERSON.search(said)) for said, _ in SAID) >= 30
    texts = [c.text for said, _ in SAID for c in detect(said) if isinstance(c, Capture)]
    assert len(texts) == len(SAID)
    assert [t for t in texts if FIRST_PERSON.search(t)] == []


@pytest.mark.parametrize(
    ("words", "told"),
    [
        ("I was late because my bus was late", "they were late because their bus was late"),
        ("I am fine, I’m fine and I’ll go", "they are fine, they’re fine and they’ll go"),
        ("I really was trying", "they really were trying"),
        ("I wasn't there for my kids", "they weren't there for their kids"),
        ("we’d go, us and our dog", "they’d go, them and their dog"),
        ("mine and myself", "theirs and themselves"),
        ("DON'T CALL ME BUDDY", "DON'T CALL THEM BUDDY"),  # shouting stays shouting
        ("My Chemical Romance", "My Chemical Romance"),  # names keep their words
        ("the song Hold Me Tight", "the song Hold Me Tight"),
        ("I Will Survive on repeat", "I Will Survive on repeat"),
        ("a clinic in the US for ME", "a clinic in the US for ME"),  # abbreviations
        ("Myra and Ian, i.e. my cousins", "Myra and Ian, i.e. their cousins"),
        ("the iPhone I've got", "the iPhone they've got"),
    ],
)
def test_third_person(words: str, told: str) -> None:
    assert third_person(words) == told


TODAY = date(2026, 5, 10)


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("My sobriety date is March 3rd.", "2026-03-03"),
        ("my clean date is 2024-03-03", "2024-03-03"),
        ("I got sober on 3 March 2024", "2024-03-03"),
        ("my sober date's jan 5", "2026-01-05"),
        ("My sobriety date is June 2nd", "2025-06-02"),  # no year: the last one before today
        ("I've been clean since the 14th of February, 2023", "2023-02-14"),
        ("My new sobriety date is today, I slipped last night", "2026-05-10"),
        ("I've been sober since yesterday.", "2026-05-09"),
        ("My clean date is Feb 29", "2024-02-29"),
        ("My sobriety date is March 3rd 2027", None),  # the future
        ("My clean date is 2026-05-11", None),
        ("My sobriety date is February 30th", None),  # no such day
        ("My sobriety date is coming up", None),
        ("My sobriety date is March 3rd, two years ago", None),  # unclear: extraction reads it
        ("I've been sober since Christmas", None),
        ("I got clean a few weeks ago", None),
        ("My sponsor's sobriety date is May 1st", None),  # not theirs
        ("My sobriety birthday is March 3rd", None),  # the year is not said
    ],
)
def test_a_sobriety_date_is_a_proposal_never_a_fact(said: str, day: str | None) -> None:
    expected = [Proposal("recovery_start_date", day)] if day else []
    assert detect(said, TODAY) == expected


def test_recovery_day_reads_the_start_only() -> None:
    assert recovery_day("March 3rd and I'm proud of it", TODAY) == date(2026, 3, 3)
    assert recovery_day("the 3rd of March", TODAY) == date(2026, 3, 3)
    assert recovery_day("Mar. 3, 2025", TODAY) == date(2025, 3, 3)
    assert recovery_day("2/9/24", TODAY) is None  # February 9th or 2 September: not guessed
    assert recovery_day("11/22/2023", TODAY) == date(2023, 11, 22)  # only one can be the month
    assert recovery_day("22.11.23", TODAY) == date(2023, 11, 22)
    assert recovery_day("3/3/2024", TODAY) == date(2024, 3, 3)  # the same either way
    assert recovery_day("last week", TODAY) is None  # a span, not a day


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def said(vault: Vault, text: str) -> chat.Message:
    """The user's words in a remembered chat, with no model configured (offline)."""
    session = chat.start(vault).id
    run(service.respond(vault, session, text))
    return chat.messages(vault, session)[-1]


@pytest.fixture
def may_10th() -> None:
    clock.set_clock(lambda: datetime(2026, 5, 10, 20, 0).astimezone())


@pytest.mark.usefixtures("may_10th")
def test_a_sobriety_date_said_in_chat_waits_for_the_user(vault: Vault) -> None:
    message = said(vault, "Just so you know, my sobriety date is March 3rd.")
    assert [(c.field, c.value, c.evidence) for c in pending.waiting(vault)] == [
        ("recovery_start_date", "2026-03-03", (f"chat_message:{message.id}",))
    ]
    assert not [f for f in store.live_facts(vault) if "sobriety" in f.text.lower()]
    assert "recovery_start_date" not in profile.load(vault)

    said(vault, "My sobriety date is March 3rd")  # said again: asked once
    assert len(pending.waiting(vault)) == 1

    pending.accept(vault, 1)
    assert profile.load(vault)["recovery_start_date"] == "2026-03-03"
    said(vault, "my clean date is 2026-03-03")  # the profile says it already
    assert pending.waiting(vault) == []


@pytest.mark.usefixtures("may_10th")
def test_an_unclear_or_future_sobriety_date_leaves_no_trace(vault: Vault) -> None:
    said(vault, "My sobriety date is coming up. My clean date is 2026-06-01.")
    assert pending.waiting(vault) == []
    assert store.live_facts(vault) == []


@pytest.mark.usefixtures("may_10th")
def test_a_reminder_keeps_the_users_words(vault: Vault) -> None:
    said(vault, "Remind me to call Maya on Sunday. remind me to ring the GP about my meds")
    assert [i.text for i in followups.open_items(vault)] == [
        "Call Maya on Sunday",
        "Ring the GP about my meds",  # the follow-up in the user's words; the fact about them
    ]
    assert {f.text for f in store.live_facts(vault)} == {
        "Asked to be reminded to call Maya on Sunday",
        "Asked to be reminded to ring the GP about their meds",
    }
    # done (Today's "d"): the reminder leaves the memory panel and the coach's prompt too
    followups.mark_done(vault, followups.open_items(vault)[0].id)
    assert {f.text for f in store.live_facts(vault)} == {
        "Asked to be reminded to ring the GP about their meds",
    }


@pytest.mark.usefixtures("may_10th")
def test_the_person_is_told_a_sobriety_date_waits_for_them(vault: Vault) -> None:
    session = chat.start(vault).id
    outcome = run(service.respond(vault, session, "My clean date is January 5th."))
    assert outcome.to_confirm == ["recovery start date → 2026-01-05"]
    assert outcome.captured == []


def test_words_heard_as_danger_leave_no_fact(vault: Vault) -> None:
    session = chat.start(vault).id
    outcome = run(service.respond(vault, session, "honestly i'd prefer to be dead"))
    assert outcome.crisis and outcome.captured == []
    assert store.live_facts(vault) == []
