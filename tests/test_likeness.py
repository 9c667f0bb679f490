"""Near-duplicate facts merge by meaning and a contradiction never does, measured on the
labelled pairs in tests/data/fact_pairs.json (the rule and its figures are in the docstring of
companion/memory/likeness.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from companion.memory.likeness import canonical, same_fact

DATA = json.loads((Path(__file__).parent / "data" / "fact_pairs.json").read_text())
NAMES = tuple(DATA["names"])
PAIRS = DATA["pairs"]
# The test half as written before the rule existed: a change to it shows here.
TEST_SPLIT_SHA256 = "806a19702cd50f4731619df54fa51470e1c87986b566263c1773184b23a632b4"
# Measured on the test half, never tuned on: 36/38 = 0.947. One more miss is allowed.
FLOOR_TEST_RECALL = 0.92


def split(name: str) -> list[dict[str, str]]:
    return [p for p in PAIRS if p["split"] == name]


def test_the_pairs_are_labelled_and_the_test_half_is_the_one_written_before_tuning() -> None:
    assert len(PAIRS) >= 120
    assert {p["label"] for p in PAIRS} == {"duplicate", "contradiction", "different"}
    assert {p["split"] for p in PAIRS} == {"tune", "test"}
    assert abs(len(split("tune")) - len(split("test"))) <= len(PAIRS) // 10
    test = "\n".join(json.dumps(p, sort_keys=True, ensure_ascii=False) for p in split("test"))
    assert hashlib.sha256(test.encode()).hexdigest() == TEST_SPLIT_SHA256


@pytest.mark.parametrize("half", ["tune", "test"])
def test_a_contradiction_or_a_different_fact_is_never_merged(half: str) -> None:
    merged = [
        (p["label"], p["a"], p["b"])
        for p in split(half)
        if p["label"] != "duplicate" and same_fact(p["a"], p["b"], NAMES)
    ]
    assert merged == []


def test_duplicate_recall_on_the_test_half() -> None:
    duplicates = [p for p in split("test") if p["label"] == "duplicate"]
    found = [p for p in duplicates if same_fact(p["a"], p["b"], NAMES)]
    missed = [(p["a"], p["b"]) for p in duplicates if p not in found]
    print(f"\ntest half: duplicate recall {len(found)}/{len(duplicates)}; missed {missed}")
    assert len(found) / len(duplicates) >= FLOOR_TEST_RECALL


def test_the_issue_s_contradictions_stay_apart() -> None:
    for a, b in [
        ("Lives in Leeds", "Lives in York"),
        ("Works days", "Works nights"),
        ("Has two cats", "Has three cats"),
        ("Likes tea", "Does not like tea"),
        ("Sober since 2024-03-03", "Sober since 2024-05-01"),
    ]:
        assert not same_fact(a, b), (a, b)
        assert canonical(a) != canonical(b), (a, b)


def test_a_forgotten_fact_said_again_has_the_same_canonical_form() -> None:
    said = [
        "works at the bakery.",
        "Works at a bakery",
        "Sam works at the bakery",
        "The user works at the bakery!",
        "He works at the bakery",
        "I work at the bakery.",
        "  Works   at the Bakery ",
    ]
    forms = {canonical(text, names=("Sam",)) for text in said}
    assert len(forms) == 1 and forms != {""}
    form = forms.pop()
    for other in (
        "Works at the hospital",
        "Doesn't work at the bakery",
        "Used to work at the bakery",
        "Works at the bakery on Saturdays",
    ):
        assert canonical(other, names=("Sam",)) != form, other


def test_canonical_is_sorted_unique_and_repeatable() -> None:
    for p in PAIRS:
        for text in (p["a"], p["b"]):
            form = canonical(text, NAMES)
            assert form == canonical(text, NAMES)
            assert form.split() == sorted(set(form.split()))


def test_same_fact_is_symmetric() -> None:
    for p in PAIRS:
        assert same_fact(p["a"], p["b"], NAMES) == same_fact(p["b"], p["a"], NAMES)
