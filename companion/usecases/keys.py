"""Changing keys, with what the owners of keyed columns need to follow along."""

from __future__ import annotations

from companion.activity import journal
from companion.vault import Vault

REKEY_HOOKS = (journal.refingerprint,)
"""Every keyed column's owner: each recomputes its column under the new key."""


def rekey(vault: Vault, passphrase: str) -> str:
    """Re-encrypt everything under a fresh data key (a backup first); the new recovery key."""
    vault.backup("pre-rekey")
    return vault.rekey(passphrase, REKEY_HOOKS)
