"""Cues: the short notes extraction leaves the coach after a relapse, a sponsor change, a
fellowship dropped, or a trigger that keeps coming back."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest

from companion import clock
from companion.activity import chat, checkins, profile
from companion.llm import configured
from companion.memory import extraction, store
from companion.vault.models import CheckIn, UrgeEvent
from tests.extraction_helpers import answer
from tests.fake_llm import tool

NOW = datetime(2026, 4, 14, 8, 30).astimezone()


@pytest.fixture(autouse=True)
def frozen_clock():  # type: ignore[no-untyped-def]
    clock.set_clock(lambda: NOW)


def extract(vault, fake_llm, **changes):  # type: ignore[no-untyped-def]
    fake_llm.push(tool(answer(**changes)))
    result = asyncio.run(extraction.extract(vault, configured(vault, "extraction")))
    assert result.ran and not result.error, result.error
    return result


def next_morning() -> None:
    """Extraction runs once a day: the next one is tomorrow's."""
    clock.set_clock(lambda: NOW + timedelta(days=1))


def cues(vault) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.text for f in store.live_facts(vault) if f.category == "cue"]


def said(vault, text: str) -> str:  # type: ignore[no-untyped-def]
    message = chat.add_message(vault, chat.start(vault).id, "user", text)
    return f"chat_message:{message.id}"


@pytest.mark.parametrize(("sober_days", "cued"), [(6, False), (7, True)])
def test_a_relapse_after_a_sober_week_leaves_a_cue(vault, fake_llm, sober_days, cued) -> None:
    today = clock.today()
    for back in range(sober_days, 0, -1):
        checkins.record(vault, today - timedelta(days=back), mood=6, sober=True)
    vault.update_where(CheckIn, None, memorized=True)  # those days were learned from already
    checkins.record(vault, today, mood=3, sober=False)
    extract(vault, fake_llm)
    expected = f"Relapsed on {today.isoformat()} after {sober_days} sober days"
    assert any(c.startswith(expected) for c in cues(vault)) is cued
    assert len(cues(vault)) == int(cued)


def test_a_new_sponsor_is_noted_but_a_first_one_is_not(vault, fake_llm) -> None:
    first = said(vault, "Dana agreed to be my sponsor.")
    extract(vault, fake_llm, profile_updates=[{"field": "sponsor", "value": "Dana",
                                              "evidence": [first]}])  # fmt: skip
    assert profile.load(vault)["sponsor"] == "Dana" and cues(vault) == []

    next_morning()
    second = said(vault, "Alex is my sponsor now.")
    extract(vault, fake_llm, profile_updates=[{"field": "sponsor", "value": "Alex",
                                              "evidence": [second]}])  # fmt: skip
    assert profile.load(vault)["sponsor"] == "Alex"
    assert cues(vault) == ["Sponsor changed from Dana to Alex: ask how it is going, gently."]


def test_leaving_a_fellowship_is_noted(vault, fake_llm) -> None:
    profile.update(vault, {"fellowship": "SMART Recovery"})
    quit_ = said(vault, "I stopped going to meetings.")
    extract(vault, fake_llm, profile_updates=[{"field": "fellowship", "value": "",
                                              "evidence": [quit_]}])  # fmt: skip
    assert not profile.load(vault).get("fellowship")
    assert cues(vault) == ["Stopped going to SMART Recovery: ask what led to that."]


def urge(vault, trigger: str, days_ago: int) -> None:  # type: ignore[no-untyped-def]
    when = clock.stamp(NOW - timedelta(days=days_ago))
    vault.insert(UrgeEvent, {"trigger": trigger}, occurred_at=when, created_at=when)


def test_a_trigger_five_times_in_thirty_days_is_cued_once(vault, fake_llm) -> None:
    for days_ago in (40, 45, 50, 55):  # long ago: these do not count
        urge(vault, "lonely", days_ago)
    for days_ago in (3, 9, 15, 21):
        urge(vault, "hungry", days_ago)
    lunch = said(vault, "Skipped lunch again and wanted a drink.")
    new_urge = {"when": NOW.isoformat(), "trigger": "hungry", "evidence": [lunch]}
    lonely = {"when": NOW.isoformat(), "trigger": "lonely", "evidence": [lunch]}
    extract(vault, fake_llm, urges=[new_urge, lonely])
    assert cues(vault) == ["The trigger 'hungry' came up 5+ times in 30 days: offer to explore it."]
    next_morning()
    again = said(vault, "Hungry and edgy tonight.")
    extract(vault, fake_llm, urges=[{**new_urge, "evidence": [again]}])
    assert len(cues(vault)) == 1, "the same cue is not added twice"
