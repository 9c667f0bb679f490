"""Changes that wait for the user: extraction may propose a new sobriety date or recovery
focus, but only the user makes it true, in the memory panel or with
``companion memory pending | accept | reject``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from companion.activity import profile
from companion.errors import InvalidInput
from companion.vault import Vault, settings

PENDING_KEY = "pending_profile_changes"
CONFIRM_FIELDS = ("recovery_start_date", "recovery_focus")
"""Profile fields extraction may only propose."""


@dataclass(frozen=True)
class PendingChange:
    number: int  # from 1, as the panel and the CLI show it
    field: str
    value: Any
    evidence: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.field.replace('_', ' ')} → {self.value}"


def _stored(vault: Vault) -> list[dict[str, Any]]:
    return list(settings.get(vault, PENDING_KEY, []) or [])


def waiting(vault: Vault) -> list[PendingChange]:
    return [
        PendingChange(number, str(c["field"]), c["value"], tuple(c.get("evidence", [])))
        for number, c in enumerate(_stored(vault), 1)
    ]


def propose(vault: Vault, changes: list[dict[str, Any]]) -> None:
    """Add changes to confirm (``field``, ``value``, ``evidence``)."""
    if changes:
        settings.put(vault, PENDING_KEY, [*_stored(vault), *changes])


def _take(vault: Vault, number: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    stored = _stored(vault)
    if not 1 <= number <= len(stored):
        raise InvalidInput(
            f"there is no change {number} waiting; `companion memory pending` lists them."
        )
    return stored.pop(number - 1), stored


def accept(vault: Vault, number: int) -> PendingChange:
    """Make the change true; a new sobriety date keeps the previous run in the history."""
    with vault.transaction():
        change, rest = _take(vault, number)
        if change["field"] == "recovery_start_date":
            profile.log_slip(vault, date.fromisoformat(str(change["value"])))
        else:
            profile.update(vault, {change["field"]: change["value"]})
        settings.put(vault, PENDING_KEY, rest)
    return PendingChange(number, str(change["field"]), change["value"])


def reject(vault: Vault, number: int) -> PendingChange:
    """Drop the change; nothing in the profile moves."""
    with vault.transaction():
        change, rest = _take(vault, number)
        settings.put(vault, PENDING_KEY, rest)
    return PendingChange(number, str(change["field"]), change["value"])
