"""What extraction must return, declared once: typed models of the ``record_memory`` tool's
input. The JSON schema the model is sent is generated from them, and the same models check
the answer, item by item.

A bad item (an urge time that is not a time, a fact with no text) is dropped, counted and
named; the rest of the day is kept. Only an answer with no usable structure is invalid as a
whole (the run asks once more). Items that match but cite evidence they may not use are
dropped later, by ``apply``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

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
ABOUT_KINDS = ("person", "place", "substance", "other")
SUMMARY_MAX = 2000
TEXT_MAX = 300
LIST_MAX = 40

if TYPE_CHECKING:
    Category: TypeAlias = str
    Tier: TypeAlias = str
    Trigger: TypeAlias = str
    Strategy: TypeAlias = str
    Outcome: TypeAlias = str
    ProfileField: TypeAlias = str
    AboutKind: TypeAlias = str
else:  # the enums come from the tuples above: one list of allowed values each
    Category = Literal[CATEGORIES]
    Tier = Literal[TIERS]
    Trigger = Literal[TRIGGERS]
    Strategy = Literal[STRATEGIES]
    Outcome = Literal[OUTCOMES]
    ProfileField = Literal[tuple(PROFILE_FIELDS)]
    AboutKind = Literal[ABOUT_KINDS]


def _plausible(day: date) -> date:
    """A date in a life (and in the calendar arithmetic the tiers do): 1900 to 2100."""
    if not 1900 <= day.year <= 2100:
        raise ValueError("not a date in a life")
    return day


def _plausible_time(moment: datetime) -> datetime:
    _plausible(moment.date())
    return moment


LifeDate = Annotated[date, AfterValidator(_plausible)]
LifeTime = Annotated[datetime, AfterValidator(_plausible_time)]
REF = re.compile(r"(journal_entry|checkin|chat_message):\d+")


def _ref(value: str) -> str:
    """An activity id ("journal_entry:12"). Checked here, not spelled out in the schema: the
    prompt shows the form, and the pattern nine times over cost 135 tokens a call."""
    if not REF.fullmatch(value):
        raise ValueError("not an activity id")
    return value


Ref = Annotated[str, AfterValidator(_ref)]
Evidence = Annotated[list[Ref], Field(min_length=1, max_length=20)]
Text = Annotated[str, Field(min_length=1, max_length=TEXT_MAX)]
Summary = Annotated[str, Field(max_length=SUMMARY_MAX)]
Lines = Annotated[list[Annotated[str, Field(max_length=TEXT_MAX)]], Field(max_length=10)]
SearchTerms = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=40)]], Field(max_length=8)
]


class Item(BaseModel):
    """Unknown keys are ignored when checking, but the schema the model sees forbids them."""

    model_config = ConfigDict(extra="ignore", json_schema_extra={"additionalProperties": False})


class About(Item):
    name: Annotated[str, Field(min_length=1, max_length=60, description="As the person says it.")]
    kind: AboutKind
    relation: str | None = Field(
        None, max_length=40, description="To the person: sister, sponsor, home town, ..."
    )


class NewFact(Item):
    text: Text
    category: Category
    tier: Tier
    about: list[About] = Field(default_factory=list, max_length=5)
    valid_from: LifeDate | None = Field(None, description="When it became true (YYYY-MM-DD).")
    valid_to: LifeDate | None = Field(None, description="When it stopped being true, if it did.")
    search_terms: SearchTerms = Field(default_factory=list)
    evidence: Evidence


class FactUpdate(Item):
    id: int
    text: Text
    reason: Annotated[str, Field(max_length=TEXT_MAX)] = ""
    about: list[About] | None = Field(None, max_length=5)
    valid_from: LifeDate | None = None
    valid_to: LifeDate | None = None
    search_terms: SearchTerms | None = None
    evidence: Evidence


class FactRemoval(Item):
    id: int
    reason: Annotated[str, Field(max_length=TEXT_MAX)] = ""
    evidence: Evidence


class Facts(Item):
    add: list[NewFact] = Field(default_factory=list, max_length=LIST_MAX)
    update: list[FactUpdate] = Field(default_factory=list, max_length=LIST_MAX)
    remove: list[FactRemoval] = Field(default_factory=list, max_length=LIST_MAX)


class NewFollowUp(Item):
    text: Text
    due_date: LifeDate | None = None
    evidence: Evidence


class ClosedFollowUp(Item):
    id: int
    status: Literal["done", "dropped"]
    evidence: Evidence


class FollowUps(Item):
    add: list[NewFollowUp] = Field(default_factory=list, max_length=20)
    close: list[ClosedFollowUp] = Field(default_factory=list, max_length=20)


class SessionSummary(Item):
    session_id: int
    summary_text: Summary
    recognition_moment: str | None = None
    action_steps: Lines = Field(default_factory=list)
    open_threads: Lines = Field(default_factory=list)
    coach_notes: str | None = None
    urge_intensity: int | None = Field(None, ge=0, le=10)
    primary_trigger: Trigger | None = None
    resistance_strategy_used: Strategy | None = None
    outcome: Outcome | None = None
    key_insights: Lines = Field(default_factory=list)
    emotional_state_start: str | None = None
    emotional_state_end: str | None = None
    follow_up_needed: str | None = None
    search_terms: SearchTerms = Field(default_factory=list)


class ProfileUpdate(Item):
    field: ProfileField
    value: Annotated[str, Field(max_length=TEXT_MAX)]
    evidence: Evidence


class Urge(Item):
    when: LifeTime = Field(description="Local time it happened: YYYY-MM-DDTHH:MM.")
    intensity: int | None = Field(None, ge=0, le=10)
    trigger: Trigger
    strategy: Strategy | None = None
    outcome: Outcome | None = None
    evidence: Evidence


class Answer(Item):
    conversation_summary: Summary = ""
    journal_summary: Summary = ""
    checkin_summary: Summary = ""
    emotional_state: Annotated[str, Field(max_length=TEXT_MAX)] = ""
    search_terms: SearchTerms = Field(default_factory=list)
    notable_patterns: Lines = Field(default_factory=list)
    follow_ups: FollowUps = Field(default_factory=FollowUps)
    facts: Facts = Field(default_factory=Facts)
    sessions: list[SessionSummary] = Field(default_factory=list, max_length=LIST_MAX)
    profile_updates: list[ProfileUpdate] = Field(default_factory=list, max_length=10)
    urges: list[Urge] = Field(default_factory=list, max_length=LIST_MAX)


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """The schema with every ``$ref`` replaced by its definition, no titles, and "X or null"
    written as an X that may be left out: shorter for the model, and a shape both providers
    accept. (Null is still accepted when checking.)"""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        options = node.get("anyOf")
        if options and len(options) == 2 and {"type": "null"} in options:  # may be left out
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return _inline({**next(o for o in options if o != {"type": "null"}), **rest}, defs)
        return {
            k: _inline(v, defs)
            for k, v in node.items()
            if k not in ("title", "$defs") and not (k == "default" and v in (None, [], ""))
        }
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def _schema() -> dict[str, Any]:
    raw = Answer.model_json_schema()
    schema: dict[str, Any] = _inline(raw, raw.get("$defs", {}))
    return schema


TOOL: dict[str, Any] = {
    "name": "record_memory",
    "description": "Record what is worth remembering from the activity, once.",
    "input_schema": _schema(),
}


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
                _plausible(date.fromisoformat(str(item[key])[:10]))
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
