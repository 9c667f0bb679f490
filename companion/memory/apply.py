"""Saving one chunk's extraction in ONE transaction: facts (``revise``), session summaries,
profile updates (sobriety changes wait for the user), follow-ups (new, merged, closed), urges,
cues, the memorized marks and, for the last chunk, the day's DailyMemory."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from companion import clock
from companion.activity import chat, checkins, journal, profile
from companion.memory import followups, likeness, pending, store, summaries, urges
from companion.memory.gather import Chunk
from companion.memory.pending import CONFIRM_FIELDS
from companion.memory.revise import Counts, Revision
from companion.memory.schema import Answer, ProfileUpdate
from companion.memory.validation import Output
from companion.vault import Vault

SIZE_CAP = 50 * 1024
CUE_TRIGGER_COUNT = 5


def apply_chunk(
    vault: Vault,
    chunk: Chunk,
    output: Output,
    run_id: int,
    counts: Counts,
    daily: dict[str, Any] | None,
) -> None:
    data = output.data
    with vault.transaction():
        revision = Revision(vault, chunk, counts, run_id)
        revision.apply(data.facts)
        for item in data.sessions:
            if item.session_id not in chunk.sessions:
                counts.dropped.append(f"summary of session {item.session_id}: not in the data")
                continue
            summary = item.model_dump(mode="json", exclude={"session_id"})
            summaries.put_session_summary(vault, item.session_id, summary, tier="episodic")
        _profile(vault, data.profile_updates, chunk.user_refs, counts)
        _follow_ups(revision, data)
        for urge in data.urges:
            if revision.usable(urge.evidence, "an urge"):
                when = urge.when if urge.when.tzinfo else urge.when.astimezone()
                urges.add(vault, when, urge.model_dump(mode="json"), run_id)
        _relapse_cues(vault, chunk)
        _trigger_cues(vault)
        _mark(vault, chunk)
        if daily is not None:  # the facts the run added (not those refused or merged)
            daily["user_facts"] = [*daily.get("user_facts", []), *counts.added_texts]
            summaries.add_daily_memory(
                vault, clock.today(), daily.pop("covering_from"), daily.pop("covering_to"), daily
            )
        enforce_size_cap(vault)


def _follow_ups(revision: Revision, data: Answer) -> None:
    """New commitments (one item for the same one said twice, in the words first written),
    and open ones closed by the person's own words."""
    vault, counts = revision.vault, revision.counts
    open_now = followups.open_items(vault)
    for item in data.follow_ups.add:
        evidence = revision.usable(item.evidence, f"follow-up {item.text!r}")
        if not evidence:
            continue
        same = next(
            (f for f in open_now if likeness.same_fact(f.text, item.text, revision.names)), None
        )
        if same is not None:
            followups.merge(vault, same.id, evidence)
            continue
        new_id = followups.add(vault, item.text, item.due_date, evidence)
        open_now.append(followups.FollowUpView(new_id, item.text, item.due_date, False, evidence))
    texts = {f.id: f.text for f in open_now}
    for closing in data.follow_ups.close:
        evidence = revision.usable(closing.evidence, f"closing follow-up {closing.id}")
        if not evidence:
            continue
        if followups.close(vault, closing.id, closing.status, evidence):
            counts.closed += 1
            counts.changes.append(f"✓ {texts.get(closing.id, closing.id)} ({closing.status})")
        else:
            counts.dropped.append(f"closing follow-up {closing.id}: not open")


def _profile(
    vault: Vault, updates: list[ProfileUpdate], user_refs: set[str], counts: Counts
) -> None:
    current = profile.load(vault)
    proposed: list[dict[str, Any]] = []
    changes: dict[str, Any] = {}
    for item in updates:
        if not [e for e in item.evidence if e in user_refs]:
            counts.dropped.append(f"profile {item.field}: cites none of the user's own words")
            continue
        try:
            value = profile.coerce(item.field, item.value)
        except Exception:
            counts.dropped.append(f"profile {item.field}: not a valid value")
            continue
        if value == current.get(item.field):
            continue
        if item.field in CONFIRM_FIELDS:
            proposed.append({"field": item.field, "value": value, "evidence": item.evidence})
            continue
        changes[item.field] = value
        if item.field == "sponsor" and current.get("sponsor"):
            _cue(
                vault,
                f"Sponsor changed from {current['sponsor']} to {value}: ask how it is "
                "going, gently.",
            )
        if item.field == "fellowship" and current.get("fellowship") and not value:
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
