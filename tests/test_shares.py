"""Search sums from kept shares (retrieval/shares.py): the same floats as summing every row,
a run whose key comes twice is refused, and the cache stays within its bound."""

from __future__ import annotations

from companion.retrieval.shares import Shares, summed
from companion.vault.documents import SHIFT
from companion.vault.postings import Postings


def _run(rows: list[tuple[int, int, int]], ordered: bool = True) -> Postings:
    found = Postings(ordered=ordered)
    for key, count, length in rows:
        found.add(key, 100, count, length)
    return found


def _by_row(runs: list[tuple[Postings, float]], fixed: float, per: float) -> dict[int, float]:
    scores: dict[int, float] = {}
    for found, idf in runs:
        for key, count, length in zip(found.keys, found.counts, found.lengths):  # noqa: B905
            scores[key] = scores.get(key, 0.0) + idf * count / (count + fixed + per * length)
    return scores


def test_kept_shares_sum_to_the_same_floats_as_every_row_added() -> None:
    first = _run([(1 << SHIFT | n, 1 + n % 3, 40 + 7 * n) for n in range(50)])
    second = _run([(1 << SHIFT | n, 2, 90 + n) for n in range(0, 50, 3)])
    shares = Shares()
    runs = [(first, 1.7), (second, 3.1)]
    parts = [shares.of(f, 0, len(f), idf, 0.3, 0.009) for f, idf in runs]
    assert all(p is not None for p in parts)
    whole = _by_row(runs, 0.3, 0.009)
    assert summed([p for p in parts if p is not None], None) == whole
    within = {1 << SHIFT | n for n in range(0, 50, 2)}
    cut = summed([p for p in parts if p is not None], within)
    assert cut == {k: v for k, v in whole.items() if k in within}
    assert shares.of(first, 0, len(first), 1.7, 0.3, 0.009) is parts[0]  # kept


def test_a_run_with_a_key_twice_is_refused_and_new_rows_make_a_new_entry() -> None:
    waiting = _run([(2 << SHIFT | 5, 1, 10), (2 << SHIFT | 5, 2, 12)], ordered=False)
    shares = Shares()
    assert shares.of(waiting, 0, len(waiting), 1.0, 0.3, 0.01) is None
    growing = _run([(2 << SHIFT | 1, 1, 10)], ordered=False)
    before = shares.of(growing, 0, len(growing), 1.0, 0.3, 0.01)
    growing.add(2 << SHIFT | 2, 100, 1, 10)  # a delta grows in place
    after = shares.of(growing, 0, len(growing), 1.0, 0.3, 0.01)
    assert before is not None and after is not None and len(after) == 2


def test_kinds_are_kept_apart_and_the_cache_stays_bounded() -> None:
    mixed = _run([(1 << SHIFT | 1, 1, 10), (3 << SHIFT | 1, 1, 10)], ordered=False)
    shares = Shares(most_rows=3)
    only = shares.of(mixed, 0, len(mixed), 1.0, 0.3, 0.01, {3})
    assert only is not None and list(only) == [3 << SHIFT | 1]
    for n in range(5):
        run = _run([(1 << SHIFT | k, 1, 10) for k in range(2)])
        shares.of(run, 0, len(run), 1.0 + n, 0.3, 0.01)
    assert shares._rows <= 3
