"""The vault's cryptography: Argon2id key derivation, key wrapping and sealed values.

Key hierarchy (see docs/vault-format.md): passphrase -> Argon2id -> KEK, which unwraps a random
256-bit data key; the recovery key -> HKDF -> a second KEK for the same data key. The data key is
never used directly: HKDF derives one key for sealing records and one for keyed hashes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import struct
import time
import unicodedata
from dataclasses import dataclass

from argon2.low_level import Type, hash_secret_raw
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from companion.errors import InvalidInput, RecordDamaged

FORMAT_VERSION = 1
SEALED_VERSION = 1
NONCE_BYTES = 12
KEY_BYTES = 32
SALT_BYTES = 16
PAD_STEP = 256

# Argon2id cost: the default, the floor (RFC 9106's second recommended option) and a ceiling
# that a header may not exceed, so a tampered header cannot make us allocate without bound.
DEFAULT_TIME_COST = 3
DEFAULT_MEMORY_KIB = 256 * 1024
DEFAULT_PARALLELISM = 4
MIN_TIME_COST = 3
MIN_MEMORY_KIB = 64 * 1024
MAX_TIME_COST = 10
MAX_MEMORY_KIB = 1024 * 1024  # 1 GiB: the largest allowed derivation stays under ~15 s
MAX_PARALLELISM = 16
CALIBRATION_BUDGET_S = 1.0

RECOVERY_KEY_BYTES = 20  # 160 bits, written as 32 base32 characters


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def canonical_json(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True)
class KdfParams:
    time_cost: int
    memory_kib: int
    parallelism: int
    salt: bytes

    def problem(self) -> str | None:
        """Why these parameters are refused, or ``None``; checked before any allocation."""
        if not MIN_TIME_COST <= self.time_cost <= MAX_TIME_COST:
            return f"time cost {self.time_cost} is outside {MIN_TIME_COST}..{MAX_TIME_COST}"
        if not MIN_MEMORY_KIB <= self.memory_kib <= MAX_MEMORY_KIB:
            return (
                f"memory cost {self.memory_kib} KiB is outside "
                f"{MIN_MEMORY_KIB}..{MAX_MEMORY_KIB} KiB"
            )
        if not 1 <= self.parallelism <= MAX_PARALLELISM:
            return f"parallelism {self.parallelism} is outside 1..{MAX_PARALLELISM}"
        if len(self.salt) != SALT_BYTES:
            return "salt is not 16 bytes"
        return None

    def to_json(self) -> dict[str, object]:
        return {
            "alg": "argon2id",
            "version": 19,
            "t": self.time_cost,
            "m_kib": self.memory_kib,
            "p": self.parallelism,
            "salt": b64(self.salt),
            "len": KEY_BYTES,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> KdfParams:
        if (
            data.get("alg") != "argon2id"
            or not _exactly(data.get("version"), 19)
            or not _exactly(data.get("len"), 32)
        ):
            raise ValueError("unsupported key derivation")
        return cls(
            time_cost=_number(data["t"]),
            memory_kib=_number(data["m_kib"]),
            parallelism=_number(data["p"]),
            salt=unb64(str(data["salt"])),
        )


def _number(value: object) -> int:
    """A header's KDF number: a JSON integer only (not "3", 3.7 or true); its range is
    checked by :meth:`KdfParams.problem`."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("not an integer")
    return value


def _exactly(value: object, expected: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == expected


def normalize_passphrase(passphrase: str) -> bytes:
    """NFC, so the same passphrase typed on another keyboard or OS derives the same key."""
    return unicodedata.normalize("NFC", passphrase).encode("utf-8")


def derive_kek(passphrase: str, params: KdfParams) -> bytes:
    problem = params.problem()
    if problem:
        raise ValueError(problem)
    return hash_secret_raw(
        normalize_passphrase(passphrase),
        params.salt,
        time_cost=params.time_cost,
        memory_cost=params.memory_kib,
        parallelism=params.parallelism,
        hash_len=KEY_BYTES,
        type=Type.ID,
    )


def choose_kdf(memory_mib: int | None = None, budget_s: float = CALIBRATION_BUDGET_S) -> KdfParams:
    """The default cost, halved in memory while one derivation takes longer than the budget.

    An explicit ``memory_mib`` (``companion init --kdf-memory``) skips calibration but still
    respects the floor.
    """
    salt = os.urandom(SALT_BYTES)
    if memory_mib is not None:
        params = KdfParams(DEFAULT_TIME_COST, memory_mib * 1024, DEFAULT_PARALLELISM, salt)
        problem = params.problem()
        if problem:
            raise InvalidInput(
                f"--kdf-memory {memory_mib} is not allowed: {problem}. "
                f"Choose between {MIN_MEMORY_KIB // 1024} and {MAX_MEMORY_KIB // 1024} MiB."
            )
        return params
    memory = DEFAULT_MEMORY_KIB
    while True:
        params = KdfParams(DEFAULT_TIME_COST, memory, DEFAULT_PARALLELISM, salt)
        started = time.perf_counter()
        derive_kek("calibration", params)
        if time.perf_counter() - started <= budget_s or memory // 2 < MIN_MEMORY_KIB:
            return params
        memory //= 2


def hkdf(key: bytes, info: bytes, salt: bytes | None = None) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=salt, info=info).derive(key)


def recovery_kek(recovery_key: bytes, salt: bytes) -> bytes:
    # The recovery key already holds 160 random bits, so a fast KDF is enough.
    return hkdf(recovery_key, b"companion recovery v1", salt)


SCHEMA_FLOOR = 6
"""Key slots wrapped since schema 6 name it in their associated data: the vault they open has
rows with MACs, so its tables taken back to schema 5 (and re-upgraded, which would MAC whatever
was changed meanwhile) are damage. A slot without it is from before and opens any schema."""


def slot_aad(vault_id: str, slot_kind: str, floor: int = SCHEMA_FLOOR) -> bytes:
    parts: list[object] = ["companion-slot", FORMAT_VERSION, vault_id, slot_kind]
    return canonical_json([*parts, floor] if floor else parts)


def wrap_key(kek: bytes, data_key: bytes, aad: bytes) -> tuple[bytes, bytes]:
    nonce = os.urandom(NONCE_BYTES)
    return nonce, AESGCM(kek).encrypt(nonce, data_key, aad)


def unwrap_key(kek: bytes, nonce: bytes, wrapped: bytes, aad: bytes) -> bytes | None:
    try:
        return AESGCM(kek).decrypt(nonce, wrapped, aad)
    except InvalidTag:
        return None


def new_data_key() -> bytes:
    return secrets.token_bytes(KEY_BYTES)


# -- recovery key text form -------------------------------------------------------------

_B32_TYPOS = str.maketrans({"0": "O", "1": "I", "8": "B"})


def new_recovery_key() -> bytes:
    return secrets.token_bytes(RECOVERY_KEY_BYTES)


def format_recovery_key(key: bytes) -> str:
    """``ABCD-EFGH-...``: eight groups of four, easy to copy onto paper."""
    text = base64.b32encode(key).decode("ascii")
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def parse_recovery_key(text: str) -> bytes:
    cleaned = "".join(ch for ch in text.upper() if ch.isalnum()).translate(_B32_TYPOS)
    try:
        key = base64.b32decode(cleaned)
    except ValueError:
        key = b""
    if len(key) != RECOVERY_KEY_BYTES:
        raise InvalidInput(
            "that is not a recovery key: it should be 32 letters and digits in groups of four "
            "(like ABCD-EFGH-...)."
        )
    return key


# -- sealed values ----------------------------------------------------------------------


def pad(data: bytes) -> bytes:
    """Length-prefix and zero-pad to a multiple of 256 bytes, so sizes leak little."""
    body = struct.pack(">I", len(data)) + data
    return body + b"\0" * (-len(body) % PAD_STEP)


def unpad(padded: bytes) -> bytes:
    (length,) = struct.unpack(">I", padded[:4])
    if length > len(padded) - 4:
        raise ValueError("bad padding")
    return padded[4 : 4 + length]


class Sealer:
    """Seals and opens record payloads under keys derived from the data key.

    Associated data binds each ciphertext to (format version, vault id, record kind, record id,
    field), so a value copied to another row, column or vault fails authentication.
    """

    def __init__(self, data_key: bytes, vault_id: str) -> None:
        self.vault_id = vault_id
        self._aead = AESGCM(hkdf(data_key, b"companion record seal v1"))
        self._mac_key = hkdf(data_key, b"companion content mac v1")
        self._aad_parts: dict[tuple[str, str], tuple[bytes, bytes]] = {}

    def aad(self, kind: str, record_id: object, field: str) -> bytes:
        """canonical_json([FORMAT_VERSION, vault_id, kind, str(record_id), field]), built from
        cached pieces: encoding it whole for every record was a fifth of a full decrypt pass."""
        parts = self._aad_parts.get((kind, field))
        if parts is None:
            head = canonical_json([FORMAT_VERSION, self.vault_id, kind])[:-1] + b","
            parts = self._aad_parts[(kind, field)] = (head, b"," + canonical_json(field) + b"]")
        rid = str(record_id)
        middle = (
            b'"' + rid.encode() + b'"' if rid.isdecimal() and rid.isascii() else canonical_json(rid)
        )
        return parts[0] + middle + parts[1]

    def seal_bytes(self, kind: str, record_id: object, field: str, data: bytes) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        body = self._aead.encrypt(nonce, pad(data), self.aad(kind, record_id, field))
        return bytes([SEALED_VERSION]) + nonce + body

    def open_bytes(self, kind: str, record_id: object, field: str, sealed: bytes) -> bytes:
        sealed = bytes(sealed)
        if len(sealed) < 1 + NONCE_BYTES + 16 or sealed[0] != SEALED_VERSION:
            raise RecordDamaged(kind, record_id)
        nonce, body = sealed[1 : 1 + NONCE_BYTES], sealed[1 + NONCE_BYTES :]
        try:
            return unpad(self._aead.decrypt(nonce, body, self.aad(kind, record_id, field)))
        except (InvalidTag, ValueError, struct.error):
            raise RecordDamaged(kind, record_id) from None

    def seal(self, kind: str, record_id: object, payload: dict[str, object]) -> bytes:
        return self.seal_bytes(kind, record_id, "payload", canonical_json(payload))

    def open(self, kind: str, record_id: object, sealed: bytes) -> dict[str, object]:
        data = self.open_bytes(kind, record_id, "payload", sealed)
        try:
            value = json.loads(data.decode("utf-8"))
        except ValueError:
            raise RecordDamaged(kind, record_id) from None
        if not isinstance(value, dict):
            raise RecordDamaged(kind, record_id)
        return value

    def mac(self, *parts: str) -> str:
        """A keyed hash of content (to notice edits or duplicates) that reveals nothing."""
        return hmac.new(self._mac_key, canonical_json(list(parts)), hashlib.sha256).hexdigest()
