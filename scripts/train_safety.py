"""Train the crisis detector's weights from the project's labelled sentences.

    python -m scripts.train_safety --cv        # 5-fold cross-validation on the training data
    python -m scripts.train_safety             # fit and write companion/coach/safety/weights.json

Needs scikit-learn (``pip install '.[train]'``), which the app itself never imports: the
weights are written as JSON and scored in plain Python (companion/coach/safety/model.py).
Trains on tests/data/crisis/dev.jsonl and the training pool in tests/data/crisis/train/; the
held-back half is never read here.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from companion.coach.safety.text import features

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "crisis"
OUT = ROOT / "companion" / "coach" / "safety" / "weights"
NONE = "none"


def load(paths: list[Path]) -> list[dict[str, str]]:
    rows = []
    for path in paths:
        rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows


def training_rows(pool: bool = True) -> list[dict[str, str]]:
    paths = [DATA / "dev.jsonl"]
    if pool:
        paths += sorted((DATA / "train").glob("*.jsonl"))
    return load(paths)


def fit(rows: list[dict[str, str]], c: float):  # type: ignore[no-untyped-def]
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer()
    x = vec.fit_transform([features(r["text"]) for r in rows])
    y = [r["category"] for r in rows]
    model = LogisticRegression(C=c, max_iter=4000)
    model.fit(x, y)
    return vec, model


def danger(probabilities: dict[str, float], threshold: float) -> bool:
    return 1.0 - probabilities[NONE] >= threshold


def report(truth: list[str], predicted: list[str]) -> str:
    """Recall per category, danger recall and precision (a danger found in any category)."""
    lines = []
    cats = sorted({t for t in truth if t != NONE})
    for cat in cats:
        idx = [i for i, t in enumerate(truth) if t == cat]
        found = sum(predicted[i] != NONE for i in idx)
        exact = sum(predicted[i] == cat for i in idx)
        share, right = found / len(idx), exact / len(idx)
        lines.append(f"  {cat:<20} recall {share:.3f}  right category {right:.3f}")
    tp = sum(t != NONE and p != NONE for t, p in zip(truth, predicted, strict=True))
    fp = sum(t == NONE and p != NONE for t, p in zip(truth, predicted, strict=True))
    fn = sum(t != NONE and p == NONE for t, p in zip(truth, predicted, strict=True))
    lines.append(f"  danger recall {tp / (tp + fn):.3f}  precision {tp / max(1, tp + fp):.3f}")
    return "\n".join(lines)


def cross_validate(rows: list[dict[str, str]], c: float, threshold: float, folds: int = 5) -> None:
    import random

    order = list(range(len(rows)))
    random.Random(7).shuffle(order)
    truth, predicted, misses = [], [], Counter()
    for k in range(folds):
        test = [rows[i] for i in order[k::folds]]
        train = [rows[i] for j, i in enumerate(order) if j % folds != k]
        vec, model = fit(train, c)
        probs = model.predict_proba(vec.transform([features(r["text"]) for r in test]))
        classes = list(model.classes_)
        for row, p in zip(test, probs, strict=True):
            by = dict(zip(classes, p, strict=True))
            top = max((k for k in by if k != NONE), key=by.__getitem__)
            label = top if danger(by, threshold) else NONE
            truth.append(row["category"])
            predicted.append(label)
            if (row["category"] == NONE) != (label == NONE):
                misses[row.get("kind", row["category"])] += 1
    print(report(truth, predicted))
    print("  misses by kind:", dict(misses.most_common()))


def export(rows: list[dict[str, str]], c: float, threshold: float, keep: float) -> None:
    """``weights.txt``: a JSON header line, then one feature name a line; ``weights.bin``: their
    weights, one float32 per class, little-endian, in the same order. Loads in milliseconds."""
    import array
    import sys

    vec, model = fit(rows, c)
    classes = list(model.classes_)
    names, values = [], array.array("f")
    for name, column in zip(vec.feature_names_, model.coef_.T, strict=True):
        if max(abs(v) for v in column) >= keep:
            names.append(name)
            values.extend(float(v) for v in column)
    if sys.byteorder != "little":
        values.byteswap()
    header = {
        "classes": classes,
        "intercept": [round(float(v), 5) for v in model.intercept_],
        "threshold": threshold,
        "trained_on": len(rows),
        "c": c,
    }
    OUT.with_suffix(".txt").write_text(json.dumps(header) + "\n" + "\n".join(names) + "\n")
    OUT.with_suffix(".bin").write_bytes(values.tobytes())
    size = sum(OUT.with_suffix(s).stat().st_size for s in (".txt", ".bin")) / 1024
    print(f"wrote {OUT}.txt and .bin ({len(names):,} features, {size:.0f} KiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cv", action="store_true")
    parser.add_argument("--no-pool", action="store_true", help="dev half only")
    parser.add_argument("-c", type=float, default=0.5, help="inverse regularisation strength")
    parser.add_argument("--threshold", type=float, default=0.25, help="danger probability")
    parser.add_argument("--keep", type=float, default=0.05, help="drop features below this weight")
    args = parser.parse_args()
    rows = training_rows(pool=not args.no_pool)
    print(f"{len(rows):,} sentences: {dict(Counter(r['category'] for r in rows))}")
    if args.cv:
        cross_validate(rows, args.c, args.threshold)
    else:
        export(rows, args.c, args.threshold, args.keep)


if __name__ == "__main__":
    main()
