"""Bringing history in: what the importers add also reaches a search index already built."""

from __future__ import annotations

from pathlib import Path

from companion.activity import journal
from companion.importers import common
from companion.importers.run import import_source
from companion.usecases.unlocked import Unlocked


def import_history(
    unlocked: Unlocked, kind: str, path: Path, progress: common.Progress | None = None
) -> common.Report:
    report = import_source(unlocked.vault, kind, path, progress)
    if unlocked.index is not None:
        for entry_id in report.added_ids:
            unlocked.indexed(journal.get(unlocked.vault, entry_id))
    return report
