"""Answers for the fake Messages API to give the extraction call."""

from __future__ import annotations

from typing import Any


def answer(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "conversation_summary": "",
        "journal_summary": "Wrote about the day.",
        "checkin_summary": "",
        "emotional_state": "steady",
        "follow_ups": [],
        "notable_patterns": [],
        "facts": {"add": [], "update": [], "remove": []},
        "sessions": [],
        "profile_updates": [],
        "urges": [],
    }
    facts = changes.pop("facts", None)
    if facts:
        base["facts"].update(facts)
    base.update(changes)
    return base
