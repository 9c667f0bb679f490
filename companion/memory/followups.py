"""Follow-ups: commitments such as "remind me to call my sister", until marked done."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from companion import clock
from companion.errors import InvalidInput
from companion.vault import Vault
from companion.vault.models import FollowUp


@dataclass
class FollowUpView:
    id: int
    text: str
    due: date | None
    done: bool
    evidence: list[str] = field(default_factory=list)


def add(
    vault: Vault,
    text: str,
    due: date | None = None,
    evidence: list[str] | None = None,
    daily_memory_id: int | None = None,
) -> int:
    if not text.strip():
        raise InvalidInput("a follow-up needs some text.")
    return vault.insert(
        FollowUp,
        {"text": text.strip(), "evidence": list(evidence or [])},
        created_at=clock.stamp(),
        due_date=due.isoformat() if due else None,
        daily_memory=daily_memory_id,
    )


def _view(vault: Vault, row: FollowUp) -> FollowUpView:
    data = vault.open(row)
    return FollowUpView(
        row.id,
        str(data.get("text", "")),
        date.fromisoformat(row.due_date) if row.due_date else None,
        row.done_at is not None,
        list(data.get("evidence", [])),
    )


def open_items(vault: Vault) -> list[FollowUpView]:
    rows = FollowUp.select().where(FollowUp.done_at.is_null()).order_by(FollowUp.id)
    return [_view(vault, row) for row in rows]


def mark_done(vault: Vault, follow_up_id: int) -> None:
    updated = vault.update_where(FollowUp, FollowUp.id == follow_up_id, done_at=clock.stamp())
    if not updated:
        raise InvalidInput(f"there is no follow-up {follow_up_id}.")


def erase_all(vault: Vault) -> int:
    return vault.delete_where(FollowUp, None)
