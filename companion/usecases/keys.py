"""Changing keys, with what the owners of keyed columns need to follow along."""

from __future__ import annotations

from companion.activity import journal
from companion.errors import InvalidInput
from companion.vault import Vault, keys

REKEY_HOOKS = (journal.refingerprint,)
"""Every keyed column's owner: each recomputes its column under the new key."""


def rekey(vault: Vault, passphrase: str) -> str:
    """Re-encrypt everything under a fresh data key (a backup first); the new recovery key."""
    vault.backup("pre-rekey")
    return vault.rekey(passphrase, REKEY_HOOKS)


def change_passphrase(vault: Vault, current: str, new: str) -> None:
    """A new passphrase, once the current one is proven (someone at an unlocked screen is not
    necessarily its owner). Both key derivations are slow: call from a worker."""
    if len(new) < keys.MIN_PASSPHRASE:
        raise InvalidInput(
            f"the new passphrase is too short: use at least {keys.MIN_PASSPHRASE} characters."
        )
    if keys.open_with_passphrase(vault.header, current) is None:
        raise InvalidInput("that is not your current passphrase; nothing changed.")
    vault.change_passphrase(new)
