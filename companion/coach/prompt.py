"""The coach's system prompt: ``prompts/coach.md`` with the user's coach preferences, the
memory section, and, when the latest words sound like a crisis, an instruction to respond with
care and point to help."""

from __future__ import annotations

from datetime import timedelta

from companion import clock
from companion.activity import checkins, journal, profile
from companion.coach import context, safety
from companion.llm import prompts
from companion.vault import Vault


def build(
    vault: Vault,
    message: str,
    budget: int,
    current_session: int | None = None,
    crisis_lines: str = "",
) -> tuple[str, context.Context]:
    memory = context.build(vault, message, budget, current_session)
    prefs = profile.load(vault).get("coach_preferences") or []
    prefs_text = "How this person wants you to talk: " + "; ".join(prefs) + "." if prefs else ""
    template = prompts.load("coach.md")
    system = template.replace("{coach_preferences}", prefs_text).replace(
        "{memory_section}", memory.text
    )
    if (message and safety.detect(message)) or recent_crisis(vault):
        system += "\n\n" + safety.CRISIS_INSTRUCTION.format(lines=crisis_lines or "988")
    return system, memory


def recent_crisis(vault: Vault, hours: int = 24) -> bool:
    """Crisis words in a journal entry or check-in note of the last day reach the coach too."""
    since = clock.now() - timedelta(hours=hours)
    for entry in journal.written_since(vault, since):
        if safety.detect(f"{entry.title} {entry.text}"):
            return True
    for day in {clock.today(), since.date()}:
        view = checkins.get(vault, day)
        if view and view.values.get("note") and safety.detect(str(view.values["note"])):
            return True
    return False
