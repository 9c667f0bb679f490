"""The linear model's probabilities for a fold's transfer set, for a reader of word order that
completes the linear model instead of copying its teacher (``train_safety_reader
--complement``; docs/safety.md, "A reader that completes the linear model").

Why: the app averages the two readers, so the student is trained on that mean, and its
gradient goes where the linear model is wrong. The linear model is rarely wrong on sentences it
trained on, so these probabilities are out of sample: the fold's training sentences are split
in four (grouped as ``safety_cv`` groups them), and each quarter, with its noisy copies, is
scored by a linear model trained on the other three.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripts.safety_cv import folds
from scripts.train_safety import Meaning, design

INNER = 4


def sources(texts: list[str], hard: list[int], row_of: dict[str, int], copies: int) -> list[int]:
    """The row each transfer text comes from. A transfer set is blocks of sentences (``hard``
    their category) each followed by ``copies`` noisy copies of each, in order
    (``train_safety_reader.transfer``)."""
    out: list[int] = []
    at = 0
    while at < len(texts):
        n = 0
        while at + n < len(texts) and hard[at + n] >= 0:
            n += 1
        block = [row_of[texts[at + j]] for j in range(n)]
        out += block + [block[j // copies] for j in range(copies * n)]
        at += (copies + 1) * n
    return out


def linear_transfer(
    cache: Path,
    rows: list[dict[str, str]],
    train: list[int],
    texts: list[str],
    hard: list[int],
    classes: list[str],
    copies: int,
) -> Any:
    """Out-of-sample linear probabilities (``classes`` order) for each transfer text, from the
    rows ``train`` (a fold's training rows); kept in ``cache``."""
    import numpy as np
    import torch
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    if cache.exists():
        saved = np.load(cache)
        if len(saved) == len(texts):
            return torch.tensor(saved)
    source = np.array(sources(texts, hard, {rows[i]["text"]: i for i in train}, copies))
    inner = dict(zip(train, folds([rows[i] for i in train], INNER), strict=True))
    meaning, vec = Meaning(3.0), DictVectorizer()
    x_rows = design(rows, vec, meaning, fit=True)  # the vocabulary of all rows, as safety_cv
    x_texts = design([{"text": t} for t in texts], vec, meaning)
    part = np.array([inner[s] for s in source])
    out = np.zeros((len(texts), len(classes)), dtype=np.float32)
    for j in range(INNER):
        fit_on = [i for i in train if inner[i] != j]
        model = LogisticRegression(C=1.0, max_iter=4000)
        model.fit(x_rows[fit_on], [rows[i]["category"] for i in fit_on])
        scored = np.where(part == j)[0]
        order = [list(model.classes_).index(c) for c in classes]
        out[scored] = model.predict_proba(x_texts[scored])[:, order]
    np.save(cache, out)
    return torch.tensor(out)
