"""Danger the writer denies in so many words: "no i dont want to die", "im not suicidal",
"not gonna hurt myself". Both models hear the danger words and miss the denial (a fifth of the
harmless lines that deny or put a danger in the past raised the crisis screen, on every set),
and a person who has just told the coach they are safe should not get the crisis screen for
it. So a clause that denies a danger is taken out before the models read the text, and the
rest is read as usual: "im not suicidal but i keep thinking about the bridge" is still read
for the bridge.

The denial is narrow on purpose, as negation-scope rules in clinical text are (NegEx,
ConText): a negation right before the danger it governs, in the first person, nothing hedged.
Only dangers whose denial means safety count ("die", "kill myself", "hurt myself"), never
the words of life ("i dont want to live", "not waking up" are dangers), and a denial that is
hedged ("cant promise i wont", "not sure i dont"), conditional ("if", "unless") or bounded
in time ("not tonight", "not yet") is left for the models."""

from __future__ import annotations

import re

_SELF = r"(?:myself|my ?self)"
_DANGER = (
    r"(?:die|be dead|kill " + _SELF + r"|end (?:my life|it all|it|things)|take my (?:own )?life"
    r"|(?:hurt|harm|cut|burn) " + _SELF + r"|self ?harm|cut|relapse on (?:sh|self ?harm)"
    r"|do (?:anything|something) (?:stupid|drastic)|overdose|od|unalive "
    + _SELF
    + r"|commit suicide|suicide|kms)"
)
_INTEND = r"(?:want|wanna|plan|intend|mean|need|have|feel like)(?: to)?"
_GOING = r"(?:going to|gonna|gona|about to|trying to)"
_DENIED = (
    r"(?:(?:i |we )?(?:dont|don't|do not|didnt|didn't|never) "
    + _INTEND
    + r" "
    + _DANGER
    + r"|(?:(?:i|im|i'm|i am) )?(?:not|never) "
    + _GOING
    + r" "
    + _DANGER
    + r"|(?:i |i'll |ill )?(?:wont|won't|will not|would never|will never|wouldnt|wouldn't) "
    + _DANGER
    + r"|(?:(?:im|i'm|i am) )?(?:not|never been) suicidal"
    + r"|(?:i have |i've |ive |i'm having |im having |having )?no (?:thoughts|plans?|intention|"
    r"intent|urges?|desire|wish) (?:of|to|about) "
    + _DANGER
    + r"|(?:i'm |im |i am )?not (?:having|thinking about|planning|planning on|planning to) "
    r"(?:any )?(?:thoughts of |urges to )?" + _DANGER + r")"
)
_HEDGE = (
    r"(?:promise|sure|know|knew|swear|saying|say|think|hope|hoping|try|trying|might|maybe|"
    r"if|unless|whether|guess|suppose|pretend|pretending|lie|lying|told|tell|said|wish)"
)
_ENDS = (
    r"(?=(?:\s+(?:at all|or anything|or whatever|lol|honestly|really|promise|"
    r"ever|anymore|i promise|i swear))*\s*(?:[.,;:!]|$|\b(?:but|just|i just|im just|i'm just|"
    r"and|though|cause|because|i want|i wanna|i need)\b))"
)
"""What may follow a denial: a clause's end, nothing bounding it ("not tonight", "dont want
to die in a tip" are not denials)."""
DENIAL = re.compile(r"(?:^|(?<=[\s,;:]))(?:no,? |nope,? |nah,? )?" + _DENIED + _ENDS)
CLAUSE = re.compile(r"[,;:]|\b(?:but|though|although|because|cause|cuz|just|only|and)\b")
HEDGED = re.compile(r"\b" + _HEDGE + r"\b")
BACK = re.compile(r"\b(?:do|doing|did|done) (?:it|that|this)\b")
"""The denied act named again after it ("i dont want to kill myself, i want someone else to
do it"): taken out, the denial would leave the act without its name."""
FILLER = frozenset("i promise swear honestly really lol okay ok so yeah".split())
"""Words that say nothing once the denial they went with is taken out."""
WORD = re.compile(r"[a-z]+")
NEGATING = frozenset(
    "dont don do didnt didn never not no nope nah wont won will wouldnt wouldn".split()
)
DENIABLE = frozenset(
    "die dead kill kms end take hurt harm cut burn self sh stupid drastic overdose od unalive "
    "suicide suicidal".split()
)
"""Words one of which each side of a denial holds: a sentence without both is not searched
(a pasted megabyte has tens of thousands of sentences)."""


NEAR = 300
"""Characters each side of a denial searched for its clause, a hedge, a question or the act
named again: the whole rest of the sentence, each time, made a megabyte pasted as one
sentence take seconds."""


def without_denials(sentence: str) -> str:
    """A normalised sentence with each clause that denies a danger taken out (the rest of
    the sentence kept as written); the sentence itself when nothing is denied."""
    words = set(WORD.findall(sentence))
    if words.isdisjoint(NEGATING) or words.isdisjoint(DENIABLE):
        return sentence
    out, start = [], 0
    for found in DENIAL.finditer(sentence):
        before = sentence[max(start, found.start() - NEAR) : found.start()]
        clause_start = max((m.end() for m in CLAUSE.finditer(before)), default=0)
        after = sentence[found.end() : found.end() + NEAR]
        if HEDGED.search(before[clause_start:]) or _questioned(after) or BACK.search(after):
            continue
        out.append(sentence[start : found.start()])
        start = found.end()
    if not out:
        return sentence
    kept = " ".join(" ".join(out).split() + sentence[start:].split()).strip(" ,;:.!")
    return "" if set(WORD.findall(kept)) <= FILLER else kept


def _questioned(rest: str) -> bool:
    """Whether the sentence goes on to a question mark after a denial ("i wont hurt myself,
    will i?", "not suicidal, is that weird?"): a question about safety is left to the models."""
    return "?" in rest
