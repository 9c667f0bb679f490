"""A small reader of word order: a 2-layer, 128-wide transformer distilled from all-MiniLM-L6-v2
fine-tuned on the labelled sentences (``scripts/train_safety_reader.py``), run on numpy.

Why: the linear model weighs words one by one and cannot hear how they go together ("gave my
guitar to jake today" is preparation told without context); the fine-tuned sentence model
reads word order, and this student keeps part of what it reads at a fraction of the cost
(docs/safety.md, "A small reader of word order"). Its probabilities are averaged with
the linear model's. It reads only windows the linear model is unsure of (``worth_reading``),
so most text never loads it.

The weights are one ``.npz`` (read with ``allow_pickle=False``) and the WordPiece vocabulary
one word per line. The text is cut as BERT's uncased tokenizer cuts it, in plain Python.
"""

from __future__ import annotations

import importlib.util
import os
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

FOLDER = Path(__file__).parent
WEIGHTS = FOLDER / "reader.npz"
VOCAB = FOLDER / "reader_vocab.txt"
LONGEST_WORD = 100
"""Longer words are one unknown token, as in BERT's tokenizer."""
MAX_TOKENS = 128
"""What the reader was trained on, its markers included; a longer window is cut."""
CLS, SEP, UNK = "[CLS]", "[SEP]", "[UNK]"
FLOOR = 0.02
"""A short text (one window) the linear model gives less danger than this is not read again:
most text. A longer text's windows have ``LONG_BAND``."""
THRESHOLD = 0.35
"""The danger probability, averaged with the linear model's, that raises the alarm for a
short text (one window)."""
LONG_TEXT_THRESHOLD = 0.5
"""The same for each window of a longer text: many windows, many chances of a false alarm."""
LONG_BAND = (0.1, 0.6)
"""For a text of several windows, the linear model's danger between which a window is read
again. Out of fold, reading those below it changed as many verdicts wrongly as rightly, and
those above it turned as many true dangers into misses as it removed false alarms
(docs/safety.md, "Which windows the reader reads")."""
FEW_WORDS = 6
"""A text of this many words or fewer, with no word of danger the lexicon knows, alarms only
if the reader agrees (``AGREE``), however sure the linear model is: for a word or two, the
linear model's mean of word pieces is those words' meaning alone, not a sentence's, and it
read a third of single English words ("stable", "hopeful", "heaven") as danger."""
AGREE = 0.1
"""The reader's own danger such a text needs, beside the usual averaged line."""
AT_MOST = 4
"""Windows of one text read again, those nearest the line first: a 400-word entry stays near
its 10 ms (docs/safety.md, "A small reader of word order")."""


@cache
def numpy_found() -> bool:
    """Whether numpy can be imported: found, not imported, so a text the linear model is sure
    of never pays for it."""
    try:
        return importlib.util.find_spec("numpy") is not None
    except ValueError:  # numpy in sys.modules as None: blocked on purpose
        return False


@cache
def available() -> bool:
    """Whether numpy and the weights are there; without them the linear model reads alone."""
    return numpy_found() and WEIGHTS.exists() and VOCAB.exists()


def worth_reading(danger: float, several: bool) -> bool:
    """Whether a window the linear model gives ``danger`` is read again: one alone is, unless
    plainly harmless or plainly danger; one of several only near the line."""
    low, high = LONG_BAND if several else (FLOOR, 2 * THRESHOLD)
    return low <= danger < high


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F
        or 0x2B740 <= code <= 0x2B81F
        or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


ASCII_WORDS = re.compile(r"[a-z0-9]+|[!-/:-@\[-`{-~]")
"""Runs of letters and digits, and each punctuation mark: ``words`` for ASCII text."""
ASCII_CONTROL = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32), 127])


def words(text: str) -> list[str]:
    """BERT's basic tokenizer, uncased: control characters dropped, accents stripped, lower
    case, split on white space and around each punctuation mark and CJK character."""
    if text.isascii():  # most text: one pattern instead of a loop over characters
        return ASCII_WORDS.findall(text.lower().translate(ASCII_CONTROL))
    return any_words(text)


def any_words(text: str) -> list[str]:
    """``words`` for any text, a character at a time."""
    out: list[str] = []
    current: list[str] = []
    decomposed = unicodedata.normalize("NFD", text.lower())
    for char in decomposed:
        code = ord(char)
        category = unicodedata.category(char)
        if code == 0xFFFD or category == "Mn":
            continue
        if category.startswith("C") and char not in "\t\n\r":
            continue  # control characters go before white space is looked for, as in BERT's
        if char.isspace():
            if current:
                out.append("".join(current))
                current = []
            continue
        if _is_punctuation(char) or _is_cjk(code):
            if current:
                out.append("".join(current))
                current = []
            out.append(char)
            continue
        current.append(char)
    if current:
        out.append("".join(current))
    return out


@dataclass(frozen=True)
class Reader:
    vocab: dict[str, int]
    arrays: dict[str, NDArray[np.float32]]
    """float32 throughout: one float64 scalar in the arithmetic turns every later product into
    float64, with the weights converted again at each step (four times slower)."""
    words: NDArray[np.int8]
    scale: NDArray[np.float32]
    layers: int
    heads: int
    classes: tuple[str, ...]


@cache
def reader() -> Reader:
    """Loaded once, on first use (numpy is imported only here: most text never needs it)."""
    # One thread: the matrices are small, and on a busy machine OpenBLAS's threads wait on
    # each other (a 400-word entry took 2.6 s instead of 10 ms with both cores taken).
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    import numpy as np

    vocab = {piece: i for i, piece in enumerate(VOCAB.read_text("utf-8").splitlines())}
    with np.load(WEIGHTS, allow_pickle=False) as data:
        special = {"word_q", "word_scale", "meta", "classes"}
        arrays = {name: data[name].astype(np.float32) for name in data.files if name not in special}
        layers, heads = (int(v) for v in data["meta"])
        words, scale = data["word_q"], data["word_scale"].astype(np.float32)
        classes = tuple(str(c) for c in data["classes"])
    # Folded in once here rather than added or multiplied for every window: the token type
    # (always the first) into the positions, and attention's 1/sqrt(head size) into the queries.
    arrays["position"] += arrays.pop("token_type")[0]
    width = arrays["position"].shape[1]
    for i in range(layers):
        query = np.float32((width // heads) ** -0.5)
        arrays[f"l{i}_qkv_w"][:, :width] *= query
        arrays[f"l{i}_qkv_b"][:width] *= query
    return Reader(vocab, arrays, words, scale, layers, heads, classes)


@lru_cache(maxsize=50_000)
def _pieces(word: str) -> tuple[int, ...]:
    vocab = reader().vocab
    if len(word) > LONGEST_WORD:
        return (vocab[UNK],)
    out: list[int] = []
    start = 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            found = vocab.get(piece)
            if found is not None:
                out.append(found)
                break
            end -= 1
        else:
            return (vocab[UNK],)
        start = end
    return tuple(out)


def token_ids(text: str) -> list[int]:
    """The ids the fine-tuned model's tokenizer gives ``text``, markers included."""
    vocab = reader().vocab
    ids = [vocab[CLS]]
    for word in words(text):
        ids += _pieces(word)
    return [*ids[: MAX_TOKENS - 1], vocab[SEP]]


def _layer_norm(
    x: NDArray[np.float32], gain: NDArray[np.float32], bias: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Means as products with a vector of 1/width: numpy's ``mean`` costs more in Python than
    in arithmetic on rows this short."""
    import numpy as np

    average = np.full(x.shape[-1], 1.0 / x.shape[-1], dtype=np.float32)
    x = x - (x @ average)[:, None]
    spread = (x * x) @ average
    spread += np.float32(1e-12)
    np.sqrt(spread, out=spread)
    x /= spread[:, None]
    x *= gain
    x += bias
    return x


def _gelu(h: NDArray[np.float32]) -> NDArray[np.float32]:
    """GELU in its tanh form (the one the reader was trained with), in place, in float32:
    ``h * h * h`` because numpy's float32 power is a hundred times slower."""
    import numpy as np

    inner = h * h
    inner *= np.float32(0.044715)
    inner += np.float32(1.0)
    inner *= h
    inner *= np.float32(0.7978845608)
    np.tanh(inner, out=inner)
    inner *= np.float32(0.5)
    inner += np.float32(0.5)
    h *= inner
    return h


BATCH = 8
"""Texts read together."""


def probabilities(texts: list[str]) -> list[dict[str, float]]:
    """Probabilities per class for each text, read a batch at a time."""
    ids = [token_ids(text) for text in texts]
    out: list[dict[str, float]] = []
    for start in range(0, len(ids), BATCH):
        out += _read(ids[start : start + BATCH])
    return out


def _read(ids: list[list[int]]) -> list[dict[str, float]]:
    """The texts' tokens one after the other, no padding: the dense layers read them as one
    matrix, and attention looks within each text (one matrix for all would grow as the square
    of the batch's tokens: twice the time for four long windows)."""
    import numpy as np

    r = reader()
    a = r.arrays
    lengths = [len(row) for row in ids]
    ends = np.cumsum(lengths)
    spans = [(int(end) - n, int(end)) for n, end in zip(lengths, ends, strict=True)]
    flat = np.fromiter((i for row in ids for i in row), dtype=np.intp, count=int(ends[-1]))
    x = r.words[flat] * r.scale[flat][:, None]  # int8 times float32: float32
    x += np.concatenate([a["position"][:n] for n in lengths])
    x = _layer_norm(x, a["emb_ln_g"], a["emb_ln_b"])
    width = x.shape[1]
    size = width // r.heads
    for i in range(r.layers):
        p = f"l{i}_"
        qkv = x @ a[p + "qkv_w"]
        qkv += a[p + "qkv_b"]
        context = np.empty_like(x)
        for start, end in spans:  # each text's tokens attend to its own only
            # (3, heads, tokens, size): queries, keys and values of each head
            q, k, v = qkv[start:end].reshape(end - start, 3, r.heads, size).transpose(1, 2, 0, 3)
            scores = q @ k.transpose(0, 2, 1)
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            context[start:end] = (scores @ v).transpose(1, 0, 2).reshape(end - start, width)
        attended = context @ a[p + "out_w"]
        attended += a[p + "out_b"]
        attended += x
        x = _layer_norm(attended, a[p + "ln1_g"], a[p + "ln1_b"])
        h = x @ a[p + "up_w"]
        h += a[p + "up_b"]
        fed = _gelu(h) @ a[p + "down_w"]
        fed += a[p + "down_b"]
        fed += x
        x = _layer_norm(fed, a[p + "ln2_g"], a[p + "ln2_b"])
    pooled = np.add.reduceat(x, [start for start, _ in spans], axis=0)
    pooled /= np.asarray(lengths, dtype=np.float32)[:, None]
    logits = pooled @ a["head_w"]
    logits += a["head_b"]
    logits -= logits.max(-1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(-1, keepdims=True)
    rows: list[list[float]] = logits.tolist()
    return [dict(zip(r.classes, row, strict=True)) for row in rows]
