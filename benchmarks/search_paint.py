"""Search in the app, typed to painted, many times per app session, and where the time goes.

    python -m benchmarks.search_paint --keep DIR [--rounds N] [--sessions S] [--fresh]

``tui_bench`` measures one search per app session (two sessions by default), which on a shared
machine moves by 2x from run to run. This unlocks the app once per session, opens the journal
and sets the search box to five queries in turn, ``--rounds`` times (``--fresh``: fifteen,
each once), printing the median typed-to-painted time and, for each step, when it happened
after the value changed: the search thread began, the results were in, they were put in the
list, the paint began and ended.
DIR holds the ten-year vault (built by benchmarks/tenyear.py if missing).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.tenyear import PASSPHRASE, build
from benchmarks.tui_bench import fresh_process, instrument, painted_after

QUERIES = ["sponsor kitchen", "craving work", "meeting sober", "sleep tired", "walk park"]
FRESH = [  # --fresh: each once, so nothing a search keeps (rank.py's shares) is reused whole
    "sponsor kitchen", "craving work", "meeting sober", "sleep tired", "walk park",
    "coffee rain", "anxious morning", "grateful family", "gym run", "dinner friends",
    "call mom", "tired night", "work stress", "weekend plans", "church group",
]  # fmt: skip
STEPS = ("search began", "results in", "in the list", "paint began", "painted")


async def session(
    root: Path, rounds: int, queries: list[str] = QUERIES
) -> list[tuple[float, dict[str, float]]]:
    from textual import events
    from textual.screen import Screen

    from companion.paths import VaultPaths
    from companion.tui.app import CompanionApp
    from companion.tui.screens.journal import JournalScreen
    from companion.tui.screens.journal_browser import JournalBrowser
    from companion.tui.screens.today import TodayScreen

    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        marks.setdefault(name, time.perf_counter())

    shown, update = JournalBrowser.show_hits, Screen._on_timer_update

    def show_hits(self: Any, *args: Any) -> None:
        shown(self, *args)
        mark("in the list")

    def on_update(self: Any) -> None:
        if "in the list" in marks:
            mark("paint began")
        update(self)
        if "paint began" in marks:
            mark("painted")

    JournalBrowser.show_hits = show_hits  # type: ignore[method-assign]
    Screen._on_timer_update = on_update  # type: ignore[method-assign]
    out = []
    try:
        app = CompanionApp(VaultPaths(root))
        async with app.run_test(size=(100, 32)) as pilot:
            instrument(app)
            while "today" not in app._screen_stacks:
                await asyncio.sleep(0.01)
            await pilot.pause()
            app.screen.query_one("#passphrase").value = PASSPHRASE
            app.post_message(events.Key("enter", None))
            today = time.perf_counter()
            await painted_after(app, today, lambda: isinstance(app.screen, TodayScreen))
            await app.warmed.wait()
            app.post_message(events.Key("f5", None))
            await painted_after(
                app,
                time.perf_counter(),
                lambda: (
                    isinstance(app.screen, JournalScreen)
                    and bool(app.screen.query_one("#entries").option_count)
                ),
            )
            await pilot.pause()
            screen = app.screen
            index = app.index
            assert index is not None
            search = index.search

            def timed_search(*args: Any, **kwargs: Any) -> Any:
                mark("search began")
                found = search(*args, **kwargs)
                mark("results in")
                return found

            index.search = timed_search  # type: ignore[method-assign]
            await asyncio.sleep(0.3)
            for _ in range(rounds):
                for query in queries:
                    marks.clear()
                    started = time.perf_counter()
                    screen.query_one("#search").value = query
                    total = await painted_after(app, started, lambda q=query: screen.listed == q)
                    out.append((total, {k: (v - started) * 1000 for k, v in marks.items()}))
                    await asyncio.sleep(0.15)
    finally:
        JournalBrowser.show_hits = shown  # type: ignore[method-assign]
        Screen._on_timer_update = update  # type: ignore[method-assign]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--fresh", action="store_true", help="15 queries, each once")
    args = parser.parse_args()
    if not (args.keep / "vault.db").exists():
        build(args.keep)
    for number in range(args.sessions):
        fresh_process()
        if args.fresh:
            found = asyncio.run(session(args.keep, 1, FRESH))
        else:
            found = asyncio.run(session(args.keep, args.rounds))
        totals = [total for total, _ in found]
        print(
            f"session {number + 1}: typed to painted, median {statistics.median(totals):.1f} ms "
            f"({min(totals):.1f}-{max(totals):.1f}, {len(totals)} searches; the first "
            f"{totals[0]:.1f})  target <= 30 ms"
        )
        steps = []
        for step in STEPS:
            at = [marks[step] for _, marks in found if step in marks]
            if at:
                steps.append(f"{step} {statistics.median(at):.1f}")
        print("  after the value changed (medians, ms): " + ", ".join(steps))


if __name__ == "__main__":
    main()
