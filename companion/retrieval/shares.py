"""Each run of postings' share of a search's BM25 sums, kept between searches.

Typing a search runs it again at every key, with the same words but the last: summing each
word's rows again (about 15,000 on the ten-year vault) was most of a search's time. A run's
shares, key by key, depend only on its rows, the term's IDF and the index's totals, so they
are kept per run (a new delta, a merge or a write that moves the totals makes new keys, and
old ones fall out of the bounded cache). A search then looks each candidate up in a few
dicts instead of adding every row again. The sums are the same floats, added in the same
order, as ``Index._scores`` makes them."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection

from companion.vault.documents import SHIFT
from companion.vault.postings import Postings

MOST_ROWS = 120_000
"""Rows' shares kept at most (about 12 MB, some 100 bytes a row): a dozen common words' runs."""

Key = tuple[int, int, int, int, float, float, float, frozenset[int] | None]


class Shares:
    """Runs' shares by key, least recently used dropped first; safe across threads."""

    def __init__(self, most_rows: int = MOST_ROWS) -> None:
        self._kept: OrderedDict[Key, tuple[Postings, dict[int, float]]] = OrderedDict()
        self._rows = 0
        self._most = most_rows
        self._lock = threading.Lock()

    def of(
        self,
        found: Postings,
        start: int,
        end: int,
        idf: float,
        fixed: float,
        per_length: float,
        codes: Collection[int] | None = None,
    ) -> dict[int, float] | None:
        """Key -> ``idf * count / (count + fixed + per_length * length)`` for the rows
        ``start:end`` of ``found`` (of the kinds ``codes`` only, when given). None when a key
        comes twice (only in deltas, when a document was saved twice before a merge): its
        shares add up row by row, which a dict of one share per key cannot say."""
        only = frozenset(codes) if codes is not None else None
        key: Key = (id(found), len(found), start, end, idf, fixed, per_length, only)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] is found:
                self._kept.move_to_end(key)
                return kept[1]
        keys = found.keys[start:end]
        counts = found.counts[start:end]
        lengths = found.lengths[start:end]
        if only is None:
            shares = {
                k: idf * c / (c + fixed + per_length * n)
                for k, c, n in zip(keys, counts, lengths)  # noqa: B905
            }
        else:
            shares = {
                k: idf * c / (c + fixed + per_length * n)
                for k, c, n in zip(keys, counts, lengths)  # noqa: B905
                if (k >> SHIFT) in only
            }
        wanted = len(keys) if only is None else sum(1 for k in keys if (k >> SHIFT) in only)
        if len(shares) != wanted:
            return None
        with self._lock:
            self._kept[key] = (found, shares)  # holding ``found`` keeps its id its own
            self._rows += len(shares)
            while self._rows > self._most and len(self._kept) > 1:
                _, (_, dropped) = self._kept.popitem(last=False)
                self._rows -= len(dropped)
        return shares


def summed(parts: list[dict[int, float]], within: Collection[int] | None) -> dict[int, float]:
    """Each key's sum over ``parts`` (in their order, as the rows were added), for the keys
    of ``within`` (None: every key in a part) that any part holds."""
    if within is None:
        if len(parts) == 1:
            return dict(parts[0])
        within = dict.fromkeys(k for part in parts for k in part)
    getters = [part.get for part in parts]
    out: dict[int, float] = {}
    for key in within:
        total, held = 0.0, False
        for get in getters:
            share = get(key)
            if share is not None:
                total += share
                held = True
        if held:
            out[key] = total
    return out
