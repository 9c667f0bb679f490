"""Ranking over the vault's sealed index (vault/postings.py) with BM25: IDF, so a name
outweighs "today".

Two ways to ask. ``search`` is what a person types: every term must match, the last also as a
prefix ("crav" finds "cravings"), "quoted phrases" match as phrases, best first and newer first
on ties (or newest first). ``relevant`` is what the coach's context asks: any term may match,
weighted, among the documents a filter keeps. Only the documents shown are opened, so nothing
but the postings is held in memory.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import date

from companion.vault import Vault, documents, words
from companion.vault.documents import CODES, KINDS, SHIFT, Document, Ref
from companion.vault.postings import EPOCH, Postings

K1 = 1.2
B = 0.75
SCAN_LIMIT = 600
"""Postings read per term and kind when the coach asks: past it, a term is too common to tell
much, and the newest documents are the ones that matter."""
RECENCY = 0.5  # a document of today scores up to half again as much...
HALF_LIFE_DAYS = 60  # ...and one two months old a quarter again
PHRASE = re.compile(r'"([^"]+)"')
Doc = Document


@dataclass(frozen=True)
class Scored:
    doc: Doc
    score: float
    coverage: float = 1.0  # the share of the question's weight this document holds
    direct: bool = True  # it holds one of the question's own words (or a name it points at)


def _day(number: int) -> date:
    return date.fromordinal(number + EPOCH)


def _ref(key: int, day: int) -> Ref:
    kind, ref = documents.kind_of(key)
    return Ref(kind, ref, _day(day))


def _rows_of(found: Postings, wanted: Collection[int]) -> list[tuple[int, int, int, int]]:
    """The rows of ``found`` (ordered) whose keys are ``wanted``."""
    keys, out = found.keys, []
    size = len(keys)
    for key in wanted:
        at = bisect.bisect_left(keys, key)
        if at < size and keys[at] == key:
            out.append((key, found.days[at], found.counts[at], found.lengths[at]))
    return out


class Index:
    """Questions to one vault's index."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.store = vault.index

    def __len__(self) -> int:
        return self.store.totals()[0]

    def ready(self) -> bool:
        return self.store.ready()

    def _idf(self, df: int, n: int) -> float:
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def _df(self, term: str) -> int:
        return sum(len(p) for p in self.store.postings(term))

    def _scores(
        self,
        weights: dict[str, float],
        keep: Callable[[Ref], bool] | None,
        within: set[int] | None = None,
        held: dict[int, list[str]] | None = None,
        codes: set[int] | None = None,
    ) -> tuple[dict[int, float], dict[int, int]]:
        """BM25 of every document holding at least one term (terms weighted) that ``keep``
        accepts (None: all) and ``within`` holds, and each one's day. ``held`` collects the
        terms each holds. The hot loop of every question."""
        n, total = self.store.totals()
        average = total / n if n and total else 1.0  # documents of function words only: 0
        fixed, per_length = K1 * (1 - B), K1 * B / average
        scores: dict[int, float] = {}
        days: dict[int, int] = {}
        verdict: dict[int, bool] = {}
        for term, weight in weights.items():
            lists = self.store.postings(term)
            df = sum(len(p) for p in lists)
            if not df:
                continue
            idf = self._idf(df, n) * weight * (K1 + 1)
            for found in lists:
                rows: Iterable[tuple[int, int, int, int]]
                if within is not None and found.ordered and len(within) * 16 < len(found):
                    rows = _rows_of(found, within)  # a few candidates: looked up, not scanned
                elif found.ordered and (keep is not None or codes is not None):
                    runs = []  # the kinds asked for; for the coach, each kind's newest rows,
                    for code in codes if codes is not None else range(1, len(KINDS) + 1):
                        start, end = found.run_of(code)  # at most SCAN_LIMIT: past it a
                        if keep is not None:  # term is too common to tell much
                            start = max(start, end - SCAN_LIMIT)
                        runs.append((start, end))
                    rows = itertools.chain.from_iterable(
                        zip(  # noqa: B905
                            found.keys[a:b], found.days[a:b], found.counts[a:b],
                            found.lengths[a:b],
                        )
                        for a, b in runs
                    )  # fmt: skip
                else:
                    rows = zip(found.keys, found.days, found.counts, found.lengths)  # noqa: B905
                for key, day, count, length in rows:
                    if within is not None and key not in within:
                        continue
                    if codes is not None and (key >> SHIFT) not in codes:
                        continue
                    if keep is not None:
                        ok = verdict.get(key)
                        if ok is None:
                            ok = verdict[key] = keep(_ref(key, day))
                        if not ok:
                            continue
                    scores[key] = scores.get(key, 0.0) + idf * count / (
                        count + fixed + per_length * length
                    )
                    days[key] = day
                    if held is not None:
                        held.setdefault(key, []).append(term)
        return scores, days

    def _holding(self, term: str, codes: set[int] | None = None) -> set[int]:
        out: set[int] = set()
        for found in self.store.postings(term):
            if codes is None:
                out.update(found.keys)
            elif found.ordered:  # each kind is one run of keys
                for code in codes:
                    start, end = found.run_of(code)
                    out.update(found.keys[start:end])
            else:
                out.update(k for k in found.keys if (k >> SHIFT) in codes)
        return out

    def open(self, keys: Iterable[int]) -> dict[int, Doc]:
        """The documents of ``keys``, read from their tables now."""
        by_kind: dict[str, list[int]] = {}
        for key in keys:
            kind, ref = documents.kind_of(key)
            by_kind.setdefault(kind, []).append(ref)
        out: dict[int, Doc] = {}
        for kind, refs in by_kind.items():
            for ref, doc in documents.documents(self.vault, kind, refs).items():
                out[documents.key_of(kind, ref)] = doc
        return out

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
        if not required:
            return []
        # The last word as typed may be unfinished: any term it begins also matches.
        last = raw[-1] if raw and not query.rstrip().endswith(('"', " ")) else None
        alternatives: list[list[str]] = [[t] for t in required]
        if last is not None:
            at = len(raw) - 1
            alternatives[at] = sorted({required[at], *self.store.prefixed(last)})
        codes = None if kinds is None else {CODES[k] for k in kinds}
        candidates: set[int] | None = None
        for options in sorted(alternatives, key=lambda o: sum(self._df(t) for t in o)):
            holding: set[int] = set()
            for term in options:
                holding |= self._holding(term, codes)
            candidates = holding if candidates is None else candidates & holding
            if not candidates:
                return []
        assert candidates is not None
        weights = {t: 1.0 for options in alternatives for t in options}
        if len(alternatives) == 1:  # every posting of these terms is a candidate
            scores, days = self._scores(weights, None, codes=codes)
        else:
            scores, days = self._scores(weights, None, within=candidates, codes=codes)
        # Only the best few are sorted (phrases may turn many down: then all of them); every
        # document that ties with the last of them is in, so ties still go newer first.
        wanted = len(scores) if phrases else limit * 2 + 50
        first: dict[int, float] | dict[int, int] = days if newest else scores
        pool = list(first)
        if len(pool) > wanted:
            edge = heapq.nlargest(wanted, first.values())[-1]
            pool = [k for k, v in first.items() if v >= edge]
        if newest:
            pool.sort(key=lambda k: (days[k], k), reverse=True)
        else:  # best first; newer first on ties
            pool.sort(key=lambda k: (scores[k], days[k], k), reverse=True)
        order = pool
        patterns = [
            re.compile(r"\b" + r"\W+".join(map(re.escape, p.split())) + r"\b", re.I)
            for p in phrases
        ]
        found: list[Doc] = []
        for start in range(0, len(order), max(limit, 50)):
            part = order[start : start + max(limit, 50)]
            opened = self.open(part)
            for key in part:
                doc = opened.get(key)
                if doc is not None and all(p.search(doc.text) for p in patterns):
                    found.append(doc)
            if len(found) >= limit and not newest:
                break
            if newest and len(found) >= limit:
                edge = days.get(part[-1], 0)  # the same day may go on: stamps decide within it
                if start + len(part) >= len(order) or days.get(order[start + len(part)]) != edge:
                    break
        if newest:
            found.sort(key=lambda d: (d.day, d.stamp), reverse=True)
        return found[:limit]

    def relevant(
        self,
        weights: dict[str, float],
        keep: Callable[[Ref], bool],
        limit: int = 10,
        today: date | None = None,
        kinds: Collection[str] | None = None,
        concepts: list[dict[str, float]] | None = None,
    ) -> list[Scored]:
        """What the coach's context asks: documents of ``kinds`` that ``keep`` accepts, ranked
        by weighted terms (any may match), newer first on ties. Each carries ``coverage``: the
        share of the question's weight it holds. ``concepts`` has one entry per word of the
        question: the terms that say it, the word's own first, each with the credit it earns
        (without, each term at 1.0 is a word). A word is held by any of its terms, weighed by
        the word's own rarity (a word no document holds counts as the rarest)."""
        held: dict[int, list[str]] = {}
        codes = None if kinds is None else {CODES[k] for k in kinds}
        scores, days = self._scores(weights, keep, held=held, codes=codes)
        if today is not None:  # the newer of two equal matches matters more to a coach
            now = today.toordinal() - EPOCH
            for key in scores:
                age = max(0, now - days[key])
                scores[key] *= 1 + RECENCY * 0.5 ** (age / HALF_LIFE_DAYS)
        if concepts is None:
            concepts = [{t: 1.0} for t, w in weights.items() if w == 1.0]
        n = self.store.totals()[0]
        rarity = [self._idf(self._df(next(iter(c))), n) for c in concepts]
        whole = sum(rarity) or 1.0

        def coverage_of(key: int) -> float:  # asked only of the documents returned
            there = set(held[key])
            got = sum(
                r * max((credit for t, credit in c.items() if t in there), default=0.0)
                for r, c in zip(rarity, concepts)  # noqa: B905
            )
            return min(1.0, got / whole)

        def direct(key: int) -> bool:  # holds one of the question's own words, or a name
            return any(weights[t] >= 1.0 for t in held[key])

        # A document with only words that mean the same comes after every one with the
        # question's own words: "rent" said finds "rent" written before "apartment".
        ranked = sorted(
            scores.items(),
            key=lambda item: (not direct(item[0]), -item[1], -days[item[0]], -item[0]),
        )
        out: list[Scored] = []
        for start in range(0, len(ranked), limit * 2 or 1):
            part = ranked[start : start + limit * 2]
            opened = self.open(k for k, _ in part)
            for key, score in part:
                doc = opened.get(key)
                if doc is not None:
                    out.append(Scored(doc, score, coverage_of(key), direct(key)))
            if len(out) >= limit or not part:
                break
        return out[:limit]

    def in_span(
        self,
        keep: Callable[[Ref], bool],
        kinds: Iterable[str],
        limit: int = 10,
        first: date | None = None,
        last: date | None = None,
    ) -> list[Doc]:
        """Documents of ``kinds`` that ``keep`` accepts, newest first (a date question with
        no other words), between ``first`` and ``last`` when given."""
        found: list[Doc] = []
        for kind in kinds:
            taken = 0
            for part in documents.newest_refs(self.vault, kind, first, last):
                refs = [r for r in part if keep(r)]
                opened = documents.documents(self.vault, kind, [r.ref for r in refs])
                for ref in refs:
                    doc = opened.get(ref.ref)
                    if doc is not None:
                        found.append(doc)
                        taken += 1
                if taken >= limit:
                    break
        found.sort(key=lambda d: (d.day, d.stamp), reverse=True)
        return found[:limit]
