"""Key slots: building a header, unlocking it, and re-wrapping the data key."""

from __future__ import annotations

import os
import uuid

from companion import clock
from companion.errors import SessionEnded, WrongPassphrase
from companion.vault import crypto, session
from companion.vault.header import Header, Slot


def passphrase_slot(vault_id: str, data_key: bytes, passphrase: str, kdf: crypto.KdfParams) -> Slot:
    kek = crypto.derive_kek(passphrase, kdf)
    nonce, wrapped = crypto.wrap_key(kek, data_key, crypto.slot_aad(vault_id, "passphrase"))
    return Slot("passphrase", kdf.to_json(), nonce, wrapped, clock.stamp())


def recovery_slot(vault_id: str, data_key: bytes) -> tuple[Slot, bytes]:
    """A new recovery slot and the recovery key that opens it (shown once, never stored)."""
    recovery_key = crypto.new_recovery_key()
    salt = os.urandom(crypto.SALT_BYTES)
    kek = crypto.recovery_kek(recovery_key, salt)
    nonce, wrapped = crypto.wrap_key(kek, data_key, crypto.slot_aad(vault_id, "recovery"))
    kdf: dict[str, object] = {
        "alg": "hkdf-sha256",
        "salt": crypto.b64(salt),
        "info": "companion recovery v1",
    }
    return Slot("recovery", kdf, nonce, wrapped, clock.stamp()), recovery_key


def new_header(passphrase: str, kdf: crypto.KdfParams) -> tuple[Header, bytes, bytes]:
    """A fresh vault's header, its data key and its recovery key."""
    vault_id = uuid.uuid4().hex
    data_key = crypto.new_data_key()
    slots = {"passphrase": passphrase_slot(vault_id, data_key, passphrase, kdf)}
    slots["recovery"], recovery_key = recovery_slot(vault_id, data_key)
    return Header(vault_id, clock.stamp(), slots), data_key, recovery_key


def open_data_key(
    header: Header,
    passphrase: str | None = None,
    recovery_key: bytes | None = None,
    session_token: str | None = None,
    session_epoch: bytes | None = None,
) -> bytes:
    """The data key from whichever secret was given; the error says what to do instead."""
    if session_token is not None:
        data_key = session.open_data_key(header, session_token, session_epoch)
        if data_key is None:
            raise SessionEnded(
                "COMPANION_SESSION does not open this vault: the session expired, was locked or "
                "replaced by a newer `companion unlock`, the keys changed, or it is for another "
                'vault. Start a new one with: eval "$(companion unlock)"'
            )
        return data_key
    if recovery_key is not None:
        data_key = open_with_recovery_key(header, recovery_key)
        if data_key is None:
            raise WrongPassphrase(
                "that recovery key does not open this vault. Check it against what you wrote "
                "down (letters O and I, not digits 0 and 1)."
            )
        return data_key
    data_key = open_with_passphrase(header, passphrase or "")
    if data_key is None:
        raise WrongPassphrase(
            "wrong passphrase, or the vault's header is damaged. Try again; if it is lost, use "
            "your recovery key (companion passwd --recovery-key), which also checks the header: "
            "companion verify --recovery-key"
        )
    return data_key


def open_with_passphrase(header: Header, passphrase: str) -> bytes | None:
    slot = header.slots["passphrase"]
    kek = crypto.derive_kek(passphrase, slot.argon2())
    return crypto.unwrap_key(
        kek, slot.nonce, slot.wrapped, crypto.slot_aad(header.vault_id, "passphrase")
    )


def open_with_recovery_key(header: Header, recovery_key: bytes) -> bytes | None:
    slot = header.slots["recovery"]
    try:
        salt = crypto.unb64(str(slot.kdf["salt"]))
    except (KeyError, ValueError):
        return None
    kek = crypto.recovery_kek(recovery_key, salt)
    return crypto.unwrap_key(
        kek, slot.nonce, slot.wrapped, crypto.slot_aad(header.vault_id, "recovery")
    )


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
