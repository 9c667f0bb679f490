"""The windows of a pasted text, scored all at once on numpy: what ``model.window_verdict``
decides for each, with the sums done over arrays instead of one Python loop per sentence and
per window (a pasted megabyte holds ~20,000 of each; the loops were a third of its reading).

The sums are ``model.window_scores``' (a sentence's words, its trained word pairs, then a
window's sentences), grouped a little differently: float32 weights add up exactly in doubles,
so the scores come out the same. A test compares the verdicts on every training text's
windows.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple

from companion.coach.safety import model
from companion.coach.safety.lexicon import marks
from companion.coach.safety.text import tokens, units

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


def _sums(rows: NDArray[np.float64], owner: list[int], count: int) -> NDArray[np.float64]:
    """``rows`` summed by the sentence each belongs to (``owner``, in order): one row per
    sentence, zeros for a sentence with none."""
    import numpy as np

    owners = np.array(owner, dtype=np.intp)
    starts = np.searchsorted(owners, np.arange(count))
    padded = np.vstack([rows, np.zeros((1, rows.shape[1]))])  # an empty last one starts here
    summed = np.add.reduceat(padded, starts, axis=0)
    summed[np.bincount(owners, minlength=count) == 0] = 0.0
    return summed


class _Sentences(NamedTuple):
    """What ``model.sentence_parts`` gives each sentence, as arrays: one row per sentence."""

    own: NDArray[np.float64]
    meaning: NDArray[np.float64]
    pieces: NDArray[np.float64]
    found: list[frozenset[str]]


def _read(sentences: list[str]) -> _Sentences:
    """Each sentence's words' and trained pairs' weights summed, and its concepts."""
    import numpy as np

    w = model.weights()
    width = len(w.classes)
    pair_at = model.pairs()
    known: dict[tuple[str, bool], int] = {}
    rows: list[tuple[float, ...]] = []
    words_used: list[int] = []
    words_owner: list[int] = []
    pairs_used: list[int] = []
    pairs_owner: list[int] = []
    found = []
    for i, sentence in enumerate(sentences):
        spelled = tokens(sentence, normalised=True)
        words, chain = units(spelled)
        for word in words:
            if word not in known:  # first met in this text: its row, once
                known[word] = len(rows)
                rows.append(model._word(*word))
        words_used += map(known.__getitem__, words)
        words_owner += [i] * len(words)
        trained = [at for at in map(pair_at.get, pairwise(chain)) if at is not None]
        pairs_used += trained
        pairs_owner += [i] * len(trained)
        found.append(marks(spelled))
    table = np.array(rows, dtype=np.float64).reshape(-1, 2 * width + 1)
    summed = _sums(table[np.array(words_used, dtype=np.intp)], words_owner, len(sentences))
    flat = np.asarray(w.values, dtype=np.float32)  # the weights' own bytes, not copied
    starts = np.array(pairs_used, dtype=np.intp).reshape(-1, 1)
    paired = flat[starts + np.arange(width)].astype(np.float64)
    own = summed[:, :width] + _sums(paired, pairs_owner, len(sentences))
    return _Sentences(own, summed[:, width : 2 * width], summed[:, -1], found)


def verdicts(windows: list[list[str]], threshold: float | None) -> list[str]:
    """``model.window_verdict(window, threshold)`` for each window."""
    import numpy as np

    w = model.weights()
    width = len(w.classes)
    number: dict[str, int] = {}
    for window in windows:
        for sentence in window:
            number.setdefault(sentence, len(number))
    read = _read(list(number))
    where = [[number[sentence] for sentence in window] for window in windows]
    concepts = [model._concepts(frozenset().union(*(read.found[i] for i in at))) for at in where]
    fixed = np.array(w.intercept) + np.array(concepts).reshape(-1, width)
    meant = np.zeros((len(windows), width))
    pieces = np.zeros(len(windows))
    for k in range(max(map(len, where), default=0)):  # the k-th sentence of every window
        has = np.array([len(at) > k for at in where])
        kth = np.array([at[k] if len(at) > k else 0 for at in where], dtype=np.intp)
        fixed += np.where(has[:, None], read.own[kth], 0.0)
        meant += np.where(has[:, None], read.meaning[kth], 0.0)
        pieces += np.where(has, read.pieces[kth], 0.0)
    share = np.divide(1.0, pieces, out=np.zeros_like(pieces), where=pieces > 0)
    raw = fixed + share[:, None] * meant
    none = w.classes.index(model.NONE)
    exps = np.exp(raw - raw.max(axis=1, keepdims=True))
    danger = 1.0 - exps[:, none] / exps.sum(axis=1)
    line = w.threshold if threshold is None else threshold
    raw[:, none] = -np.inf  # the likeliest danger, whatever none's score
    best = raw.argmax(axis=1)
    return [w.classes[b] if d >= line else model.NONE for d, b in zip(danger, best, strict=True)]
