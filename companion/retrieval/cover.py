"""The best few of what the coach's context asks, in order (rank.py scores them): each one's
coverage, the share of the question it holds, weighed by how rare each word is; the best by
score and by recency first, then by what they hold; the same words once."""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Protocol

from companion.retrieval.order import best_first
from companion.vault.documents import Document
from companion.vault.postings import Postings


class Index(Protocol):
    """What the best few need of rank.py's index (named here: rank.py imports this module)."""

    def _idf(self, df: int, n: int) -> float: ...

    def _df(self, term: str) -> int: ...

    def open(self, keys: Iterable[int]) -> dict[int, Document]: ...


UNKNOWN = 0.5  # a word in no document weighs at least this share of the rarest (rarities)
POOL = 2  # times as many as asked for are ranked by score first, then by what they hold
COVERED = 0.25  # added to the share of the question held before it weighs the score
LIGHT_SHARE = 0.5  # of a light word's rarity in coverage: it says less than a topic's word


@dataclass(frozen=True)
class Scored:
    doc: Document
    score: float
    coverage: float = 1.0  # the share of the question's weight this document holds
    direct: bool = True  # it holds one of the question's own words (or a name it points at)
    topical: bool = True  # it holds a word that names a topic (not only "want", "see")


def rarities(
    index: Index, concepts: list[dict[str, float]], topics: list[bool], n: int
) -> list[float]:
    """What each word of a question weighs in coverage: its IDF (half for a light word).
    A word that neither it nor any word that says it is in a document has no IDF to
    speak of (BM25's value for it is the rarest there can be, and let "my job at the
    moment" sink the job): it weighs as much as the question's most telling known word,
    and at least UNKNOWN of the rarest ("a cousin called Bartholomew" is not "called")."""
    rarest = index._idf(0, n)
    out: list[float | None] = []
    for concept, topic in zip(concepts, topics):  # noqa: B905
        own = next(iter(concept))
        df = index._df(own)
        if not df and not any(index._df(t) for t in concept if t != own):
            out.append(None)
        else:
            out.append(index._idf(df, n) * (1.0 if topic else LIGHT_SHARE))
    known = [r for r, topic in zip(out, topics) if r is not None and topic]  # noqa: B905
    unknown = max([UNKNOWN * rarest, *known])
    return [unknown if r is None else r for r in out]


def best(
    index: Index,
    scores: dict[int, float],
    seen: dict[str, list[tuple[Postings, int, int]]],
    day_of: Callable[[int], int],
    weights: dict[str, float],
    limit: int,
    lift: Callable[[int], float] | None,
    most: float,
    concepts: list[dict[str, float]] | None,
    light: Collection[str],
    distinct: bool,
    n: int,
) -> list[Scored]:
    """The best ``limit`` of ``scores`` (those allowed, read from ``seen``), as
    ``Index.relevant`` says; ``lift`` (of a day, at most ``most``) weighs recency."""
    if concepts is None:
        concepts = [{t: 1.0} for t, w in weights.items() if w == 1.0]
    topics = [next(iter(c)) not in light for c in concepts]
    rarity = rarities(index, concepts, topics, n)
    whole = sum(rarity) or 1.0

    def holds(key: int, term: str) -> bool:
        for found, start, end in seen.get(term, ()):
            if found.ordered:
                at = bisect.bisect_left(found.keys, key, start, end)
                if at < end and found.keys[at] == key:
                    return True
            elif key in found.keys[start:end]:
                return True
        return False

    asked = {t for c in concepts for t in c if t in seen}

    def coverage_of(key: int) -> tuple[float, bool]:  # only of the documents returned
        there = {t for t in asked if holds(key, t)}
        got, topical = 0.0, False
        for r, concept, topic in zip(rarity, concepts, topics):  # noqa: B905
            best = 0.0  # the best credit among the word's terms this document holds
            for term, credit in concept.items():
                if credit > best and term in there:
                    best = credit
            got += r * best
            topical = topical or (topic and best > 0)
        return min(1.0, got / whole), topical

    # The best few by score, then by the share of the question each holds as well: one
    # holding more of what was asked, in other words ("lent" for "owe"), before one holding
    # a common word of it as said ("money"); one with only another word for a word after
    # one with the word itself ("rent" written before "apartment", unless far rarer).
    own = [term for term, weight in weights.items() if weight >= 1.0]
    size = limit or 1
    pool = next(best_first(scores.keys(), scores, day_of, size, lift, most), [])
    # and as many again by score alone (only these are lifted: lifting all that could
    # reach twice as many was most of the time of a question naming a person)
    taken = {key for key, _ in pool}
    if len(scores) > len(taken):
        edge = heapq.nlargest(size + len(taken), scores.values())[-1]
        more = [k for k, v in scores.items() if v >= edge and k not in taken]
        more.sort(key=scores.__getitem__, reverse=True)
        for key in more[: POOL * size - len(pool)]:
            pool.append((key, scores[key] * (lift(day_of(key)) if lift is not None else 1.0)))
    ranked = []
    for key, score in pool:
        coverage, topical = coverage_of(key)
        ranked.append((score * (COVERED + coverage), coverage, topical, key))
    ranked.sort(key=lambda r: (r[0], day_of(r[3]), r[3]), reverse=True)
    out: list[Scored] = []
    told: set[str] = set()
    for start in range(0, len(ranked), size):
        part = ranked[start : start + size]
        opened = index.open(r[3] for r in part)  # only as many as are asked for
        for score, coverage, topical, key in part:
            doc = opened.get(key)
            if doc is None:
                continue
            if distinct:  # the same words once
                same = " ".join(doc.text.lower().split())
                if same in told:
                    continue
                told.add(same)
            said = any(holds(key, term) for term in own)
            out.append(Scored(doc, score, coverage, said, topical))
        if len(out) >= limit:
            break
    return out[:limit]
