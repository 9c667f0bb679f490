"""An open vault and what goes with it while it is open: the config, the search index and the
model gateway. The app and the command line build it the same way, with :meth:`Unlocked.open`,
and every use case takes it; time comes from ``companion.clock``, the one clock."""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from companion import config as app_config
from companion.config import Config
from companion.memory import forgetting
from companion.retrieval.search import SearchIndex
from companion.vault import Vault

if TYPE_CHECKING:
    from companion.llm import Gateway


@dataclass
class Unlocked:
    vault: Vault
    config: Config
    index: SearchIndex = field(init=False)
    """Search over the vault's sealed index (written with every record, so always ready);
    its decrypted buckets are cached in memory and go with the vault."""

    def __post_init__(self) -> None:
        self.index = SearchIndex(self.vault)

    @classmethod
    def open(cls, vault: Vault, config: Config | None = None) -> Unlocked:
        """Also empties the tombstones of facts forgotten more than a week ago: from then on
        only their fingerprints remain."""
        if not vault.read_only:
            forgetting.purge(vault)
        return cls(vault, config if config is not None else app_config.load())

    def gateway(self, purpose: str = "chat") -> Gateway | None:
        """The model the user set up for ``purpose``; ``None`` when the coach is offline."""
        from companion.llm import configured  # not on the path of commands that need no model

        return configured(self.vault, purpose)

    def warm(self) -> None:
        """What the first search or message would otherwise wait for, read ahead (the app
        does it in a thread once Today shows): the index's large buckets, then everything
        the coach's memory section caches until it changes, the words of every fact
        (the memory update compares each new fact with all of them), and the crisis
        detector's weights and patterns."""
        from companion.activity import profile
        from companion.coach import context, safety  # the coach is not on every command's path
        from companion.memory import likeness, store

        self.vault.index.warm()
        context.warm(self.vault)
        name = str(profile.load(self.vault).get("preferred_name") or "").strip()
        for fact in store.live_facts(self.vault):  # what the memory update compares with
            likeness.canonical(fact.text, (name,) if name else ())
        safety.warm()  # the first entry, note or message read for danger

    def close(self, settle: bool = False) -> None:
        """Lock: with ``settle`` (the app, a moment nobody is typing) what waits in the
        index's deltas is merged first; then the vault closes (its key is dropped)."""
        with contextlib.suppress(Exception):  # a damaged index must not stop the lock
            if settle and not self.vault.read_only and not self.vault.database.is_closed():
                self.vault.index.merge()
        self.vault.close()
        # The sentences read for danger and what they were found to say go with the key;
        # a command that never read any never loaded these modules (not imported for it).
        for name in ("companion.coach.safety", "companion.coach.prompt"):
            if (module := sys.modules.get(name)) is not None:
                module.forget()
