"""Duplicate facts: how many labelled duplicates merge (recall) and how many contradictions
or different facts would wrongly merge (false merges), per split. Run from the repository root:

    python -m benchmarks.likeness_bench

The pairs are tests/data/fact_pairs.json; the rule is companion/memory/likeness.same_fact,
tuned on the "tune" split only. A false merge anywhere is a broken promise.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.common import row
from companion.memory.likeness import same_fact

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "fact_pairs.json"


def main() -> None:
    data = json.loads(DATA.read_text())
    names = data["names"]
    print(f"Duplicate facts, {len(data['pairs'])} labelled pairs")
    for half in ("tune", "test"):
        pairs = [p for p in data["pairs"] if p["split"] == half]
        duplicates = [p for p in pairs if p["label"] == "duplicate"]
        others = [p for p in pairs if p["label"] != "duplicate"]
        merged = sum(same_fact(p["a"], p["b"], names) for p in duplicates)
        wrong = [p for p in others if same_fact(p["a"], p["b"], names)]
        print(f"\n{half} split: {len(pairs)} pairs")
        row("duplicate pairs", len(duplicates), unit="count")
        row("contradiction and different pairs", len(others), unit="count")
        row(
            "duplicate recall",
            merged / len(duplicates),
            unit="",
            target=f"{merged}/{len(duplicates)}",
        )
        row(
            "false-merge rate",
            len(wrong) / len(others),
            unit="",
            target=f"{len(wrong)}/{len(others)}, target 0",
        )
        for p in wrong:
            print(f"    false merge ({p['label']}): {p['a']!r} / {p['b']!r}")
        for p in duplicates:
            if not same_fact(p["a"], p["b"], names):
                print(f"    missed: {p['a']!r} / {p['b']!r}")


if __name__ == "__main__":
    main()
