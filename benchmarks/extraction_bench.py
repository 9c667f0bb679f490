"""Extraction cost: prompt tokens and estimated cost for a typical day and for a 30-day absence,
at Claude Haiku 4.5 list prices ($1 / $5 per million input / output tokens).

    python -m benchmarks.extraction_bench

Tokens are estimated at 4 characters each (what the app budgets with); the answer is a
realistic record_memory output built here, since no model is called.
"""

from __future__ import annotations

import json
import random
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.common import row
from benchmarks.tenyear import WORDS
from companion import clock
from companion.activity import chat, checkins, journal
from companion.llm import pricing
from companion.memory import extraction, gather, store
from companion.memory.schema import TOOL
from companion.paths import VaultPaths
from companion.vault import Vault

MODEL = "claude-haiku-4-5"
NOW = datetime(2026, 11, 22, 8, 0).astimezone()


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def typical_answer(facts: int, sessions: list[int]) -> dict:
    sentence = "Sam noticed cravings after skipping lunch and called Dana; it passed."
    return {
        "conversation_summary": sentence * 2,
        "journal_summary": sentence * 2,
        "checkin_summary": "Mood 6, cravings 3, slept 7 hours, sober.",
        "emotional_state": "Tired but steady, hopeful by evening.",
        "follow_ups": [
            {
                "text": "Pack lunch for tomorrow",
                "due_date": "2026-11-23",
                "evidence": ["journal_entry:1"],
            }
        ],
        "notable_patterns": ["Cravings follow skipped meals"],
        "facts": {
            "add": [
                {
                    "text": "Gets cravings after skipping lunch",
                    "category": "patterns",
                    "tier": "semantic",
                    "evidence": ["journal_entry:1"],
                }
            ]
            * facts,
            "update": [],
            "remove": [],
        },
        "sessions": [
            {
                "session_id": s,
                "summary_text": sentence,
                "outcome": "urge_passed",
                "primary_trigger": "hungry",
                "resistance_strategy_used": "called_sponsor",
                "key_insights": ["Eating regularly matters"],
            }
            for s in sessions
        ],
        "profile_updates": [],
        "urges": [
            {
                "when": "2026-11-21T16:00",
                "trigger": "hungry",
                "strategy": "called_sponsor",
                "outcome": "urge_passed",
                "intensity": 6,
                "evidence": ["journal_entry:1"],
            }
        ],
    }


def tokens(text: str) -> int:
    return len(text) // 4 + 1


def measure(vault: Vault, label: str) -> None:
    items = gather.unmemorized(vault)
    parts = gather.chunks(items, extraction.input_budget(vault))
    system = extraction.system_prompt()
    tool = json.dumps(TOOL)
    total_in = total_out = 0
    for part in parts:
        document = "<data>\n" + json.dumps(gather.document(vault, part), ensure_ascii=False)
        total_in += tokens(system) + tokens(tool) + tokens(document) + 20
        total_out += tokens(json.dumps(typical_answer(3, sorted(part.sessions))))
    cost = pricing.cost(MODEL, total_in, total_out)
    print(f"\n{label}: {len(items)} items in {len(parts)} call(s)")
    row("input tokens (system + tool schema + data)", total_in, unit="count")
    row("output tokens (a realistic answer)", total_out, unit="count")
    row(
        f"estimated cost at {MODEL} list prices",
        cost * 100,
        unit="cents",
        target="target <= 1 cent" if "typical" in label else "",
    )


def build(root: Path, days: int, seed: int) -> Vault:
    rng = random.Random(seed)
    clock.set_clock(lambda: NOW - timedelta(days=days))
    vault, _ = Vault.create(VaultPaths(root), "benchmark passphrase", 64)
    for _ in range(100):
        store.add_fact(vault, f"{words(rng, 8)}", rng.choice(["goals", "patterns", "work"]))
    for back in range(days, 0, -1):
        clock.set_clock(lambda b=back: NOW - timedelta(days=b) + timedelta(hours=12))
        checkins.record(
            vault, clock.today(), mood=6, cravings=3, sleep_hours=7, sober=True, note=words(rng, 15)
        )
        journal.add(vault, words(rng, 300))
        session = chat.start(vault).id
        for n in range(20):
            chat.add_message(
                vault,
                session,
                "user" if n % 2 == 0 else "assistant",
                words(rng, 25 if n % 2 == 0 else 45),
            )
        chat.end(vault, session)
    clock.set_clock(lambda: NOW)
    return vault


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="companion-extraction-bench-"))
    print("Extraction cost (estimates; 1 token ~ 4 characters)")
    with build(work / "day", 1, 1) as vault:
        measure(
            vault, "typical day: a check-in, a 300-word entry, a 20-message chat, 100 live facts"
        )
    with build(work / "absence", 30, 2) as vault:
        measure(vault, "30-day absence: the same every day for 30 days")
    clock.set_clock(None)


if __name__ == "__main__":
    main()
