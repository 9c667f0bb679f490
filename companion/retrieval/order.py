"""Which documents a question may return and in what order they come, for ranking
(rank.py): a filter said as sets, so it costs a lookup per document, not a call; the day of a
document read from the postings only when needed; and the best few picked without sorting
every match."""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date

from companion.retrieval.dates import When
from companion.vault.documents import CODES, SHIFT, Ref
from companion.vault.postings import EPOCH, Postings


@dataclass(frozen=True)
class Allowed:
    """Which documents a question may return, said as sets so ranking turns a document down
    with a lookup or two (a call per document, with a ``Ref`` made for it, was a third of
    the coach's section). Also a predicate on a ``Ref``, for what reads documents in order."""

    only: Mapping[str, Collection[int]] = field(default_factory=dict)
    """kind -> the refs of that kind allowed (a kind not named: all of it)"""
    never: Mapping[str, Collection[int]] = field(default_factory=dict)
    """kind -> refs of that kind turned down"""
    when: When | None = None
    """A span or a weekday every document must be of, but those of ``timeless`` kinds."""
    timeless: frozenset[str] = frozenset({"fact"})

    def __call__(self, doc: Ref) -> bool:
        allowed = self.only.get(doc.kind)
        if allowed is not None and doc.ref not in allowed:
            return False
        if doc.ref in self.never.get(doc.kind, ()):
            return False
        return self.when is None or doc.kind in self.timeless or self.when.contains(doc.day)

    def turned_down(self, keys: Iterable[int], day_of: Callable[[int], int]) -> list[int]:
        """Those of ``keys`` not allowed (``day_of`` a key: its day number)."""
        rules: dict[int, tuple[Collection[int] | None, Collection[int]]] = {
            CODES[k]: (refs, self.never.get(k, ())) for k, refs in self.only.items()
        }
        rules.update({CODES[k]: (None, r) for k, r in self.never.items() if k not in self.only})
        when, timeless = self.when, {CODES[k] for k in self.timeless}
        first = -(1 << 30) if when is None or when.first is None else _number(when.first)
        last = 1 << 30 if when is None or when.last is None else _number(when.last)
        weekday = None if when is None else when.weekday
        mask = (1 << SHIFT) - 1
        out = []
        for key in keys:
            code = key >> SHIFT
            rule = rules.get(code)
            if rule is not None:
                allowed, refused = rule
                ref = key & mask
                if (allowed is not None and ref not in allowed) or ref in refused:
                    out.append(key)
                    continue
            if when is None or code in timeless:
                continue
            day = day_of(key)
            if not first <= day <= last or (
                weekday is not None and (day + EPOCH + 6) % 7 != weekday
            ):
                out.append(key)
        return out


def day_finder(
    seen: dict[str, list[tuple[Postings, int, int]]], days: dict[int, int]
) -> Callable[[int], int]:
    """The day of a document scored from the rows ``seen``, looked up when first asked
    (``days`` holds those known): most questions need it for a few documents only."""
    by_code: dict[int, list[tuple[Postings, int, int]]] = {}
    for runs in seen.values():
        for found, start, end in runs:
            if end <= start:
                continue
            code = found.keys[start] >> SHIFT
            one = found.ordered and found.keys[end - 1] >> SHIFT == code
            by_code.setdefault(code if one else 0, []).append((found, start, end))

    mixed = by_code.get(0, [])
    left = bisect.bisect_left

    def day_of(key: int) -> int:
        day = days.get(key)
        if day is not None:
            return day
        for found, start, end in by_code.get(key >> SHIFT, ()):  # ordered, one kind
            keys = found.keys
            at = left(keys, key, start, end)
            if at < end and keys[at] == key:
                day = days[key] = found.days[at]
                return day
        for found, start, end in mixed:
            if found.ordered:
                at = left(found.keys, key, start, end)
                if at < end and found.keys[at] == key:
                    day = days[key] = found.days[at]
                    return day
            elif key in found.keys[start:end]:
                day = days[key] = found.days[found.keys.index(key, start, end)]
                return day
        days[key] = 0  # not in what was read: cannot happen for a document scored
        return 0

    return day_of


def _number(day: date) -> int:
    return day.toordinal() - EPOCH


def best_first(
    keys: Collection[int],
    scores: dict[int, float],
    day_of: Callable[[int], int],
    size: int,
    lift: Callable[[int], float] | None = None,
    most: float = 1.0,
) -> Iterator[list[tuple[int, float]]]:
    """``keys`` with their scores, best first (newer, then the higher key, on ties), ``size``
    at a time. ``lift`` (of a day: from 1 to ``most``) multiplies each score. Only those
    that can be among the best ``size`` are lifted and sorted first (usually all that is
    read): a score lifted is at least itself, so one under the ``size``-th best unlifted
    score even when lifted most is not among them. The rest is sorted only when asked for."""
    top = most if lift is not None else 1.0
    edge = heapq.nlargest(size, [scores[k] for k in keys])[-1] if len(keys) > size else None
    near = [k for k in keys if edge is None or scores[k] * top >= edge]
    final = {k: scores[k] * lift(day_of(k)) if lift else scores[k] for k in near}
    edge = heapq.nlargest(size, final.values())[-1] if len(final) > size else None

    def order(key: int) -> tuple[float, int, int]:
        return final[key], day_of(key), key

    best = [k for k in near if edge is None or final[k] >= edge]  # more when some tie
    best.sort(key=order, reverse=True)
    for start in range(0, len(best), size):
        yield [(k, final[k]) for k in best[start : start + size]]
    taken = set(best)
    rest = [k for k in keys if k not in taken]
    if not rest:
        return
    final.update({k: scores[k] * lift(day_of(k)) if lift else scores[k] for k in rest})
    rest.sort(key=order, reverse=True)
    for start in range(0, len(rest), size):
        yield [(k, final[k]) for k in rest[start : start + size]]
