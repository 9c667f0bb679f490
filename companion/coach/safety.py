"""Crisis language, detected locally (no network, no model), in chat, journal and notes.

Patterns work on a normalised form of the text (lower case, letters repeated three or more
times squeezed, common misspellings folded) so "suicidal", "suicidel" and "SUICIDAAAL" match,
while figures of speech ("this commute is killing me", "I'd kill for a nap") do not.
"""

from __future__ import annotations

import re

SPELLING = [
    (r"\bsu+[ie]+c+[iy]+d+[ae]l+\b", "suicidal"),
    (r"\bsu+[ie]*[cs]+[iy]*de?\b", "suicide"),
    (r"\bsuicid[ae]l+\b", "suicidal"),
    (r"\bsucide\b", "suicide"),
    (r"\bover ?dos(e|ing|ed)?\b", "overdose"),
    (r"\bod\b", "overdose"),
    (r"\bwanna\b", "want to"),
    (r"\bgonna\b", "going to"),
    (r"\bi'?m\b", "i am"),
    (r"\bim\b", "i am"),
    (r"\bdont\b", "don't"),
    (r"\bcant\b", "can't"),
    (r"\bmyslef\b", "myself"),
    (r"\bmy self\b", "myself"),
    (r"\bkms\b", "kill myself"),
    (r"\bunalive\b", "kill"),
    (r"\bslef\b", "self"),
]

SIGNALS = [
    # suicide
    r"\bsuicidal\b",
    r"\b(commit(ting)?|attempt(ed|ing)?|think(ing)? about|thoughts of|plan(ning)?) suicide\b",
    r"\bsuicide (note|plan|attempt)\b",
    r"\bkill(ing)? myself\b",
    r"\b(end|ending|take|taking) (my|my own) life\b",
    r"\bend it all\b",
    r"\bend(ing)? it (tonight|today|now|for good)\b",
    r"\b(want|wanted|wish|going) to (die|be dead|not exist|disappear forever)\b",
    r"\bwish i (was|were) (dead|never born|gone)\b",
    r"\b(better off|be better) (dead|without me)\b",
    r"\bno (reason|point) (to|in) (live|living|going on|being alive)\b",
    r"\bdon'?t want to (live|be alive|be here anymore|wake up)\b",
    r"\b(can't|cannot) (go on|keep going|do this anymore) (living|anymore)?\b"
    r".*\b(die|dead|end|over)\b",
    r"\bnot (wake|waking) up (tomorrow|again)\b",
    r"\bhope i (don't|never) wake up\b",
    r"\bgoodbye (letter|note)\b",
    # self-harm
    r"\bself[- ]?harm(ing)?\b",
    r"\b(cut|cutting|burn|burning|hurt|hurting|harm|harming) myself\b",
    r"\b(started|start) cutting again\b",
    # overdose
    r"\boverdose\b",
    r"\b(took|take|taking|swallow(ed)?) (all|too many|a bunch of|the whole bottle of) "
    r"(my |the )?(pills|meds|tablets|medication)\b",
    r"\bwhole bottle of (pills|meds|tablets)\b",
    r"\b(mix|mixing|mixed) (pills|meds) (and|with) (alcohol|booze|drink)\b",
]

FIGURES = [
    r"\b(is|are|was|were|'s|be) killing me\b",
    r"\bkill(ing)? for (a|an|some)\b",
    r"\bdying (to|for|of laughter)\b",
    r"\bto die for\b",
    r"\bdead (tired|serious|on|wrong)\b",
    r"\bkilled it\b",
    r"\bsuicide squad\b",
    r"\b(my|the) (phone|battery|laptop|car) (is|was) dead\b",
    r"\boverdose on (chocolate|coffee|caffeine|sugar|tv|netflix|cute)\b",
]

_SPELLING = [(re.compile(p), r) for p, r in SPELLING]
_SIGNALS = [re.compile(p) for p in SIGNALS]
_FIGURES = [re.compile(p) for p in FIGURES]

CRISIS_INSTRUCTION = (
    "IMPORTANT: The person's latest words may express thoughts of suicide, self-harm or "
    "overdose. Respond with warmth and care, take it seriously, ask whether they are safe right "
    "now, and point them to the crisis resources they can reach immediately: {lines}. Do not "
    "lecture, do not diagnose, and stay with them in the conversation."
)


def normalise(text: str) -> str:
    text = text.lower().replace("’", "'")
    text = re.sub(r"([aeiouy])\1{2,}", r"\1", text)  # "diiiie" -> "die"
    text = re.sub(r"([^aeiouy\W])\1{2,}", r"\1\1", text)  # "killll" -> "kill"
    text = re.sub(r"[^\w'\s-]", " ", text)
    text = re.sub(r"\s+", " ", text)
    for pattern, replacement in _SPELLING:
        text = pattern.sub(replacement, text)
    return f" {text.strip()} "


def detect(text: str) -> bool:
    """True when ``text`` contains crisis language (figures of speech excluded)."""
    norm = normalise(text)
    for figure in _FIGURES:
        norm = figure.sub(" ", norm)
    return any(signal.search(norm) for signal in _SIGNALS)
