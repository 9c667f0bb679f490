"""Words cut into the word pieces of all-MiniLM-L6-v2's vocabulary, the way its WordPiece
tokenizer cuts them (greedy longest match from the left, "##" on pieces that continue a word),
in plain Python.

Why: each piece carries what the sentence model meant by it (``scripts/build_safety_embedding``
distils that; the trained weights hold each piece's lean towards each category), so a word the
detector never saw in training still means something: "rehoming" is "re ##hom ##ing".
Words come already lower case and split from punctuation (``text.tokens``), which is what
BERT's basic tokenizer does first; anything but letters and digits is a boundary here.
"""

from __future__ import annotations

import re
from collections.abc import Container

LONGEST = 100
"""Longer runs of letters are unknown to the model, as in BERT's tokenizer."""
RUN = re.compile(r"[a-z0-9]+")


def split(word: str, known: Container[str]) -> list[str]:
    """The pieces of ``word`` found in ``known``; a run of letters that cannot be cut wholly
    into known pieces gives none (BERT's tokenizer makes it one unknown token)."""
    out: list[str] = []
    for run in RUN.findall(word):
        if len(run) > LONGEST:
            continue
        found: list[str] = []
        start = 0
        while start < len(run):
            end = len(run)
            while end > start:
                piece = run[start:end] if start == 0 else "##" + run[start:end]
                if piece in known:
                    found.append(piece)
                    break
                end -= 1
            else:
                found = []
                break
            start = end
        out += found
    return out
