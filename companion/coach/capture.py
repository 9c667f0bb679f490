"""Offline capture: durable preferences and facts said in chat become facts at once, with no
model. Conservative on purpose: a wrong "you said" fact is worse than a missed one, and the
daily extraction catches what this misses.

Not captured: questions, other people's words, "I never thought...", passing states ("my
coffee is cold") and behaviour patterns ("I always relapse on Fridays"), which are for
extraction to notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DURABLE_NOUNS = (
    "name|nickname|pronouns|sponsor|therapist|counsellor|counselor|doctor|psychiatrist|"
    "wife|husband|partner|boyfriend|girlfriend|fiance|fiancee|sister|brother|mom|mum|mother|"
    "dad|father|son|daughter|kids|children|dog|cat|home group|sobriety date|sober date|"
    "clean date|birthday|job|higher power|best friend|fellowship|drug of choice|"
    "favourite [a-z]+|favorite [a-z]+"
)
PATTERN_VERBS = (
    r"relapse|drink|use|using|crave|slip|fail|mess up|screw up|forget|get|feel|end up|"
    r"want|think|thought|knew|realised|realized|expected|imagined"
)
IDIOMS = r"know|worry|care|get me wrong|think|mind|mention it|ask|judge me|be silly"

RULES: list[tuple[str, str, str]] = [
    # (pattern, category, template) - templates get the captured groups
    (r"^(?:please )?call me (?P<a>[a-z][\w' -]{0,30})$", "identity", "Wants to be called {a}"),
    (rf"^my (?P<a>{DURABLE_NOUNS}) (?:is|are|'s) (?P<b>.+)$", "relationships", "Their {a} is {b}"),
    (r"^(?:i )?(?:really |strongly )?prefer (?P<a>.+)$", "preferences", "Prefers {a}"),
    (
        r"^i (?:really )?(?:like|love|appreciate) it when you (?P<a>.+)$",
        "preferences",
        "Likes it when the coach {a}",
    ),
    (
        r"^i (?:really )?(?:don't|do not) like it when you (?P<a>.+)$",
        "preferences",
        "Does not like it when the coach {a}",
    ),
    (r"^i (?:really )?(?:don't|do not) like (?P<a>.+)$", "preferences", "Does not like {a}"),
    (
        r"^i (?:really )?(?:like|love|enjoy) (?P<a>(?!it\b|this\b|that\b|you\b).+)$",
        "preferences",
        "Likes {a}",
    ),
    (r"^(?:please )?remind me to (?P<a>.+)$", "reminders", "Asked to be reminded to {a}"),
    (r"^(?:i )?(?:always )?use (?P<a>.+?) for (?P<b>.+)$", "preferences", "Uses {a} for {b}"),
    (
        rf"^(?:please )?(?P<w>always|never) (?!(?:{PATTERN_VERBS})\b)(?P<a>.+)$",
        "preferences",
        "Wants the coach to {w} {a}",
    ),
    (
        rf"^(?:please )?(?:don't|do not) (?!(?:{IDIOMS})\b)(?P<a>.+)$",
        "preferences",
        "Wants the coach not to {a}",
    ),
]
_RULES = [(re.compile(p, re.IGNORECASE), c, t) for p, c, t in RULES]
SKIP = re.compile(
    r"\b(said|says|told me|tells me|asked me|according to)\b|"
    r"\bi (never|always) (thought|knew|realised|realized|expected|imagined)\b|"
    r"\bi (always|never) (" + PATTERN_VERBS + r")\b|"
    r"^(if|when|maybe|sometimes|what|why|how|do|does|did|can|could|would|should|is|are)\b",
    re.IGNORECASE,
)
TRANSIENT = re.compile(
    r"^(cold|hot|warm|late|early|dead|broken|empty|full|tired|sick|away|out|here|gone|"
    r"busy|running late|on the way|annoying me|acting up|in the shower)\b",
    re.IGNORECASE,
)


def noun_category(noun: str) -> str:
    noun = noun.lower()
    if re.match(r"(sobriety|sober|clean) date|home group|fellowship|higher power|drug", noun):
        return "recovery"
    if re.match(r"name|nickname|pronouns|birthday|job", noun):
        return "identity"
    if noun.startswith(("favourite", "favorite")):
        return "preferences"
    return "relationships"


@dataclass(frozen=True)
class Capture:
    text: str
    category: str


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _clean(sentence: str) -> str:
    s = sentence.strip().strip("\"'“”‘’").replace("’", "'")
    s = re.sub(
        r"^(also|and|oh|ok|okay|so|btw|by the way|just so you know),?\s+",
        "",
        s,
        flags=re.IGNORECASE,
    )
    return s.rstrip(".! ")


def detect_preferences(message: str) -> list[Capture]:
    found: list[Capture] = []
    for raw in sentences(message):
        if raw.rstrip().endswith("?") or raw.lstrip()[:1] in "\"“'‘":
            continue
        sentence = _clean(raw)
        if not sentence or SKIP.search(sentence):
            continue
        for pattern, category, template in _RULES:
            match = pattern.match(sentence)
            if not match:
                continue
            groups = match.groupdict()
            if category == "relationships" and TRANSIENT.match(groups.get("b", "")):
                break
            if category == "relationships":
                category = noun_category(groups["a"])
            text = template.format(**{k: v.lower() if k == "w" else v for k, v in groups.items()})
            found.append(Capture(text[0].upper() + text[1:], category))
            break
    return found
