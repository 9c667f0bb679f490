"""Forgetting a fact, and taking it back within a week.

A forgotten fact's row stays as a tombstone: for ``UNDO_DAYS`` it holds the fact sealed (so
"undo" can bring it back), then only a keyed fingerprint of its meaning (``likeness.canonical``)
remains. The fingerprint lets extraction and chat capture recognise the same fact said again,
in other words too, and not learn it; it cannot be turned back into the words. Other facts
from the same entry are learned as usual.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from companion import clock
from companion.activity import profile
from companion.errors import InvalidInput
from companion.memory import common, entities, likeness, pending, runs, store, summaries
from companion.vault import Vault

UNDO_DAYS = 7


@dataclass(frozen=True)
class Forgotten:
    """A forgotten fact that can still be brought back."""

    id: int
    text: str
    category: str
    undo_until: datetime


def fingerprint(vault: Vault, text: str) -> str:
    """What a fact means, keyed: equal for a restatement, useless without the key. (No names
    in the canonical form: renaming yourself must not un-forget anything.)"""
    return store.fingerprint(vault, likeness.canonical(text))


def _legacy(vault: Vault, text: str) -> str:
    """The mark facts forgotten before fingerprints carry (their words, merely normalised)."""
    return store.legacy_mark(vault, common.normalized(text))


def forget_fact(vault: Vault, fact_id: int) -> None:
    """Delete a fact: its words, and those of the versions it replaced, leave the vault's
    readable records now; the newest stays sealed in the tombstone for ``UNDO_DAYS`` so the
    user can take it back, then goes too. The memory update log loses the lines that quoted
    any version."""
    versions = store.history(vault, fact_id)
    if not versions:
        raise InvalidInput(f"there is no fact {fact_id}.")
    with vault.transaction():
        for number, version in enumerate(versions):
            if not version.text:  # erased before: it keeps its fingerprint
                store.bury(vault, version.id, None)
                continue
            payload: dict[str, Any] = {"text": "", "forgotten": fingerprint(vault, version.text)}
            if number == 0:
                payload["tombstone"] = {
                    "text": version.text,
                    "evidence": version.evidence,
                    "about": version.about,
                    "search_terms": version.search_terms,
                    "valid_from": version.valid_from.isoformat() if version.valid_from else None,
                    "valid_to": version.valid_to.isoformat() if version.valid_to else None,
                }
                payload["undo_until"] = clock.stamp(clock.now() + timedelta(days=UNDO_DAYS))
            store.bury(vault, version.id, payload)
        texts = [v.text for v in versions if v.text]
        runs.scrub_runs(vault, texts)
        summaries.scrub_daily_memories(vault, texts)
        pending.drop_for_facts(vault, {v.id for v in versions})
        _resync_people(vault)
    vault.erase_traces()


def _resync_people(vault: Vault) -> None:
    """A name learned only from forgotten facts leaves the people known, too."""
    live = store.live_facts(vault)
    named = {str(a.get("name", "")).lower() for f in live for a in f.about}
    known = entities.load(vault)
    kept = [e for e in known if e.source != "extraction" or e.name.lower() in named]
    if len(kept) != len(known):
        entities.replace(vault, kept)
    entities.sync(vault, profile.load(vault), [f.text for f in live])


def _tombstones(vault: Vault) -> list[tuple[int, str, bool, dict[str, Any]]]:
    return [item for item in store.buried(vault) if item[3].get("tombstone")]


def undoable(vault: Vault) -> list[Forgotten]:
    """Facts forgotten in the last ``UNDO_DAYS``, newest first."""
    now = clock.now()
    out = []
    for fact_id, category, _, data in _tombstones(vault):
        until = clock.parse_stamp(str(data.get("undo_until")))
        if until > now:
            out.append(Forgotten(fact_id, str(data["tombstone"]["text"]), category, until))
    return sorted(out, key=lambda f: f.undo_until, reverse=True)


def undo(vault: Vault, fact_id: int) -> int:
    """Bring a forgotten fact back as it was (its earlier versions stay forgotten)."""
    now = clock.now()
    for found, _, was_in_force, data in _tombstones(vault):
        if found == fact_id and clock.parse_stamp(str(data.get("undo_until"))) > now:
            in_force = was_in_force
            break
    else:
        raise InvalidInput(
            f"fact {fact_id} cannot be brought back: only facts forgotten in the last "
            f"{UNDO_DAYS} days can."
        )
    payload = {k: v for k, v in data["tombstone"].items() if v not in (None, [], "")}
    payload.setdefault("evidence", [])
    with vault.transaction():
        store.unbury(vault, fact_id, payload)
        if in_force:
            _resync_people(vault)
    return fact_id


def purge(vault: Vault) -> int:
    """Tombstones past their week keep only the fingerprint; returns how many were emptied."""
    now = clock.now()
    emptied = 0
    with vault.transaction():
        for fact_id, _, _, data in _tombstones(vault):
            if clock.parse_stamp(str(data.get("undo_until"))) <= now:
                store.bury(vault, fact_id, {"text": "", "forgotten": data["forgotten"]})
                emptied += 1
    if emptied:
        vault.erase_traces()
    return emptied


_MARKS: weakref.WeakKeyDictionary[Vault, tuple[tuple[object, ...], frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def _marks(vault: Vault) -> frozenset[str]:
    mark = vault.changes(("fact",))
    cached = _MARKS.get(vault)
    if cached is not None and cached[0] == mark:
        return cached[1]
    found = frozenset(str(d["forgotten"]) for *_, d in store.buried(vault) if d.get("forgotten"))
    _MARKS[vault] = (mark, found)
    return found


def is_forgotten(vault: Vault, text: str) -> bool:
    """Whether ``text`` says a fact the user asked to forget."""
    marks = _marks(vault)
    return bool(marks) and (fingerprint(vault, text) in marks or _legacy(vault, text) in marks)
