"""Unlock sessions: run several commands within a few minutes without re-deriving the key.

``companion unlock`` wraps the data key under a random token and writes the result to the user's
runtime folder (tmpfs on Linux, emptied at logout). The token exists only in the shell's
environment (``COMPANION_SESSION``), so neither the file nor the token alone opens anything, and
the vault file itself stays protected by the passphrase alone. A session is bound to the header
it was made from: a new passphrase, recovery key or data key ends every session at once.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import warnings
from datetime import datetime, timedelta
from pathlib import Path

from companion import clock
from companion.paths import FILE_MODE, private_dir
from companion.vault import crypto
from companion.vault.header import Header

TOKEN_BYTES = 32
DEFAULT_LENGTH = timedelta(minutes=15)
MAX_LENGTH = timedelta(hours=12)
ENV_VAR = "COMPANION_SESSION"


def runtime_dir() -> Path:
    import platformdirs

    with warnings.catch_warnings():
        # platformdirs warns when it falls back from $XDG_RUNTIME_DIR; the fallback is private too.
        warnings.simplefilter("ignore")
        return Path(platformdirs.user_runtime_dir("companion", appauthor=False))


def session_file(vault_id: str) -> Path:
    return runtime_dir() / f"session-{vault_id}.json"


def _token_key(token: bytes) -> bytes:
    return crypto.hkdf(token, b"companion session v1")


def _aad(header: Header, expires_at: str) -> bytes:
    checksum = Header.checksum(header.to_body())
    return crypto.canonical_json(
        ["companion-session", crypto.FORMAT_VERSION, header.vault_id, checksum, expires_at]
    )


def start(
    header: Header, data_key: bytes, length: timedelta = DEFAULT_LENGTH
) -> tuple[str, datetime]:
    """Write a session file for this vault; returns the token to export, and when it ends."""
    token = secrets.token_bytes(TOKEN_BYTES)
    expires = clock.now() + min(length, MAX_LENGTH)
    expires_at = clock.stamp(expires)
    nonce, wrapped = crypto.wrap_key(_token_key(token), data_key, _aad(header, expires_at))
    body = json.dumps(
        {
            "format": 1,
            "vault_id": header.vault_id,
            "expires_at": expires_at,
            "nonce": crypto.b64(nonce),
            "wrapped": crypto.b64(wrapped),
        }
    )
    path = session_file(header.vault_id)
    private_dir(path.parent)
    partial = path.with_suffix(".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(body)
    os.replace(partial, path)
    return base64.urlsafe_b64encode(token).decode("ascii").rstrip("="), expires


def open_data_key(header: Header, token_text: str) -> bytes | None:
    """The data key, or None when there is no live session for this header and token.

    An expired session is deleted on sight; key changes delete sessions when they happen.
    """
    path = session_file(header.vault_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        expires_at = str(data["expires_at"])
        nonce, wrapped = crypto.unb64(data["nonce"]), crypto.unb64(data["wrapped"])
        token = base64.urlsafe_b64decode(token_text.strip() + "=" * (-len(token_text.strip()) % 4))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if clock.parse_stamp(expires_at) <= clock.now():
        end(header.vault_id)
        return None
    # A wrong token and a header changed since (new passphrase, recovery key or data key) both
    # fail here: the header's checksum is part of the associated data.
    return crypto.unwrap_key(_token_key(token), nonce, wrapped, _aad(header, expires_at))


def end(vault_id: str) -> bool:
    """Delete this vault's session file; True when there was one."""
    with contextlib.suppress(OSError):
        session_file(vault_id).unlink()
        return True
    return False
