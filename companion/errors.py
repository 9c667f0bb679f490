"""Errors that carry a message fit to show a person, and the exit status the CLI uses.

Messages never contain user content: they name records by kind and id only.
"""

from __future__ import annotations

EX_USAGE = 2
EX_DATAERR = 65
EX_NOINPUT = 66
EX_UNAVAILABLE = 69
EX_CANTCREAT = 73
EX_IOERR = 74
EX_TEMPFAIL = 75
EX_NOPERM = 77


class CompanionError(Exception):
    """Base class: ``str(err)`` says what happened and what to do next."""

    exit_code = 1


class InvalidInput(CompanionError):
    exit_code = EX_USAGE


class VaultMissing(CompanionError):
    exit_code = EX_NOINPUT


class VaultExists(CompanionError):
    exit_code = EX_CANTCREAT


class WrongPassphrase(CompanionError):
    exit_code = EX_NOPERM


class SessionEnded(CompanionError):
    """COMPANION_SESSION is set but opens nothing: ended, locked, or the keys changed since."""

    exit_code = EX_NOPERM


class VaultDamaged(CompanionError):
    """The vault file cannot be trusted; ``newest_backup`` points at a way back."""

    exit_code = EX_DATAERR

    def __init__(self, message: str, newest_backup: str | None = None) -> None:
        if newest_backup:
            message = (
                f"{message} The newest backup is {newest_backup}; "
                f"restore it with: companion restore {newest_backup}"
            )
        super().__init__(message)
        self.newest_backup = newest_backup


class VaultBusy(CompanionError):
    exit_code = EX_TEMPFAIL


class DiskFull(CompanionError):
    exit_code = EX_IOERR


class RecordDamaged(CompanionError):
    """One sealed value failed authentication; every other record still reads."""

    exit_code = EX_DATAERR

    def __init__(self, kind: str, record_id: object) -> None:
        super().__init__(
            f"{kind} {record_id} is damaged: its encrypted data failed the integrity check. "
            "Other records are unaffected; `companion verify` lists all damage."
        )
        self.kind = kind
        self.record_id = record_id


class ModelError(CompanionError):
    """A call to a model failed. ``kind`` is short ("429", "timeout"), fit for the ledger;
    ``partial`` holds what had streamed before it failed; ``retryable`` says whether the same
    request may succeed if sent again (the gateway decides whether to)."""

    exit_code = EX_UNAVAILABLE

    def __init__(
        self,
        message: str,
        kind: str,
        partial: str = "",
        input_tokens: int = 0,
        output_tokens: int = 0,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.partial = partial
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.retryable = retryable
        self.retry_after = retry_after
