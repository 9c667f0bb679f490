"""The vault header: format, vault id and the two key slots.

Two checks guard it. The unkeyed SHA-256 tells a header damaged by accident apart from a wrong
passphrase before any key is derived. The HMAC (schema 6), keyed from the data key, is checked
right after unwrapping: an edit that someone made on purpose, checksum recomputed, then reads as
"damaged" and not as "wrong passphrase".
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from companion.vault.crypto import FORMAT_VERSION, KdfParams, b64, canonical_json, unb64

MAGIC = "companion-vault"
VAULT_ID = re.compile(r"[0-9a-f]{32}")


class HeaderError(ValueError):
    """The header is missing, fails its checksum, or asks for something we refuse."""


def _mapping(value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ValueError("not a mapping")
    return dict(value)


@dataclass
class Slot:
    kind: str  # "passphrase" or "recovery"
    kdf: dict[str, object]
    nonce: bytes
    wrapped: bytes
    issued_at: str

    def to_json(self) -> dict[str, object]:
        return {
            "kdf": self.kdf,
            "nonce": b64(self.nonce),
            "wrapped": b64(self.wrapped),
            "issued_at": self.issued_at,
        }

    @classmethod
    def from_json(cls, kind: str, data: dict[str, object]) -> Slot:
        return cls(
            kind=kind,
            kdf=_mapping(data["kdf"]),
            nonce=unb64(str(data["nonce"])),
            wrapped=unb64(str(data["wrapped"])),
            issued_at=str(data["issued_at"]),
        )

    def argon2(self) -> KdfParams:
        return KdfParams.from_json(self.kdf)


@dataclass
class Header:
    vault_id: str
    created_at: str
    slots: dict[str, Slot]
    stored_body: str | None = field(default=None, compare=False)
    """The body exactly as read from the file (what the HMAC covers); None for a new header."""
    stored_mac: str | None = field(default=None, compare=False)

    def to_body(self) -> str:
        return canonical_json(
            {
                "magic": MAGIC,
                "format": FORMAT_VERSION,
                "vault_id": self.vault_id,
                "created_at": self.created_at,
                "slots": {kind: slot.to_json() for kind, slot in self.slots.items()},
            }
        ).decode("utf-8")

    @staticmethod
    def checksum(body: str) -> str:
        return hashlib.sha256(body.encode("utf-8")).hexdigest()

    def replaced(self, slots: dict[str, Slot]) -> Header:
        """The same vault with other key slots (a new passphrase, recovery key or data key)."""
        return Header(self.vault_id, self.created_at, slots)

    @classmethod
    def parse(cls, body: str, checksum: str, mac: str | None = None) -> Header:
        if cls.checksum(body) != checksum:
            raise HeaderError("the vault header fails its checksum")
        try:
            data = json.loads(body)
            if data.get("magic") != MAGIC:
                raise HeaderError("this is not a Companion vault")
            if data.get("format") != FORMAT_VERSION:
                raise HeaderError(f"vault format {data.get('format')} is not supported")
            slots = {k: Slot.from_json(k, v) for k, v in data["slots"].items()}
            header = cls(str(data["vault_id"]), str(data["created_at"]), slots, body, mac)
        except HeaderError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise HeaderError("the vault header is malformed") from exc
        if not VAULT_ID.fullmatch(header.vault_id):
            # The id names files (unlock sessions), so it may only be what create() makes.
            raise HeaderError("the vault header has a malformed vault id")
        if "passphrase" not in slots or "recovery" not in slots:
            raise HeaderError("the vault header lacks a key slot")
        try:
            problem = slots["passphrase"].argon2().problem()
        except (ValueError, KeyError, TypeError) as exc:
            raise HeaderError("the vault header names an unsupported key derivation") from exc
        if problem:
            raise HeaderError(f"the vault header asks for a refused key-derivation cost: {problem}")
        return header
