"""The memory update log: one sealed record per extraction run (its status, progress, what it
changed and left out), and the queries the panel and the retry rule need."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from companion import clock
from companion.errors import RecordDamaged
from companion.memory.common import normalized
from companion.vault import Vault, tuples
from companion.vault.models import ExtractionRun


@dataclass(frozen=True)
class RunInfo:
    id: int
    status: str  # running | done | failed
    started_at: str
    finished_at: str | None


class RunView(NamedTuple):
    info: RunInfo
    details: dict[str, Any]


def start_run(vault: Vault) -> int:
    return vault.insert(ExtractionRun, {}, started_at=clock.stamp(), status="running")


def note_run(vault: Vault, run_id: int, details: dict[str, Any]) -> None:
    """Progress of a run still going (what the panel shows, what a failure carries on)."""
    vault.update(ExtractionRun, run_id, details)


def finish_run(vault: Vault, run_id: int, status: str, details: dict[str, Any]) -> None:
    vault.update(ExtractionRun, run_id, details, status=status, finished_at=clock.stamp())


def close_interrupted_runs(vault: Vault) -> None:
    """A run left "running" belongs to a process that died: record it as interrupted."""
    for row in ExtractionRun.select().where(ExtractionRun.status == "running"):
        finish_run(vault, row.id, "failed", {"reason": "interrupted (the app stopped)"})


def latest_run(vault: Vault) -> RunView | None:
    row = ExtractionRun.select().order_by(ExtractionRun.id.desc()).first()
    if row is None:
        return None
    info = RunInfo(row.id, row.status, row.started_at, row.finished_at)
    return RunView(info, vault.open(row))


def failures_in_a_row() -> tuple[int, datetime | None]:
    """How many memory updates failed since the last that did not, and when the newest of
    them ended (plaintext status and times: nothing is decrypted)."""
    count, newest = 0, None
    query = ExtractionRun.select(ExtractionRun.status, ExtractionRun.finished_at)
    for status, finished_at in tuples(query.order_by(ExtractionRun.id.desc()).limit(50)):
        if status == "running":
            continue
        if status != "failed":
            break
        count += 1
        if newest is None and finished_at:
            newest = clock.parse_stamp(finished_at)
    return count, newest


def scrub_runs(vault: Vault, texts: list[str]) -> None:
    """Drop the lines of the memory update log that quote any of ``texts``; a kept raw answer
    that quotes one goes whole."""
    needles = [normalized(t) for t in texts if t.strip()]
    if not needles:
        return
    for row in ExtractionRun.select():
        try:
            details = vault.open(row)
        except RecordDamaged:
            continue
        changed = False
        for key in ("changes", "dropped"):
            lines = details.get(key)
            if isinstance(lines, list):
                kept = [ln for ln in lines if not any(n in normalized(str(ln)) for n in needles)]
                if len(kept) != len(lines):
                    details[key], changed = kept, True
        for key in ("raw", "partial"):  # an answer kept, summaries carried: go whole
            held = details.get(key)
            if held and any(n in normalized(str(held)) for n in needles):
                details.pop(key)
                changed = True
        if changed:
            vault.update(ExtractionRun, row.id, details)


def erase_all(vault: Vault) -> int:
    return vault.delete_where(ExtractionRun, None)
