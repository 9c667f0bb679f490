"""The "## What You Know About This User" section, rebuilt for every message within a hard
token budget (1 token ~ 4 characters): 600 for Claude-class models, 200 for small local ones.

In tiers, in this order:

1. **Keep in mind** (reserved, never dropped for the budget; each kind capped): a recent relapse
   or crisis cue, follow-ups due now, the profile line with sobriety as it is now (a logged
   relapse counts at once), pinned facts (newest first).
2. **Relevant to this message**: facts, memories and the user's own words ranked by the
   retrieval index; a person is found by name or by relation, a date in the message is a
   filter. When nothing matches, a line says so, so the coach can say it does not know.
3. **Recent momentum**: streak, the newest daily memory, the last sessions, the last week's
   check-ins.
4. **Also known**: the other facts, preferences first.

The split: the reserved tier takes what it needs (its caps bound it); relevance gets 35% of
the budget (50% for a recall question) plus whatever the reserved tier left of its own 35%;
momentum and the other facts share the rest. A line that does not fit is skipped, never the
rest of the section.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from companion import clock
from companion.activity import checkins, profile, progress
from companion.coach import recall, standing
from companion.llm.tokens import CLAUDE_BUDGET, estimate
from companion.memory import followups, sobriety, store, summaries
from companion.vault import Vault

HEADER = "## What You Know About This User"
LINE_LIMIT = 220
SMALL_LINE = 120  # outside the reserved tier, on a small (local model's) budget
RESERVED_SHARE = 0.35
RELEVANT_SHARE = 0.35
RECALL_SHARE = 0.50
CAPS = {"cue": 3, "follow_up": 3, "pinned": 5}
KEEP, RELEVANT, MOMENTUM, ALSO = (
    "Keep in mind",
    "Relevant to this message",
    "Recent momentum",
    "Also known",
)
SECTIONS = (KEEP, RELEVANT, MOMENTUM, ALSO)
NOTHING_FOUND = "Nothing in their history matches this; say so rather than guess."
CUE_DAYS = 14


@dataclass
class Context:
    text: str
    budget: int
    dropped: int  # lines left out for the budget

    @property
    def tokens(self) -> int:
        return estimate(self.text)


def _short(text: str, limit: int = LINE_LIMIT) -> str:
    if len(text) <= limit and text.isprintable() and "  " not in text and text == text.strip():
        return text  # already one short line (most are: a section may weigh a thousand)
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _listing(value: Any) -> str:
    return ", ".join(value) if isinstance(value, list) else str(value)


def profile_lines(prof: dict[str, Any], sober: sobriety.Sobriety) -> list[str]:
    """The profile as one line first (name, recovery, sobriety now), then the details."""
    head = []
    if prof.get("preferred_name"):
        head.append(f"Name: {prof['preferred_name']}")
    recovery = prof.get("recovery_focus") or ("in recovery" if sober.start else "")
    if recovery or sober.describe():
        head.append(
            f"Recovery: {recovery or 'in recovery'}"
            + (f", {sober.describe()}" if sober.describe() else "")
        )
    lines = ["; ".join(head)] if head else []
    if prof.get("current_step"):
        lines.append(f"Working step {prof['current_step']}")
    for key, label in (
        ("known_triggers", "Triggers"),
        ("coping_plan", "Coping plan"),
        ("sponsor", "Sponsor"),
        ("fellowship", "Fellowship"),
        ("goals", "Goals"),
    ):
        if prof.get(key):
            lines.append(f"{label}: {_listing(prof[key])}")
    return lines


def current_facts(vault: Vault) -> list[store.FactView]:
    """Facts in force and not expired (expired tiers stay in history, out of context)."""
    now = clock.now()
    return [f for f in store.live_facts(vault) if not f.expired(now)]


def cue_lines(sober: sobriety.Sobriety, cues: list[store.FactView], today: date) -> list[str]:
    lines = []
    if sober.relapse is not None and (today - sober.relapse).days <= CUE_DAYS:
        lines.append(
            "Cue: a recent relapse (see Recovery); meet it without judgement, praise no streak"
        )
    newest = sorted(cues, key=lambda f: f.created_at, reverse=True)
    lines += [f"Cue: {f.text}" for f in newest]
    return lines[: CAPS["cue"]]


def follow_up_lines(vault: Vault, today: date) -> list[str]:
    items = followups.open_items(vault)
    due = [i for i in items if i.due is not None and i.due <= today]
    undated = [i for i in items if i.due is None]
    lines = [f"Follow-up due {i.due.isoformat()}: {i.text}" for i in due if i.due is not None]
    lines += [f"Follow-up: {i.text}" for i in undated]
    return lines[: CAPS["follow_up"]]


def momentum_lines(vault: Vault, today: date, recent: list[summaries.SummaryView]) -> list[str]:
    lines = []
    window = 60  # the recent days say it, unless the streak is longer than them
    streak = progress.streak(checkins.dates(since=today - timedelta(days=window)), today)
    if streak >= window:  # as long as the window can hold: maybe longer
        streak = progress.streak(checkins.dates(), today)
    if streak:
        lines.append(f"Check-in streak: {streak} days")
    newest = summaries.newest_daily_memory(vault)
    if newest:
        info, memory = newest
        told = " ".join(
            str(memory.get(k) or "")
            for k in ("conversation_summary", "journal_summary", "checkin_summary")
        ).strip()
        if told:
            lines.append(f"Daily memory {info.date}: {told}")
        if memory.get("emotional_state"):
            lines.append(f"Emotional state ({info.date}): {memory['emotional_state']}")
        lines += [f"Pattern: {p}" for p in memory.get("notable_patterns") or []]
    for summary in recent:
        outcome = summary.content.get("outcome") or summary.content.get("summary_text")
        if outcome:
            lines.append(f"Session {summary.updated_at:%Y-%m-%d}: {outcome}")
        lines += [f"Open thread: {t}" for t in summary.content.get("open_threads") or []]
    for c in reversed(checkins.between(vault, today - timedelta(days=6), today)):
        v = c.values
        parts = [f"{k} {v[k]}/10" for k in ("mood", "cravings") if k in v]
        if "sleep_hours" in v:
            parts.append(f"slept {v['sleep_hours']:g}h")
        if "sober" in v:
            parts.append("sober" if v["sober"] else "not sober")
        if v.get("note"):
            parts.append(f'note: "{v["note"]}"')
        lines.append(f"{c.date.isoformat()}: " + ", ".join(parts))
    return lines


def _standing(vault: Vault, today: date) -> standing.Standing:
    """Everything in the section but what this message finds (read again on a change)."""
    prof = profile.load(vault)
    sober = sobriety.current(vault, today, prof)
    current = current_facts(vault)
    cues = [f for f in current if f.category == "cue"]
    facts = [f for f in current if f.category != "cue"]
    pinned = sorted((f for f in facts if f.pinned), key=lambda f: f.created_at, reverse=True)
    profile_part = profile_lines(prof, sober)
    reserved = (
        cue_lines(sober, cues, today)
        + follow_up_lines(vault, today)
        + profile_part[:1]
        + [f"{f.text} (pinned)" for f in pinned[: CAPS["pinned"]]]
    )
    others = sorted(  # newest first, then preferences first (the sort is stable)
        (f for f in facts if not f.pinned),
        key=lambda f: f.created_at.timestamp(),
        reverse=True,
    )
    others.sort(key=lambda f: f.category != "preferences")
    recent = summaries.session_summaries(vault, limit=3)  # on the record only
    momentum = profile_part[1:] + momentum_lines(vault, today, recent)
    also = [(f.id, f"({f.category}) {f.text}") for f in others]
    return standing.Standing(prof, facts, reserved, momentum, also)


def build(
    vault: Vault,
    message: str = "",
    budget: int = CLAUDE_BUDGET,
    current_session: int | None = None,
) -> Context:
    today = clock.today()
    kept = standing.standing(vault, today, _standing)
    found = (
        recall.relevant(vault, message, today, current_session, kept.facts, kept.prof)
        if message.strip()
        else None
    )
    relevant = [m.line() for m in found.memories] if found else []
    if found is not None and found.asked and not found.memories:
        relevant = [NOTHING_FOUND]
    shown = {m.fact_id for m in (found.memories if found else []) if m.fact_id}
    # In the order kept (filtering a stably sorted list keeps its order).
    others = [line for fact_id, line in kept.also if fact_id not in shown]
    tiers = [
        (KEEP, kept.reserved, 1.0),
        (RELEVANT, relevant, RECALL_SHARE if found and found.recall else RELEVANT_SHARE),
        (MOMENTUM, kept.momentum, 1.0),
        (ALSO, others, 1.0),
    ]
    return fit(tiers, budget)


def warm(vault: Vault) -> None:
    """Fill the caches a section reads (facts in force, the people, off-the-record sessions,
    the lexicon), so the first message after unlock is as quick as the rest."""
    build(vault)
    facts = [f for f in current_facts(vault) if f.category != "cue"]  # as build() asks
    recall.warm(vault, profile.load(vault), facts)


def fit(tiers: list[tuple[str, list[str], float]], budget: int) -> Context:
    """Add each tier's lines while the text stays within its share and within ``budget``;
    a line that does not fit is skipped and the next one tried."""
    limit = budget * 4
    chosen: dict[str, list[str]] = {title: [] for title, _, _ in tiers}
    total = sum(len(lines) for _, lines, _ in tiers)
    size = len(HEADER)
    used_by_reserved = 0
    for title, lines, share in tiers:
        start = size
        if title == RELEVANT:
            left_over = max(0, int(limit * RESERVED_SHARE) - used_by_reserved)
            cap = min(limit, start + int(limit * share) + left_over)
        else:
            cap = limit
        heading = len(f"\n### {title}")
        for line in lines:
            short = _short(line, LINE_LIMIT if title == KEEP or budget >= 400 else SMALL_LINE)
            grow = len("\n- ") + len(short) + (0 if chosen[title] else heading)
            if size + grow <= cap:
                chosen[title].append(short)
                size += grow
        if title == KEEP:
            used_by_reserved = size - start
    text = render(chosen)
    kept = sum(len(lines) for lines in chosen.values())
    return Context(text, math.ceil(limit / 4), total - kept)


def render(chosen: dict[str, list[str]]) -> str:
    parts = [HEADER]
    for title in SECTIONS:
        lines = chosen.get(title) or []
        if lines:
            parts.append(f"### {title}\n" + "\n".join(f"- {line}" for line in lines))
    if len(parts) == 1:
        parts.append("Nothing yet: this is a new relationship. Get to know them gently.")
    return "\n".join(parts)
