"""Offline capture measured on chat messages written for it by writers who never saw the
rules (tests/data/capture/, BRIEF.md): two sets the rules were tuned on and a third scored
only once, after the tuning. Each line is a message and whether it says something durable
to keep ("my sponsor is Dana", "please never call me buddy", a clean date) or only seems to
(a question, someone else's words, a passing state, an idiom, sarcasm)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from companion.coach.capture import detect

DATA = Path(__file__).parent / "data" / "capture"
APART_SHA256 = {
    "apart_c.jsonl": "ab9563ccedcb0ec3968e5c1ecacf70b53d04a0311ca4fca7f2b1243d58f7a1c5",
    "apart_e.jsonl": "f2de52cdb124678e26f017983396e9c49bc3a6f9876c23eadd58dcb0a607ac9f",
}


def scored(name: str) -> tuple[float, float]:
    rows = [json.loads(line) for line in (DATA / name).read_text().splitlines()]
    kept = [bool(detect(row["text"])) for row in rows]
    hits = sum(k for k, row in zip(kept, rows, strict=True) if row["capture"])
    wrong = [row["text"] for k, row in zip(kept, rows, strict=True) if k and not row["capture"]]
    recall = hits / sum(row["capture"] for row in rows)
    precision = hits / max(1, hits + len(wrong))
    print(f"\n{name}: recall {recall:.3f}, precision {precision:.3f} ({len(wrong)} wrong)")
    for text in wrong:
        print(f"  kept, but should not be: {text[:70]}")
    return recall, precision


def test_capture_on_the_sets_it_was_tuned_on() -> None:
    for name in ("tune_a.jsonl", "tune_b.jsonl", "tune_d.jsonl"):
        recall, precision = scored(name)
        assert recall >= 0.80 and precision >= 0.95, name


@pytest.mark.parametrize("name", sorted(APART_SHA256))
def test_capture_on_sets_it_was_not_tuned_on(name: str) -> None:
    """A wrong "you said" fact is worse than a missed one: precision first."""
    digest = hashlib.sha256((DATA / name).read_bytes()).hexdigest()
    assert digest == APART_SHA256[name]
    recall, precision = scored(name)
    assert recall >= 0.68 and precision >= 0.95


def test_messages_worded_near_the_rules_mostly_leave_no_fact() -> None:
    """210 messages written to sit next to the rules and say nothing to keep (sarcasm, passing
    states, other people's tastes, "living isn't for me", "i log in with my email"): each fact
    kept from one is a wrong "you said" in the memory panel."""
    lines = (DATA / "near_misses.txt").read_text().splitlines()
    said = [line for line in lines if line.strip() and not line.startswith("#")]
    wrong = [(text, found) for text in said if (found := detect(text))]
    print(f"\nnear misses: {len(wrong)} of {len(said)} kept something")
    for text, found in wrong:
        print(f"  {text[:50]:<50} -> {found[0]}")
    assert len(wrong) / len(said) <= 0.08
