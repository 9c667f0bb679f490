"""The coach's system prompt: ``prompts/coach.md`` with the user's coach preferences, the
memory section, and, when the latest words (or the last day's writing) sound like danger, an
instruction for that kind of danger with the help to point to, in the order it needs."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from companion import clock
from companion import config as app_config
from companion.activity import checkins, journal, profile
from companion.coach import context, crisis, safety
from companion.llm import prompts
from companion.vault import Vault


def build(
    vault: Vault,
    message: str,
    budget: int,
    current_session: int | None = None,
    crisis_lines: str = "",
    danger: safety.Danger | None = None,
) -> tuple[str, context.Context]:
    """``danger``: what the latest words were found to say (the caller looked); without it,
    the last day's writing is read for danger. ``crisis_lines``: the help to name, as text
    (default: this region's, in the order the danger needs)."""
    memory = context.build(vault, message, budget, current_session)
    prefs = profile.load(vault).get("coach_preferences") or []
    prefs_text = "How this person wants you to talk: " + "; ".join(prefs) + "." if prefs else ""
    template = prompts.load("coach.md")
    system = template.replace("{coach_preferences}", prefs_text).replace(
        "{memory_section}", memory.text
    )
    danger = danger or recent_danger(vault)
    if danger is not None:
        lines = crisis_lines or crisis.as_text(app_config.load(), danger.help)
        system += "\n\n" + danger.instruction.format(lines=lines)
    return system, memory


def recent_danger(vault: Vault, hours: int = 24) -> safety.Danger | None:
    """Danger in a journal entry or check-in note of the last day reaches the coach too."""
    since = clock.now() - timedelta(hours=hours)
    for entry in journal.written_since(vault, since):
        found = _read(f"{entry.title}\n{entry.text}")
        if found is not None:
            return found
    for day in {clock.today(), since.date()}:
        view = checkins.get(vault, day)
        if view and view.values.get("note"):
            found = _read(str(view.values["note"]))
            if found is not None:
                return found
    return None


_READ: dict[bytes, safety.Danger | None] = {}
"""What the last day's texts were found to say, by a digest of each: no words are kept."""


def forget() -> None:
    """At lock: what the last day's texts were found to say goes too."""
    _READ.clear()


def _read(text: str) -> safety.Danger | None:
    """The last day's writing is read again before every message to the coach: each text
    once is enough (a megabyte pasted into today's entry cost 0.4-1.5 s a message)."""
    key = hashlib.blake2b(text.encode(), digest_size=16).digest()
    if key not in _READ:
        if len(_READ) >= 64:
            _READ.pop(next(iter(_READ)))
        _READ[key] = safety.assess(text)
    return _READ[key]
