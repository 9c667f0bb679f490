"""When two facts say the same thing, so a restatement merges and a contradiction never does.

``canonical`` reduces a fact to what it claims: a sorted set of word stems with the wording
taken out (case, punctuation, articles, tense, "the user" / "Sam" / "he" as the subject,
number words, date and time formats, UK/US spelling, and words that mean the same in a
recovering person's life: "mum" / "mother", "kid" / "child", "couldn't sleep" / "insomnia",
Zoloft / sertraline). What is kept is everything that could make two facts differ: places,
people, numbers, dates, times, quantities, and negation, which is bound to the word it denies
("doesn't drink" is ``not_drink``, never ``drink``; "quit", "stopped", "no longer", "never",
"teetotal", "dislikes" deny too). Prepositions that change who does what ("with", "from",
"after", "off") are kept, and so is the user as an object ("his mum calls him" has ``self``,
"calls his mum" has not), since dropping the subject would otherwise make them one fact.

The rule. ``same_fact(a, b)`` holds exactly when ``canonical(a) == canonical(b)`` and, if
either fact has an order word (than, prefer, rather, instead, over, from, before, after,
until, versus), the kept words also come in the same order ("prefers coffee to tea" is not
"prefers tea to coffee"). There is no similarity threshold: on the labelled pairs every
contradiction and every different fact differs in at least one kept word on at least one side,
and a threshold that allows any such difference merges "lives in Leeds" with "lives in York"
or "works at the bakery" with "works at the bakery on Saturdays". Strictness costs recall
(a duplicate kept twice), which is cheaper than a contradiction merged away.

Measured on tests/data/fact_pairs.json (177 pairs: 80 duplicates, 55 contradictions,
42 different; split before the rule was written, tuned on "tune" only, then measured once on
"test"; ``python -m benchmarks.likeness_bench`` prints them):

- tune (94 pairs): duplicate recall 41/42 = 0.976, false merges 0/52.
- test (83 pairs): duplicate recall 36/38 = 0.947, false merges 0/45.

What it misses is meaning the words do not carry: "is married to Jo" / "Jo is his wife",
"has been to rehab" / "went to rehab", "has a dog" / "has a dog called Rex" (a detail added
is another fact, as "works at the bakery on Saturdays" is), and a fact reordered around an
order word. Known blind spots, merged although they may differ: the tense of a state ("was
married" and "is married" are one fact; "used to" is kept) and plurals ("has a cat" / "has
cats").

The canonical form is also the one a forgotten fact's mark is keyed with
(``forgetting.fingerprint``; marks made before it keyed ``common.normalized``), so "works at the
bakery.", "Works at a bakery" and "Sam works at the bakery" are known again.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from companion.memory import entities
from companion.memory.likeness_words import (
    CLOCK,
    CURRENCY,
    DATES,
    FILLER,
    FLIPPERS,
    IRREGULAR,
    KEPT,
    LEXICON_GROUPS,
    LEXICON_LEAVE_OUT,
    MEASURES,
    MONEY,
    MONTHS,
    NEGATORS,
    ORDER,
    ORDINALS,
    PHRASE_RULES,
    RELATIONS_LEAVE_OUT,
    SAME,
    SELF,
    SPELLING,
    SUBJECTS,
    TENS,
    TOKEN,
    UNITS,
)
from companion.retrieval import lexicon
from companion.vault import words


@functools.cache
def _same() -> dict[str, str]:
    """Each stem and the stem that stands for its group: the first word of the first group it
    is in (relations, then the local table, then the lexicon), so "mum" reads "mother"."""
    groups = [
        [name, *(a for a in aliases if a.isalpha() and a not in RELATIONS_LEAVE_OUT)]
        for name, aliases in entities.RELATIONS.items()
        if name not in RELATIONS_LEAVE_OUT
    ]
    groups += [line.split() for line in SAME]
    for line in lexicon.ALIKE:
        members = line.split()
        if any(w in members for w in LEXICON_GROUPS):
            groups.append([w for w in members if w not in LEXICON_LEAVE_OUT])
    parent: dict[str, str] = {}
    seen: dict[str, int] = {}  # when a stem was first met: the earlier root wins a join

    def root(s: str) -> str:
        while parent.setdefault(s, s) != s:
            s = parent[s]
        return s

    for group in groups:
        stems = [_stem(w) for w in group]
        for s in stems:
            seen.setdefault(s, len(seen))
        for s in stems[1:]:
            a, b = sorted((root(stems[0]), root(s)), key=seen.__getitem__)
            if a != b:
                parent[b] = a
    return {s: root(s) for s in parent if root(s) != s}


@functools.cache
def _grouped() -> frozenset[str]:
    """Every stem in a group of words that mean the same (relation words among them)."""
    return frozenset(_same()) | frozenset(_same().values())


def _stem(word: str) -> str:
    word = SPELLING.get(word, word)
    return words.stem(IRREGULAR.get(word, word))


def _number(tokens: list[str], i: int) -> tuple[str, int] | None:
    """A number said in words at ``tokens[i]`` ("thirty four", "two hundred"): digits and the
    count of words read."""
    value, n = 0, 0
    if tokens[i] in TENS:
        value, n = TENS[tokens[i]], 1
        if i + 1 < len(tokens) and tokens[i + 1] in UNITS and 0 < UNITS[tokens[i + 1]] < 10:
            value, n = value + UNITS[tokens[i + 1]], 2
    elif tokens[i] in UNITS:
        value, n = UNITS[tokens[i]], 1
    elif tokens[i] == "hundred":
        value, n = 1, 0
    else:
        return None
    if i + n < len(tokens) and tokens[i + n] == "hundred":
        value, n = value * 100, n + 1
    return str(value), max(n, 1)


def _dates(text: str) -> str:
    """Dates as ISO words: "3rd March 2024" and "March 3, 2024" are "2024-03-03"."""

    def as_iso(order: tuple[int, int, int]) -> Callable[[re.Match[str]], str]:
        def put(m: re.Match[str]) -> str:
            y, mo, d = (m[g] if g else "" for g in order)
            month = int(mo) if mo.isdigit() else MONTHS[mo.lower()]
            if y and d:
                return f" {y}-{month:02d}-{int(d):02d} "
            if y:
                return f" {y}-{month:02d} "
            return f" --{month:02d}-{int(d):02d} "

        return put

    for pattern, order in DATES:
        text = pattern.sub(as_iso(order), text)
    return text


def _read(text: str) -> list[tuple[str, bool, bool]]:
    """The words of a fact after rewriting: (word in lower case, capitalised, possessive)."""
    text = text.replace("’", "'").replace("‘", "'").replace("&", " and ")
    text = _dates(text)
    text = MONEY.sub(
        lambda m: f" {float(m[2].replace(',', '')) * (1000 if m[3] else 1):g} {CURRENCY[m[1]]} ",
        text,
    )
    for pattern, replacement in PHRASE_RULES:
        text = pattern.sub(replacement, text)
    out = []
    for m in TOKEN.finditer(text):
        word = m[0]
        possessive = word.lower().endswith("'s")
        bare = word[:-2] if possessive else word
        out.append((bare.lower(), bare[:1].isupper(), possessive))
    return out


@functools.lru_cache(maxsize=8192)
def _terms_of(text: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """``_terms``, remembered: a new fact is compared with every known one, whose words do not
    change (1,000 comparisons took 230 ms; the extraction runs them on the app's loop)."""
    return tuple(_terms(text, names))


def _terms(text: str, names: Iterable[str]) -> list[str]:
    """The kept words of a fact, in order, each once: what ``canonical`` sorts."""
    own = {w for name in names for w, _, _ in _read(name)}
    tokens = _read(text)
    # The subject, said or not, is the user: "Sam", "the user", "he", "I".
    while tokens:
        word = tokens[0][0]
        if word in own or word in SUBJECTS:
            tokens = tokens[1:]
        elif word == "the" and len(tokens) > 1 and tokens[1][0] in SUBJECTS:
            tokens = tokens[2:]
        else:
            break
    plain = [w for w, _, _ in tokens]
    same, stop = _same(), words.STOP
    out: list[str] = []
    negated = False
    i = 0
    while i < len(tokens):
        word, capital, possessive = tokens[i]
        nxt = plain[i + 1] if i + 1 < len(plain) else ""
        i += 1
        if word in own or (
            word in ("user", "person", "client") and i > 1 and plain[i - 2] == "the"
        ):
            if not possessive:
                out.append("self")  # the user as an object: "his mum calls Sam"
            continue
        if word in NEGATORS or word in FLIPPERS:
            negated = not negated  # "hasn't quit" is "does"
            continue
        if word in SELF or (word == "her" and (not nxt or nxt in stop or nxt[0].isdigit())):
            out.append("self")
            continue
        if word in ORDINALS:
            word = ORDINALS[word]
        elif (number := _number(plain, i - 1)) is not None:
            word, used = number
            i += used - 1
        if word in FILLER or (word in stop and word not in KEPT):
            continue
        nxt = plain[i] if i < len(plain) else ""
        if CLOCK.fullmatch(word) and nxt in MEASURES:
            word, i = word + nxt, i + 1  # "6 am" is "6am", "50 mg" is "50mg"
        if word[:1].isdigit():
            word = word.replace(":00", "")  # "6:00am" is "6am"
        if word == "1" and nxt.isalpha():
            continue  # "one son" is "a son"
        if word[:1].isdigit() or word.startswith("--"):
            term = word
        else:
            term = _stem(word)
            term = same.get(term, term)
            if possessive and capital and term not in _grouped():
                term += "'s"  # "Jo's daughter" is not "Jo, the daughter"; "Mum's" is "mum"
        if negated and word not in KEPT:  # "doesn't get on with his dad" denies the dad
            term, negated = "not_" + term, False
        if out and out[-1].removeprefix("not_") == term:
            continue  # "drink alcohol" is one word said twice
        out.append(term)
    if negated:
        out.append("not")
    return list(dict.fromkeys(out))


def canonical(text: str, names: Iterable[str] = ()) -> str:
    """What a fact claims, as sorted words: equal for restatements, so it can key a forgotten
    fact's mark. ``names`` are the user's own names: as the subject or an owner ("Sam's mum")
    they go, as an object ("Mum calls Sam") they read ``self``, like "him"."""
    return " ".join(sorted(set(_terms_of(text, tuple(names)))))


def _ordered(text: str) -> bool:
    return any(w in ORDER for w, _, _ in _read(text))


def same_fact(a: str, b: str, names: Iterable[str] = ()) -> bool:
    """Whether ``a`` and ``b`` say the same thing, so one merges into the other. Never true for
    a contradiction or another fact: see the rule in the module docstring."""
    names = tuple(names)
    terms_a, terms_b = _terms_of(a, names), _terms_of(b, names)
    if set(terms_a) != set(terms_b) or not terms_a:
        return False
    if _ordered(a) or _ordered(b):
        return terms_a == terms_b
    return True
