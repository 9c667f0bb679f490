"""Where the CLI gets passphrases and recovery keys: a file, the environment, or a prompt."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path

from companion.errors import InvalidInput
from companion.vault import session
from companion.vault.crypto import parse_recovery_key
from companion.vault.keys import MIN_PASSPHRASE


def _read_file(path: str, what: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise InvalidInput(f"cannot read the {what} file {path}: {reason}.") from None
    value = text.splitlines()[0] if text.splitlines() else ""
    if not value:
        raise InvalidInput(f"the {what} file {path} is empty.")
    return value


def _prompt(label: str) -> str:
    if not sys.stdin.isatty():
        hint = (
            " (an unlock session does not cover this command)"
            if session.ENV_VAR in os.environ
            else ""
        )
        raise InvalidInput(
            f"no passphrase given{hint}: use --passphrase-file FILE or COMPANION_PASSPHRASE, "
            "or run in a terminal to be asked."
        )
    try:
        return getpass.getpass(label)
    except (EOFError, KeyboardInterrupt):
        raise InvalidInput("cancelled; nothing was changed.") from None


def can_ask() -> bool:
    """Whether a passphrase is at hand without a file: the environment or a terminal."""
    return bool(os.environ.get("COMPANION_PASSPHRASE") or sys.stdin.isatty())


def passphrase(file: str | None, label: str = "Passphrase: ") -> str:
    if file:
        return _read_file(file, "passphrase")
    env = os.environ.get("COMPANION_PASSPHRASE")
    if env:
        return env
    return _prompt(label)


def check_strength(value: str) -> str:
    if len(value) < MIN_PASSPHRASE:
        raise InvalidInput(
            f"that passphrase is too short: use at least {MIN_PASSPHRASE} characters "
            "(a few unrelated words work well)."
        )
    return value


def new_passphrase(file: str | None, env_name: str) -> str:
    """A new passphrase, asked twice on a terminal."""
    if file:
        return check_strength(_read_file(file, "new passphrase"))
    env = os.environ.get(env_name)
    if env:
        return check_strength(env)
    first = check_strength(_prompt("New passphrase: "))
    if _prompt("Repeat it: ") != first:
        raise InvalidInput("the two passphrases differ; nothing was changed.")
    return first


def recovery_key(file: str | None) -> bytes:
    if file:
        return parse_recovery_key(_read_file(file, "recovery key"))
    env = os.environ.get("COMPANION_RECOVERY_KEY")
    if env:
        return parse_recovery_key(env)
    if not sys.stdin.isatty():
        raise InvalidInput("no recovery key given: use --recovery-key-file or a terminal.")
    return parse_recovery_key(input("Recovery key: "))
