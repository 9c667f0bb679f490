"""The encrypted vault: storage, keys, backups and migrations. No user interface here."""

from companion.vault.records import tuples
from companion.vault.store import Vault

__all__ = ["Vault", "tuples"]
