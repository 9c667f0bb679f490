"""Changes that wait for the user. Extraction may only propose: a new sobriety date or recovery
focus; a change to a fact the user wrote (asked as a question: "You wrote X; on DATE you said
Y. Update?"); any change to a pinned fact; and, when one run would change more than
``MAX_UNASKED`` learned facts, every such change of that run (what an obeyed prompt injection
would look like). Only the user makes them true, in the memory panel or with
``companion memory pending | accept | reject``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from companion.activity import profile
from companion.errors import InvalidInput
from companion.memory import store
from companion.vault import Vault, settings

PENDING_KEY = "pending_profile_changes"
CONFIRM_FIELDS = ("recovery_start_date", "recovery_focus")
"""Profile fields extraction may only propose."""
MAX_UNASKED = 5
"""Updates and removals of learned facts one run may make without asking."""


@dataclass(frozen=True)
class PendingChange:
    number: int  # from 1, as the panel and the CLI show it
    field: str  # a profile field, or "fact"
    value: Any  # the new value; for a fact, the new text ("" for a removal)
    evidence: tuple[str, ...] = ()
    fact_id: int | None = None
    was: str = ""  # the fact's text when it was proposed
    said_on: str = ""  # the day of the words it comes from
    locked: bool = False  # the user wrote the fact
    reason: str = ""

    @property
    def label(self) -> str:
        if self.field != "fact":
            return f"{self.field.replace('_', ' ')} → {self.value}"
        when = f"on {self.said_on} " if self.said_on else ""
        if self.locked:
            if not self.value:
                return f"You wrote “{self.was}”; {when}you said otherwise. Remove it?"
            return f"You wrote “{self.was}”; {when}you said “{self.value}”. Update?"
        why = f" ({self.reason})" if self.reason else ""
        if not self.value:
            return f"Forget “{self.was}”?{why}"
        return f"Change “{self.was}” to “{self.value}”?{why}"


def _stored(vault: Vault) -> list[dict[str, Any]]:
    return list(settings.get(vault, PENDING_KEY, []) or [])


def _view(number: int, c: dict[str, Any]) -> PendingChange:
    return PendingChange(
        number,
        str(c["field"]),
        c.get("value"),
        tuple(c.get("evidence", [])),
        c.get("fact_id"),
        str(c.get("was", "")),
        str(c.get("said_on", "")),
        bool(c.get("locked", False)),
        str(c.get("reason", "")),
    )


def waiting(vault: Vault) -> list[PendingChange]:
    return [_view(number, c) for number, c in enumerate(_stored(vault), 1)]


def propose(vault: Vault, changes: list[dict[str, Any]]) -> None:
    """Add changes to confirm: a profile ``field`` with ``value`` and ``evidence``, or
    ``field="fact"`` with ``fact_id``, ``was``, ``value`` ("" to remove), ``said_on``,
    ``locked``, ``reason``. The same change twice is asked once."""
    stored = _stored(vault)
    seen = {_key(c) for c in stored}
    fresh = []
    for change in changes:
        if _key(change) not in seen:
            seen.add(_key(change))
            fresh.append(change)
    if fresh:
        settings.put(vault, PENDING_KEY, [*stored, *fresh])


def _key(change: dict[str, Any]) -> tuple[Any, ...]:
    return (change["field"], change.get("fact_id"), str(change.get("value")))


def drop_for_facts(vault: Vault, fact_ids: set[int]) -> int:
    """Questions about facts that were forgotten go with them (they quote the words)."""
    stored = _stored(vault)
    kept = [c for c in stored if c.get("fact_id") not in fact_ids]
    if len(kept) != len(stored):
        settings.put(vault, PENDING_KEY, kept)
    return len(stored) - len(kept)


def _take(vault: Vault, number: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    stored = _stored(vault)
    if not 1 <= number <= len(stored):
        raise InvalidInput(
            f"there is no change {number} waiting; `companion memory pending` lists them."
        )
    return stored.pop(number - 1), stored


def _apply_fact(vault: Vault, change: dict[str, Any]) -> None:
    fact = next((f for f in store.live_facts(vault) if f.id == change["fact_id"]), None)
    if fact is None:
        raise InvalidInput("that fact has changed since; nothing to do (reject the question).")
    why = {"reason": change.get("reason") or "you accepted it", "evidence": change["evidence"]}
    if change.get("value"):
        source = "wrote" if change.get("locked") else fact.source
        evidence = list(change.get("evidence", []))
        store.edit_fact(vault, fact.id, str(change["value"]), source, why, evidence)
    else:
        store.close_fact(vault, fact.id, why)


def accept(vault: Vault, number: int) -> PendingChange:
    """Make the change true; a new sobriety date keeps the previous run in the history."""
    with vault.transaction():
        change, rest = _take(vault, number)
        if change["field"] == "fact":
            _apply_fact(vault, change)
        elif change["field"] == "recovery_start_date":
            profile.log_slip(vault, date.fromisoformat(str(change["value"])))
        else:
            profile.update(vault, {change["field"]: change["value"]})
        settings.put(vault, PENDING_KEY, rest)
    return _view(number, change)


def reject(vault: Vault, number: int) -> PendingChange:
    """Drop the change; nothing in the profile or the facts moves."""
    with vault.transaction():
        change, rest = _take(vault, number)
        settings.put(vault, PENDING_KEY, rest)
    return _view(number, change)
