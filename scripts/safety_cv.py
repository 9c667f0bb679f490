"""Compare crisis-detector models by grouped cross-validation on the development half and the
training pool (the held-back half is never read here).

    python -m scripts.safety_cv [--models linear,mlp32] [--extra FILE] [--thresholds]

Why grouped: sentences that share half the words of the longer one or more (near-duplicates
written from one idea) are kept in one fold, so a model is not rewarded for remembering a
twin. Printed per model: average precision (AP) of the danger score, danger recall at
precision 0.90 (R@P.90), recall / precision at a few thresholds, and per-category recall at
the threshold giving precision 0.90. ``--extra``: sentences only ever trained on (new ones,
so the figures compare like with like with the pool before them); the models are those of
``candidates`` in ``main`` (docs/safety.md gives what each scored).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripts.train_safety import NONE, Meaning, curve, design, load, training_rows

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


def summary(name: str, truth: list[str], danger: list[float]) -> None:
    ap, r90, at = scores(truth, danger)
    per = []
    for cat in sorted(set(truth) - {NONE}):
        idx = [i for i, t in enumerate(truth) if t == cat]
        per.append(f"{cat[:8]} {sum(danger[i] >= at for i in idx) / len(idx):.2f}")
    print(f"{name}: AP {ap:.3f}  R@P.90 {r90:.3f} (at {at:.2f})")
    print(" " + curve(truth, danger))
    print("   at P.90: " + "  ".join(per))


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


def blend(first: Model, second: Model, share: float = 0.5) -> Model:
    """Two models' probabilities averaged (``share`` of the first)."""

    def run(x_train: Any, train: Rows, x_test: Any, test: Rows) -> list[dict[str, float]]:
        a, b = first(x_train, train, x_test, test), second(x_train, train, x_test, test)
        return [
            {k: share * p[k] + (1 - share) * q[k] for k in p} for p, q in zip(a, b, strict=True)
        ]

    return run


def flags(x: Any, names: list[str]) -> Any:
    """The lexicon's concepts and modifiers (not their pairs) as 0/1 columns."""
    keep = [i for i, n in enumerate(names) if n[:2] in ("k:", "m:") and "&" not in n]
    return (x[:, keep] > 0).astype(float)


def stacked(flag_x: Any, second: str = "mlp", inner: int = 4) -> Model:
    """A linear model, then a small second stage (16 hidden units, or boosted stumps of depth
    2) over its log-probabilities, out of fold on the training rows, and the lexicon flags."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    def run(x_train: Any, train: Rows, x_test: Any, test: Rows) -> list[dict[str, float]]:
        labels = [r["category"] for r in train]
        inner_fold = folds(train, inner, seed=11)
        oof = np.zeros((len(train), len(set(labels))))
        for n in range(inner):
            a = [i for i, f in enumerate(inner_fold) if f != n]
            b = [i for i, f in enumerate(inner_fold) if f == n]
            m = LogisticRegression(max_iter=4000).fit(x_train[a], [labels[i] for i in a])
            oof[b] = m.predict_log_proba(x_train[b])
        m = LogisticRegression(max_iter=4000).fit(x_train, labels)
        z_train = np.hstack([oof, flag_x[[int(r["_i"]) for r in train]].toarray()])
        z_test = np.hstack(
            [m.predict_log_proba(x_test), flag_x[[int(r["_i"]) for r in test]].toarray()]
        )
        s: Any = (
            MLPClassifier((16,), alpha=1e-2, max_iter=2000, random_state=0)
            if second == "mlp"
            else HistGradientBoostingClassifier(max_depth=2, learning_rate=0.05, max_iter=300)
        )
        s.fit(z_train, labels)
        return [dict(zip(s.classes_, p, strict=True)) for p in s.predict_proba(z_test)]

    return run


def per_category(truth: list[str], probs: list[dict[str, float]], fold: list[int]) -> str:
    """A danger threshold for each most likely category, chosen on the other folds for
    recall at precision 0.90 and applied to each fold in turn (so not flattered)."""
    cats = sorted(set(truth) - {NONE})
    top = [max(cats, key=p.__getitem__) for p in probs]
    danger = [1.0 - p[NONE] for p in probs]
    grid = [n / 100 for n in range(5, 96)]

    def rate(idx: list[int], cut: dict[str, float]) -> tuple[float, float]:
        hits = [(truth[i] != NONE, danger[i] >= cut[top[i]]) for i in idx]
        tp = sum(t and h for t, h in hits)
        return tp / max(1, sum(t for t, _ in hits)), tp / max(1, sum(h for _, h in hits))

    def choose(idx: list[int]) -> dict[str, float]:
        """One threshold for all first, then each category's moved in turn."""
        best = max(
            (g for g in grid if rate(idx, dict.fromkeys(cats, float(g)))[1] >= 0.9),
            key=lambda g: rate(idx, dict.fromkeys(cats, float(g)))[0],
        )
        cut = {cat: best for cat in cats}
        for cat in cats * 2:
            for g in grid:
                trial = cut | {cat: g}
                r, p = rate(idx, trial)
                if p >= 0.9 and r > rate(idx, cut)[0]:
                    cut = trial
        return cut

    hit = [False] * len(truth)
    for n in sorted(set(fold)):
        cut = choose([i for i, f in enumerate(fold) if f != n])
        for i, f in enumerate(fold):
            if f == n:
                hit[i] = danger[i] >= cut[top[i]]
    tp = sum(h and t != NONE for h, t in zip(hit, truth, strict=True))
    recall = tp / sum(t != NONE for t in truth)
    precision = tp / max(1, sum(hit))
    return (
        f"   per-category thresholds, cross-fitted: recall {recall:.3f}, precision {precision:.3f}"
    )


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
    parser.add_argument("--thresholds", action="store_true", help="per-category thresholds")
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
        r["_i"] = str(i)
    flag_x = flags(x, list(vec.feature_names_) + ["d"] * (x.shape[1] - len(vec.feature_names_)))
    candidates: dict[str, Model] = {
        "linear": linear(),
        "linear-c0.5": linear(0.5),
        "linear-c2": linear(2.0),
        "stacked-mlp16": stacked(flag_x),
        "stacked-gbm": stacked(flag_x, "gbm"),
        "mlp32": mlp(32, 1e-3),
        "mlp32-a0.1": mlp(32, 1e-1),
        "linear+mlp32": blend(linear(), mlp(32, 1e-3)),
    }
    chosen = args.models.split(",") if args.models else list(candidates)
    for name in chosen:
        probs = cross_validate(rows, x, candidates[name], fold, args.folds)
        summary(name, truth, [1.0 - p[NONE] for p in probs])
        if args.thresholds:
            print(per_category(truth, probs, [f for f in fold if f >= 0]))
        if args.save:
            Path(args.save, name + ".json").write_text(json.dumps([truth, probs]))


if __name__ == "__main__":
    main()
