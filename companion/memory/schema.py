"""What extraction must return, declared once: typed models of the ``record_memory`` tool's
input. The JSON schema the model is sent is generated from them, and the same models check
the answer, item by item.

A bad item (an urge time that is not a time, a fact with no text) is dropped, counted and
named; the rest of the day is kept. Only an answer with no usable structure is invalid as a
whole (the run asks once more). Items that match but cite evidence they may not use are
dropped later, by ``apply``.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

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


def plausible(day: date) -> date:
    """A date in a life (and in the calendar arithmetic the tiers do): 1900 to 2100."""
    if not 1900 <= day.year <= 2100:
        raise ValueError("not a date in a life")
    return day


def _plausible_time(moment: datetime) -> datetime:
    plausible(moment.date())
    return moment


LifeDate = Annotated[date, AfterValidator(plausible)]
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
