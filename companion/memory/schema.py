"""What extraction must return: the tool's JSON schema, and a strict check of the answer.

Output that does not match the schema is invalid as a whole (the run retries once). Output
that matches but cites evidence it may not use is kept, minus the offending items, which the
run records (see ``extraction.apply``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from companion.activity.profile import FIELDS as PROFILE_FIELDS
from companion.memory.vocabulary import OUTCOMES, STRATEGIES, TRIGGERS

CATEGORIES = (
    "identity",
    "goals",
    "preferences",
    "recovery",
    "relationships",
    "patterns",
    "health",
    "work",
    "events",
    "other",
)
TIERS = ("semantic", "episodic", "conversation")
SUMMARY_MAX = 2000
TEXT_MAX = 300
LIST_MAX = 40

_str = {"type": "string"}
_ids = {"type": "array", "items": {"type": "string"}, "maxItems": 20}
_opt_str = {"type": ["string", "null"]}
_lines = {"type": "array", "items": {"type": "string"}, "maxItems": 10}

TOOL: dict[str, Any] = {
    "name": "record_memory",
    "description": "Record what is worth remembering from the activity, once.",
    "input_schema": {
        "type": "object",
        "additionalProperties": False,
        "required": [
            "conversation_summary",
            "journal_summary",
            "checkin_summary",
            "emotional_state",
            "follow_ups",
            "notable_patterns",
            "facts",
            "sessions",
            "profile_updates",
            "urges",
        ],
        "properties": {
            "conversation_summary": _str,
            "journal_summary": _str,
            "checkin_summary": _str,
            "emotional_state": _str,
            "notable_patterns": {"type": "array", "items": _str, "maxItems": 10},
            "follow_ups": {
                "type": "array",
                "maxItems": 20,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["text", "evidence"],
                    "properties": {"text": _str, "due_date": _opt_str, "evidence": _ids},
                },
            },
            "facts": {
                "type": "object",
                "additionalProperties": False,
                "required": ["add", "update", "remove"],
                "properties": {
                    "add": {
                        "type": "array",
                        "maxItems": LIST_MAX,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["text", "category", "tier", "evidence"],
                            "properties": {
                                "text": _str,
                                "category": {"enum": list(CATEGORIES)},
                                "tier": {"enum": list(TIERS)},
                                "evidence": _ids,
                            },
                        },
                    },
                    "update": {
                        "type": "array",
                        "maxItems": LIST_MAX,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["id", "text", "evidence"],
                            "properties": {
                                "id": {"type": "integer"},
                                "text": _str,
                                "evidence": _ids,
                            },
                        },
                    },
                    "remove": {
                        "type": "array",
                        "maxItems": LIST_MAX,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["id", "evidence"],
                            "properties": {
                                "id": {"type": "integer"},
                                "evidence": _ids,
                                "reason": _str,
                            },
                        },
                    },
                },
            },
            "sessions": {
                "type": "array",
                "maxItems": LIST_MAX,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["session_id", "summary_text"],
                    "properties": {
                        "session_id": {"type": "integer"},
                        "summary_text": _str,
                        "recognition_moment": _opt_str,
                        "action_steps": _lines,
                        "open_threads": _lines,
                        "coach_notes": _opt_str,
                        "urge_intensity": {"type": ["integer", "null"]},
                        "primary_trigger": {"enum": [*TRIGGERS, None]},
                        "resistance_strategy_used": {"enum": [*STRATEGIES, None]},
                        "outcome": {"enum": [*OUTCOMES, None]},
                        "key_insights": _lines,
                        "emotional_state_start": _opt_str,
                        "emotional_state_end": _opt_str,
                        "follow_up_needed": _opt_str,
                    },
                },
            },
            "profile_updates": {
                "type": "array",
                "maxItems": 10,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["field", "value", "evidence"],
                    "properties": {
                        "field": {"enum": list(PROFILE_FIELDS)},
                        "value": _str,
                        "evidence": _ids,
                    },
                },
            },
            "urges": {
                "type": "array",
                "maxItems": LIST_MAX,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["when", "trigger", "evidence"],
                    "properties": {
                        "when": _str,
                        "intensity": {"type": ["integer", "null"]},
                        "trigger": {"enum": list(TRIGGERS)},
                        "strategy": {"enum": [*STRATEGIES, None]},
                        "outcome": {"enum": [*OUTCOMES, None]},
                        "evidence": _ids,
                    },
                },
            },
        },
    },
}


class InvalidOutput(ValueError):
    """The answer does not match the schema; the message names the first problem."""


@dataclass
class Output:
    data: dict[str, Any]
    dropped: list[str] = field(default_factory=list)


def _check(value: Any, schema: dict[str, Any], path: str) -> None:
    kinds = schema.get("type")
    if "enum" in schema:
        if value not in schema["enum"]:
            raise InvalidOutput(f"{path}: {value!r} is not one of the allowed values")
        return
    allowed: list[str] = kinds if isinstance(kinds, list) else [str(kinds)]
    python = {"string": str, "integer": int, "array": list, "object": dict, "null": type(None)}
    if not any(
        isinstance(value, python[k]) and not (k == "integer" and isinstance(value, bool))
        for k in allowed
    ):
        raise InvalidOutput(f"{path}: expected {' or '.join(allowed)}")
    if isinstance(value, str) and len(value) > (
        SUMMARY_MAX if path.endswith("summary") else TEXT_MAX * 4
    ):
        raise InvalidOutput(f"{path}: too long")
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", LIST_MAX):
            raise InvalidOutput(f"{path}: too many items")
        for i, item in enumerate(value):
            _check(item, schema["items"], f"{path}[{i}]")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                raise InvalidOutput(f"{path}: missing {key}")
        for key, item in value.items():
            if key not in props:
                raise InvalidOutput(f"{path}: unexpected field {key}")
            _check(item, props[key], f"{path}.{key}")


def validate(answer: Any) -> Output:
    """Strict structural check, plus dates that parse and texts that are not empty."""
    _check(answer, TOOL["input_schema"], "output")
    for item in answer["follow_ups"]:
        if item.get("due_date"):
            try:
                date.fromisoformat(item["due_date"])
            except ValueError:
                raise InvalidOutput(f"follow-up due date {item['due_date']!r}") from None
    for item in answer["urges"]:
        try:
            datetime.fromisoformat(item["when"])
        except ValueError:
            raise InvalidOutput(f"urge time {item['when']!r}") from None
    for item in answer["facts"]["add"] + answer["facts"]["update"]:
        if not item["text"].strip() or len(item["text"]) > TEXT_MAX:
            raise InvalidOutput("a fact's text is empty or longer than 300 characters")
    return Output(answer)
