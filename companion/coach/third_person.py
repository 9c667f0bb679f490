"""The user's words told about them, for facts captured in chat: the coach's system prompt
speaks about the person ("I don't like my job" -> "they don't like their job") and of the
coach ("you repeat my words" -> "the coach repeats my words"). Grammar alone: what is worth
capturing is capture.py's."""

from __future__ import annotations

import re

THIRD_PERSON = {
    "i": "they",
    "me": "them",
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
    "we": "they",
    "us": "them",
    "our": "their",
    "ours": "theirs",
    "ourselves": "themselves",
}
_CONTRACTIONS = {"i": {"m": "re", "ve": "ve", "ll": "ll", "d": "d"}}
_CONTRACTIONS["we"] = {"re": "re", "ve": "ve", "ll": "ll", "d": "d"}
_AFTER_I = {"am": "are", "was": "were", "wasn't": "weren't"}
_ADVERBS = r"really|still|just|also|always|never|usually|often|sometimes|actually|honestly"
_PRONOUN = re.compile(
    r"(?<![\w'’.-])(?P<word>" + "|".join(THIRD_PERSON) + r")"
    r"(?:(?P<apos>['’])(?P<tail>m|re|ve|ll|d))?(?![\w'’-]|\.\w)"
    rf"(?P<verb>\s+(?:(?:{_ADVERBS})\s+)?(?P<be>am|was|wasn['’]t)\b)?",
    re.IGNORECASE,
)
_WORD_BEFORE = re.compile(r"([^\W\d_][\w'’]*)\W*$")
_WORD_AFTER = re.compile(r"[^\w]*([^\W\d_][\w'’]*)")


def _titled(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and not word.isupper()


def third_person(text: str) -> str:
    """``text`` about the speaker, told about them: "call my sister when I'm low" -> "call
    their sister when they're low". Verbs after "I" follow ("I was" -> "they were"); names keep
    their words ("My Chemical Romance", "Hold Me Tight"), and "US" or "ME" in a mixed-case text
    are taken for abbreviations."""
    shouting = text.upper() == text and len(re.findall(r"[^\W\d_]+", text)) >= 2

    def swap(match: re.Match[str]) -> str:
        word, tail, verb = match["word"], match["tail"], match["verb"] or ""
        key = word.lower()
        if not shouting:
            end = match.end("tail") if tail else match.end("word")
            after = _WORD_AFTER.match(text, end)
            before = _WORD_BEFORE.search(text, 0, match.start())
            next_titled = after is not None and _titled(after[1])
            if word == "I" and next_titled:
                return match[0]  # "I Will Survive"
            if _titled(word) and (next_titled or (before is not None and _titled(before[1]))):
                return match[0]
            if len(word) > 1 and word.isupper():
                return match[0]
        new = THIRD_PERSON[key]
        if tail:
            ending = _CONTRACTIONS.get(key, {}).get(tail.lower())
            if ending is None:
                return match[0]
            new += match["apos"] + ending
        elif key == "i" and match["be"]:
            be = match["be"]
            verb = verb[: len(verb) - len(be)] + _AFTER_I[be.lower().replace("’", "'")]
            if "’" in be:
                verb = verb.replace("'", "’")
        new = new.upper() if shouting else new
        return new + (verb.upper() if shouting else verb)

    return _PRONOUN.sub(swap, text)


_COACH_VERBS = {
    "'re": "is",
    "'ve": "has",
    "are": "is",
    "have": "has",
    "were": "was",
    "do": "does",
    "don't": "doesn't",
    "aren't": "isn't",
    "haven't": "hasn't",
    "weren't": "wasn't",
    "be": "is",
}
_MODALS = {
    "can", "can't", "cannot", "could", "couldn't", "will", "won't", "would", "wouldn't",
    "should", "shouldn't", "might", "must", "did", "didn't", "had", "hadn't",
}  # fmt: skip
_YOU = re.compile(
    rf"you(?P<verb>'re|'ve)?\s+(?P<adverbs>(?:(?:{_ADVERBS}|gently)\s+)*)(?P<rest>.*)"
)


def _agree(verb: str) -> str:
    lower = verb.lower()
    if lower in _COACH_VERBS:
        return _COACH_VERBS[lower]
    if lower in _MODALS or not lower.isalpha():
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


def the_coach(text: str) -> str:
    """ "you repeat my words" -> "the coach repeats my words": the coach is spoken of, and its
    verb agrees."""
    match = _YOU.fullmatch(text)
    if match is None:
        return text
    if match["verb"]:
        return f"the coach {_COACH_VERBS[match['verb']]} {match['adverbs']}{match['rest']}"
    first, _, rest = match["rest"].partition(" ")
    return f"the coach {match['adverbs']}{_agree(first)}{' ' if rest else ''}{rest}"
