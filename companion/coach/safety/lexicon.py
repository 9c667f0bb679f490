"""What is at stake, as concepts the model can weigh beside the words themselves.

Grouped the way screening guidance groups danger (the Columbia Suicide Severity Rating Scale:
wish to be dead, thoughts, method, intent, plan, preparatory behaviour; plus self-harm,
overdose and the medical emergencies of withdrawal and use), and the modulators crisis-line
training teaches listeners to hear: denial, the past, someone else, a figure of speech, now.
Patterns run on normalised text with the slang spelled out (``text.tokens``), so they are
written in plain lower case. docs/safety.md says where each group comes from.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from companion.coach.safety.starts import ANYWHERE, STEM_STARTS, WORD_STARTS

_SUBSTANCES = (
    r"pills?|meds|medication|tablets|xanax|oxy\w*|percocet|fentanyl|heroin|insulin|benzos|"
    r"sleeping pills|tylenol|acetaminophen|methadone|morphine"
)
CONCEPT_PARTS: dict[str, list[str]] = {
    # a wish to be dead, not to exist, not to wake up (C-SSRS 1)
    "wish_dead": [
        r"(want(ed)? to|wish i (was|were|could)|rather|would not mind|hope i|ready to|"
        r"just want to|could just) (be )?(die|dead|gone|disappear|sleep forever)",
        r"(want(ed)? to|wish i could|just want to) (not|never) (be here|be alive|exist|wake up)",
        r"(not|never) (to )?wake up",
        r"wish i (had )?never (been born|woke up)",
        r"better off (dead|without me|gone)",
        r"(world|everyone|they|kids|family) (would be|is|are) better off",
        r"(tired|sick) of (living|being alive|being here|life|existing)",
        r"no (reason|point) (to|in) (live|living|going on|being here|trying)",
        r"do not want to (live|be alive|be here|exist|wake up|go on)",
        r"can not (do this|go on|keep going) (anymore|any longer)",
        r"finish(ed)? the job",
        r"(stop|end) (the|my) (pain|suffering) for good",
        r"will not be (a problem|a burden|around)",
    ],
    # thoughts of killing oneself, intent (C-SSRS 2-4)
    "suicide": [
        r"suicid\w*",
        r"kill(ing)? myself",
        r"end(ing)? (it|it all|my life|things|everything)",
        r"tak(e|ing) my (own )?life",
        r"check(ing)? out( for good)?",
        r"catch the bus|ctb",
        r"not (be )?(here|around) (much longer|tomorrow|next week)",
        r"log(ging)? off for good|game end",
        r"(be|am) done (with life|fighting|for good)",
        r"goodbye (world|everyone|forever)",
        r"last (night|day|time) (on earth|alive)",
    ],
    # a method or the means at hand (C-SSRS 3-5)
    "method": [
        _SUBSTANCES,
        r"bottle|bottles|stash|stockpil\w*|saved up|saving (up )?my",
        r"rope|noose|belt|hang(ing)?",
        r"gun|pistol|rifle|shotgun|revolver|bullets?|trigger",
        r"bridge|ledge|roof|jump(ing)?|tracks|train|traffic",
        r"garage|exhaust|car running|charcoal",
        r"razor|blade|knife|cutter",
        r"whole bag|enough to|how much (it|would) (take|kill)|lethal|fatal",
    ],
    # preparatory acts (C-SSRS 6)
    "prepare": [
        r"(wrote|writing|write|left|leave) (a |my |the )?(goodbye |last |suicide )?"
        r"(note|notes|letter|letters)",
        r"(said|saying) (my )?goodbyes?",
        r"gave away|giving away|give away|new home for",
        r"(affairs|things) in order",
        r"(made|wrote|updated) (a |my )?will|life insurance",
        r"(set|picked|chose) (a|the) (date|day)",
        r"(looked|look|looking|googl\w+|search\w*|research\w*) (up )?(how|what|which)",
        r"bought (a |some |the )?(rope|gun|pills|charcoal|blade)",
        r"delet\w+ (my )?accounts",
        r"passwords? (for|to)",
        r"(make|made|making) sure (the kids|my kids|the dog|the cat|everyone)",
        r"after i am gone|when i am gone",
        r"will not need (it|them) anymore",
    ],
    # self-injury, now or about to be
    "self_harm": [
        r"cut|cutting|cuts|sliced|slit|carv\w+",
        r"burn(ed|t|ing)? (myself|my)",
        r"(hurt|harm|hit|punch(ed)?)(ing)? myself|self harm",
        r"scratch\w* (my|till|until)",
        r"bang(ed|ing)? my head",
        r"lighter to my|lines on my",
        r"bleed(ing)?|blood|marks|scars?|long sleeves|stitches",
        r"need to feel (something|pain)",
    ],
    # taking too much, meant or done
    "too_much": [
        r"overdos\w*",
        r"too (much|many)",
        r"the whole (bottle|bag|pack|box|strip|thing)",
        r"all (of )?(my|the|his|her) (" + _SUBSTANCES + r")",
        r"(took|take|taking|swallowed|swallow|did|doing|shot|snorted|used|use|drank) "
        r"(it all|everything|all of (it|them)|the rest|a (bunch|handful|lot)|double|twice|"
        r"more than)",
        r"handful of",
        r"mix(ed|ing)? (the |my )?(" + _SUBSTANCES + r") (with|and)",
        r"until i (do not|can not) wake",
        r"(use|using|drink|drinking) (until|till) i",
    ],
    # it is happening now, in the body
    "symptom": [
        r"can not (breathe|wake (him|her|them|up)|feel my|stop shaking|move|stand|stay awake)",
        r"(will|would) not wake( up)?",
        r"not breathing|(barely|hardly|stopped) breathing|breathing (weird|funny|slow|strange)",
        r"(turning|went|lips|face) (blue|purple|gray|grey)|blue lips",
        r"unresponsive|passed out|seiz\w*|convuls\w*",
        r"chest (pain|hurts|is tight|tightness)",
        r"heart (is )?(racing|pounding|going crazy|skipping)",
        r"(throw(ing)? up|vomit(ing)?|coughing up) blood",
        r"hit (my|his|her) head",
        r"snoring strange\w*|gurgl\w*|foam\w*",
        r"numb|tingling|vision (is )?(blurry|going)",
        r"seeing (things|bugs|spiders)|hallucinat\w*",
        r"the shakes|dts|delirium|cold and clammy|pinpoint|nodding out",
    ],
    # someone must act now
    "call_help": [
        r"911|999|112|ambulance|er|emergency room|poison control",
        r"call (someone|an ambulance|for help)|narcan|naloxone",
        r"what do i do|help me|is (he|she|this) dying|am i dying",
    ],
}
MODIFIER_PARTS: dict[str, list[str]] = {
    "past": [
        r"used to|years? ago|months? ago",
        r"last (year|summer|winter|spring|fall|month)",
        r"back (then|in)|when i was|in (19|20)\d\d|once|that time",
        r"before i got sober|old me|(back|in) my (using|drinking) days|anniversary of",
    ],
    "resolved": [
        r"anymore|any more|no more|now i am|today i am|these days",
        r"grateful|glad (i|to)|still here|made it",
        r"i am (ok|okay|safe|fine|alright|good)( now)?|doing (better|good|great)",
        r"(days|weeks|months|years) (sober|clean)|sober|clean|recovery",
        r"called my sponsor|talked (to|with) my (therapist|sponsor|counselor)",
        r"(flushed|threw out|gave) (them|the pills) (away|out)",
        r"doctor said|nurse said|all good|passed|helped",
    ],
    "third": [
        r"(my|our|his|her) (brother|sister|mom|mum|mother|dad|father|friend|buddy|uncle|aunt|"
        r"cousin|son|daughter|husband|wife|partner|boyfriend|girlfriend|roommate|sponsor|"
        r"grandma|grandpa|grandmother|grandfather|neighbou?r|coworker|ex)",
        r"(he|she|they) (was|were|had|did|took|died|passed|overdosed|killed)",
    ],
    "death_other": [
        r"died|passed away|funeral",
        r"took (his|her|their) (own )?life|killed (himself|herself|themselves)",
        r"overdosed and died|lost (him|her|them) to",
    ],
    "figure": [
        r"(is|are|was|were|be) killing me|kill(ing)? for (a|an|some)",
        r"dying (to|for|of)|to die for|dead (tired|serious|on|wrong)|killed it",
        r"my (phone|battery|laptop|car) (is|was|died)",
        r"died laughing|nearly died (laughing|of)|heart (stopped|skipped) when",
        r"overdos\w* on (tv|netflix|chocolate|coffee|sugar|cute)",
        r"murder a|could kill (him|her)|drop dead gorgeous",
        r"(work|job|this|mondays?|boss) (makes? me want to die|is killing me)",
        r"lol|lmao|haha",
    ],
    "now": [
        r"right now|tonight|today|just (now|took|did|swallowed)",
        r"an hour ago|minutes ago|(\d+|few|couple) (min|mins|minutes|hours?) ago",
        r"currently|at the moment|this morning|still|again|now",
    ],
}
MODIFIER_WORDS: dict[str, frozenset[str]] = {
    # single words: a set lookup, not a pattern
    "self": frozenset({"i", "me", "my", "myself"}),
    "negation": frozenset({"not", "never", "no", "without", "nobody", "nothing"}),
}


def _source(parts: list[str]) -> str:
    return r"\b(?:" + "|".join(f"(?:{p})" for p in parts) + r")\b"


SOURCES: dict[str, str] = {f"k:{n}": _source(p) for n, p in CONCEPT_PARTS.items()} | {
    f"m:{n}": _source(p) for n, p in MODIFIER_PARTS.items()
}
"""Each concept's and modifier's pattern, as text: compiled when first searched
(``compiled``). Compiling all 14 at import cost 10 ms of the detector's 14 ms import, and
most texts need only a few of them (``places``)."""


@cache
def compiled(name: str) -> re.Pattern[str]:
    return re.compile(SOURCES[name])


def patterns() -> dict[str, re.Pattern[str]]:
    """Every pattern, compiled (for tests and tools)."""
    return {name: compiled(name) for name in SOURCES}


def _parser() -> Any:
    """The standard library's own reading of a pattern (CPython 3.11 on; private, so reached
    by name): how a pattern can begin is read from it, never written twice."""
    return importlib.import_module("re._parser")


_OPEN, _SHUT = True, False
_LIMIT = 200
"""Beginnings kept per pattern: past this, the shorter beginnings found so far stand."""
Heads = list[tuple[str, bool]]


def _heads(items: Iterable[tuple[Any, Any]]) -> Heads:
    """The literal text any match of a parsed sequence begins with, one string per way it can
    begin; ``_OPEN`` when the whole sequence was literal (what follows extends the string)."""
    out: Heads = [("", _OPEN)]
    for op, av in items:
        step = _step(op, av)
        grown: Heads = []
        for head, open_ in out:
            grown += [(head + more, still) for more, still in step] if open_ else [(head, _SHUT)]
        if len(set(grown)) > _LIMIT:  # too many ways: what came before still holds
            return [(head, _SHUT) for head, _ in out]
        out = list(dict.fromkeys(grown))
    return out


def _step(op: Any, av: Any) -> Heads:
    """The literal beginnings of one parsed item (nothing literal: ``("", _SHUT)``)."""
    _sre = _parser()
    if op is _sre.LITERAL:
        return [(chr(av), _OPEN)]
    if op is _sre.AT:  # a zero-width assertion, such as a word boundary
        return [("", _OPEN)]
    if op is _sre.SUBPATTERN:
        return _heads(av[-1])
    if op is _sre.BRANCH:
        return [head for branch in av[1] for head in _heads(branch)]
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) and av[0] >= 1:
        return [(head, _SHUT) for head, _ in _heads(av[2])]
    if op is _sre.IN and all(kind is _sre.LITERAL for kind, _ in av):
        return [(chr(char), _OPEN) for _, char in av]
    if op is _sre.IN and av == [(_sre.CATEGORY, _sre.CATEGORY_DIGIT)]:
        return [(digit, _SHUT) for digit in "0123456789"]
    return [("", _SHUT)]


RUN = re.compile(r"[a-z0-9]+")
STEMS = re.compile(r"[ '](" + "|".join(sorted(STEM_STARTS, key=len, reverse=True)) + ")")
"""The beginnings of words the patterns may begin with, longest first, after the space or
apostrophe before a run of letters (in spelled-out words joined by spaces, with a space put
before them): the one found at a run is the longest it begins with (``STEM_STARTS`` holds the
shorter ones' patterns). Beginning with those two characters, it is searched twice as fast
as from a word boundary."""
Starts = tuple[dict[str, frozenset[str]], dict[str, frozenset[str]], frozenset[str]]


def derive_starts() -> Starts:
    """How each pattern's matches can begin. A match begins at a word boundary, so at the
    start of a run of letters and digits: either a whole run (a word: "cut" in "cut my arm",
    "last" in "last year") or a run's beginning ("suicid" of "suicidal"). Returned: patterns
    by the whole words, patterns by the beginnings, and the patterns that may begin anywhere.
    Reading the patterns takes longer than loading the detector should (tens of ms), so
    ``scripts/train_safety.py`` writes the result to ``starts.py``; a test compares them."""
    words: dict[str, set[str]] = {}
    stems: dict[str, set[str]] = {}
    anywhere = set()
    for name, source in SOURCES.items():
        for head, open_ in _heads(_parser().parse(source)):
            first = RUN.match(head)
            if first is None:
                anywhere.add(name)
            else:
                whole = first.end() < len(head) or open_
                (words if whole else stems).setdefault(first.group(), set()).add(name)
    return (
        {word: frozenset(names) for word, names in sorted(words.items())},
        # a run that begins with a stem begins with each shorter stem of it too
        {
            stem: frozenset().union(*(v for k, v in stems.items() if stem.startswith(k)))
            for stem in sorted(stems)
        },
        frozenset(anywhere),
    )


def places(text: str, spelled: list[str]) -> list[tuple[int, frozenset[str]]]:
    """Each place in ``text`` (the words ``spelled``, joined by spaces) where a run of letters
    is, or begins with, a way some patterns begin (``derive_starts``), with those patterns."""
    found = []
    if "'" in text:  # "mum's" holds two runs, "mum" and "s": found as the patterns see them
        for run in RUN.finditer(text):
            if run.group() in WORD_STARTS:
                found.append((run.start(), WORD_STARTS[run.group()]))
    else:  # each word is a run, at the length of the words before it and their spaces
        at, starts = 0, WORD_STARTS
        for word in spelled:
            if word in starts:
                found.append((at, starts[word]))
            at += len(word) + 1
    found += [(stem.start(), STEM_STARTS[stem.group(1)]) for stem in STEMS.finditer(f" {text}")]
    return found


def marks(spelled: list[str]) -> frozenset[str]:
    """The concepts and modifiers present in spelled-out words (``text.tokens``). A pattern is
    tried only where a match of it could begin (``derive_starts``), not searched along the
    text: a try at one place costs a fraction of a search, and most patterns are tried
    nowhere (the lexicon's searches were a third of the reading of a pasted megabyte)."""
    text = " ".join(spelled)
    found = [f"m:{name}" for name, group in MODIFIER_WORDS.items() if not group.isdisjoint(spelled)]
    found += [name for name in ANYWHERE if compiled(name).search(text)]
    for at, names in places(text, spelled):
        for name in names:
            if name not in found and compiled(name).match(text, at):
                found.append(name)
    return frozenset(found)


def combine(present: frozenset[str]) -> set[str]:
    """Concept features: each concept and modifier, and each concept with each modifier."""
    found = [k for k in present if k.startswith("k:")]
    modifiers = [m for m in present if m.startswith("m:")]
    return {*present, *(f"{k}&{m}" for k in found for m in modifiers)}
