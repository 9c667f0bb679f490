"""The fixed labels triggers and strategies are counted by (HALT and friends), and a small
local mapper for the words people use, for check-ins recorded without a model."""

from __future__ import annotations

import re

TRIGGERS = (
    "hungry",
    "angry",
    "lonely",
    "tired",
    "stress",
    "conflict",
    "boredom",
    "celebration",
    "people",
    "places",
    "cravings",
    "pain",
    "anxiety",
    "sadness",
    "other",
)
STRATEGIES = (
    "called_sponsor",
    "meeting",
    "exercise",
    "breathing",
    "prayer_meditation",
    "reached_out",
    "journaling",
    "distraction",
    "food",
    "sleep",
    "left_situation",
    "urge_surfing",
    "other",
)
OUTCOMES = ("urge_passed", "relapsed", "ongoing_struggle")

# How a label reads to a person (the label itself stays the stored, counted value).
PLAIN = {
    "called_sponsor": "called my sponsor",
    "prayer_meditation": "prayer or meditation",
    "reached_out": "reached out",
    "left_situation": "left the situation",
    "urge_surfing": "urge surfing",
    "urge_passed": "the urge passed",
    "ongoing_struggle": "still struggling",
}


def plain(label: str) -> str:
    """A label in plain words: "called_sponsor" reads "called my sponsor"."""
    return PLAIN.get(label, label.replace("_", " "))


TRIGGER_WORDS = {
    "hungry": r"hungr|skipped (lunch|breakfast|dinner|a meal)|didn'?t eat",
    "angry": r"angr|furious|mad at|rage|resent",
    "lonely": r"lonel|alone|isolat|no one",
    "tired": r"tired|exhaust|sleep|no rest|worn out",
    "stress": r"stress|deadline|work|overwhelm|pressure|money",
    "conflict": r"argu|fight|conflict|yell|brother|sister|partner|ex\b",
    "boredom": r"bored|nothing to do",
    "celebration": r"party|celebrat|wedding|birthday|holiday",
    "people": r"old friends|drinking buddies|dealer",
    "places": r"\bbar\b|pub|liquor store|club",
    "anxiety": r"anxi|panic|nervous|worr",
    "sadness": r"\bsad\b|grief|depress|down\b|cry",
}
STRATEGY_WORDS = {
    "called_sponsor": r"sponsor",
    "meeting": r"meeting|\baa\b|\bna\b|home group",
    "exercise": r"walk|run|gym|exercis|swim|bike|yoga",
    "breathing": r"breath",
    "prayer_meditation": r"pray|meditat",
    "reached_out": r"called|texted|friend|sister|brother|talked to",
    "journaling": r"journal|wrote",
    "food": r"\bate\b|food|snack|meal|tea\b",
    "sleep": r"slept|nap|went to bed",
    "left_situation": r"\bleft\b|walked out|went home",
}


def _label(text: str, table: dict[str, str]) -> str | None:
    lowered = text.lower()
    for label, pattern in table.items():
        if re.search(pattern, lowered):
            return label
    return None


def trigger_label(text: str) -> str | None:
    return _label(text, TRIGGER_WORDS) if text else None


def strategy_label(text: str) -> str | None:
    return _label(text, STRATEGY_WORDS) if text else None
