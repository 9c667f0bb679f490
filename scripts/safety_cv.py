"""Compare crisis-detector models by grouped cross-validation on the development half and the
training pool (the held-back half is never read here).

    python -m scripts.safety_cv [--models linear,stacked] [--folds 5]

Why grouped: sentences that share half their words or more (near-duplicates written from one
idea) are kept in one fold, so a model is not rewarded for remembering a twin. Printed per
model: average precision (AP) of the danger score, danger recall at precision 0.90 (R@P.90),
recall / precision at a few thresholds, and per-category recall at the threshold giving
precision 0.90.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from typing import Any

from pathlib import Path

from scripts.train_safety import NONE, THRESHOLDS, Meaning, design, load, training_rows

Rows = list[dict[str, str]]


def groups(rows: Rows) -> list[int]:
    """A group id per row: rows sharing half the words of the longer one or more are joined."""
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer

    x = CountVectorizer(binary=True).fit_transform([r["text"].lower() for r in rows])
    size = np.asarray(x.sum(1)).ravel()
    shared = (x @ x.T).tocoo()
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j, n in zip(shared.row, shared.col, shared.data, strict=True):
        if i < j and n >= 0.5 * max(size[i], size[j], 1):
            parent[root(i)] = root(j)
    return [root(i) for i in range(len(rows))]


def folds(rows: Rows, k: int, seed: int = 7) -> list[int]:
    """A fold per row, whole groups at a time, in a seeded random order."""
    ids = groups(rows)
    order = sorted(set(ids))
    random.Random(seed).shuffle(order)
    fold_of = {g: n % k for n, g in enumerate(order)}
    return [fold_of[g] for g in ids]


def scores(truth: list[str], danger: list[float]) -> tuple[float, float, float]:
    """Average precision, recall at precision 0.90, and the threshold that gives it."""
    from sklearn.metrics import average_precision_score, precision_recall_curve

    positive = [t != NONE for t in truth]
    ap = float(average_precision_score(positive, danger))
    precision, recall, cuts = precision_recall_curve(positive, danger)
    best, at = 0.0, 1.0
    for p, r, t in zip(precision[:-1], recall[:-1], cuts, strict=True):
        if p >= 0.90 and r > best:
            best, at = float(r), float(t)
    return ap, best, at


def summary(name: str, truth: list[str], danger: list[float], cats: list[str]) -> None:
    ap, r90, at = scores(truth, danger)
    points = []
    for threshold in THRESHOLDS:
        hits = [(t != NONE, d >= threshold) for t, d in zip(truth, danger, strict=True)]
        tp = sum(t and h for t, h in hits)
        fp = sum(h and not t for t, h in hits)
        positives = sum(t for t, _ in hits)
        points.append(f"{threshold:.2f} {tp / positives:.3f}/{tp / max(1, tp + fp):.3f}")
    per = []
    for cat in sorted(set(truth) - {NONE}):
        idx = [i for i, t in enumerate(truth) if t == cat]
        per.append(f"{cat[:8]} {sum(danger[i] >= at for i in idx) / len(idx):.2f}")
    print(f"{name}: AP {ap:.3f}  R@P.90 {r90:.3f} (at {at:.2f})")
    print("   " + "  ".join(points))
    print("   at P.90: " + "  ".join(per))
    del cats


Model = Callable[[Any, Rows, Any, Rows], list[dict[str, float]]]


def linear(c: float = 1.0) -> Model:
    def run(x_train: Any, train: Rows, x_test: Any, test: Rows) -> list[dict[str, float]]:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=c, max_iter=4000)
        model.fit(x_train, [r["category"] for r in train])
        return [dict(zip(model.classes_, p, strict=True)) for p in model.predict_proba(x_test)]

    return run


def mlp(hidden: int = 32, alpha: float = 1e-3, seed: int = 0) -> Model:
    def run(x_train: Any, train: Rows, x_test: Any, test: Rows) -> list[dict[str, float]]:
        from sklearn.neural_network import MLPClassifier

        model = MLPClassifier((hidden,), alpha=alpha, max_iter=200, random_state=seed)
        model.fit(x_train, [r["category"] for r in train])
        return [dict(zip(model.classes_, p, strict=True)) for p in model.predict_proba(x_test)]

    return run


def flags(x: Any, names: list[str]) -> Any:
    """The lexicon's concepts and modifiers (not their pairs) as 0/1 columns."""
    keep = [i for i, n in enumerate(names) if n[:2] in ("k:", "m:") and "&" not in n]
    return (x[:, keep] > 0).astype(float)


def stacked(flag_x: Any, second: str = "mlp", hidden: int = 16, alpha: float = 1e-2,
            inner: int = 4) -> Model:
    """A linear model, then a small second stage over its out-of-fold log-probabilities and
    the lexicon flags."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.ensemble import HistGradientBoostingClassifier
    from scipy.sparse import hstack, csr_matrix

    def run(x_train: Any, train: Rows, x_test: Any, test: Rows) -> list[dict[str, float]]:
        labels = [r["category"] for r in train]
        ids = [r["_i"] for r in train]
        inner_fold = folds(train, inner, seed=11)
        oof = np.zeros((len(train), 9))
        for n in range(inner):
            a = [i for i, f in enumerate(inner_fold) if f != n]
            b = [i for i, f in enumerate(inner_fold) if f == n]
            m = LogisticRegression(C=1.0, max_iter=4000).fit(x_train[a], [labels[i] for i in a])
            oof[b] = m.predict_log_proba(x_train[b])
        m = LogisticRegression(C=1.0, max_iter=4000).fit(x_train, labels)
        test_lp = m.predict_log_proba(x_test)
        f_train = flag_x[ids]
        f_test = flag_x[[r["_i"] for r in test]]
        z_train = np.hstack([oof, f_train.toarray()])
        z_test = np.hstack([test_lp, f_test.toarray()])
        if second == "mlp":
            s = MLPClassifier((hidden,), alpha=alpha, max_iter=2000, random_state=0)
        else:
            s = HistGradientBoostingClassifier(max_depth=2, learning_rate=0.05, max_iter=300)
        s.fit(z_train, labels)
        return [dict(zip(s.classes_, p, strict=True)) for p in s.predict_proba(z_test)]

    return run


def cross_validate(
    rows: Rows, x: Any, model: Model, fold: list[int], k: int
) -> list[dict[str, float]]:
    """Out-of-fold probabilities; rows of fold -1 (new sentences) are only ever trained on."""
    danger: list[dict[str, float]] = [{}] * len(rows)
    for n in range(k):
        test = [i for i, f in enumerate(fold) if f == n]
        train = [i for i, f in enumerate(fold) if f != n]
        probs = model(x[train], [rows[i] for i in train], x[test], [rows[i] for i in test])
        for i, p in zip(test, probs, strict=True):
            danger[i] = p
    return [d for d, f in zip(danger, fold, strict=True) if f >= 0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--models", default="")
    parser.add_argument("--save", default="", help="a folder for the out-of-fold scores")
    parser.add_argument("--extra", default="", help="files of sentences only trained on")
    parser.add_argument("--meaning", type=float, default=3.0)
    args = parser.parse_args()
    from sklearn.feature_extraction import DictVectorizer

    rows = training_rows()
    extra = load([Path(p) for p in args.extra.split(",")]) if args.extra else []
    rows = [r for r in rows if r["text"] not in {e["text"] for e in extra}]
    meaning = Meaning(args.meaning)
    fold = folds(rows, args.folds)
    truth = [r["category"] for r in rows]
    if extra:
        rows, fold = rows + extra, fold + [-1] * len(extra)
    print(f"{len(rows):,} sentences, {len(set(groups(rows))):,} groups")
    vec = DictVectorizer()
    x = design(rows, vec, meaning, fit=True)
    for i, r in enumerate(rows):
        r["_i"] = i  # type: ignore[assignment]
    flag_x = flags(x, list(vec.feature_names_) + ["d"] * (x.shape[1] - len(vec.feature_names_)))
    candidates: dict[str, Model] = {
        "linear": linear(),
        "stacked-mlp16": stacked(flag_x),
        "stacked-gbm": stacked(flag_x, "gbm"),
        "mlp32-a1e-3": mlp(32, 1e-3),
        "mlp32-a1e-1": mlp(32, 1e-1),
    }
    chosen = args.models.split(",") if args.models else list(candidates)
    for name in chosen:
        probs = cross_validate(rows, x, candidates[name], fold, args.folds)
        summary(name, truth, [1.0 - p[NONE] for p in probs], [])
        if args.save:
            Path(args.save, name + ".json").write_text(json.dumps([truth, probs]))


if __name__ == "__main__":
    main()
