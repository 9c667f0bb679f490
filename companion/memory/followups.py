"""Follow-ups: commitments such as "remind me to call my sister", open until the user marks
one done or extraction closes it (done or dropped) on the person's own words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from companion import clock
from companion.errors import InvalidInput
from companion.memory import store
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


def merge(vault: Vault, follow_up_id: int, evidence: list[str]) -> None:
    """The same commitment said again: one item, every source, the first wording kept."""
    row = FollowUp.get_by_id(follow_up_id)
    data = vault.open(row)
    data["evidence"] = sorted(set(data.get("evidence") or []) | set(evidence))
    vault.update(FollowUp, follow_up_id, data)


def close(vault: Vault, follow_up_id: int, status: str, evidence: list[str]) -> bool:
    """Closed by the person's words ("called Maya today"): ``status`` done or dropped, with
    the evidence sealed beside the text. False when it is not open."""
    row = FollowUp.get_or_none(FollowUp.id == follow_up_id)
    if row is None or row.done_at is not None:
        return False
    data = {**vault.open(row), "status": status, "closed_by": list(evidence)}
    vault.update(FollowUp, follow_up_id, data, done_at=clock.stamp())
    _reminder_done(vault, str(data.get("text", "")), list(data.get("evidence") or []))
    return True


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
    row = FollowUp.get_or_none(FollowUp.id == follow_up_id)
    if row is None:
        raise InvalidInput(f"there is no follow-up {follow_up_id}.")
    vault.update_where(FollowUp, FollowUp.id == follow_up_id, done_at=clock.stamp())
    data = vault.open(row)
    _reminder_done(vault, str(data.get("text", "")), list(data.get("evidence") or []))


def _reminder_done(vault: Vault, task: str, evidence: list[str]) -> None:
    """A reminder said in chat is a fact too ("Asked to be reminded to call mum"): once its
    follow-up is closed, the fact goes out of force with it (kept in history), or the memory
    panel and the coach went on listing a task already done. The fact is the one from the
    same words about the same task (one message may ask for two reminders)."""
    for fact in store.facts_citing(vault, set(evidence)):
        asked = fact.text.removeprefix("Asked to be reminded to ")
        if fact.category == "reminders" and _task_words(asked) == _task_words(task):
            store.close_fact(vault, fact.id, {"reason": "the follow-up was closed"})


def _task_words(text: str) -> list[str]:
    """A task's words without the person's pronouns: the follow-up keeps "my", the fact says
    "their"."""
    return [w for w in re.findall(r"[a-z0-9']+", text.lower()) if w not in PRONOUNS]


PRONOUNS = frozenset("i me my mine myself they them their theirs themselves".split())


def erase_all(vault: Vault) -> int:
    return vault.delete_where(FollowUp, None)
