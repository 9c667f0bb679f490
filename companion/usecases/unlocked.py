"""An open vault and what goes with it while it is open: the config, the search index and the
model gateway. The app and the command line build it the same way, with :meth:`Unlocked.open`,
and every use case takes it; time comes from ``companion.clock``, the one clock."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from companion import config as app_config
from companion.config import Config
from companion.retrieval.search import SearchIndex
from companion.vault import Vault

if TYPE_CHECKING:
    from companion.llm import Gateway


@dataclass
class Unlocked:
    vault: Vault
    config: Config
    index: SearchIndex | None = None
    """Search over the vault's sealed index (written with every record); its decrypted
    buckets are cached in memory and dropped with the vault."""
    _building: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(cls, vault: Vault, config: Config | None = None) -> Unlocked:
        return cls(vault, config if config is not None else app_config.load())

    def gateway(self, purpose: str = "chat") -> Gateway | None:
        """The model the user set up for ``purpose``; ``None`` when the coach is offline."""
        from companion.llm import configured  # not on the path of commands that need no model

        return configured(self.vault, purpose)

    def search_index(self) -> SearchIndex:
        """Search over the index; the first call folds waiting deltas into the index (a
        fraction of a second after many writes: call it in a worker)."""
        with self._building:
            if self.index is None:
                index = SearchIndex.build(self.vault)
                index.settle()
                self.index = index
            return self.index

    def close(self) -> None:
        """Lock: the index goes, then the vault closes (its key is dropped)."""
        self.index = None
        self.vault.close()
