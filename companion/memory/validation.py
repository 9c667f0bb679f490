"""Checking what extraction answered against the models in ``schema.py``, item by item.

A bad item is dropped, counted and named for the update log ("urge 1: when is not a date");
the rest of the day is kept. Only an answer with no usable structure raises
``InvalidOutput`` (the run asks once more).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pydantic import TypeAdapter, ValidationError

from companion.memory.schema import (
    LIST_MAX,
    About,
    Answer,
    ClosedFollowUp,
    FactRemoval,
    Facts,
    FactUpdate,
    FollowUps,
    Item,
    NewFact,
    NewFollowUp,
    ProfileUpdate,
    SessionSummary,
    Urge,
    plausible,
)


class InvalidOutput(ValueError):
    """The answer has no usable structure; the message names what was wrong."""


@dataclass
class Output:
    data: Answer
    dropped: list[str] = field(default_factory=list)  # items that did not match, named
    raw: Any = None  # the answer as the model sent it


NAMES = {
    "sessions": "session summary",
    "profile_updates": "profile update",
    "urges": "urge",
    "facts.add": "new fact",
    "facts.update": "fact update",
    "facts.remove": "fact removal",
    "follow_ups.add": "new follow-up",
    "follow_ups.close": "follow-up closing",
}


WHAT_WENT_WRONG = {
    "missing": "is missing",
    "string_too_short": "is empty",
    "string_too_long": "is too long",
    "too_long": "has too many items",
    "too_short": "is empty",
    "literal_error": "is not one of the allowed values",
    "string_pattern_mismatch": "is not an activity id",
    "greater_than_equal": "is out of range",
    "less_than_equal": "is out of range",
    "int_parsing": "is not a whole number",
    "int_type": "is not a whole number",
    "string_type": "is not text",
    "list_type": "is not a list",
    "model_type": "is not an object",
}


def _problem(err: ValidationError, path: str = "", number: int | None = None) -> str:
    """What the update log says of a dropped item: "urge 1: when is not a date" (no value
    quoted: the raw answer keeps it, sealed)."""
    first = err.errors()[0]
    field_name = ".".join(str(p) for p in first["loc"]) or "value"
    kind = str(first["type"])
    if kind == "value_error":  # ours: "not an activity id", "not a date in a life"
        wrong = "is " + str(first["msg"]).split(", ", 1)[-1]
    elif kind.startswith(("datetime", "date")):
        wrong = "is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)"
    else:
        wrong = WHAT_WENT_WRONG.get(kind, f"is not valid ({kind})")
    item = NAMES.get(path, path)
    which = f"{item} {number + 1}: " if number is not None else ""
    return f"{which}{field_name} {wrong}"


# list -> (its item, how many it may hold); nested ones hold such lists by part
_LISTS: dict[str, tuple[type[Item], int]] = {
    "sessions": (SessionSummary, LIST_MAX),
    "profile_updates": (ProfileUpdate, 10),
    "urges": (Urge, LIST_MAX),
}
_NESTED: dict[str, dict[str, tuple[type[Item], int]]] = {
    "facts": {
        "add": (NewFact, LIST_MAX),
        "update": (FactUpdate, LIST_MAX),
        "remove": (FactRemoval, LIST_MAX),
    },
    "follow_ups": {"add": (NewFollowUp, 20), "close": (ClosedFollowUp, 20)},
}
_SCALARS = ("conversation_summary", "journal_summary", "checkin_summary", "emotional_state")


def _parsed(raw: Any) -> Any:
    """A list or object the model sent as a JSON string (a common slip) is read as such."""
    if isinstance(raw, str) and raw.strip()[:1] in ("[", "{"):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


_ABOUT: TypeAdapter[About] = TypeAdapter(About)


def _tidy(item: Any) -> Any:
    """Optional extras that do not fit are trimmed, not the reason to lose the item: search
    terms past 8 or too long, an ``about`` entry of an unknown kind, a life date or a due
    date that is not one."""
    if not isinstance(item, dict):
        return item
    item = dict(item)
    for key in ("valid_from", "valid_to", "due_date"):  # a date that is no date: left out
        if item.get(key) is not None:
            try:
                plausible(date.fromisoformat(str(item[key])[:10]))
            except ValueError:
                item.pop(key)
    terms = item.get("search_terms")
    if terms is not None:
        if isinstance(terms, list):
            item["search_terms"] = [
                t.strip() for t in terms if isinstance(t, str) and 0 < len(t.strip()) <= 40
            ][:8]
        else:
            item.pop("search_terms")
    about = item.get("about")
    if about is not None:
        kept = []
        for entry in about if isinstance(about, list) else []:
            try:
                kept.append(_ABOUT.validate_python(entry).model_dump(exclude_none=True))
            except ValidationError:
                continue
        item["about"] = kept[:5]
    return item


def _items(raw: Any, model: type[Item], path: str, limit: int, dropped: list[str]) -> list[Any]:
    raw = _parsed(raw)
    if raw is None:
        return []
    if not isinstance(raw, list):
        dropped.append(f"{path}: not a list")
        return []
    kept: list[Any] = []
    adapter: TypeAdapter[Any] = TypeAdapter(model)
    for number, item in enumerate(raw):
        if len(kept) >= limit:
            dropped.append(f"{path}: {len(raw) - number} more than the {limit} allowed")
            break
        try:
            kept.append(adapter.validate_python(_tidy(item)))
        except ValidationError as err:
            dropped.append(_problem(err, path, number))
    return kept


def validate(answer: Any) -> Output:
    """Each item on its own: what matches is kept, what does not is named in ``dropped``."""
    if not isinstance(answer, dict):
        raise InvalidOutput("the answer is not an object")
    known = set(Answer.model_fields)
    if not known & set(answer):
        raise InvalidOutput("the answer has none of the expected fields")
    dropped: list[str] = []
    values: dict[str, Any] = {}
    for key in (*_SCALARS, "search_terms", "notable_patterns"):
        if key in answer:
            try:
                value = _tidy({key: _parsed(answer[key])})[key]
                values[key] = getattr(Answer.model_validate({key: value}), key)
            except ValidationError as err:
                dropped.append(_problem(err))
    for key, (model, limit) in _LISTS.items():
        values[key] = _items(answer.get(key), model, key, limit, dropped)
    for key, parts in _NESTED.items():
        raw = _parsed(answer.get(key)) or {}
        if key == "follow_ups" and isinstance(raw, list):  # the older flat list of new items
            raw = {"add": raw}
        if not isinstance(raw, dict):
            dropped.append(f"{key}: not an object")
            raw = {}
        values[key] = {
            part: _items(raw.get(part), model, f"{key}.{part}", limit, dropped)
            for part, (model, limit) in parts.items()
        }
    data = Answer.model_validate(
        {
            **values,
            "facts": Facts.model_construct(**values["facts"]),
            "follow_ups": FollowUps.model_construct(**values["follow_ups"]),
        }
    )
    if dropped and not _anything(data):
        raise InvalidOutput(f"nothing in the answer could be used ({dropped[0]})")
    return Output(data, dropped, answer)


def _anything(data: Answer) -> bool:
    """Whether a checked answer kept anything at all (a quiet day's answer may be empty;
    an answer whose every part was dropped is asked for again)."""
    return any(
        (
            *(getattr(data, k).strip() for k in _SCALARS),
            data.search_terms,
            data.notable_patterns,
            data.sessions,
            data.profile_updates,
            data.urges,
            data.facts.add,
            data.facts.update,
            data.facts.remove,
            data.follow_ups.add,
            data.follow_ups.close,
        )
    )
