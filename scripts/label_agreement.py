"""How far do two blind second labellers agree with the crisis set's labels?

    python -m scripts.label_agreement

Why: the detector misses some dangers and raises some false alarms with confidence. If a
careful reader also disagreed with those labels, the gap would be in the data, and no model
could close it; if careful readers agree with the labels, the gap is in the model.

Reads ``tests/data/crisis/agreement/``: ``sample.jsonl`` (318 sentences of the development
half and the pool, with their labels and why each was drawn: ``uniform`` 120 dangers and 120
harmless at random; ``confident_miss`` and ``confident_false_alarm``, the 40 dangers scored
lowest and the 40 harmless scored highest out of fold by the mean of the linear model and a
fine-tuned sentence model), and the two labellings, made from ``GUIDE.md`` and the texts
alone. Prints, per group, each labelling against the labels and against each other: danger
or not (agreement, Cohen's kappa, the labeller's recall and precision as if it were a
detector) and the nine categories. The held-back half is not in the sample.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "tests" / "data" / "crisis" / "agreement"
NONE = "none"


def read(name: str) -> list[dict[str, str]]:
    lines = (FOLDER / name).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def kappa(first: list[bool], second: list[bool]) -> tuple[float, float | None]:
    """Agreement and Cohen's kappa (None when one side never varies)."""
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    one, two = Counter(first), Counter(second)
    chance = sum(one[k] * two[k] for k in (True, False)) / n / n
    return observed, None if chance >= 1 else (observed - chance) / (1 - chance)


def compare(name: str, truth: list[str], given: list[str]) -> str:
    t = [c != NONE for c in truth]
    g = [c != NONE for c in given]
    agree, k = kappa(t, g)
    tp = sum(a and b for a, b in zip(t, g, strict=True))
    recall = tp / max(1, sum(t))
    precision = tp / max(1, sum(g))
    same = sum(a == b for a, b in zip(truth, given, strict=True)) / len(truth)
    shown = "-" if k is None else f"{k:.2f}"
    return (
        f"  {name}: danger or not {agree:.3f} (kappa {shown}), recall {recall:.3f}, "
        f"precision {precision:.3f}; nine categories {same:.3f}"
    )


def main() -> None:
    sample = read("sample.jsonl")
    first = {row["id"]: row["category"] for row in read("labeller_a.jsonl")}
    second = {row["id"]: row["category"] for row in read("labeller_b.jsonl")}
    for group in ("uniform", "confident_miss", "confident_false_alarm"):
        rows = [row for row in sample if row["group"] == group]
        truth = [row["label"] for row in rows]
        a = [first[row["id"]] for row in rows]
        b = [second[row["id"]] for row in rows]
        print(f"{group} ({len(rows)} sentences, {sum(t != NONE for t in truth)} dangers)")
        print(compare("A against the labels", truth, a))
        print(compare("B against the labels", truth, b))
        print(compare("A against B", a, b))
        rows_ = zip(a, b, truth, strict=True)
        both = sum((x != NONE) == (y != NONE) != (t != NONE) for x, y, t in rows_)
        print(f"  both labellers against the label, danger or not: {both}")


if __name__ == "__main__":
    main()
