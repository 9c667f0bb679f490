"""Train the crisis detector's weights from the project's labelled sentences.

    python -m scripts.train_safety --cv        # 5-fold cross-validation on the training data
    python -m scripts.train_safety             # fit and write companion/coach/safety/weights.*
    python -m scripts.train_safety --cv --no-meaning   # words and concepts only, to compare

Needs scikit-learn (``pip install '.[train]'``, which brings numpy and scipy), which the app
itself never imports: the weights are written as names and raw floats and scored in plain
Python (companion/coach/safety/model.py). Trains on tests/data/crisis/dev.jsonl and the
training pool in tests/data/crisis/train/; the held-back half is never read here.

Meaning: besides words, pieces of words and concepts, the model reads the mean of the text's
word-piece vectors from scripts/data/safety_embedding.* (distilled from all-MiniLM-L6-v2 by
scripts/build_safety_embedding.py, which alone needs torch and the model). The model is linear
in that mean, so the export folds the trained dense weights into each piece: one weight per
category a piece, averaged over a window's pieces at run time. The app needs no vectors.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

from companion.coach.safety.pieces import split
from companion.coach.safety.text import features, sentences, tokens, word_features

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "crisis"
OUT = ROOT / "companion" / "coach" / "safety" / "weights"
EMBEDDING = ROOT / "scripts" / "data" / "safety_embedding"
NONE = "none"
THRESHOLDS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


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


class Meaning:
    """The distilled piece vectors, and a text's mean of them, scaled so that a typical
    text's mean has length ``weight`` (how much the regularisation lets meaning count)."""

    def __init__(self, weight: float) -> None:
        import numpy as np

        head, *names = EMBEDDING.with_suffix(".txt").read_text("utf-8").splitlines()
        header = json.loads(head)
        raw = np.frombuffer(EMBEDDING.with_suffix(".bin").read_bytes(), dtype="<i1")
        self.table = raw.reshape(len(names), header["dims"]) * np.array(header["scales"])
        self.index = {name: i for i, name in enumerate(names)}
        self.weight, self.factor = weight, 1.0

    def pieces(self, text: str) -> list[int]:
        """What the app averages: the pieces of every word, punctuation left out."""
        return [
            self.index[piece]
            for sentence in sentences(text)
            for word in tokens(sentence)
            for piece in split(word, self.index)
        ]

    def means(self, texts: list[str], fit: bool = False):  # type: ignore[no-untyped-def]
        import numpy as np

        out = np.zeros((len(texts), self.table.shape[1]))
        for row, text in enumerate(texts):
            ids = self.pieces(text)
            if ids:
                out[row] = self.table[ids].mean(0)
        if fit:
            self.factor = self.weight / float(np.linalg.norm(out, axis=1).mean())
        return out * self.factor


def design(rows: list[dict[str, str]], vec, meaning: Meaning | None, fit: bool = False):  # type: ignore[no-untyped-def]
    """The model's inputs: counted features, then (with meaning) the scaled piece means."""
    from scipy.sparse import csr_matrix, hstack

    found = [features(r["text"]) for r in rows]
    x = vec.fit_transform(found) if fit else vec.transform(found)
    if meaning is None:
        return x
    return hstack([x, csr_matrix(meaning.means([r["text"] for r in rows], fit))]).tocsr()


def fit(rows: list[dict[str, str]], c: float, meaning: Meaning | None):  # type: ignore[no-untyped-def]
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer()
    x = design(rows, vec, meaning, fit=True)
    model = LogisticRegression(C=c, max_iter=4000)
    model.fit(x, [r["category"] for r in rows])
    return vec, model


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
    pairs = list(zip(truth, predicted, strict=True))
    tp = sum(t != NONE and p != NONE for t, p in pairs)
    fp = sum(t == NONE and p != NONE for t, p in pairs)
    fn = sum(t != NONE and p == NONE for t, p in pairs)
    lines.append(f"  danger recall {tp / (tp + fn):.3f}  precision {tp / max(1, tp + fp):.3f}")
    return "\n".join(lines)


def curve(truth: list[str], danger: list[float]) -> str:
    """Danger recall / precision at a few thresholds: the operating point is a choice."""
    out = []
    for threshold in THRESHOLDS:
        hits = [(t != NONE, d >= threshold) for t, d in zip(truth, danger, strict=True)]
        tp = sum(t and h for t, h in hits)
        fp = sum(h and not t for t, h in hits)
        positives = sum(t for t, _ in hits)
        out.append(f"{threshold:.2f}: {tp / positives:.3f}/{tp / max(1, tp + fp):.3f}")
    return "  recall/precision at " + "  ".join(out)


def cross_validate(
    rows: list[dict[str, str]], c: float, threshold: float, meaning: Meaning | None, folds: int = 5
) -> None:
    order = list(range(len(rows)))
    random.Random(7).shuffle(order)
    truth, predicted, danger, misses = [], [], [], Counter()
    for k in range(folds):
        test = [rows[i] for i in order[k::folds]]
        train = [rows[i] for j, i in enumerate(order) if j % folds != k]
        vec, model = fit(train, c, meaning)
        probs = model.predict_proba(design(test, vec, meaning))
        classes = list(model.classes_)
        for row, p in zip(test, probs, strict=True):
            by = dict(zip(classes, p, strict=True))
            top = max((k for k in by if k != NONE), key=by.__getitem__)
            label = top if 1.0 - by[NONE] >= threshold else NONE
            truth.append(row["category"])
            predicted.append(label)
            danger.append(1.0 - by[NONE])
            if (row["category"] == NONE) != (label == NONE):
                misses[row.get("kind", row["category"])] += 1
    print(report(truth, predicted))
    print(curve(truth, danger))
    print("  misses by kind:", dict(misses.most_common()))


def export(
    rows: list[dict[str, str]], c: float, threshold: float, keep: float, meaning: Meaning | None
) -> None:
    """``weights.txt``: a JSON header line, then one feature name a line, then (with meaning)
    one word piece a line; ``weights.bin``: their weights, one float32 per class,
    little-endian, in the same order. A word's row (``w:``) holds the weights of its letter
    pieces too, so the app weighs a trained word with one row. A word piece's weights are the
    dense weights applied to its scaled vector, so a window's mean of them is what the model
    gives its mean vector. Trained words come first, and after the pieces ``weights.bin``
    holds, for each of them, its word pieces' summed weights and their count (one more float
    a row): the app reads a known word without cutting it into pieces."""
    import array
    import sys

    vec, model = fit(rows, c, meaning)
    classes = list(model.classes_)
    names, values = [], array.array("f")
    sparse = len(vec.feature_names_)
    coef = dict(zip(vec.feature_names_, model.coef_[:, :sparse].T, strict=True))
    kept = [n for n, col in coef.items() if max(abs(v) for v in col) >= keep]
    kept.sort(key=lambda name: not name.startswith("w:"))  # trained words first
    for name in kept:
        column = coef[name]
        if name.startswith("w:"):  # the word's row holds its letter pieces too
            pieces_of = word_features(name[2:], False)[1:]
            column = column + sum(coef[p] for p in pieces_of if p in coef)
        names.append(name)
        values.extend(float(v) for v in column)
    pieces = 0
    words = array.array("f")
    if meaning is not None:
        folded = meaning.table @ model.coef_[:, sparse:].T * meaning.factor
        by_index = sorted(meaning.index, key=meaning.index.__getitem__)
        for piece, row in zip(by_index, folded, strict=True):
            names.append(piece)
            values.extend(float(v) for v in row)
        pieces = len(by_index)
        # each trained word's pieces, summed, and how many: a known word is one lookup
        for name in kept:
            if not name.startswith("w:"):
                break
            found = [meaning.index[p] for p in split(name[2:], meaning.index)]
            summed = folded[found].sum(0) if found else [0.0] * len(classes)
            words.extend([*(float(v) for v in summed), float(len(found))])
    values.extend(words)
    if sys.byteorder != "little":
        values.byteswap()
    header = {
        "classes": classes,
        "intercept": [round(float(v), 5) for v in model.intercept_],
        "threshold": threshold,
        "trained_on": len(rows),
        "c": c,
        "pieces": pieces,
        "words": len(words) // (len(classes) + 1),
        "meaning": meaning.weight if meaning else 0,
    }
    OUT.with_suffix(".txt").write_text(json.dumps(header) + "\n" + "\n".join(names) + "\n")
    OUT.with_suffix(".bin").write_bytes(values.tobytes())
    size = sum(OUT.with_suffix(s).stat().st_size for s in (".txt", ".bin")) / 1024
    features = len(names) - pieces
    print(f"wrote {OUT}.txt and .bin ({features:,} features, {pieces:,} pieces, {size:.0f} KiB)")


STARTS = ROOT / "companion" / "coach" / "safety" / "starts.py"


def write_starts() -> None:
    """``starts.py``: how the lexicon's patterns can begin (``lexicon.derive_starts``), so the
    app need not read the patterns at load. Written with the weights, which the lexicon's
    concepts shape anyway; a test checks it against the lexicon."""
    from companion.coach.safety.lexicon import derive_starts

    words, stems, anywhere = derive_starts()

    def table(found: dict[str, frozenset[str]]) -> str:
        rows = (
            f"    {json.dumps(k)}: frozenset({json.dumps(sorted(v))}),\n" for k, v in found.items()
        )
        return "".join(rows)

    STARTS.write_text(
        '"""How the lexicon\'s patterns can begin: written by ``python -m scripts.train_safety`` '
        'from\n``lexicon.derive_starts`` (do not edit; a test compares them)."""\n\n'
        f"WORD_STARTS: dict[str, frozenset[str]] = {{\n{table(words)}}}\n"
        f"STEM_STARTS: dict[str, frozenset[str]] = {{\n{table(stems)}}}\n"
        f"ANYWHERE: frozenset[str] = frozenset({json.dumps(sorted(anywhere))})\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cv", action="store_true")
    parser.add_argument("--no-pool", action="store_true", help="dev half only")
    parser.add_argument("-c", type=float, default=1.0, help="inverse regularisation strength")
    parser.add_argument("--threshold", type=float, default=0.25, help="danger probability")
    parser.add_argument("--keep", type=float, default=0.05, help="drop features below this weight")
    parser.add_argument("--meaning", type=float, default=3.0, help="scale of the piece means")
    parser.add_argument("--no-meaning", action="store_true", help="words and concepts only")
    parser.add_argument("--starts", action="store_true", help="only write starts.py")
    args = parser.parse_args()
    if args.starts:
        write_starts()
        return
    rows = training_rows(pool=not args.no_pool)
    meaning = None if args.no_meaning else Meaning(args.meaning)
    print(f"{len(rows):,} sentences: {dict(Counter(r['category'] for r in rows))}")
    if args.cv:
        cross_validate(rows, args.c, args.threshold, meaning)
    else:
        export(rows, args.c, args.threshold, args.keep, meaning)
        write_starts()


if __name__ == "__main__":
    main()
