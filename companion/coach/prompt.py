"""The coach's system prompt: ``prompts/coach.md`` with the user's coach preferences, the
memory section, and, when the latest words sound like a crisis, an instruction to respond with
care and point to help."""

from __future__ import annotations

from companion import profile, prompts
from companion.coach import context, safety
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
    if message and safety.detect(message):
        system += "\n\n" + safety.CRISIS_INSTRUCTION.format(lines=crisis_lines or "988")
    return system, memory
