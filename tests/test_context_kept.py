"""The coach's section keeps what no message changes between two messages (coach/standing.py):
whatever the person does in between, the next section says it, as a section built afresh
would."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from companion import clock
from companion.activity import chat, checkins, profile
from companion.coach import context
from companion.memory import followups, forgetting, pending, store, summaries

NOW = datetime(2026, 11, 26, 19, 30).astimezone()


def section(vault, message: str = "how are things") -> str:  # type: ignore[no-untyped-def]
    return context.build(vault, message).text


@pytest.fixture
def known(vault):  # type: ignore[no-untyped-def]
    clock.set_clock(lambda: NOW)
    profile.update(vault, {"preferred_name": "Jo", "recovery_start_date": "2026-10-01"})
    store.add_fact(vault, "Likes strong black coffee", "preferences")
    assert "Name: Jo" in section(vault)  # what is kept now
    return vault


def test_a_changed_profile_is_in_the_next_section(known) -> None:
    profile.update(known, {"preferred_name": "Josephine", "sponsor": "Dan"})
    text = section(known)
    assert "Name: Josephine" in text and "Sponsor: Dan" in text


def test_facts_added_pinned_and_forgotten_are_seen_at_once(known) -> None:
    fact = store.add_fact(known, "Walks the dog before breakfast", "routine")
    assert "Walks the dog before breakfast" in section(known, "coffee")
    store.set_pinned(known, fact, True)
    assert "Walks the dog before breakfast (pinned)" in section(known, "coffee")
    forgetting.forget_fact(known, fact)
    assert "Walks the dog" not in section(known, "coffee")


def test_a_relapse_logged_after_a_section_resets_the_sobriety_it_tells(known) -> None:
    assert "sober since 2026-10-01 (56 days)" in section(known)
    checkins.record(known, NOW.date() - timedelta(days=1), mood=3, sober=False)
    text = section(known)
    assert "Cue: a recent relapse" in text and "(56 days)" not in text


def test_a_follow_up_shows_when_added_and_leaves_when_done(known) -> None:
    item = followups.add(known, "Call the sponsor about the weekend", due=NOW.date())
    assert "Follow-up due 2026-11-26: Call the sponsor about the weekend" in section(known)
    followups.mark_done(known, item)
    assert "Call the sponsor" not in section(known)


def test_a_follow_up_due_tomorrow_shows_the_next_day(known) -> None:
    followups.add(known, "Ask how the interview went", due=NOW.date() + timedelta(days=1))
    assert "Ask how the interview went" not in section(known)
    clock.set_clock(lambda: NOW + timedelta(days=1))
    assert "Follow-up due 2026-11-27: Ask how the interview went" in section(known)


def test_a_proposed_recovery_date_is_told_while_it_waits(known) -> None:
    before = section(known)
    pending.propose(
        known, [{"field": "recovery_start_date", "value": "2026-11-01", "evidence": ["said"]}]
    )
    assert section(known) != before
    assert "2026-11-01" in section(known)


def test_a_summary_shows_and_leaves_when_its_session_goes_off_the_record(known) -> None:
    session = chat.start(known).id
    chat.add_message(known, session, "user", "the rent is due")
    summaries.put_session_summary(known, session, {"outcome": "Planned how to pay the rent"})
    assert "Planned how to pay the rent" in section(known)
    chat.set_off_record(known, session, True)
    assert "Planned how to pay the rent" not in section(known)


def test_a_fact_leaves_the_section_when_it_expires(known) -> None:
    store.add_fact(known, "Has a dentist appointment this week", "misc", tier="conversation")
    clock.set_clock(lambda: NOW + timedelta(days=7, minutes=-1))  # the same day: kept...
    assert "dentist appointment" in section(known)
    clock.set_clock(lambda: NOW + timedelta(days=7, minutes=1))  # ...until it expires
    assert "dentist appointment" not in section(known)


def test_a_session_summary_leaves_the_section_when_it_expires(known) -> None:
    session = chat.start(known).id
    summaries.put_session_summary(
        known, session, {"outcome": "Talked about the dentist"}, tier="conversation"
    )
    clock.set_clock(lambda: NOW + timedelta(days=7, minutes=-1))
    assert "Talked about the dentist" in section(known)
    clock.set_clock(lambda: NOW + timedelta(days=7, minutes=1))
    assert "Talked about the dentist" not in section(known)


def test_a_clock_set_back_reads_again(known) -> None:
    store.add_fact(known, "Has a dentist appointment this week", "misc", tier="conversation")
    clock.set_clock(lambda: NOW + timedelta(days=7, minutes=1))  # expired...
    assert "dentist appointment" not in section(known)
    clock.set_clock(lambda: NOW + timedelta(days=7, minutes=-1))  # ...not yet, the same day
    assert "dentist appointment" in section(known)
