"""Bringing history in (the search index catches up with what was added by itself)."""

from __future__ import annotations

from pathlib import Path

from companion.importers import common
from companion.importers.run import import_source
from companion.usecases.unlocked import Unlocked


def import_history(
    unlocked: Unlocked, kind: str, path: Path, progress: common.Progress | None = None
) -> common.Report:
    return import_source(unlocked.vault, kind, path, progress)
