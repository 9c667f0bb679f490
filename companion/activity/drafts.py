"""Unsaved text kept sealed, so switching screens, locking or quitting never loses a word."""

from __future__ import annotations

from typing import Any

from companion import clock
from companion.vault import Vault
from companion.vault.models import Draft


def save(vault: Vault, kind: str, text: str, ref_id: int | None = None, **extra: Any) -> int:
    """Keep one draft per (kind, ref_id); saving again replaces it."""
    payload = {"text": text, **extra}
    with vault.transaction():
        row = (
            Draft.get_or_none((Draft.kind_name == kind) & (Draft.ref_id == ref_id))
            if ref_id
            else Draft.get_or_none((Draft.kind_name == kind) & Draft.ref_id.is_null())
        )
        if row is None:
            return vault.insert(
                Draft, payload, kind_name=kind, ref_id=ref_id, updated_at=clock.stamp()
            )
        vault.update(Draft, row.id, payload, updated_at=clock.stamp())
        return int(row.id)


def load(vault: Vault, kind: str, ref_id: int | None = None) -> dict[str, Any] | None:
    cond = Draft.ref_id == ref_id if ref_id else Draft.ref_id.is_null()
    row = Draft.get_or_none((Draft.kind_name == kind) & cond)
    return vault.open(row) if row else None


def discard(vault: Vault, kind: str, ref_id: int | None = None) -> None:
    cond = Draft.ref_id == ref_id if ref_id else Draft.ref_id.is_null()
    vault.delete_where(Draft, (Draft.kind_name == kind) & cond)
