"""The memory panel's wording: extraction's status line, a daily memory as Markdown, a fact
as said to the person and its history. Plain functions of the records, so they read the same
in tests as on screen."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from companion import clock
from companion.memory import forgetting, pending, runs, store
from companion.tui.text import to_you, visible
from companion.tui.widgets.facts import Section
from companion.vault import Vault

OFFLINE = "the coach is offline: set up a provider in Settings (F10)"
"""Why nothing is learned: without it, "never run yet" reads as if learning were on its way."""


def extraction_status(vault: Vault, online: bool = True) -> str:
    latest = runs.latest_run(vault)
    if latest is None:
        return "Extraction: never run yet." if online else f"Extraction: waits, {OFFLINE}."
    row, details = latest
    if row.status == "running":
        step = details.get("progress")
        return f"Extraction: running{f' ({step})' if step else ''}…"
    when = clock.parse_stamp(row.finished_at or row.started_at).strftime("%Y-%m-%d %H:%M")
    if row.status == "failed":
        reason = details.get("reason", "unknown reason")
        from companion.memory import extraction

        again = extraction.next_try()
        later = (
            f"It tries again after {again:%H:%M}"
            if again and again > clock.now()
            else "It tries again"
        )
        reason = reason.rstrip(".")
        if not online:
            return f"Memory update failed {when}: {reason}. It waits now: {OFFLINE}."
        return f"Memory update failed {when}: {reason}. {later} at an unlock; r tries now."
    return f"Extraction: last run {when}. {details.get('summary', '')}".strip()


def memory_markdown(content: dict[str, Any], day: str) -> str:
    parts = [f"### Daily memory, {day}"]
    for key, title in (
        ("conversation_summary", "Conversations"),
        ("journal_summary", "Journal"),
        ("checkin_summary", "Check-ins"),
        ("emotional_state", "Emotional state"),
    ):
        if content.get(key):
            parts.append(f"#### {title}\n\n{visible(str(content[key]))}")
    for key, title in (("follow_ups", "Follow-ups"), ("notable_patterns", "Patterns")):
        items = content.get(key) or []
        if isinstance(items, list) and items:
            lines = "\n".join(f"- {visible(str(item))}" for item in items)
            parts.append(f"#### {title}\n\n{lines}")
    return "\n\n".join(parts)


def shown(fact: store.FactView) -> str:
    """A fact as the panel says it: to you ("Your sponsor is Dana"), except the words you
    wrote yourself, which stay as you wrote them."""
    return fact.text if fact.locked else to_you(fact.text)


def history_lines(versions: list[store.FactView]) -> list[str]:
    """The fact's versions, newest first: "was -> now"."""
    lines = []
    for view in versions:
        until = f" until {view.valid_until:%Y-%m-%d}" if view.valid_until else " (now)"
        source = store.SOURCE_LABELS.get(view.source, view.source)
        lines.append(f"{view.created_at:%Y-%m-%d}{until}: {shown(view)} ({source})")
    return lines


def fact_sections(
    waiting: list[pending.PendingChange],
    live: list[store.FactView],
    gone: list[forgetting.Forgotten],
) -> list[Section]:
    """The panel's rows: changes to confirm, then facts by category (pinned first), then
    deleted facts that can still come back."""
    sections: list[Section] = [
        ("To confirm (y accepts, n rejects)", [(f"pending:{c.number}", c.label) for c in waiting])
    ]
    ordered = sorted(live, key=lambda f: (f.category, not f.pinned, f.id))
    for category, facts in groupby(ordered, key=lambda f: f.category):
        sections.append((category.title(), [(str(fact.id), _fact_row(fact)) for fact in facts]))
    deleted = [(f"forgotten:{g.id}", f"{g.text}  (until {g.undo_until:%Y-%m-%d})") for g in gone]
    sections.append(("Deleted (u brings one back)", deleted))
    return sections


def _fact_row(fact: store.FactView) -> str:
    pin = "(pinned) " if fact.pinned else ""
    source = store.SOURCE_LABELS.get(fact.source, fact.source)
    return f"{pin}{shown(fact)}  ({source}, {fact.created_at:%Y-%m-%d})"
