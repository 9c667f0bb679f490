"""Crisis detection on every labelled set kept apart, one line each, with and without a
reading: what a rule in tests/data/crisis/next/ is judged by. Run from the repository root:

    python -m scripts.safety_sets [--without clauses|alone ...] [SET.jsonl ...]

``--without clauses`` reads long sentences whole (``text.LONG_SENTENCE`` out of reach);
``--without alone`` never reads a sentence alone (``safety.ALONE_FLOOR`` out of reach). Sets
are named as in tests/data/crisis/ (default: every set kept apart); nothing is tuned here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion.coach import safety
from companion.coach.safety import text

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "crisis"
APART = [
    "held_back.jsonl",
    "indirect_apart.jsonl",
    "conversation_apart.jsonl",
    "short_apart.jsonl",
    "hope_apart.jsonl",
    "everyday_apart.jsonl",
    "everyday_apart2.jsonl",
    "runon_apart.jsonl",
    "runon_apart2.jsonl",
    "runon_apart3.jsonl",
    "everyday_runon.jsonl",
    "everyday_runon2.jsonl",
    "messages_apart.jsonl",
    "messages_apart2.jsonl",
    "questions_apart.jsonl",
    "questions_apart2.jsonl",
]
"""Every set kept apart: the first twelve are "the twelve sets" of the rules."""


def scored(name: str) -> tuple[int, int, int, int]:
    """Dangers heard, dangers, false alarms, harmless texts."""
    heard = dangers = alarms = harmless = 0
    for line in (DATA / name).read_text().splitlines():
        row = json.loads(line)
        found = safety.detect(row["text"])
        if row["category"] == "none":
            harmless, alarms = harmless + 1, alarms + found
        else:
            dangers, heard = dangers + 1, heard + found
    return heard, dangers, alarms, harmless


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sets", nargs="*", default=APART)
    parser.add_argument("--without", action="append", choices=["clauses", "alone"], default=[])
    args = parser.parse_args()
    if "clauses" in args.without:
        text.LONG_SENTENCE = 10**9
    if "alone" in args.without:
        safety.ALONE_FLOOR = 2.0
    totals = [0, 0, 0, 0]
    print(f"{'set':<28} {'dangers heard':>15} {'false alarms':>14} {'precision':>9}")
    for name in args.sets:
        figures = scored(name)
        totals = [t + f for t, f in zip(totals, figures, strict=True)]
        heard, dangers, alarms, harmless = figures
        precision = f"{heard / (heard + alarms):.3f}" if heard else ""
        print(f"{name:<28} {heard:>6} of {dangers:<5} {alarms:>5} of {harmless:<5} {precision:>9}")
    heard, dangers, alarms, harmless = totals
    print(f"{'together':<28} {heard:>6} of {dangers:<5} {alarms:>5} of {harmless:<5}")


if __name__ == "__main__":
    main()
