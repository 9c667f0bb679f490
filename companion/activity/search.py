"""Full-text search over journal entries, check-in notes and chat messages.

The index holds decrypted text, so it lives in memory only: built after unlock, dropped on
lock. Every query term must appear (case-insensitive); newest matches come first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from companion import clock
from companion.activity import chat, checkins, journal
from companion.vault import Vault


@dataclass(frozen=True)
class Hit:
    kind: str  # journal | checkin | chat
    id: int
    when: str  # sortable stamp or date
    snippet: str
    session_id: int | None = None


def _snippet(text: str, needle: str, width: int = 80) -> str:
    at = text.lower().find(needle)
    start = max(0, at - width // 3)
    piece = text[start : start + width].replace("\n", " ")
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def _breathe(counter: int) -> None:
    """Give up the GIL now and then: built in a worker thread, the index must not make
    typing in the UI thread stutter."""
    if counter % 64 == 0:
        time.sleep(0)


class SearchIndex:
    def __init__(self) -> None:
        self._docs: list[tuple[str, int, str, str, str, int | None]] = []
        self._tags: dict[int, list[str]] = {}  # journal entry id -> tags

    @classmethod
    def build(cls, vault: Vault) -> SearchIndex:
        index = cls()
        for rid, stamp, title, text, tags in journal.search_documents(vault):
            _breathe(rid)
            index.put_journal(rid, stamp, title, text, tags, replace=False)
        for rid, day, note in checkins.notes(vault):
            _breathe(rid)
            index.add("checkin", rid, day.isoformat(), note)
        for rid, session_id, stamp, content in chat.search_documents(vault):
            _breathe(rid)
            index.add("chat", rid, stamp, content, session_id)
        return index

    def add(self, kind: str, rid: int, when: str, text: str, session_id: int | None = None) -> None:
        self._docs.append((kind, rid, when, text, text.lower(), session_id))

    def put_journal(
        self, rid: int, stamp: str, title: str, text: str, tags: list[str], replace: bool = True
    ) -> None:
        """Add or replace a journal entry (the title and #tags are searchable too)."""
        if replace:
            self.remove("journal", rid)
        body = f"{title}\n{text}\n" + " ".join(f"#{t}" for t in tags)
        self.add("journal", rid, stamp, body.strip())
        self._tags[rid] = tags

    def remove(self, kind: str, rid: int) -> None:
        self._docs = [d for d in self._docs if (d[0], d[1]) != (kind, rid)]
        if kind == "journal":
            self._tags.pop(rid, None)

    def tag_counts(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for tags in self._tags.values():
            for tag in tags:
                counts[tag] = counts.get(tag, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def __len__(self) -> int:
        return len(self._docs)

    def search(self, query: str, limit: int = 50, kind: str | None = None) -> list[Hit]:
        terms = [t for t in query.lower().split() if t]
        if not terms:
            return []
        found = [
            d
            for d in self._docs
            if (kind is None or d[0] == kind) and all(t in d[4] for t in terms)
        ]
        found.sort(key=lambda d: d[2], reverse=True)
        return [
            Hit(k, rid, when, _snippet(text, terms[0]), sid)
            for k, rid, when, text, _, sid in found[:limit]
        ]


def when_label(hit: Hit) -> str:
    """A local date and time for a hit (check-ins carry a date only)."""
    if hit.kind == "checkin":
        return hit.when
    return clock.parse_stamp(hit.when).strftime("%Y-%m-%d %H:%M")
