"""Crisis detection: how long it takes on a chat message, a journal entry and a pasted
megabyte, and what loading it costs. Run from the repository root:

    python -m benchmarks.safety_bench [--runs N]

Texts are built from the project's labelled sentences (tests/data/crisis/dev.jsonl, ordinary
and hard ones mixed), so they read like real writing; caches are cleared before each timing,
so every figure is a first reading.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import row
from companion.coach import safety
from companion.coach.safety import model

DEV = Path(__file__).resolve().parent.parent / "tests" / "data" / "crisis" / "dev.jsonl"
LOAD = """
import companion.cli, companion.usecases.unlocked, companion.activity.journal  # the baseline
import time
started = time.perf_counter()
from companion.coach import safety
safety.assess("a first sentence to read")
print((time.perf_counter() - started) * 1000)
"""


def writing(rng: random.Random, words: int, sentences: list[str]) -> str:
    out: list[str] = []
    count = 0
    while count < words:
        sentence = rng.choice(sentences)
        out.append(sentence if sentence.endswith((".", "!", "?")) else sentence + ".")
        count += len(sentence.split())
    return " ".join(out)


def cold(text: str) -> float:
    model.sentence_parts.cache_clear()
    model._word.cache_clear()
    model._concepts.cache_clear()
    started = time.perf_counter()
    safety.assess(text)
    return (time.perf_counter() - started) * 1000


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    rng = random.Random(7)
    sentences = [json.loads(line)["text"] for line in DEV.read_text().splitlines()]
    safety.warm()  # weights loaded and patterns compiled once, as the app's warm-up does
    print(f"Crisis detection, first readings ({args.runs} texts each; p95 and median)")
    for label, words, target in (
        ("chat message, 50 words", 50, "target p95 <= 2 ms"),
        ("journal entry, 400 words", 400, "target p95 <= 10 ms"),
    ):
        times = [cold(writing(rng, words, sentences)) for _ in range(args.runs)]
        row(f"{label}, p95", p95(times), target=target)
        row(f"{label}, median", statistics.median(times))
    big = writing(rng, 180_000, sentences)
    times = [cold(big) for _ in range(3)]
    label = f"pasted text, {len(big) / 1e6:.1f} MB, median of 3"
    row(label, statistics.median(times), target="target <= 1000 ms")
    loads = []
    for _ in range(max(3, args.runs // 8)):
        out = subprocess.run(
            [sys.executable, "-c", LOAD], capture_output=True, text=True, check=True
        ).stdout
        loads.append(float(out))
    label = "import and first use, after what journal add loads anyway"
    row(label, statistics.median(loads), target="target <= 30 ms")


if __name__ == "__main__":
    main()
