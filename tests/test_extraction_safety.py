"""Words of danger are a moment to meet with help, not something to remember: what the memory
model answers is kept without the facts, follow-ups and patterns that make a trait of them
(``usecases.remembering``, the path the app and ``companion memory extract`` take; the real
SDK against the loopback fake, the real detector)."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta

from companion import clock
from companion.activity import chat, checkins, journal
from companion.coach import service
from companion.config import Config
from companion.llm import configured
from companion.memory import followups, runs, store, summaries
from companion.usecases import remembering
from companion.usecases.unlocked import Unlocked
from tests.extraction_helpers import answer
from tests.fake_llm import text, tool

NOW = datetime(2026, 11, 20, 8, 30).astimezone()


def learn(vault):  # type: ignore[no-untyped-def]
    unlocked = Unlocked(vault, Config(region="US"))
    gateway = configured(vault, "extraction")
    assert gateway is not None
    return asyncio.run(remembering.learn(unlocked, gateway, force=True))


def fact(words: str, ref: str, category: str = "other") -> dict[str, object]:
    return {"text": words, "category": category, "tier": "semantic", "evidence": [ref]}


def test_a_trait_made_of_words_of_danger_is_not_remembered(vault, fake_llm) -> None:
    clock.set_clock(lambda: NOW - timedelta(days=3))
    walks = store.add_fact(vault, "Likes long walks", "preferences", source="learned")
    clock.set_clock(lambda: NOW - timedelta(hours=10))
    dark = journal.add(
        vault,
        "honestly id rather be dead than go back to that job. been cutting again, upper arms "
        "so nobody sees. remind me to call mum on sunday. walked the dog before work, it helped",
    )
    note = checkins.record(vault, clock.today(), mood=3, cravings=4, note="on 100mg sertraline now")
    clock.set_clock(lambda: NOW)
    ref, checkin = f"journal_entry:{dark.id}", f"checkin:{note.id}"
    fake_llm.push(
        tool(
            answer(
                journal_summary="A very hard day on 2026-11-19; walked the dog before work.",
                notable_patterns=[
                    "Wishes they would not wake up after a shift",
                    "Walks the dog when stressed",
                ],
                facts={
                    "add": [
                        fact("Prefers to be dead", ref, "preferences"),
                        fact("Has been cutting their arms again", ref, "health"),
                        fact("Walks the dog before work", ref, "patterns"),
                        # misheard alone, from harmless words: kept
                        fact("Takes 100mg of sertraline", checkin, "health"),
                    ],
                    "update": [
                        {
                            "id": walks,
                            "text": "Does not want to be alive anymore",
                            "reason": "said so",
                            "evidence": [ref],
                        }
                    ],
                },
                follow_ups=[
                    {"text": "Call Mum on Sunday", "evidence": [ref]},
                    {"text": "Write the goodbye letters", "evidence": [ref]},
                ],
            )
        )
    )
    result = learn(vault)
    assert result.error == "" and result.ran
    assert sorted(f.text for f in store.live_facts(vault)) == [
        "Likes long walks",
        "Takes 100mg of sertraline",
        "Walks the dog before work",
    ]
    assert [f.text for f in followups.open_items(vault)] == ["Call Mum on Sunday"]
    daily = summaries.newest_daily_memory(vault)
    assert daily is not None
    assert daily.content["notable_patterns"] == ["Walks the dog when stressed"]
    assert "very hard day" in daily.content["journal_summary"]  # the coach can ask how they are
    # Nothing anywhere says what was left out: that would store what the detector heard.
    assert result.counts.dropped == []
    latest = runs.latest_run(vault)
    assert latest is not None and "raw" not in latest.details
    assert "dead" not in json.dumps(latest.details) and "danger" not in json.dumps(latest.details)

    # The coach's next prompt holds the day, not the trait.
    fake_llm.push(text("I'm here."))
    asyncio.run(service.respond(vault, chat.start(vault).id, "morning"))
    system = fake_llm.requests[-1]["body"]["system"]
    system = system if isinstance(system, str) else json.dumps(system)
    assert "Walks the dog before work" in system
    assert "Prefers to be dead" not in system and "goodbye" not in system


def test_the_same_facts_from_harmless_words_are_kept(vault, fake_llm) -> None:
    """A line that sounds like danger alone, from words that do not, is the model's wording
    of something harmless: it stays."""
    clock.set_clock(lambda: NOW - timedelta(hours=10))
    entry = journal.add(vault, "Sold my old guitar to Jake. Walked to the shops after for milk.")
    clock.set_clock(lambda: NOW)
    ref = f"journal_entry:{entry.id}"
    fake_llm.push(
        tool(
            answer(
                facts={"add": [fact("Walks to the shops", ref, "patterns")]},
                follow_ups=[
                    {"text": "Give away the amp before the end of the month", "evidence": [ref]}
                ],
            )
        )
    )
    assert learn(vault).error == ""
    assert [f.text for f in store.live_facts(vault)] == ["Walks to the shops"]
    assert [f.text for f in followups.open_items(vault)] == [
        "Give away the amp before the end of the month"
    ]
