"""The coach's memory section on the ten-year vault with 1,000 facts: how long it takes to build
for each chat message (the sealed index answers; nothing is built at unlock).

    python -m benchmarks.context_bench --keep DIR [--messages N] [--runs R]

DIR holds the ten-year vault (built by benchmarks/tenyear.py if missing). The vault is copied,
1,000 facts are added to the copy, then for each message the user's words are saved (as the
chat does) and the section is built for them at 600 tokens. Prints p50 and p95 per run, of
the wall time and of the thread's CPU time (the second moves less when other work shares the
cores).
"""

from __future__ import annotations

import argparse
import gc
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.tenyear import PASSPHRASE, build
from companion.activity import chat
from companion.coach import context
from companion.config import Config
from companion.llm.tokens import CLAUDE_BUDGET
from companion.memory import store
from companion.paths import VaultPaths
from companion.usecases.unlocked import Unlocked
from companion.vault import Vault

PEOPLE = ["Maya", "Dan", "Sam", "Priya", "Tom", "Lena", "Jo"]
TOPICS = ["work", "sleep", "the gym", "meetings", "cooking", "money", "the kids", "driving"]
MESSAGES = [
    "I'm craving tonight after another fight with Maya",
    "what did we talk about on Wednesday?",
    "Work was brutal, my boss yelled again and all I could think of was a drink",
    "I slept badly, kept waking at 3am thinking about money",
    "Dan says I should go to two meetings this week, I don't know if I have time",
    "what did I say about my dad?",
    "Feeling good today, cooked dinner for the kids and went to the gym",
    "I keep thinking about the bar on the corner when I drive home from work, every single "
    "day, and I have to take the long way round, it adds twenty minutes but it is worth it "
    "because last time I drove past I almost stopped, I sat in the car park for ten minutes "
    "and then called Dan, and he talked me down, but I am tired of having to do this every "
    "day and I wonder if it ever gets easier, my sister says it does but she never drank",
]


def add_facts(vault: Vault, count: int, rng: random.Random) -> None:
    with vault.transaction():
        for n in range(count):
            person, topic = rng.choice(PEOPLE), rng.choice(TOPICS)
            store.add_fact(
                vault,
                f"{person} and the user talk about {topic} ({n})",
                category=rng.choice(["relationship", "routine", "trigger", "general"]),
            )


def one_run(paths: VaultPaths, messages: int, warm: bool) -> tuple[list[float], list[float]]:
    """Each build's wall time and its thread's CPU time (ms): on a shared machine the second
    says what the build costs when other work takes the cores."""
    times, cpu = [], []
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        if warm:  # as the app does in a thread once Today shows (and what it read is frozen)
            Unlocked(vault, Config()).warm()
            gc.freeze()
        session = chat.start(vault)
        for n in range(messages):
            text = MESSAGES[n % len(MESSAGES)]
            chat.add_message(vault, session.id, "user", text)
            started, started_cpu = time.perf_counter(), time.thread_time()
            context.build(vault, text, CLAUDE_BUDGET, current_session=session.id)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - started_cpu) * 1000)
    gc.unfreeze()  # as the app does on lock
    gc.collect()
    return times, cpu


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--facts", type=int, default=1000)
    args = parser.parse_args()
    if not (args.keep / "vault.db").exists():
        build(args.keep)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        shutil.copy2(args.keep / "vault.db", root / "vault.db")
        paths = VaultPaths(root)
        with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
            add_facts(vault, args.facts, random.Random(1))
            vault.index.merge()
        print(f"Memory section on the ten-year vault with {args.facts:,} facts added")
        for warm in (True, False):
            said = "index warmed after unlock, as the app does" if warm else "buckets read cold"
            print(f" {said}")
            for run in range(args.runs):
                measured, cpu = one_run(paths, args.messages, warm)
                print(
                    f"  run {run + 1}: build p50 {statistics.median(measured):.1f} ms, "
                    f"p95 {p95(measured):.1f} ms, first message {measured[0]:.1f} ms"
                    + ("  target p95 <= 20 ms" if warm else "")
                    + f"; CPU p50 {statistics.median(cpu):.1f}, p95 {p95(cpu):.1f} ms"
                )


if __name__ == "__main__":
    main()
