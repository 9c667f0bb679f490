"""Ranking over the vault's sealed index (vault/index.py) with BM25: IDF, so a name
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
import math
import re
from collections.abc import Callable, Collection, Iterable
from datetime import date

from companion.retrieval import cover
from companion.retrieval.cover import Scored
from companion.retrieval.order import Allowed, day_finder
from companion.retrieval.shares import Shares, summed
from companion.vault import Vault, documents, words
from companion.vault.documents import CODES, KINDS, SHIFT, Document, Ref
from companion.vault.postings import EPOCH, Postings

K1 = 1.2
B = 0.75
SCAN_LIMIT = 600
"""Postings read per term and kind when the coach asks: past it, a term is too common to tell
much, and the newest documents are the ones that matter."""
COMMON = 0.25
COMMON_SCAN = 150
"""A word more than COMMON of all documents hold says little about which to pick (its IDF
is under 1.4; a name's is 6 to 12): the coach reads only its newest COMMON_SCAN rows of each
kind (a quarter of SCAN_LIMIT), which is where the recency lift finds its best anyway. Not
for a question about a time: what it asks for may be older than that."""
SPAN_KEYS = 1000
"""A question about a time whose span holds at most this many documents (a month of a busy
history) scores those alone, whatever their age; a longer span reads as any question does."""
RECENCY = 0.5  # a document of today scores up to half again as much...
HALF_LIFE_DAYS = 60  # ...and one two months old a quarter again
PHRASE = re.compile(r'"([^"]+)"')
Doc = Document


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
        self.shares = Shares()

    def __len__(self) -> int:
        return self.store.totals()[0]

    def ready(self) -> bool:
        return self.store.ready()

    def _idf(self, df: int, n: int) -> float:
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def _df(self, term: str) -> int:
        return sum(len(p) for p in self.store.postings(term))

    def _weighted(
        self, weights: dict[str, float]
    ) -> tuple[float, float, list[tuple[str, list[Postings], float, bool]]]:
        """BM25's length terms, and each term held by some document with its postings, its
        IDF times its weight (and K1 + 1) and whether it is COMMON: what both ways of summing
        start from."""
        n, total = self.store.totals()
        average = total / n if n and total else 1.0  # documents of function words only: 0
        terms = []
        for term, weight in weights.items():
            lists = self.store.postings(term)
            df = sum(len(p) for p in lists)
            if df:
                idf = self._idf(df, n) * weight * (K1 + 1)
                terms.append((term, lists, idf, df > COMMON * n))
        return K1 * (1 - B), K1 * B / average, terms

    def _scores(
        self,
        weights: dict[str, float],
        newest_only: bool = False,
        within: set[int] | None = None,
        codes: set[int] | None = None,
        seen: dict[str, list[tuple[Postings, int, int]]] | None = None,
        days: dict[int, int] | None = None,
        cut_common: bool = True,
    ) -> dict[int, float]:
        """BM25 of every document of the kinds ``codes`` (None: all) holding at least one
        term (terms weighted) that ``within`` holds (None: all); into ``days``, when given,
        each one's day (a third of the loop: a search needs a few, see day_finder). With
        ``newest_only`` (the coach), each term's newest SCAN_LIMIT rows of each kind
        (COMMON_SCAN for a common term, with ``cut_common``; none cut with ``within``): past
        that a term is too common to tell much, and the newest documents are the ones that
        matter. ``seen`` collects the rows read for each term (for who holds what later).
        The hot loop of every question: no call and no test per row but the sum, so a
        filter is the caller's, once per document (``Allowed``)."""
        fixed, per_length, terms = self._weighted(weights)
        scores: dict[int, float] = {}
        get = scores.get
        among: Collection[int] = within if within is not None else ()
        for term, lists, idf, common in terms:
            scan = COMMON_SCAN if common and cut_common else SCAN_LIMIT
            for found in lists:
                keys, counts, lengths = found.keys, found.counts, found.lengths
                if within is not None and found.ordered and len(within) * 16 < len(found):
                    # a few candidates: looked up, not scanned
                    for key, day, count, length in _rows_of(found, within):
                        if codes is None or (key >> SHIFT) in codes:
                            scores[key] = get(key, 0.0) + idf * count / (
                                count + fixed + per_length * length
                            )
                            if days is not None:
                                days[key] = day
                    if seen is not None:
                        seen.setdefault(term, []).append((found, 0, len(found)))
                    continue
                runs: list[tuple[int, int]] = []
                if not found.ordered or (codes is None and not newest_only):
                    runs.append((0, len(found)))  # deltas are few, in the order they came
                else:  # each kind is one run of keys, oldest first
                    for code in sorted(codes) if codes is not None else range(1, len(KINDS) + 1):
                        start, end = found.run_of(code)
                        if newest_only and within is None:
                            start = max(start, end - scan)
                        if start < end:
                            runs.append((start, end))
                for start, end in runs:
                    part = keys[start:end]
                    # Rows are looked at one by one only when many are turned down: with
                    # most of them candidates, all are summed and the rest dropped after.
                    sparse = within is not None and 2 * len(within) < end - start
                    if sparse or (codes is not None and not found.ordered):
                        for key, day, count, length in zip(  # noqa: B905
                            part, found.days[start:end], counts[start:end], lengths[start:end]
                        ):
                            if (not sparse or key in among) and (
                                codes is None or (key >> SHIFT) in codes
                            ):
                                scores[key] = get(key, 0.0) + idf * count / (
                                    count + fixed + per_length * length
                                )
                                if days is not None:
                                    days[key] = day
                    else:
                        for key, count, length in zip(  # noqa: B905
                            part, counts[start:end], lengths[start:end]
                        ):
                            scores[key] = get(key, 0.0) + idf * count / (
                                count + fixed + per_length * length
                            )
                        if days is not None:  # a third of the loop: only when asked
                            days.update(zip(part, found.days[start:end]))  # noqa: B905
                    if seen is not None:
                        seen.setdefault(term, []).append((found, start, end))
        if within is not None:  # what was summed whole, cut to the candidates
            scores = {key: scores[key] for key in within if key in scores}
        return scores

    def _summed(
        self,
        weights: dict[str, float],
        within: set[int] | None,
        codes: set[int] | None,
        seen: dict[str, list[tuple[Postings, int, int]]],
    ) -> dict[int, float]:
        """``_scores`` as a search asks it (all rows, no days), from each run's shares kept
        between searches (shares.py): the same sums, in the same order."""
        fixed, per_length, terms = self._weighted(weights)
        parts: list[dict[int, float]] = []
        runs_seen: dict[str, list[tuple[Postings, int, int]]] = {}
        for term, lists, idf, _ in terms:
            for found in lists:
                if not found.ordered or codes is None:
                    runs = [(0, len(found))]
                else:  # each kind is one run of keys
                    runs = [found.run_of(code) for code in sorted(codes)]
                for start, end in runs:
                    only = codes if not found.ordered else None
                    part = self.shares.of(found, start, end, idf, fixed, per_length, only)
                    if part is None:  # a key twice: summed row by row
                        return self._scores(weights, within=within, codes=codes, seen=seen)
                    parts.append(part)
                    runs_seen.setdefault(term, []).append((found, start, end))
        seen.update(runs_seen)
        return summed(parts, within)

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
        # Every document's day when they go newest first; else only the few sorted need one.
        days: dict[int, int] = {}
        seen: dict[str, list[tuple[Postings, int, int]]] = {}
        within = None if len(alternatives) == 1 else candidates  # one word: all match
        if newest:
            scores = self._scores(weights, within=within, codes=codes, seen=seen, days=days)
        else:
            scores = self._summed(weights, within, codes, seen)
        day_of = day_finder(seen, days)
        # Only the best few are sorted (phrases may turn many down: then all of them); every
        # document that ties with the last of them is in, so ties still go newer first.
        wanted = len(scores) if phrases else limit * 2 + 50
        value: Callable[[int], float] = days.__getitem__ if newest else scores.__getitem__
        pool = list(scores)
        if len(pool) > wanted:
            edge = heapq.nlargest(wanted, map(value, pool))[-1]
            pool = [k for k in pool if value(k) >= edge]
        if newest:
            pool.sort(key=lambda k: (days[k], k), reverse=True)
        else:  # best first; newer first on ties
            pool.sort(key=lambda k: (scores[k], day_of(k), k), reverse=True)
        order = pool
        patterns = [
            re.compile(r"\b" + r"\W+".join(map(re.escape, p.split())) + r"\b", re.I)
            for p in phrases
        ]
        found: list[Doc] = []
        step = max(limit, 50) if patterns or newest else max(limit, 1)  # each is shown
        for start in range(0, len(order), step):
            part = order[start : start + step]
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
        keep: Allowed,
        limit: int = 10,
        today: date | None = None,
        kinds: Collection[str] | None = None,
        concepts: list[dict[str, float]] | None = None,
        light: Collection[str] = (),
        distinct: bool = False,
    ) -> list[Scored]:
        """What the coach's context asks: documents of ``kinds`` that ``keep`` accepts, ranked
        by weighted terms (any may match), newer first on ties. Each carries ``coverage``: the
        share of the question's weight it holds. ``concepts`` has one entry per word of the
        question: the terms that say it, the word's own first, each with the credit it earns
        (without, each term at 1.0 is a word). A word is held by any of its terms, weighed by
        the word's own rarity (a word no document holds: see cover.rarities; recall drops the words
        that only frame a question, "the name of"). ``light`` words ("want", "see") count for
        less and name no topic: ``topical`` says whether a document holds a word that does. With
        ``distinct``, the same words once (a fact saved ten times takes one place)."""
        seen: dict[str, list[tuple[Postings, int, int]]] = {}
        codes = None if kinds is None else {CODES[k] for k in kinds}
        days: dict[int, int] = {}  # all read with the scores: the recency lift asks most
        when, within = keep.when, None
        asked = list(kinds or KINDS)
        spanned = when is not None and (when.first, when.last) != (None, None)
        if when is not None and spanned and not set(asked) & keep.timeless:  # facts: any date
            within = self._span_keys(asked, when.first, when.last, SPAN_KEYS)
        scores = self._scores(weights, True, within, codes, seen, days, cut_common=when is None)
        day_of = day_finder(seen, days)
        for key in keep.turned_down(scores, day_of):
            del scores[key]
        lift = None
        if today is not None:  # the newer of two equal matches matters more to a coach
            now = today.toordinal() - EPOCH

            def lift(day: int) -> float:
                return 1 + RECENCY * math.pow(0.5, max(0, now - day) / HALF_LIFE_DAYS)

        n = self.store.totals()[0]
        return cover.best(
            self,
            scores,
            seen,
            day_of,
            weights,
            limit,
            lift,
            1 + RECENCY,
            concepts,
            light,
            distinct,
            n,
        )

    def _span_keys(
        self, kinds: Iterable[str], first: date | None, last: date | None, most: int
    ) -> set[int] | None:
        """The keys of the documents of ``kinds`` dated from ``first`` to ``last``, from
        plaintext dates (None: more than ``most``)."""
        keys: set[int] = set()
        for kind in kinds:
            for part in documents.newest_refs(self.vault, kind, first, last, chunk=500):
                keys.update(documents.key_of(kind, r.ref) for r in part)
                if len(keys) > most:
                    return None
        return keys

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
                while refs and taken < limit:  # only as many opened as are still wanted
                    some, refs = refs[: limit - taken], refs[limit - taken :]
                    opened = documents.documents(self.vault, kind, [r.ref for r in some])
                    for ref in some:
                        doc = opened.get(ref.ref)
                        if doc is not None:
                            found.append(doc)
                            taken += 1
                if taken >= limit:
                    break
        found.sort(key=lambda d: (d.day, d.stamp), reverse=True)
        return found[:limit]
