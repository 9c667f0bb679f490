"""The sealed index's parts (the index itself is ``index.py``): a term's posting list (document
key, day, term count and document length, in compact arrays), the index's state (format
version, bucket key, per-kind counts for BM25) and what one write changed.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import sys
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from companion.vault import crypto, words
from companion.vault.documents import (
    CODES,
    SHIFT,
    Document,
    key_of,
)

VERSION = 2
"""Raise when what a document holds or how its words are cut changes: the index is rebuilt.
2: a journal entry's tags are indexed as stored, not as its text's #tag pattern reads them."""
BUCKETS = 1024
PREFIX = 3
EPOCH = date(2000, 1, 1).toordinal()
LITTLE = sys.byteorder == "little"


class Postings:
    """One term's documents: parallel arrays of key, day (days since 2000), count, length.
    Stored postings are in key order, so each kind is one run, oldest row first
    (``ordered``); those waiting in deltas are in the order they came."""

    __slots__ = ("counts", "days", "keys", "lengths", "ordered")

    def __init__(self, ordered: bool = False) -> None:
        self.keys = array("I")
        self.days = array("H")
        self.counts = array("B")
        self.lengths = array("H")
        self.ordered = ordered

    def in_order(self) -> Postings:
        """These postings sorted by key."""
        order = sorted(range(len(self.keys)), key=self.keys.__getitem__)
        out = Postings(ordered=True)
        out.keys = array("I", [self.keys[i] for i in order])
        out.days = array("H", [self.days[i] for i in order])
        out.counts = array("B", [self.counts[i] for i in order])
        out.lengths = array("H", [self.lengths[i] for i in order])
        return out

    def run_of(self, code: int) -> tuple[int, int]:
        """Where kind ``code``'s postings are (ordered postings only)."""
        return (
            bisect.bisect_left(self.keys, code << SHIFT),
            bisect.bisect_left(self.keys, (code + 1) << SHIFT),
        )

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: int, day: int, count: int, length: int) -> None:
        self.keys.append(key)
        self.days.append(min(max(day, 0), 0xFFFF))
        self.counts.append(min(count, 0xFF))
        self.lengths.append(min(length, 0xFFFF))

    def plus(self, more: Iterable[tuple[int, int, int, int]]) -> Postings:
        """These postings and ``more`` (key, day, count, length), in key order."""
        out = Postings()
        for mine, theirs in zip(  # noqa: B905
            (out.keys, out.days, out.counts, out.lengths),
            (self.keys, self.days, self.counts, self.lengths),
        ):
            mine.extend(theirs)
        for key, day, count, length in more:
            out.add(key, day, count, length)
        return out.in_order()

    def without(self, gone: set[int]) -> Postings:
        kept = Postings(self.ordered)
        for i, key in enumerate(self.keys):
            if key not in gone:
                kept.add(key, self.days[i], self.counts[i], self.lengths[i])
        return kept

    def to_bytes(self) -> bytes:
        parts = [self.keys, self.days, self.counts, self.lengths]
        if not LITTLE:
            parts = [array(a.typecode, a) for a in parts]
            for a in parts:
                a.byteswap()
        return b"".join(a.tobytes() for a in parts)

    @classmethod
    def from_bytes(cls, data: bytes) -> Postings:
        n, rest = divmod(len(data), 9)
        if rest:
            raise ValueError("postings of the wrong length")
        out = cls(ordered=True)
        at = 0
        for name, width in (("keys", 4), ("days", 2), ("counts", 1), ("lengths", 2)):
            part: array[int] = getattr(out, name)
            part.frombytes(data[at : at + n * width])
            if not LITTLE:
                part.byteswap()
            at += n * width
        return out


Bucket = dict[str, Postings]


def _day(d: date) -> int:
    return d.toordinal() - EPOCH


@dataclass
class State:
    salt: bytes
    counts: dict[str, list[int]] = field(default_factory=dict)  # kind -> [documents, length]
    version: int = VERSION
    _numbers: dict[str, int] = field(default_factory=dict, repr=False)

    def to_payload(self) -> dict[str, Any]:
        return {"v": self.version, "salt": crypto.b64(self.salt), "kinds": self.counts}

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> State:
        kinds = {str(k): [int(v[0]), int(v[1])] for k, v in dict(data.get("kinds", {})).items()}
        return cls(crypto.unb64(str(data["salt"])), kinds, int(data.get("v", 0)))

    def bucket_of(self, term: str) -> int:
        found = self._numbers.get(term)
        if found is None:
            if term.startswith("#"):
                found = 0  # every tag in one bucket: the journal lists them all at once
            else:
                prefix = term[:PREFIX].encode("utf-8")
                digest = hmac.digest(self.salt, prefix, hashlib.sha256)
                found = int.from_bytes(digest[:4], "big") % BUCKETS
            self._numbers[term] = found
        return found

    def add(self, kind: str, docs: int, length: int) -> None:
        have = self.counts.setdefault(kind, [0, 0])
        have[0] += docs
        have[1] += length


# -- one write's changes ------------------------------------------------------------------


@dataclass
class Added:
    key: int
    day: int
    length: int
    counts: dict[str, int]

    def to_json(self) -> list[Any]:
        return [self.key, self.day, self.length, sorted(self.counts.items())]

    @classmethod
    def from_json(cls, item: list[Any]) -> Added:
        return cls(int(item[0]), int(item[1]), int(item[2]), {str(t): int(c) for t, c in item[3]})

    @classmethod
    def of(cls, doc: Document) -> Added:
        terms = words.terms(f"{doc.text}\n{doc.terms}" if doc.terms else doc.text)
        counts = dict(Counter(terms))
        counts.update(dict.fromkeys(doc.tags, 1))
        return cls(key_of(doc.kind, doc.ref), _day(doc.day), len(terms), counts)


@dataclass
class Batch:
    """What the current transaction did to documents; written when it commits."""

    added: dict[int, Added] = field(default_factory=dict)
    removed: dict[int, Added] = field(default_factory=dict)  # the words they had
    cleared: set[str] = field(default_factory=set)  # kinds whose every document went

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.cleared)

    def clear(self, kinds: Iterable[str]) -> None:
        """Every document of ``kinds`` went (a whole table emptied)."""
        codes = {CODES[k] for k in kinds}
        self.cleared.update(kinds)
        self.added = {k: a for k, a in self.added.items() if (k >> SHIFT) not in codes}

    def changed(self, old: Document | None, new: Document | None) -> None:
        same = (
            (old.text, old.terms, old.day) == (new.text, new.terms, new.day) if old and new else 0
        )
        if old is not None and new is not None and same:
            return
        if old is not None:
            key = key_of(old.kind, old.ref)
            if self.added.pop(key, None) is None or key in self.removed:
                self.removed.setdefault(key, Added.of(old))
        if new is not None:
            self.added[key_of(new.kind, new.ref)] = Added.of(new)
