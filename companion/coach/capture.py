"""Offline capture: durable preferences and facts said in chat become facts at once, with no
model. Conservative on purpose: a wrong "you said" fact is worse than a missed one, and the
daily extraction catches what this misses.

Facts go into the coach's system prompt, which speaks about the person, so the user's words are
put in the third person (singular they, third_person.py): "I don't like my job" -> "Does not
like their job".

A sobriety date is never a fact: "my clean date is March 3rd" becomes a change the user
confirms (memory/pending.py), as when extraction proposes one, or nothing when the date is
unclear.

Not captured: questions, other people's words, "I never thought...", passing states ("my
coffee is cold") and behaviour patterns ("I always relapse on Fridays"), which are for
extraction to notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from companion import clock
from companion.coach.third_person import the_coach, third_person
from companion.retrieval import dates

DURABLE_NOUNS = (
    "name|nickname|pronouns|sponsor|therapist|counsellor|counselor|doctor|psychiatrist|"
    "wife|husband|partner|boyfriend|girlfriend|fiance|fiancee|sister|brother|mom|mum|mother|"
    "dad|father|son|daughter|kids|children|dog|cat|home group|birthday|job|higher power|"
    "best friend|fellowship|drug of choice|favourite [a-z]+|favorite [a-z]+"
)
PATTERN_VERBS = (
    r"relapse|drink|use|using|crave|slip|fail|mess up|screw up|forget|get|feel|end up|"
    r"want|think|thought|knew|realised|realized|expected|imagined"
)
IDIOMS = r"know|worry|care|get me wrong|think|mind|mention it|ask|judge me|be silly"
NOT_AN_ASK = r"mind|again|ever|the|a|an|once|enough|been"  # "never mind", "always the same"
NOT_A_NAME = r"crazy|old[- ]fashioned|back|later|when|whenever|if|after|before|tomorrow|tonight"

RULES: list[tuple[str, str, str]] = [
    # (pattern, category, template) - templates get the captured groups, in the third person
    (
        rf"^(?:please )?call me (?!(?:{NOT_A_NAME})\b)(?P<a>[a-z][\w' -]{{0,30}})$",
        "identity",
        "Wants to be called {a}",
    ),
    (
        # "'s" is a verb ("my dog's Biscuit") unless a noun and a verb follow ("my sponsor's
        # number is..."); "my sister's name is Ana" names the sister.
        rf"^my (?P<a>(?:{DURABLE_NOUNS})(?:'s (?:{DURABLE_NOUNS}))?)"
        r"(?: (?P<v>is|are)|'s(?! [\w-]+(?: [\w-]+)? (?:is|are|was)\b)) (?P<b>.+)$",
        "relationships",
        "Their {a} {v} {b}",
    ),
    (r"^(?:i )?(?:really |strongly )?prefer (?P<a>.+)$", "preferences", "Prefers {a}"),
    (
        r"^i (?:really )?(?:like|love|appreciate) it when (?P<coach>you(?:'re|'ve)? .+)$",
        "preferences",
        "Likes it when {coach}",
    ),
    (
        r"^i (?:really )?(?:don't|do not) like it when (?P<coach>you(?:'re|'ve)? .+)$",
        "preferences",
        "Does not like it when {coach}",
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
        rf"^(?:please )?(?P<w>always|never) (?!(?:{PATTERN_VERBS}|{NOT_AN_ASK})\b)(?P<a>.+)$",
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

SOBER = r"(?:sobriety|sober|clean|recovery)"
SOBRIETY_DATE_RULES = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^my (?:new |current |real |actual )?{SOBER}(?: start)? date(?:'s|\s+is|\s*:)\s+"
        r"(?:(?:now|actually|officially)\s+)?(?:on\s+)?(?P<when>.+)$",
        r"^i(?:'ve|\s+have)?\s+(?:got|gotten|became|been|stayed)\s+(?:sober|clean)\s+"
        r"(?:(?:on|(?:ever\s+)?since|as\s+of)\s+)?(?P<when>.+)$",
    )
]
TOUCHES_SOBRIETY_DATE = re.compile(
    rf"\b{SOBER}(?:\s+start)?\s+(?:date|birthday|anniversary)s?\b|"
    r"\b(?:sober|clean)\s+(?:on|since|as of)\b",
    re.IGNORECASE,
)
"""Sentences that speak of a sobriety date are never facts, whoever's date it is."""

_DAY = re.compile(
    rf"(?:the\s+)?(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{dates.MONTH_WORD})\b\.?"
    rf"|(?P<m2>{dates.MONTH_WORD})\b\.?\s+(?:the\s+)?(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\b"
)
_YEAR = re.compile(r",?\s+(?:of\s+)?(?P<y>\d{4})\b")
_ISO = re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b")
_AFTER_DATE = re.compile(r"\s*(?:[,;]|\s(?:and|so|but|which)\b)")
_NEW_CLAUSE = re.compile(
    r"\s*(?:[,;]\s*|\s+)(?:(?:and|so|but)\s+)?"
    r"(?:i|i'm|i've|i'd|i'll|it|it's|that|that's|which|she|he|they|we|my)\b"
)
_VAGUE = re.compile(r"\d|\b(?:ago|years?|months?|weeks?|last|next|this|before|after)\b")


@dataclass(frozen=True)
class Capture:
    text: str
    category: str
    said: str = ""  # a reminder's task in the user's own words ("call my mum on Sunday")


@dataclass(frozen=True)
class Proposal:
    """A profile change said in chat that only the user may make true (memory/pending.py)."""

    field: str
    value: str


def noun_category(noun: str) -> str:
    noun = noun.lower()
    if re.match(r"home group|fellowship|higher power|drug", noun):
        return "recovery"
    if re.match(r"name|nickname|pronouns|birthday|job", noun):
        return "identity"
    if noun.startswith(("favourite", "favorite")):
        return "preferences"
    return "relationships"


# ---- sobriety dates ------------------------------------------------------------------------


def _most_recent(month: int, day: int, year: int | None, today: date) -> date | None:
    if year is not None:
        try:
            found = date(year, month, day)
        except ValueError:
            return None
        return found if found <= today else None
    for back in range(9):  # February 29th may be eight years back
        try:
            found = date(today.year - back, month, day)
        except ValueError:
            continue
        if found <= today:
            return found
    return None


def recovery_day(text: str, today: date) -> date | None:
    """The day ``text`` opens with ("March 3rd", "3 March 2024", "2024-03-03", "yesterday"), if
    it is a real day and not after ``today``. A month and day with no year are the most recent
    such day. Words after the date that could move it ("March 3rd, two years ago") make it
    unclear: None, and the daily extraction may read it better; a new clause ("..., and I'm
    proud") does not."""
    text = " ".join(text.lower().replace("’", "'").split())
    found: date | None
    if iso := _ISO.match(text):
        try:
            found = date(int(iso["y"]), int(iso["m"]), int(iso["d"]))
        except ValueError:
            return None
        found, end = (found if found <= today else None), iso.end()
    elif named := _DAY.match(text):
        month = dates.MONTH_ABBR[(named["m1"] or named["m2"])[:3]]
        year = _YEAR.match(text, named.end())
        end = year.end() if year else named.end()
        day = int(named["d1"] or named["d2"])
        found = _most_recent(month, day, int(year["y"]) if year else None, today)
    else:
        head = re.split(r"[,;]|\s(?:and|so|but|which)\s", text)[0]
        when = dates.parse(head, today)  # "today", "yesterday", "last Friday": one day
        if (
            when is None
            or when.first is None
            or when.first != when.last
            or when.weekday is not None
            or not text.startswith(when.phrases[0])
        ):
            return None
        found, end = when.first, len(when.phrases[0])
    rest = text[end:]
    if not rest.strip() or _NEW_CLAUSE.match(rest):  # "today, I slipped last night"
        return found
    return found if _AFTER_DATE.match(rest) and not _VAGUE.search(rest) else None


def _sobriety_date(sentence: str, today: date) -> Proposal | None:
    for pattern in SOBRIETY_DATE_RULES:
        match = pattern.match(sentence)
        if match:
            day = recovery_day(match["when"], today)
            return Proposal("recovery_start_date", day.isoformat()) if day else None
    return None


# ---- sentences -----------------------------------------------------------------------------


def sentences(text: str) -> list[str]:
    """Split after . ! ? but not after "Dr." or "St." ("My therapist is Dr. Okafor")."""
    return [
        s.strip()
        for s in re.split(
            r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMt\.)(?<!\bJr\.)(?<!\bMrs\.)"
            r"(?<=[.!?])\s+|\n+",
            text,
        )
        if s.strip()
    ]


LEAD_IN = re.compile(
    r"^(also|and|oh|ok|okay|so|btw|by the way|just so you know|fyi|for the record|anyway|"
    r"anyways|well|hey|yeah|yes|lol|haha|um|umm|actually|oh yeah|oh and),?\s+",
    re.IGNORECASE,
)
"""Words people put before what they tell, often two or three ("oh and btw my sponsor is
Dana"): each is taken off in turn."""


def _clean(sentence: str) -> str:
    s = sentence.strip().strip("\"'“”‘’").replace("’", "'")
    while (shorter := LEAD_IN.sub("", s, count=1)) != s:
        s = shorter
    return s.rstrip(".! ")


def _fact(sentence: str) -> Capture | None:
    for pattern, category, template in _RULES:
        match = pattern.match(sentence)
        if not match:
            continue
        groups = match.groupdict()
        if category == "relationships" and TRANSIENT.match(groups.get("b", "")):
            return None
        if category == "relationships":
            category = noun_category(groups["a"])
        told = {
            key: (value or "is").lower()  # "my dog's Biscuit": is
            if key in ("w", "v")
            else third_person(the_coach(value) if key == "coach" else value)
            for key, value in groups.items()
        }
        text = template.format(**told)
        said = groups.get("a", "") if category == "reminders" else ""
        return Capture(text[0].upper() + text[1:], category, said)
    return None


def detect(message: str, today: date | None = None) -> list[Capture | Proposal]:
    """Facts and sobriety-date proposals in ``message``, in the order said."""
    today = clock.today() if today is None else today
    found: list[Capture | Proposal] = []
    for raw in sentences(message):
        if raw.rstrip().endswith("?") or raw.lstrip()[:1] in "\"“'‘":
            continue
        sentence = _clean(raw)
        if not sentence or SKIP.search(sentence):
            continue
        proposal = _sobriety_date(sentence, today)
        if proposal is not None:
            found.append(proposal)
        elif not TOUCHES_SOBRIETY_DATE.search(sentence) and not any(
            p.match(sentence) for p in SOBRIETY_DATE_RULES
        ):
            fact = _fact(sentence)
            if fact is not None:
                found.append(fact)
    return found


def detect_preferences(message: str) -> list[Capture]:
    """The facts alone."""
    return [item for item in detect(message) if isinstance(item, Capture)]
