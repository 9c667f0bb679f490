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
coffee is cold"), behaviour patterns ("I always relapse on Fridays"), which are for
extraction to notice, and anything in a message heard as danger (service.py). The words
listened for are in capture_rules.py, what keeps them out in capture_filters.py; how well
they do on chat written apart from them is in tests/data/capture/README.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from companion import clock
from companion.coach.capture_filters import (
    DARK,
    DOING,
    LEAD_IN,
    NOT_LASTING,
    SARCASTIC,
    SHOUTED_LIKING,
    SKIP,
    SUBORDINATE,
    TRAIL_OFF,
    TRANSIENT,
)
from companion.coach.capture_rules import COMPILED
from companion.coach.third_person import the_coach, third_person
from companion.retrieval import dates

SOBER = r"(?:sobriety|sober|clean|recovery|dry)"
SOBRIETY_DATE_RULES = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^(?:my )?(?:new |current |real |actual )?{SOBER}(?: start)? date"
        r"(?:'s|\s+is|\s+was|\s*:)?\s+(?:(?:now|actually|officially)\s+)?(?:on\s+)?(?P<when>.+)$",
        # a birthday comes every year: only with the year said ("march 17 2022")
        rf"^(?:my )?{SOBER} (?:birthday|anniversary)(?:'s|\s+is|\s+was|\s*:)\s+"
        r"(?P<when>(?=[^.!?]*\b(?:19|20)\d\d\b).+)$",
        r"^(?:(?:i'm|im|i am|i've been|ive been|i have been|been)\s+)?(?:sober|clean)\s+"
        r"(?:(?:ever\s+)?since|as\s+of)\s+(?P<when>.+)$",
        r"^(?:my\s+)?day\s+(?:one|1)\s+(?:was|is)\s+(?P<when>.+)$",
        r"^i\s+(?:stopped|quit|gave\s+up)\s+(?:drinking|using|drugs|gambling|the\s+drink|"
        r"booze|alcohol)\s+(?:on\s+)?(?P<when>.+)$",
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
_NUMERIC = re.compile(r"(?P<a>\d{1,2})[/.](?P<b>\d{1,2})[/.](?P<y>\d{4}|\d{2})\b")
"""11/22/2023 or 22.11.23: read only when which number is the month is plain."""
_YEAR = re.compile(r",?\s+(?:of\s+)?(?P<y>\d{4})\b")
_ISO = re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b")
_AFTER_DATE = re.compile(r"\s*(?:[,;]|\s(?:and|so|but|which)\b)")
_NEW_CLAUSE = re.compile(
    r"\s*(?:[,;]\s*|\s+)(?:(?:and|so|but)\s+)?"
    r"(?:i|i'm|i've|i'd|i'll|it|it's|that|that's|which|she|he|they|we|my)\b"
)
_LATER = re.compile(r"\s*[,;]\s+|\s+-+\s+|\s+(?:so|and|but)\s+(?=my\b)")
"""Where a date said after something else begins ("had my last drink on nye, so my sober
date is jan 1st 2021")."""
_SUPPOSED = re.compile(r"\b(?:if|worst case|maybe|might|suppose|imagine|would|could)\b", re.I)
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
    if re.match(
        r"(?:\w+ )?(?:name|nickname|pronouns|birthday|job|hometown|home town|house|flat|"
        r"apartment|school|college|uni|university|major|religion|faith|church|parish)\b",
        noun,
    ):
        return "identity"
    if re.match(r"(?:trade|profession|career|line of work|roster)\b", noun):
        return "work"
    if noun.startswith(("favourite", "favorite", "hobby", "hobbies", "team", "club")):
        return "preferences"
    if re.match(r"(?:car|truck|ute|van|bike|allotment|gym)\b", noun):
        return "other"
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


def _numeric_day(match: re.Match[str], today: date) -> date | None:
    """Month and day written as numbers: 2/9/24 may be February 9th or 2 September, so only
    a day past 12 (or the same number twice) says which is which."""
    a, b, year = int(match["a"]), int(match["b"]), int(match["y"])
    year += 2000 if year < 100 else 0
    if a > 12 >= b:
        month, day = b, a
    elif b > 12 >= a or a == b:
        month, day = a, b
    else:
        return None
    return _most_recent(month, day, year, today)


def recovery_day(text: str, today: date) -> date | None:
    """The day ``text`` opens with ("March 3rd", "3 March 2024", "2024-03-03", "yesterday"), if
    it is a real day and not after ``today``. A month and day with no year are the most recent
    such day. Words after the date that could move it ("March 3rd, two years ago") make it
    unclear: None, and the daily extraction may read it better; a new clause ("..., and I'm
    proud") does not."""
    text = " ".join(text.lower().replace("’", "'").split())
    found: date | None
    if numeric := _NUMERIC.match(text):
        found, end = _numeric_day(numeric, today), numeric.end()
    elif iso := _ISO.match(text):
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


def _later_sobriety_date(sentence: str, today: date) -> Proposal | None:
    """A date said after something else, only as "my ... date is": "sober since 2010" after
    "my sponsor is amazing" is the sponsor's, and "worst case i slip, so my sober date is
    today" is no date yet."""
    if _SUPPOSED.search(sentence):
        return None
    for clause in _LATER.split(sentence)[1:]:
        clause = _clean(clause)
        if clause.lower().startswith("my ") and (found := _sobriety_date(clause, today)):
            return found
    return None


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


def _clean(sentence: str) -> str:
    s = sentence.strip().strip("\"'“”‘’").replace("’", "'")
    while (shorter := LEAD_IN.sub("", s, count=1)) != s:
        s = shorter
    return TRAIL_OFF.sub("", s).rstrip(".! ")


def _fact(sentence: str) -> Capture | None:
    for pattern, category, template in COMPILED:
        match = pattern.match(sentence)
        if not match:
            continue
        groups = match.groupdict()
        if category == "relationships" and TRANSIENT.search(groups.get("b", "")):
            return None
        if category == "relationships":
            groups["a"] = re.sub(r"\b(\w+?)s (name|nickname)\b", r"\1's \2", groups["a"])
            category = noun_category(groups["a"])
            # "my ex is texting me again": what someone is doing now, not who they are
            if category == "relationships" and DOING.match(groups["b"]):
                return None
        if category == "preferences" and _taste_not_kept(template, groups, sentence):
            return None
        if category == "reminders" and SARCASTIC.search(sentence):
            return None
        told = {
            key: (value or "is").lower()  # "my dog's Biscuit": is
            if key in ("w", "v")
            else third_person(the_coach(value) if key == "coach" else value or "")
            for key, value in groups.items()
        }
        # a laugh after a name or a date is not part of it ("my sponsor is Dana lol")
        text = SARCASTIC.sub("", template.format(**told)).rstrip(" ,")
        said = groups.get("a", "") if category == "reminders" else ""
        return Capture(text[0].upper() + text[1:], category, said)
    return None


def _taste_not_kept(template: str, groups: dict[str, str], sentence: str) -> bool:
    """Whether a taste is one not to keep: said of dying, oneself, drink or drugs, or for now.
    What the coach is asked to do or avoid is kept whatever it names ("never mention my
    drinking")."""
    values = [(v or "").lower() for v in groups.values()]
    if template.startswith(("Wants the coach", "Prefers the word")) or "coach" in groups:
        return False
    if any(v.startswith(("you ", "u ")) for v in values):
        return False
    said_of = " ".join(re.split(r"[,;.]|\s-+\s", v)[0] for v in values)
    return bool(DARK.search(said_of) or NOT_LASTING.search(said_of) or SARCASTIC.search(sentence))


def detect(message: str, today: date | None = None) -> list[Capture | Proposal]:
    """Facts and sobriety-date proposals in ``message``, in the order said."""
    today = clock.today() if today is None else today
    found: list[Capture | Proposal] = []
    for raw in sentences(message):
        if raw.rstrip().endswith("?") or raw.lstrip()[:1] in "\"“'‘":
            continue
        sentence = _clean(raw)
        if not sentence or SKIP.search(sentence) or SHOUTED_LIKING.search(sentence):
            continue
        proposal = _sobriety_date(sentence, today) or _later_sobriety_date(sentence, today)
        if proposal is not None:
            found.append(proposal)
        elif not TOUCHES_SOBRIETY_DATE.search(sentence) and not any(
            p.match(sentence) for p in SOBRIETY_DATE_RULES
        ):
            found += _facts(sentence)
    return found


def _facts(sentence: str) -> list[Capture]:
    """The sentence's facts. One said after a comma counts too ("keep it plain, i prefer no
    jargon"), unless the sentence opens with a condition or a reason that binds it ("if he
    calls, ..."); two clauses that each say one are two facts ("dont ask about my weight,
    and i go by Sam"), while a clause that adds no fact stays with the one before ("my
    daughter is Mia, she's seven")."""
    whole = _fact(sentence)
    clauses = re.split(r"\s*[,;]\s+|\s+-+\s+", sentence)
    later: list[Capture] = []
    if not SUBORDINATE.match(sentence):
        for clause in clauses[1:]:
            clause = _clean(clause)
            if clause and not SUBORDINATE.match(clause) and not SKIP.search(clause):
                later += [fact] if (fact := _fact(clause)) is not None else []
    if whole is None:
        return later
    first = _fact(_clean(clauses[0])) if later else None
    return [first, *later] if first is not None else [whole]


def detect_preferences(message: str) -> list[Capture]:
    """The facts alone."""
    return [item for item in detect(message) if isinstance(item, Capture)]
