"""Search as a person types it, in the app and on the command line, over the same sealed
index the coach's recall uses (vault/index.py, ranked by rank.py): every term must match,
the last also as a prefix ("crav" finds "cravings"), "quoted phrases" match as phrases, best
matches first and newer first on ties, or newest first when asked. Journal entries, check-in
notes and chats (both sides, off the record included: they are the user's own words)."""

from __future__ import annotations

from dataclasses import dataclass

from companion import clock
from companion.retrieval.rank import Index
from companion.vault import Vault, words

SEARCHED = {"journal": "journal", "checkin": "checkin", "chat": "chat", "reply": "chat"}


@dataclass(frozen=True)
class Hit:
    kind: str  # journal | checkin | chat
    id: int
    when: str  # sortable stamp or date
    snippet: str
    session_id: int | None = None


def _snippet(text: str, query: str, width: int = 80) -> str:
    lowered = text.lower()
    at = -1
    for word in words.words(query):
        at = lowered.find(word)
        if at >= 0:
            break
    start = max(0, at - width // 3) if at >= 0 else 0
    if start:  # begin at a word, not in the middle of one
        space = text.find(" ", start, at if at > start else start + width // 3)
        start = space + 1 if space >= 0 else start
    piece = text[start : start + width].replace("\n", " ")
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


class SearchIndex:
    """The vault's sealed index, seen as search. Nothing is built: the index is written with
    every record."""

    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._index = Index(vault)

    def ready(self) -> bool:
        return self._index.ready()

    def __len__(self) -> int:
        return self._vault.index.totals(SEARCHED)[0]

    def search(
        self, query: str, limit: int = 50, kind: str | None = None, newest: bool = False
    ) -> list[Hit]:
        kinds = [k for k, shown in SEARCHED.items() if kind is None or shown == kind]
        found = self._index.search(query, kinds, limit, newest)
        return [
            Hit(SEARCHED[d.kind], d.ref, d.stamp, _snippet(d.text, query), d.session) for d in found
        ]

    def tag_counts(self) -> list[tuple[str, int]]:
        counts = {tag.removeprefix("#"): n for tag, n in self._vault.index.tags().items()}
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def when_label(hit: Hit) -> str:
    """A local date and time for a hit (check-ins carry a date only)."""
    if hit.kind == "checkin":
        return hit.when
    return clock.parse_stamp(hit.when).strftime("%Y-%m-%d %H:%M")
