"""The documents retrieval ranks, read from the vault once and then kept in step with it.

One ``Index`` per open vault holds facts in force, daily memories, session summaries, journal
entries, check-in notes and chat messages, each read through the module that owns its table.
Before each question it catches up with what was written since through the vault's own door
(``Vault.changes``): only those rows are read again. Decrypted words live in memory only and
go with the vault.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from datetime import date

from companion.activity import chat, checkins, journal
from companion.memory import store
from companion.retrieval.rank import Doc, Index
from companion.vault import Vault

Documents = Callable[
    [Vault, "list[int] | None"], Iterator[tuple[str, int, date, str, str, "int | None"]]
]

# table -> (the kinds of document it gives, where they are read)
SOURCES: dict[str, tuple[tuple[str, ...], Documents]] = {
    "journal_entry": (("journal",), journal.index_documents),
    "checkin": (("checkin",), checkins.index_documents),
    "chat_message": (("chat", "reply"), chat.index_documents),
    "fact": (("fact",), store.fact_documents),
    "daily_memory": (("daily",), store.daily_documents),
    "session_summary": (("summary",), store.summary_documents),
}


class Corpus:
    def __init__(self) -> None:
        self.index = Index()
        self._position: int | None = None
        self._lock = threading.Lock()

    def refresh(self, vault: Vault) -> Index:
        """Catch up with the vault (the first time, read it all); returns the index."""
        with self._lock:
            return self._refresh(vault)

    def _refresh(self, vault: Vault) -> Index:
        end = len(vault.changes)  # a write from another thread after this is read next time
        if self._position is None:
            for _table, (_kinds, documents) in SOURCES.items():
                for found in documents(vault, None):
                    self.index.put(Doc(*found))
            self._position = end  # only once the whole vault was read
            return self.index
        news = vault.changes[self._position : end]
        self._position = end
        touched: dict[str, set[int]] = {}
        for table, rid in news:
            if table in SOURCES:
                touched.setdefault(table, set()).add(rid)
        for table, ids in touched.items():
            kinds, documents = SOURCES[table]
            for rid in ids:
                for kind in kinds:
                    self.index.remove(kind, rid)
            for found in documents(vault, sorted(ids)):
                self.index.put(Doc(*found))
        return self.index


_CORPORA: weakref.WeakKeyDictionary[Vault, Corpus] = weakref.WeakKeyDictionary()


_MAKING = threading.Lock()


def index_of(vault: Vault) -> Index:
    """The vault's index, caught up with every write so far."""
    with _MAKING:
        corpus = _CORPORA.get(vault)
        if corpus is None:
            corpus = _CORPORA[vault] = Corpus()
    return corpus.refresh(vault)
