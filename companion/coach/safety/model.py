"""The trained weights (``weights.txt`` and ``weights.bin``, written by
``scripts/train_safety.py``) scored in plain Python: a linear model over the features of
``text.py`` and the meaning of the words (the mean over a window of its word pieces' weights,
``pieces.py``), one score per category, turned into probabilities. Loaded once, on first use,
in a few milliseconds (names as text, numbers as raw floats)."""

from __future__ import annotations

import array
import json
import math
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import repeat, starmap
from operator import add, mul
from pathlib import Path

from companion.coach.safety.lexicon import combine, marks
from companion.coach.safety.pieces import split
from companion.coach.safety.text import PAIR, WORD, tokens, units, word_features
from companion.coach.safety.text import WORDS as SPELLED

NONE = "none"
ALARM_LEAN = 0.1
"""How far a word must lean to danger to mark a sentence of a long text for a close read."""
COMMON = frozenset(
    "i me my myself we our you your he him his she her it its they them their what which who "
    "this that these those am is are was were be been being have has had having do does did "
    "doing a an the and but if or because as until while of at by for with about against "
    "between into through during before after above below to from up down in out on off over "
    "under again further then once here there when where why how all any both each few more "
    "most other some such no nor not only own same so than too very s t can will just should "
    "now n id get got go going know like one would could really".split()
)


@dataclass(frozen=True)
class Weights:
    classes: tuple[str, ...]
    intercept: tuple[float, ...]
    at: dict[str, int]
    """Feature name -> where its weights (one per class) start in ``values``."""
    values: Sequence[float]
    """float32 weights: a view of the file's bytes (no copy) where the machine is
    little-endian, as the file is."""
    pieces: dict[str, int]
    """Word piece -> where its weights start: what the sentence model meant by it, folded
    through the trained weights (``scripts/train_safety.py``)."""
    threshold: float
    """Danger when the probability of "none" falls to ``1 - threshold`` or below."""
    known: Sequence[float] = ()
    """For each trained word, in the order of their rows (they come first): its word pieces'
    summed weights and their count, so a known word is not cut into pieces at run time."""

    def weight(self, name: str, i: int) -> float:
        return self.values[self.at[name] + i]


@cache
def weights() -> Weights:
    folder = Path(__file__).parent
    names = (folder / "weights.txt").read_text("utf-8").splitlines()
    header = json.loads(names[0])
    raw = (folder / "weights.bin").read_bytes()
    values: Sequence[float] = memoryview(raw).cast("f")
    if sys.byteorder != "little":
        swapped = array.array("f", raw)
        swapped.byteswap()
        values = swapped
    width = len(header["classes"])
    starts = range(0, (len(names) - 1) * width, width)
    split_at = len(names) - 1 - header.get("pieces", 0)
    rows_end = (len(names) - 1) * width
    known = values[rows_end : rows_end + header.get("words", 0) * (width + 1)]
    return Weights(
        tuple(header["classes"]),
        tuple(header["intercept"]),
        dict(zip(names[1 : split_at + 1], starts[:split_at], strict=True)),
        values,
        dict(zip(names[split_at + 1 :], starts[split_at:], strict=True)),
        float(header["threshold"]),
        known,
    )


@cache
def alarm() -> frozenset[str]:
    """Words that lean towards danger in the weights, and the slang typed for them: a long
    text is read closely only around them (common words left out)."""
    w = weights()
    none = w.classes.index(NONE)
    words = set()
    for name in w.at:
        word = name[2:]
        if name.startswith("w:") and word not in COMMON:
            lean = max(w.weight(name, i) for i in range(len(w.classes)) if i != none)
            if lean - w.weight(name, none) > ALARM_LEAN:
                words.add(word)
    words |= {typed for typed, spelled in SPELLED.items() if words & set(spelled.split())}
    return frozenset(words)


RUN = WORD  # runs of letters and digits in normalised text
TYPED = re.compile(r"[a-z0-9]+'[a-z]+")


def alarmed(sentence: str) -> bool:
    """Whether a normalised sentence holds a word that leans towards danger: its runs of
    letters, and words typed with an apostrophe ("od'd"), looked up in ``alarm()``. One
    pattern of the thousands of words, searched instead, cost a third of the reading of a
    pasted megabyte."""
    words = alarm()
    if not words.isdisjoint(RUN.findall(sentence)):
        return True
    return "'" in sentence and not words.isdisjoint(TYPED.findall(sentence))


def _weigh(starts: Iterable[int | None]) -> list[float]:
    """Summed weights per class of the rows starting at ``starts`` (``None``: no row). Rows
    are sliced and summed column by column, which keeps the loop out of Python."""
    w = weights()
    width, values = len(w.classes), w.values
    rows = [values[start : start + width] for start in starts if start is not None]
    if len(rows) == 1:
        return list(rows[0])
    if not rows:
        return [0.0] * width
    return [sum(column) for column in zip(*rows, strict=True)]


def _features(names: Iterable[str]) -> list[float]:
    """Summed weights per class of some features (a name given twice counts twice)."""
    return _weigh(map(weights().at.get, names))


Word = tuple[float, ...]
"""A word's features' weights per class, then its pieces' summed weights per class, then how
many pieces it has: one flat row, so a sentence's words are summed in one pass."""


@lru_cache(maxsize=100_000)
def _word(word: str, negated: bool) -> Word:
    """A word's row (``Word``)."""
    w = weights()
    width = len(w.classes)
    start = w.at.get("w:" + word)
    if start is not None and start // width * (width + 1) < len(w.known):
        row = start // width * (width + 1)  # a trained word: all of it looked up
        if negated:
            own = tuple(_weigh((start, w.at.get("n:" + word))))
        else:  # most words: one slice, not a sum of one row (5% of a first reading)
            own = tuple(w.values[start : start + width])
        return own + tuple(w.known[row : row + width + 1])
    found = split(word, w.pieces)
    meaning = _weigh(map(w.pieces.__getitem__, found))
    names = word_features(word, negated)
    if names[0] in w.at:  # a trained word: its row holds its letter pieces' weights too
        names = (names[0], names[-1]) if negated else names[:1]
    return (*_features(names), *meaning, len(found))


@lru_cache(maxsize=4_096)
def _concepts(present: frozenset[str]) -> tuple[float, ...]:
    """The weights of the concepts and modifiers found in a window, and of their pairs."""
    return tuple(_features(combine(present)))


Parts = tuple[tuple[float, ...], frozenset[str], tuple[float, ...], int]


@cache
def _pair(start: int) -> Word:
    """A trained word pair's weights (where they start in ``values``) as a ``Word`` row with no
    meaning and no pieces, so it is summed with the words."""
    width = len(weights().classes)
    return (*weights().values[start : start + width], *[0.0] * (width + 1))


@cache
def pairs() -> dict[tuple[str, str], int]:
    """Where each trained word pair's weights start, by its two words (its name is ``PAIR``
    of them): a pasted megabyte's 400,000 neighbours are looked up as they stand, not each
    written out as a name first. Built on first use (2 ms), by a pasted text only."""
    found = {}
    for name, start in weights().at.items():
        if name.startswith("b:"):
            first, _, second = name[2:].partition("_")
            found[first, second] = start
    return found


@lru_cache(maxsize=20_000)
def sentence_parts(sentence: str) -> Parts:
    """A sentence's word-level contribution per class, the concepts in it, and its pieces'
    summed weights and count: words are weighed once each and remembered, so a long text
    costs about its distinct words."""
    spelled = tokens(sentence, normalised=True)
    words, chain = units(spelled)
    width = len(weights().classes)
    rows = list(starmap(_word, words))
    paired = map(weights().at.get, map(PAIR, chain, chain[1:]))
    rows += [_pair(start) for start in paired if start is not None]
    # summed column by column in C: the features' weights, the meaning, the count of pieces
    summed: list[float] = list(map(sum, zip(*rows, strict=True))) or [0.0] * (2 * width + 1)
    return (
        tuple(summed[:width]),
        marks(spelled),
        tuple(summed[width : 2 * width]),
        int(summed[-1]),
    )


def _probabilities(raw: list[float]) -> dict[str, float]:
    w = weights()
    top = max(raw)
    exps = [math.exp(v - top) for v in raw]
    total = sum(exps)
    return {c: e / total for c, e in zip(w.classes, exps, strict=True)}


def window_scores(parts: list[str]) -> list[float]:
    """The model's score per class for sentences read together: what ``text.features`` of
    their text and the mean of their pieces would give it, from remembered sentence weights."""
    vectors, found, meanings, counts = zip(*map(sentence_parts, parts), strict=True)
    count = sum(counts)
    share = 1.0 / count if count else 0.0
    # summed column by column in C (zip, sum, map): a pasted megabyte reads ~20,000 windows
    concepts = _concepts(frozenset().union(*found))
    fixed = map(sum, zip(weights().intercept, concepts, *vectors, strict=True))
    meaning = map(sum, zip(*meanings, strict=True))
    return list(map(add, fixed, map(mul, meaning, repeat(share))))


def window_probabilities(parts: list[str]) -> dict[str, float]:
    """Probabilities for sentences read together."""
    return _probabilities(window_scores(parts))


def window_verdict(parts: list[str], threshold: float | None = None) -> str:
    """``verdict(window_probabilities(parts), threshold)`` without the dictionary: a pasted
    megabyte reads ~20,000 windows."""
    w = weights()
    raw = window_scores(parts)
    line = w.threshold if threshold is None else threshold
    none = w.classes.index(NONE)
    others = raw[:none] + raw[none + 1 :]
    # Danger is s / (1 + s), s the sum of exp(score - score of none) over the others: under
    # the line when s < line / (1 - line), which holds when even len(others) times the largest
    # term is under it. Most windows are told apart so, with no exponential.
    if 0.0 < line < 1.0 and max(others) - raw[none] < math.log(line / (1.0 - line) / len(others)):
        return NONE
    top = max(raw)
    exps = [math.exp(v - top) for v in raw]
    if 1.0 - exps[none] / sum(exps) < line:
        return NONE
    return w.classes[max((i for i in range(len(raw)) if i != none), key=raw.__getitem__)]


def verdict(probs: dict[str, float], threshold: float | None = None) -> str:
    """The most likely danger category, or "none" when danger is unlikely."""
    if 1.0 - probs[NONE] < (weights().threshold if threshold is None else threshold):
        return NONE
    return max((c for c in probs if c != NONE), key=probs.__getitem__)
