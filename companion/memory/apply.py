"""Saving one chunk's extraction in ONE transaction: facts (with provenance), session
summaries, profile updates (sobriety changes wait for the user), follow-ups, urges, cues, the
memorized marks and, for the last chunk, the day's DailyMemory."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from companion import clock
from companion.activity import chat, checkins, journal, profile
from companion.memory import followups, pending, store, urges
from companion.memory.gather import Chunk
from companion.memory.pending import CONFIRM_FIELDS
from companion.memory.schema import Output
from companion.vault import Vault

SIZE_CAP = 50 * 1024
CUE_TRIGGER_COUNT = 5


@dataclass
class Counts:
    added: int = 0
    updated: int = 0
    removed: int = 0
    dropped: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # for "review the list"

    def line(self) -> str:
        return f"Memory updated: +{self.added} / ~{self.updated} / -{self.removed}"


def apply_chunk(
    vault: Vault,
    chunk: Chunk,
    output: Output,
    run_id: int,
    counts: Counts,
    daily: dict[str, Any] | None,
) -> None:
    data = output.data
    user_refs = chunk.user_refs
    with vault.transaction():
        live = {f.id: f for f in store.live_facts(vault)}
        deleted_evidence = {ref for f in store.deleted_facts(vault) for ref in f.evidence}
        by_text = {store.normalized(f.text): f for f in live.values()}

        def usable(evidence: list[str], what: str) -> list[str]:
            cited = [e for e in evidence if e in user_refs]
            if not cited:
                counts.dropped.append(f"{what}: cites none of the user's own words")
            return cited

        for item in data["facts"]["add"]:
            evidence = usable(item["evidence"], f"new fact {item['text']!r}")
            if not evidence:
                continue
            if set(evidence) <= deleted_evidence:
                counts.dropped.append(f"new fact {item['text']!r}: you deleted it before")
                continue
            same = by_text.get(store.normalized(item["text"]))
            if same is not None:  # a duplicate: merge the evidence
                store.merge_evidence(vault, same, evidence)
                continue
            new_id = store.add_fact(
                vault, item["text"], item["category"], item["tier"], "learned", evidence
            )
            added = store.get_fact(vault, new_id)
            if added is not None:
                by_text[store.normalized(item["text"])] = added
            counts.added += 1
            counts.changes.append(f"+ {item['text']}")
        for item in data["facts"]["update"]:
            target = live.get(item["id"])
            if target is None or target.source == "wrote":
                counts.dropped.append(
                    f"update of fact {item['id']}: "
                    + ("yours to change" if target else "no such live fact")
                )
                continue
            evidence = usable(item["evidence"], f"update of fact {item['id']}")
            if not evidence or store.normalized(item["text"]) == store.normalized(target.text):
                continue
            store.close_fact(vault, target.id)
            store.add_fact(
                vault,
                item["text"],
                target.category,
                target.tier,
                "learned",
                sorted(set(target.evidence) | set(evidence)),
                target.pinned,
                supersedes=target.id,
            )
            counts.updated += 1
            counts.changes.append(f"~ {target.text} -> {item['text']}")
        for item in data["facts"]["remove"]:
            target = live.get(item["id"])
            if target is None or target.source == "wrote":
                counts.dropped.append(
                    f"removal of fact {item['id']}: "
                    + ("yours to change" if target else "no such live fact")
                )
                continue
            if not usable(item["evidence"], f"removal of fact {item['id']}"):
                continue
            store.close_fact(vault, target.id)
            counts.removed += 1
            counts.changes.append(f"- {target.text}")
        for item in data["sessions"]:
            if item["session_id"] not in chunk.sessions:
                counts.dropped.append(f"summary of session {item['session_id']}: not in the data")
                continue
            summary = {k: v for k, v in item.items() if k != "session_id"}
            store.put_session_summary(vault, item["session_id"], summary, tier="episodic")
        _profile(vault, data["profile_updates"], user_refs, counts)
        for item in data["follow_ups"]:
            if usable(item["evidence"], f"follow-up {item['text']!r}"):
                due = date.fromisoformat(item["due_date"]) if item.get("due_date") else None
                followups.add(vault, item["text"], due, item["evidence"])
        for item in data["urges"]:
            if usable(item["evidence"], "an urge"):
                when = datetime.fromisoformat(item["when"])
                urges.add(vault, when if when.tzinfo else when.astimezone(), item, run_id)
        _relapse_cues(vault, chunk)
        _trigger_cues(vault)
        _mark(vault, chunk)
        if daily is not None:
            store.add_daily_memory(
                vault, clock.today(), daily.pop("covering_from"), daily.pop("covering_to"), daily
            )
        enforce_size_cap(vault)


def _profile(
    vault: Vault, updates: list[dict[str, Any]], user_refs: set[str], counts: Counts
) -> None:
    current = profile.load(vault)
    proposed: list[dict[str, Any]] = []
    changes: dict[str, Any] = {}
    for item in updates:
        if not [e for e in item["evidence"] if e in user_refs]:
            counts.dropped.append(f"profile {item['field']}: cites none of the user's own words")
            continue
        try:
            value = profile.coerce(item["field"], item["value"])
        except Exception:
            counts.dropped.append(f"profile {item['field']}: not a valid value")
            continue
        if value == current.get(item["field"]):
            continue
        if item["field"] in CONFIRM_FIELDS:
            proposed.append({"field": item["field"], "value": value, "evidence": item["evidence"]})
            continue
        changes[item["field"]] = value
        if item["field"] == "sponsor" and current.get("sponsor"):
            _cue(
                vault,
                f"Sponsor changed from {current['sponsor']} to {value}: ask how it is "
                "going, gently.",
            )
        if item["field"] == "fellowship" and current.get("fellowship") and not value:
            _cue(vault, f"Stopped going to {current['fellowship']}: ask what led to that.")
    if changes:
        profile.update(vault, changes)
    pending.propose(vault, proposed)


def _cue(vault: Vault, text: str) -> None:
    store.add_fact(vault, text, "cue", "conversation", "learned")


def _relapse_cues(vault: Vault, chunk: Chunk) -> None:
    for item in chunk.items:
        if item.ref.startswith("checkin:") and item.data.get("sober") is False:
            day = item.day
            streak = 0
            cursor = day - timedelta(days=1)
            while True:
                earlier = checkins.get(vault, cursor)
                if earlier is None or earlier.get("sober") is not True:
                    break
                streak += 1
                cursor -= timedelta(days=1)
            if streak >= 7:
                _cue(
                    vault,
                    f"Relapsed on {day.isoformat()} after {streak} sober days: "
                    "acknowledge it gently and ask what they need now.",
                )


def _trigger_cues(vault: Vault) -> None:
    counts = urges.trigger_counts(vault, clock.now() - timedelta(days=30))
    existing = {f.text for f in store.live_facts(vault) if f.category == "cue"}
    for label, count in counts.items():
        text = (
            f"The trigger '{label}' came up {CUE_TRIGGER_COUNT}+ times in 30 days: "
            "offer to explore it."
        )
        if count >= CUE_TRIGGER_COUNT and text not in existing:
            _cue(vault, text)


def _mark(vault: Vault, chunk: Chunk) -> None:
    """Memorized, unless the row was edited while the model was reading it."""
    said = []
    for item in chunk.items:
        kind, rid = item.ref.split(":")
        if kind == "journal_entry":
            journal.mark_memorized(vault, int(rid), item.updated_at)
        elif kind == "checkin":
            checkins.mark_memorized(vault, int(rid), item.updated_at)
        else:
            said.append(int(rid))
    chat.mark_memorized(vault, said)


def enforce_size_cap(vault: Vault, cap: int = SIZE_CAP) -> int:
    """Retire the oldest facts of the largest category into history until live facts' text
    fits the cap; pinned facts are never retired. Returns how many were retired."""
    retired = 0
    facts = [f for f in store.live_facts(vault) if f.category != "cue"]
    total = sum(len(f.text.encode()) for f in facts)
    while total > cap:
        sizes: dict[str, int] = {}
        for f in facts:
            if not f.pinned:
                sizes[f.category] = sizes.get(f.category, 0) + len(f.text.encode())
        if not sizes:
            break
        largest = max(sizes, key=lambda c: (sizes[c], c))
        oldest = min(
            (f for f in facts if f.category == largest and not f.pinned),
            key=lambda f: (f.created_at, f.id),
        )
        store.close_fact(vault, oldest.id)
        facts.remove(oldest)
        total -= len(oldest.text.encode())
        retired += 1
    return retired
