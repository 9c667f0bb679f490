"""One index over the user's words, ranked with BM25 (IDF, so a name outweighs "today").

Two ways to ask it. ``search`` is what a person types: every term must match, the last also as
a prefix ("crav" finds "cravings"), "quoted phrases" match as phrases, best first and newer
first on ties (or newest first). ``relevant`` is what the coach's context asks: any term may
match, weighted, within a date span or on a weekday, of the kinds asked for.

Postings are compact arrays (a doc number and a count per term): the ten-year vault's 72,000
documents fit in tens of megabytes. A removed document is forgotten at once by the queries
and its postings are dropped at the next ``compact``.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import date
from typing import Any, NamedTuple, TypeVar

from companion.retrieval import text as words

K1 = 1.2
SCAN_LIMIT = 4000
RECENCY = 0.5  # a document of today scores up to half again as much...
HALF_LIFE_DAYS = 60  # ...and one two months old a quarter again
"""Postings read per term when ranking: past it, a term is too common to tell much, and the
newest documents (postings are in the order documents came) are the ones that matter."""
B = 0.75
T = TypeVar("T")
PHRASE = re.compile(r'"([^"]+)"')


class Doc(NamedTuple):
    kind: str  # journal | checkin | chat | reply | fact | daily | summary
    ref: int
    day: date
    text: str
    stamp: str = ""  # sortable moment: ties and "newest first"
    session: int | None = None


@dataclass(frozen=True)
class Scored:
    doc: Doc
    score: float
    coverage: float = 1.0  # the share of the question's weight this document holds


def _locked(method: Callable[..., T]) -> Callable[..., T]:
    """The app writes from one thread and asks from others: one at a time."""

    @functools.wraps(method)
    def run(self: Index, *args: Any, **kwargs: Any) -> T:
        with self._lock:
            return method(self, *args, **kwargs)

    return run


class Index:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._docs: list[Doc | None] = []
        self._lengths = array("I")
        self._number: dict[tuple[str, int], int] = {}
        self._postings: dict[str, tuple[array[int], array[int]]] = {}
        self._vocabulary: list[str] | None = None
        self._live = 0
        self._total = 0
        self._removed = 0
        self._by_day: dict[date, list[int]] = {}

    def __len__(self) -> int:
        return self._live

    # -- writing ---------------------------------------------------------------------------

    @_locked
    def put(self, doc: Doc) -> None:
        """Add a document, or replace the one of the same kind and ref. The document is in
        place before its postings, so a reader in another thread never meets a number it
        cannot look up."""
        self.remove(doc.kind, doc.ref)
        number = len(self._docs)
        terms = words.terms(doc.text)
        counts = Counter(terms)  # counted in C
        length = len(terms)
        self._docs.append(doc)
        self._lengths.append(length)
        self._number[(doc.kind, doc.ref)] = number
        self._by_day.setdefault(doc.day, []).append(number)
        self._live += 1
        self._total += length
        for term, count in counts.items():
            found = self._postings.get(term)
            if found is None:
                found = self._postings[term] = (array("I"), array("I"))
                self._vocabulary = None
            found[0].append(number)
            found[1].append(count)

    @_locked
    def remove(self, kind: str, ref: int) -> None:
        number = self._number.pop((kind, ref), None)
        if number is None:
            return
        self._docs[number] = None
        self._live -= 1
        self._total -= self._lengths[number]
        self._removed += 1
        if self._removed > 1000 and self._removed > self._live // 4:
            self.compact()

    @_locked
    def compact(self) -> None:
        """Rebuild without the removed documents, so no posting remembers them."""
        docs = [d for d in self._docs if d is not None]
        lock = self._lock
        self.__init__()  # type: ignore[misc]
        self._lock = lock
        for doc in docs:
            self.put(doc)

    @_locked
    def documents(self, kind: str | None = None) -> list[Doc]:
        return [d for d in self._docs if d is not None and (kind is None or d.kind == kind)]

    # -- asking ----------------------------------------------------------------------------

    def _idf(self, df: int) -> float:
        return math.log(1 + (self._live - df + 0.5) / (df + 0.5))

    def _scores(
        self,
        weights: dict[str, float],
        keep: Callable[[Doc], bool],
        matched: dict[int, float] | None = None,
    ) -> dict[int, float]:
        """BM25 of every document holding at least one term (terms weighted). ``matched``
        collects, per document, the IDF weight of the terms it holds."""
        average = self._total / self._live if self._live else 1.0
        scores: dict[int, float] = {}
        for term, weight in weights.items():
            found = self._postings.get(term)
            if not found:
                continue
            numbers, counts = found
            idf = self._idf(len(numbers)) * weight
            if len(numbers) > SCAN_LIMIT:  # a word in most documents: its newest ones count
                numbers, counts = numbers[-SCAN_LIMIT:], counts[-SCAN_LIMIT:]
            for number, count in zip(numbers, counts):  # noqa: B905 (may grow meanwhile)
                doc = self._docs[number]
                if doc is None or not keep(doc):
                    continue
                norm = K1 * (1 - B + B * self._lengths[number] / average)
                scores[number] = scores.get(number, 0.0) + idf * count * (K1 + 1) / (count + norm)
                if matched is not None:
                    matched[number] = matched.get(number, 0.0) + idf
        return scores

    @_locked
    def weight_of(self, weights: dict[str, float]) -> float:
        """The IDF weight of all ``weights``' terms together (a word no document holds counts
        as the rarest): how much a perfect match would hold."""
        return sum(
            self._idf(len(self._postings[t][0]) if t in self._postings else 0) * w
            for t, w in weights.items()
        )

    def _holding(self, term: str) -> set[int]:
        found = self._postings.get(term)
        return set(found[0]) if found else set()

    def _prefixed(self, prefix: str) -> list[str]:
        if self._vocabulary is None:
            self._vocabulary = sorted(self._postings)
        start = bisect.bisect_left(self._vocabulary, prefix)
        out = []
        for term in self._vocabulary[start:]:
            if not term.startswith(prefix):
                break
            out.append(term)
        return out

    @_locked
    def search(
        self,
        query: str,
        kinds: Collection[str] | None = None,
        limit: int = 50,
        newest: bool = False,
    ) -> list[Doc]:
        """What a person types: all terms (the last also as a prefix), "phrases" as phrases."""
        phrases = [p.strip().lower() for p in PHRASE.findall(query) if p.strip()]
        rest = PHRASE.sub(" ", query)
        raw = [w for w in words.words(rest) if w not in words.STOP]
        required = [words.stem(w) for w in raw]
        for phrase in phrases:
            required += words.terms(phrase)
        if not required and not phrases:
            return []
        # The last word as typed may be unfinished: any term it begins also matches.
        last = raw[-1] if raw and not query.rstrip().endswith(('"', " ")) else None
        alternatives: list[list[str]] = [[t] for t in required]
        if last is not None:
            alternatives[len(raw) - 1] = sorted({required[len(raw) - 1], *self._prefixed(last)})

        def keep(doc: Doc) -> bool:
            return kinds is None or doc.kind in kinds

        candidates: set[int] | None = None
        for options in alternatives:
            holding: set[int] = set()
            for term in options:
                holding |= self._holding(term)
            candidates = holding if candidates is None else candidates & holding
            if not candidates:
                return []
        docs = [d for n in candidates or () if (d := self._docs[n]) is not None and keep(d)]
        if phrases:
            patterns = [
                re.compile(r"\b" + r"\W+".join(map(re.escape, p.split())) + r"\b", re.I)
                for p in phrases
            ]
            docs = [d for d in docs if all(pattern.search(d.text) for pattern in patterns)]
        docs.sort(key=lambda d: d.stamp, reverse=True)  # newer first: on ties, and --newest
        if not newest:
            weights = {t: 1.0 for options in alternatives for t in options}
            wanted = {(d.kind, d.ref) for d in docs}
            scores = self._scores(weights, lambda d: (d.kind, d.ref) in wanted)
            numbers = self._number
            docs.sort(key=lambda d: -scores.get(numbers[(d.kind, d.ref)], 0.0))  # stable
        return docs[:limit]

    @_locked
    def relevant(
        self,
        weights: dict[str, float],
        keep: Callable[[Doc], bool],
        limit: int = 10,
        today: date | None = None,
    ) -> list[Scored]:
        """What the coach's context asks: documents ``keep`` accepts, ranked by weighted
        terms (any may match), newer first on ties. Each carries ``coverage``: the share of the
        question's weight (``weights`` at exactly 1.0: the user's own words) it holds."""
        matched: dict[int, float] = {}
        scores = self._scores(weights, keep, matched)
        if today is not None:  # the newer of two equal matches matters more to a coach
            for number in scores:
                age = max(0, (today - self._docs[number].day).days)  # type: ignore[union-attr]
                scores[number] *= 1 + RECENCY * 0.5 ** (age / HALF_LIFE_DAYS)
        whole = self.weight_of({t: w for t, w in weights.items() if w == 1.0}) or 1.0
        ranked = sorted(scores.items(), key=lambda item: (-item[1], -item[0]))[:limit]
        return [
            Scored(doc, score, min(1.0, matched[n] / whole))
            for n, score in ranked
            if (doc := self._docs[n]) is not None
        ]

    @_locked
    def in_span(
        self,
        keep: Callable[[Doc], bool],
        limit: int = 10,
        first: date | None = None,
        last: date | None = None,
    ) -> list[Doc]:
        """Documents ``keep`` accepts, newest first (a date question with no other words);
        between ``first`` and ``last`` when given, read day by day."""
        if first is not None and last is not None and (last - first).days <= 400:
            numbers = [
                n
                for offset in range((last - first).days + 1)
                for n in self._by_day.get(date.fromordinal(first.toordinal() + offset), ())
            ]
            found = [d for n in numbers if (d := self._docs[n]) is not None and keep(d)]
        else:
            found = [d for d in self._docs if d is not None and keep(d)]
        found.sort(key=lambda d: d.stamp, reverse=True)
        return found[:limit]


def _neg(stamp: str) -> tuple[int, ...]:
    """Sorts newer stamps first inside an ascending sort."""
    return tuple(-ord(c) for c in stamp)
