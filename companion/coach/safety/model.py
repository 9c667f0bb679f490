"""The trained weights (``weights.txt`` and ``weights.bin``, written by
``scripts/train_safety.py``) scored in plain Python: a linear model over the features of
``text.py``, one score per category, turned into probabilities. Loaded once, on first use, in a
few milliseconds (names as text, numbers as raw floats)."""

from __future__ import annotations

import array
import json
import math
import re
import sys
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from companion.coach.safety.lexicon import combine, marks
from companion.coach.safety.text import WORDS as SPELLED
from companion.coach.safety.text import tokens, units, word_features

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
    values: array.array[float]
    threshold: float
    """Danger when the probability of "none" falls to ``1 - threshold`` or below."""

    def weight(self, name: str, i: int) -> float:
        return self.values[self.at[name] + i]


@cache
def weights() -> Weights:
    folder = Path(__file__).parent
    head, *names = (folder / "weights.txt").read_text("utf-8").splitlines()
    header = json.loads(head)
    values = array.array("f")
    values.frombytes((folder / "weights.bin").read_bytes())
    if sys.byteorder != "little":
        values.byteswap()
    width = len(header["classes"])
    return Weights(
        tuple(header["classes"]),
        tuple(header["intercept"]),
        dict(zip(names, range(0, len(names) * width, width), strict=True)),
        values,
        float(header["threshold"]),
    )


@cache
def alarm() -> re.Pattern[str]:
    """Words that lean towards danger in the weights, and the slang typed for them, as one
    pattern: a long text is read closely only around them (common words left out)."""
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
    alternatives = "|".join(re.escape(x) for x in sorted(words, key=len, reverse=True))
    return re.compile(r"\b(?:" + alternatives + r")\b")


def _weigh(found: dict[str, int] | tuple[str, ...]) -> list[float]:
    """Summed weights per class of some features (a tuple counts each name once)."""
    w = weights()
    width = len(w.classes)
    counts = found if isinstance(found, dict) else dict.fromkeys(found, 1)
    total = [0.0] * width
    values, at = w.values, w.at
    for name, count in counts.items():
        start = at.get(name)
        if start is not None:
            for i in range(width):
                total[i] += count * values[start + i]
    return total


@lru_cache(maxsize=100_000)
def _word(word: str, negated: bool) -> tuple[float, ...]:
    return tuple(_weigh(word_features(word, negated)))


@lru_cache(maxsize=20_000)
def sentence_parts(sentence: str) -> tuple[tuple[float, ...], frozenset[str]]:
    """A sentence's word-level contribution per class, and the concepts in it: words are
    weighed once each and remembered, so a long text costs about its distinct words."""
    spelled = tokens(sentence, normalised=True)
    words, pairs = units(spelled)
    total = _weigh(Counter(pairs))
    for word, negated in words:
        for i, value in enumerate(_word(word, negated)):
            total[i] += value
    return tuple(total), marks(spelled)


def _probabilities(raw: list[float]) -> dict[str, float]:
    w = weights()
    top = max(raw)
    exps = [math.exp(v - top) for v in raw]
    total = sum(exps)
    return {c: e / total for c, e in zip(w.classes, exps, strict=True)}


def window_probabilities(parts: list[str]) -> dict[str, float]:
    """Probabilities for sentences read together: what ``text.features`` of their text would
    give the model, from remembered sentence weights."""
    w = weights()
    raw = list(w.intercept)
    present: frozenset[str] = frozenset()
    for sentence in parts:
        vector, found = sentence_parts(sentence)
        present |= found
        for i, value in enumerate(vector):
            raw[i] += value
    for i, value in enumerate(_weigh(tuple(combine(present)))):
        raw[i] += value
    return _probabilities(raw)


def verdict(probs: dict[str, float], threshold: float | None = None) -> str:
    """The most likely danger category, or "none" when danger is unlikely."""
    if 1.0 - probs[NONE] < (weights().threshold if threshold is None else threshold):
        return NONE
    return max((c for c in probs if c != NONE), key=probs.__getitem__)
