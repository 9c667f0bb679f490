"""Crisis detection: how long it takes on a chat message, a journal entry and a pasted
megabyte, and what loading it costs. Run from the repository root:

    python -m benchmarks.safety_bench [--runs N]

Texts are built from the project's labelled sentences (tests/data/crisis/dev.jsonl, half
dangers and half hard negatives; then everyday writing alone, train/ordinary.jsonl), so they
read like real writing; caches are cleared before each timing, so every figure is a first
reading. The share of windows the reader of word order reads again is printed with each.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import bytecode_env, row
from companion.coach import safety
from companion.coach.safety import model, reader

DEV = Path(__file__).resolve().parent.parent / "tests" / "data" / "crisis" / "dev.jsonl"
"""Half dangers, half hard negatives: the hardest text to read, and the slowest."""
ORDINARY = DEV.parent / "train" / "ordinary.jsonl"
"""Everyday writing, none of it danger: what most entries are like."""
RUN_ON = [DEV.parent / "runon_tune.jsonl", DEV.parent / "everyday_runon_tune.jsonl"]
"""A day typed as one sentence, commas between (danger among it, or none): read in clauses."""
LOAD = """
import companion.cli, companion.usecases.unlocked, companion.activity.journal  # the baseline
import time
def resident():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
started, before = time.perf_counter(), resident()
from companion.coach import safety
safety.assess({text!r})
print((time.perf_counter() - started) * 1000, resident() - before)
"""
PLAIN = "a first sentence to read"
"""Plainly harmless to the linear model: the reader of word order is not loaded."""
UNSURE = "gave my guitar to jake today"
"""Unsure to the linear model: numpy and the reader are loaded to read it again."""


def writing(rng: random.Random, words: int, sentences: list[str]) -> str:
    out: list[str] = []
    count = 0
    while count < words:
        sentence = rng.choice(sentences)
        out.append(sentence if sentence.endswith((".", "!", "?")) else sentence + ".")
        count += len(sentence.split())
    return " ".join(out)


def cold(text: str, reread: bool = True) -> float:
    """A first reading; without ``reread``, the linear model's alone (the reference)."""
    model.sentence_parts.cache_clear()
    model._word.cache_clear()
    model._concepts.cache_clear()
    available = reader.available
    if not reread:
        reader.available = lambda: False  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        safety.assess(text)
        return (time.perf_counter() - started) * 1000
    finally:
        reader.available = available  # type: ignore[method-assign]


def reread(texts: list[str]) -> float:
    """The share of windows the reader of word order reads besides the linear model (at most
    ``reader.AT_MOST`` of a text)."""
    read = total = 0
    for text in texts:
        windows, _, clausal, _ = safety._windows(text)
        danger = [1 - model.window_probabilities(w)[model.NONE] for w in windows]
        several = len(windows) > 1
        pairs = list(zip(danger, clausal, strict=True))
        if several:  # clauses: the windows leaning furthest to danger (_clause_verdicts)
            leaning = sum(d >= safety.CLAUSE_FLOOR for d, c in pairs if c)
            read += min(safety.CLAUSE_READ, leaning)
        plain = [d for d, c in pairs if not (c and several)]
        unsure = sum(reader.worth_reading(d, several) for d in plain)
        read += min(unsure, reader.AT_MOST)
        total += len(windows)
    return read / max(1, total)


def every_text(rng: random.Random, harmless: bool = False) -> str:
    """Every labelled text of the project once (about 1.4 MB), shuffled; ``harmless``: only
    those labelled no danger (about 0.97 MB: everyday writing and its hard negatives, what
    a diary pasted in is made of)."""
    texts = {}
    for path in sorted(DEV.parent.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                continue
            if not harmless or row.get("category") == "none":
                texts[row["text"]] = None
    ordered = list(texts)
    rng.shuffle(ordered)
    return " ".join(t if t.endswith((".", "!", "?")) else t + "." for t in ordered)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--runs",
        type=int,
        default=200,
        help="texts of each kind: a p95 needs many (of 40, it is the third slowest, and the "
        "slowest few are the machine's hiccups as often as the text's)",
    )
    args = parser.parse_args()
    rng = random.Random(7)
    sentences = [json.loads(line)["text"] for line in DEV.read_text().splitlines()]
    safety.warm()  # weights loaded and patterns compiled once, as the app's warm-up does
    print(f"Crisis detection, first readings ({args.runs} texts each; p95 and median)")
    ordinary = [json.loads(line)["text"] for line in ORDINARY.read_text().splitlines()]
    run_on = [json.loads(line)["text"] for path in RUN_ON for line in path.read_text().splitlines()]
    for label, words, target, source in (
        ("a day typed as one sentence, 40-120 words", 0, "target p95 <= 2 ms", run_on),
        ("chat message, 50 words", 50, "target p95 <= 2 ms", sentences),
        ("journal entry, 400 words", 400, "target p95 <= 10 ms", sentences),
        ("everyday chat message, 50 words", 50, "", ordinary),
        ("everyday journal entry, 400 words", 400, "", ordinary),
    ):
        texts = [
            writing(rng, words, source) if words else rng.choice(source) for _ in range(args.runs)
        ]
        times, alone = [], []
        for text in texts:  # alternated, so a busy minute weighs on both alike
            times.append(cold(text))
            alone.append(cold(text, reread=False))
        row(f"{label}, share of windows read again", 100 * reread(texts), unit="%")
        row(f"{label}, p95", p95(times), target=target)
        row(f"{label}, median", statistics.median(times))
        row("  the linear model alone, p95 / median", p95(alone))
        row("", statistics.median(alone))
    big = writing(rng, 180_000, sentences)
    times = [cold(big) for _ in range(3)]
    label = f"pasted text, {len(big) / 1e6:.1f} MB, median of 3"
    row(label, statistics.median(times), target="target <= 1000 ms")
    flat = re.sub(r"[.!?]+\s*", ", ", big)  # the same megabyte with no full stop: one sentence
    times = [cold(flat) for _ in range(3)]
    row("the same with commas for full stops, median of 3", statistics.median(times))
    # Each of the 879 sentences above comes back about 25 times, and a sentence read once is
    # remembered: a megabyte of text where no sentence comes twice is read in full.
    unique = every_text(rng)[:1_000_000]
    times = [cold(unique) for _ in range(3)]
    label = f"pasted text, {len(unique) / 1e6:.1f} MB, no sentence twice, median of 3"
    row(label, statistics.median(times), target="target <= 1000 ms")
    diary = every_text(rng, harmless=True)
    times = [cold(diary) for _ in range(3)]
    label = f"the same, {len(diary) / 1e6:.2f} MB of harmless writing only, median of 3"
    row(label, statistics.median(times), target="target <= 1000 ms")
    loading(args.runs)


def loading(runs: int) -> None:
    """What importing the detector and a first reading cost, in a process of its own.

    Bytecode cached, as after an install: an unmeasured first run writes the .pyc files (with
    PYTHONDONTWRITEBYTECODE set, every run would compile our modules again, about half of the
    figure). The same without the cache is printed beside it."""
    with tempfile.TemporaryDirectory(prefix="companion-safety-bench-") as folder:
        cached = bytecode_env(Path(folder))
        compiling = {**cached, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": EMPTY}
        for text, label, target in (
            (PLAIN, "import and first use, after what journal add loads anyway", "target <= 30 ms"),
            (UNSURE, "the same, a text the reader of word order reads too", ""),
        ):
            code = LOAD.format(text=text)
            load(code, cached)  # writes the .pyc files
            loads, grown, compiled = [], [], []
            for _ in range(max(3, min(10, runs // 8))):  # alternated: busy minutes weigh on both
                took, added = load(code, cached)
                loads.append(took)
                grown.append(added)
                compiled.append(load(code, compiling)[0])
            row(label, statistics.median(loads), target=target)
            row("  resident memory it adds", statistics.median(grown), unit="MiB")
            row("  without cached bytecode (every module compiled)", statistics.median(compiled))


EMPTY = "/nonexistent/companion-no-pycache"
"""A bytecode cache folder that is never there: every module is compiled from its source."""


def load(code: str, env: dict[str, str]) -> tuple[float, float]:
    """Milliseconds and MiB that importing and a first use cost, in a process of its own."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.split()
    return float(out[0]), float(out[1])


if __name__ == "__main__":
    main()
