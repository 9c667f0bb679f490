"""Importing 10,000 jrnl entries (the ten-year benchmark's journal, as jrnl's JSON export) into a
new vault, then importing the same file again (which must add nothing).

    python -m benchmarks.import_bench [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import row
from benchmarks.tenyear import Sizes, journal_entries
from companion.importers.run import import_source
from companion.paths import VaultPaths
from companion.vault import Vault


def jrnl_export(path: Path) -> int:
    entries = []
    for moment, title, text in journal_entries(Sizes()):
        tags = sorted({w for w in text.split() if w.startswith("#")})
        entries.append(
            {
                "title": title or text.split(" ", 3)[0],
                "body": text,
                "date": moment.strftime("%Y-%m-%d"),
                "time": moment.strftime("%H:%M"),
                "tags": tags,
                "starred": False,
            }
        )
    path.write_text(json.dumps({"tags": {}, "entries": entries}))
    return len(entries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="companion-import-bench-"))
    source = work / "jrnl.json"
    count = jrnl_export(source)
    firsts, agains = [], []
    for run in range(args.runs):
        vault, _ = Vault.create(VaultPaths(work / f"vault-{run}"), "benchmark passphrase", 64)
        with vault:
            started = time.perf_counter()
            report = import_source(vault, "jrnl", source)
            firsts.append(time.perf_counter() - started)
            assert report.added == count, report.lines()
            started = time.perf_counter()
            again = import_source(vault, "jrnl", source)
            agains.append(time.perf_counter() - started)
            assert again.added == 0 and again.skipped == count
    print(f"Import of {count:,} jrnl entries ({args.runs} runs, medians)")
    row(
        "first import, into a new vault",
        statistics.median(firsts),
        unit="s",
        target="target < 10 s",
    )
    row("same file again (adds nothing)", statistics.median(agains), unit="s")


if __name__ == "__main__":
    main()
