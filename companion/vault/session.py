"""Unlock sessions: run several commands within a few minutes without re-deriving the key.

``companion unlock`` wraps the data key under a random token and writes the result to the user's
runtime folder (tmpfs on Linux, emptied at logout). The token exists only in the shell's
environment (``COMPANION_SESSION``), so neither the file nor the token alone opens anything, and
the vault file itself stays protected by the passphrase alone. A session is bound to the header
it was made from: a new passphrase, recovery key or data key ends every session at once. It is
also bound to a random epoch stored in the vault, which ``companion lock`` erases: a copy of the
session file taken before the lock opens nothing afterwards.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import stat
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from companion import clock
from companion.errors import InvalidInput
from companion.paths import FILE_MODE
from companion.vault import crypto
from companion.vault.header import VAULT_ID, Header

TOKEN_BYTES = 32
DEFAULT_LENGTH = timedelta(minutes=15)
MAX_LENGTH = timedelta(hours=12)
ENV_VAR = "COMPANION_SESSION"


EPOCH_BYTES = 32


def runtime_dir() -> Path:
    """Where session files live: ``$XDG_RUNTIME_DIR/companion`` (a per-user tmpfs on Linux);
    on macOS the per-user temporary folder; otherwise a folder of ours under the system
    temporary folder, which may be on disk (:func:`on_disk` says so)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and Path(xdg).is_absolute() and Path(xdg).is_dir():
        return Path(xdg) / "companion"
    if sys.platform == "darwin":
        return Path(tempfile.gettempdir()) / "companion"  # $TMPDIR is per user on macOS
    return Path(tempfile.gettempdir()) / f"companion-{os.getuid()}"


def on_disk() -> bool:
    """True when session files cannot go to a runtime tmpfs (no XDG_RUNTIME_DIR)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    return not (xdg and Path(xdg).is_absolute() and Path(xdg).is_dir())


def new_epoch() -> bytes:
    return secrets.token_bytes(EPOCH_BYTES)


def _private_runtime_dir() -> Path:
    """The runtime folder, refused unless it is a real folder we own, then made 0700."""
    path = runtime_dir()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.lstat()
    except OSError as exc:
        raise InvalidInput(
            f"cannot use the runtime folder {path} for a session ({exc.strerror}). Set "
            "XDG_RUNTIME_DIR to a private folder, or pass the passphrase to each command."
        ) from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise InvalidInput(
            f"the runtime folder {path} is not a folder of yours, so no session was started. "
            "Set XDG_RUNTIME_DIR to a private folder (mode 0700)."
        )
    os.chmod(path, 0o700)
    return path


def session_file(vault_id: str) -> Path:
    if not VAULT_ID.fullmatch(vault_id):  # never let an id reach a file name unchecked
        raise ValueError("malformed vault id")
    return runtime_dir() / f"session-{vault_id}.json"


def sweep() -> None:
    """Delete every expired session file; expiry is enforced by deletion, not only by reading."""
    with contextlib.suppress(OSError):
        for path in runtime_dir().glob("session-*.json"):
            try:
                expires = clock.parse_stamp(json.loads(path.read_text("utf-8"))["expires_at"])
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                expires = None
            if expires is None or expires <= clock.now():
                path.unlink(missing_ok=True)


def end_all() -> int:
    """Delete every session file, whatever vault it is for (when a header cannot be read)."""
    count = 0
    with contextlib.suppress(OSError):
        for path in runtime_dir().glob("session-*.json"):
            path.unlink(missing_ok=True)
            count += 1
    return count


def _token_key(token: bytes, epoch: bytes) -> bytes:
    return crypto.hkdf(token, b"companion session v2", salt=epoch)


def _aad(header: Header, expires_at: str) -> bytes:
    checksum = Header.checksum(header.to_body())
    return crypto.canonical_json(
        ["companion-session", crypto.FORMAT_VERSION, header.vault_id, checksum, expires_at]
    )


def start(
    header: Header, data_key: bytes, epoch: bytes, length: timedelta = DEFAULT_LENGTH
) -> tuple[str, datetime]:
    """Write a session file for this vault, bound to ``epoch`` (which the caller has just
    stored in the vault); returns the token to export, and when it ends."""
    token = secrets.token_bytes(TOKEN_BYTES)
    expires = clock.now() + min(length, MAX_LENGTH)
    expires_at = clock.stamp(expires)
    nonce, wrapped = crypto.wrap_key(_token_key(token, epoch), data_key, _aad(header, expires_at))
    body = json.dumps(
        {
            "format": 2,
            "vault_id": header.vault_id,
            "expires_at": expires_at,
            "nonce": crypto.b64(nonce),
            "wrapped": crypto.b64(wrapped),
        }
    )
    sweep()
    folder = _private_runtime_dir()
    path = folder / session_file(header.vault_id).name
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    with os.fdopen(os.open(partial, flags, FILE_MODE), "w", encoding="utf-8") as handle:
        handle.write(body)
    os.replace(partial, path)
    return base64.urlsafe_b64encode(token).decode("ascii").rstrip("="), expires


def open_data_key(header: Header, token_text: str, epoch: bytes | None) -> bytes | None:
    """The data key, or None when there is no live session for this header and token.

    An expired session is deleted on sight; key changes delete sessions when they happen.
    """
    sweep()
    path = session_file(header.vault_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        expires_at = str(data["expires_at"])
        expires = clock.parse_stamp(expires_at)
        nonce, wrapped = crypto.unb64(data["nonce"]), crypto.unb64(data["wrapped"])
        token = base64.urlsafe_b64decode(token_text.strip() + "=" * (-len(token_text.strip()) % 4))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if epoch is None or data.get("format") != 2:
        return None  # locked since (the epoch was erased), or a session from before epochs
    if expires <= clock.now():
        end(header.vault_id)
        return None
    # A wrong token and a header changed since (new passphrase, recovery key or data key) both
    # fail here: the header's checksum is part of the associated data.
    return crypto.unwrap_key(_token_key(token, epoch), nonce, wrapped, _aad(header, expires_at))


def end(vault_id: str) -> bool:
    """Delete this vault's session file; True when there was one."""
    with contextlib.suppress(OSError):
        session_file(vault_id).unlink()
        return True
    return False
