"""The encrypted vault: storage, keys, backups and migrations. No user interface here.

``Vault`` and ``tuples`` load on first use: the app checks the vault's lock file before its
first paint, and that must not import the storage, crypto and search code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.vault.records import tuples
    from companion.vault.store import Vault

__all__ = ["Vault", "tuples"]


def __getattr__(name: str) -> Any:
    if name == "Vault":
        from companion.vault.store import Vault

        return Vault
    if name == "tuples":
        from companion.vault.records import tuples

        return tuples
    raise AttributeError(f"module 'companion.vault' has no attribute {name!r}")
