"""The encrypted vault: storage, keys, backups and migrations. No user interface here."""

from companion.vault.store import Vault, tuples

__all__ = ["Vault", "tuples"]
