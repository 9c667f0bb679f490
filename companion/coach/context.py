"""The "## What You Know About This User" section, rebuilt for every message within a hard
token budget (1 token ~ 4 characters): 600 for Claude-class models, 200 for small local ones.

Priority, highest first: profile essentials and pinned facts; facts (preferences first);
recent momentum; conversation cues; memories relevant to this message. Lower priorities are
cut first, deterministically: once a line does not fit, nothing after it is added. A recall
question reserves up to a quarter of the budget for the relevant memories.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from companion import clock
from companion.activity import checkins, profile, progress
from companion.coach import recall
from companion.llm.tokens import CLAUDE_BUDGET, estimate
from companion.memory import followups, store
from companion.vault import Vault

HEADER = "## What You Know About This User"
LINE_LIMIT = 220
SECTIONS = ("Profile", "Facts", "Recent momentum", "Conversation cues", "Relevant memories")


@dataclass
class Context:
    text: str
    budget: int
    dropped: int  # lines left out for the budget

    @property
    def tokens(self) -> int:
        return estimate(self.text)


def _short(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= LINE_LIMIT else flat[: LINE_LIMIT - 1] + "…"


def _listing(value: Any) -> str:
    return ", ".join(value) if isinstance(value, list) else str(value)


def profile_lines(prof: dict[str, Any], today: date) -> list[str]:
    lines = []
    if prof.get("preferred_name"):
        lines.append(f"Name: {prof['preferred_name']}")
    focus = prof.get("recovery_focus")
    days = progress.sober_days(prof, today)
    if focus or days is not None:
        since = (
            f", sober since {prof['recovery_start_date']} ({days} days)" if days is not None else ""
        )
        lines.append(f"Recovery: {focus or 'in recovery'}{since}")
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
    """Facts in force and not expired (expired tiers stay in history, out of context),
    cues included; decrypted once per message."""
    now = clock.now()
    return [f for f in store.live_facts(vault) if not f.expired(now)]


def momentum_lines(vault: Vault, today: date, summaries: list[store.SummaryView]) -> list[str]:
    lines = []
    streak = progress.streak(checkins.dates(), today)
    if streak:
        lines.append(f"Check-in streak: {streak} days")
    newest = store.newest_daily_memory(vault)
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
    for summary in summaries:
        outcome = summary.content.get("outcome") or summary.content.get("summary_text")
        if outcome:
            lines.append(f"Session {summary.updated_at:%Y-%m-%d}: {outcome}")
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


def cue_lines(
    vault: Vault, cues: list[store.FactView], summaries: list[store.SummaryView]
) -> list[str]:
    lines = [f"Cue: {f.text}" for f in cues]
    lines += [f"Follow-up: {item.text}" for item in followups.open_items(vault)]
    for summary in summaries:
        threads = summary.content.get("open_threads") or []
        lines += [f"Open thread: {thread}" for thread in threads]
    return lines


def relevant_lines(vault: Vault, message: str, current_session: int | None) -> list[str]:
    if not message.strip():
        return []
    memories = recall.recall(vault, message, limit=6, current_session=current_session)
    return [m.line() for m in memories]


def build(
    vault: Vault,
    message: str = "",
    budget: int = CLAUDE_BUDGET,
    current_session: int | None = None,
) -> Context:
    today = clock.today()
    prof = profile.load(vault)
    current = current_facts(vault)
    facts = [f for f in current if f.category != "cue"]
    pinned = [f for f in facts if f.pinned]
    others = sorted(
        (f for f in facts if not f.pinned),
        key=lambda f: (f.category != "preferences", -f.created_at.timestamp()),
    )
    essentials = profile_lines(prof, today) + [f"{f.text} (pinned)" for f in pinned]
    fact_lines = [f"({f.category}) {f.text}" for f in others]
    relevant = relevant_lines(vault, message, current_session)
    summaries = store.session_summaries(vault, limit=3)
    cues = [f for f in current if f.category == "cue"]
    ordered = [
        ("Profile", essentials),
        ("Facts", fact_lines),
        ("Recent momentum", momentum_lines(vault, today, summaries)),
        ("Conversation cues", cue_lines(vault, cues, summaries)),
        ("Relevant memories", relevant),
    ]
    return fit(ordered, budget, reserve_relevant=recall.is_recall_question(message))


def fit(
    ordered: list[tuple[str, list[str]]], budget: int, reserve_relevant: bool = False
) -> Context:
    """Keep lines in priority order while the rendered text stays within ``budget``."""
    limit = budget * 4
    chosen: dict[str, list[str]] = {title: [] for title, _ in ordered}
    total = sum(len(lines) for _, lines in ordered)

    def size() -> int:
        return len(render(chosen))

    def take(title: str, lines: list[str], cap: int) -> bool:
        for line in lines:
            chosen[title].append(_short(line))
            if size() > cap:
                chosen[title].pop()
                return False
        return True

    plan = list(ordered)
    if reserve_relevant:
        relevant = dict(ordered)["Relevant memories"]
        take("Relevant memories", relevant, limit // 4 + len(HEADER) + 30)
        plan = [(t, [ln for ln in lines if _short(ln) not in chosen[t]]) for t, lines in ordered]
    for title, lines in plan:
        if not take(title, lines, limit):
            break
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
