"""Key slots: building a header, unlocking it, and re-wrapping the data key."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass

from companion import clock
from companion.errors import SessionEnded, WrongPassphrase
from companion.vault import crypto, session
from companion.vault.header import Header, Slot

MIN_PASSPHRASE = 8
"""The shortest passphrase Companion accepts (creating, changing or resetting one)."""


@dataclass(frozen=True)
class Opened:
    """What unwrapping a slot gives: the data key, the lowest schema the vault may have (see
    crypto.SCHEMA_FLOOR), and what the upgrade needs to wrap an older slot again."""

    data_key: bytes
    floor: int
    slot: Slot | None = None
    kek: bytes | None = None

    def rewrapped(self, vault_id: str) -> Slot | None:
        """The opened slot, wrapped again with the schema floor (None when it already is)."""
        if self.slot is None or self.kek is None or self.floor >= crypto.SCHEMA_FLOOR:
            return None
        aad = crypto.slot_aad(vault_id, self.slot.kind)
        nonce, wrapped = crypto.wrap_key(self.kek, self.data_key, aad)
        return Slot(self.slot.kind, self.slot.kdf, nonce, wrapped, self.slot.issued_at)


def _unwrap(kek: bytes, slot: Slot, vault_id: str) -> Opened | None:
    for floor in (crypto.SCHEMA_FLOOR, 0):
        aad = crypto.slot_aad(vault_id, slot.kind, floor)
        data_key = crypto.unwrap_key(kek, slot.nonce, slot.wrapped, aad)
        if data_key is not None:
            return Opened(data_key, floor, slot, kek)
    return None


def passphrase_slot(
    vault_id: str,
    data_key: bytes,
    passphrase: str,
    kdf: crypto.KdfParams,
    floor: int = crypto.SCHEMA_FLOOR,
) -> Slot:
    kek = crypto.derive_kek(passphrase, kdf)
    aad = crypto.slot_aad(vault_id, "passphrase", floor)
    nonce, wrapped = crypto.wrap_key(kek, data_key, aad)
    return Slot("passphrase", kdf.to_json(), nonce, wrapped, clock.stamp())


def recovery_slot(
    vault_id: str, data_key: bytes, floor: int = crypto.SCHEMA_FLOOR
) -> tuple[Slot, bytes]:
    """A new recovery slot and the recovery key that opens it (shown once, never stored)."""
    recovery_key = crypto.new_recovery_key()
    salt = os.urandom(crypto.SALT_BYTES)
    kek = crypto.recovery_kek(recovery_key, salt)
    aad = crypto.slot_aad(vault_id, "recovery", floor)
    nonce, wrapped = crypto.wrap_key(kek, data_key, aad)
    kdf: dict[str, object] = {
        "alg": "hkdf-sha256",
        "salt": crypto.b64(salt),
        "info": "companion recovery v1",
    }
    return Slot("recovery", kdf, nonce, wrapped, clock.stamp()), recovery_key


def new_header(
    passphrase: str, kdf: crypto.KdfParams, floor: int = crypto.SCHEMA_FLOOR
) -> tuple[Header, bytes, bytes]:
    """A fresh vault's header, its data key and its recovery key (``floor=0``: as Companion
    wrote them before schema 6)."""
    vault_id = uuid.uuid4().hex
    data_key = crypto.new_data_key()
    slots = {"passphrase": passphrase_slot(vault_id, data_key, passphrase, kdf, floor)}
    slots["recovery"], recovery_key = recovery_slot(vault_id, data_key, floor)
    return Header(vault_id, clock.stamp(), slots), data_key, recovery_key


def open_data_key(
    header: Header,
    passphrase: str | None = None,
    recovery_key: bytes | None = None,
    session_token: str | None = None,
    session_epoch: bytes | None = None,
) -> Opened:
    """The data key from whichever secret was given; the error says what to do instead."""
    if session_token is not None:
        data_key = session.open_data_key(header, session_token, session_epoch)
        if data_key is None:
            raise SessionEnded(
                "COMPANION_SESSION does not open this vault: the session expired, was locked or "
                "replaced by a newer `companion unlock`, the keys changed, or it is for another "
                'vault. Start a new one with: eval "$(companion unlock)"'
            )
        return Opened(data_key, 0)  # sessions exist from schema 6 on: nothing to upgrade
    if recovery_key is not None:
        opened = open_with_recovery_key(header, recovery_key)
        if opened is None:
            raise WrongPassphrase(
                "that recovery key does not open this vault. Check it against what you wrote "
                "down (letters O and I, not digits 0 and 1)."
            )
        return opened
    opened = open_with_passphrase(header, passphrase or "")
    if opened is None:
        raise WrongPassphrase(
            "wrong passphrase, or the vault's header is damaged. Try again; if it is lost, use "
            "your recovery key (companion passwd --recovery-key), which also checks the header: "
            "companion verify --recovery-key"
        )
    return opened


def open_with_passphrase(header: Header, passphrase: str) -> Opened | None:
    slot = header.slots["passphrase"]
    return _unwrap(crypto.derive_kek(passphrase, slot.argon2()), slot, header.vault_id)


def open_with_recovery_key(header: Header, recovery_key: bytes) -> Opened | None:
    slot = header.slots["recovery"]
    try:
        salt = crypto.unb64(str(slot.kdf["salt"]))
    except (KeyError, ValueError):
        return None
    return _unwrap(crypto.recovery_kek(recovery_key, salt), slot, header.vault_id)


def renewed_cost(header: Header) -> crypto.KdfParams:
    """A new passphrase slot's cost: the vault's calibrated cost but never below the defaults
    (so a header edited to a cheap cost is not carried forward), and never a reused salt."""
    old = header.slots["passphrase"].argon2()
    return crypto.KdfParams(
        min(max(old.time_cost, crypto.DEFAULT_TIME_COST), crypto.MAX_TIME_COST),
        min(max(old.memory_kib, crypto.DEFAULT_MEMORY_KIB), crypto.MAX_MEMORY_KIB),
        min(max(old.parallelism, crypto.DEFAULT_PARALLELISM), crypto.MAX_PARALLELISM),
        os.urandom(crypto.SALT_BYTES),
    )
