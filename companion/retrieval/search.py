"""Search as a person types it, in the app and on the command line, over the same index the
coach's recall uses (corpus.py): every term must match, the last also as a prefix ("crav"
finds "cravings"), "quoted phrases" match as phrases, best matches first and newer first on
ties, or newest first when asked. Journal entries, check-in notes and chats (both sides, off
the record included: they are the user's own words)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from companion import clock
from companion.retrieval import text as words
from companion.retrieval.corpus import index_of
from companion.retrieval.rank import Index
from companion.vault import Vault

SEARCHED = {"journal": "journal", "checkin": "checkin", "chat": "chat", "reply": "chat"}
TAG = re.compile(r"(?<![\w#])#([\w-]+)")


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
    """The vault's index, seen as search: built on first use (slow on a big vault: build it
    in a worker), then kept in step with every write."""

    def __init__(self, vault: Vault) -> None:
        self._vault = vault

    @classmethod
    def build(cls, vault: Vault) -> SearchIndex:
        index_of(vault)
        return cls(vault)

    @property
    def _index(self) -> Index:
        return index_of(self._vault)

    def __len__(self) -> int:
        return sum(1 for _ in self._index.documents() if _.kind in SEARCHED)

    def search(
        self, query: str, limit: int = 50, kind: str | None = None, newest: bool = False
    ) -> list[Hit]:
        kinds = [k for k, shown in SEARCHED.items() if kind is None or shown == kind]
        found = self._index.search(query, kinds, limit, newest)
        return [
            Hit(SEARCHED[d.kind], d.ref, d.stamp, _snippet(d.text, query), d.session) for d in found
        ]

    def tag_counts(self) -> list[tuple[str, int]]:
        counts: Counter[str] = Counter()
        for doc in self._index.documents("journal"):
            counts.update({tag.lower() for tag in TAG.findall(doc.text)})
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def when_label(hit: Hit) -> str:
    """A local date and time for a hit (check-ins carry a date only)."""
    if hit.kind == "checkin":
        return hit.when
    return clock.parse_stamp(hit.when).strftime("%Y-%m-%d %H:%M")
