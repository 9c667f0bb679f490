"""What extraction reads: every unmemorized journal entry, check-in and chat message (off the
record left out), each with its id and absolute local time; split into chunks when a long
absence or a huge paste would not fit the input budget."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from companion import clock
from companion.activity import chat, checkins, journal, profile
from companion.memory import store
from companion.vault import Vault

DEFAULT_INPUT_BUDGET = 24_000  # tokens of activity per call; a setting, so tests can shrink it


@dataclass
class Item:
    ref: str  # "journal_entry:12", "checkin:3", "chat_message:45"
    when: str  # local ISO time
    data: dict[str, Any]
    user_words: bool  # may be cited as evidence
    updated_at: str = ""  # the row's updated_at when read, to notice edits during the call
    session_id: int | None = None

    @property
    def size(self) -> int:
        return len(json.dumps(self.data, ensure_ascii=False)) // 4 + 8

    @property
    def day(self) -> date:
        return date.fromisoformat(self.when[:10])


@dataclass
class Chunk:
    items: list[Item] = field(default_factory=list)

    @property
    def refs(self) -> set[str]:
        return {i.ref for i in self.items}

    @property
    def user_refs(self) -> set[str]:
        return {i.ref for i in self.items if i.user_words}

    @property
    def sessions(self) -> set[int]:
        return {i.session_id for i in self.items if i.session_id is not None}


def _local(moment: datetime) -> str:
    return moment.isoformat(timespec="minutes")


def unmemorized(vault: Vault) -> list[Item]:
    items: list[Item] = []
    for entry in journal.unmemorized(vault):
        items.append(
            Item(
                f"journal_entry:{entry.id}",
                _local(entry.created_at),
                {
                    "kind": "journal entry",
                    "title": entry.title,
                    "text": entry.text,
                    "tags": entry.tags,
                },
                True,
                entry.updated_at,
            )
        )
    for checkin in checkins.unmemorized(vault):
        day = checkin.date.isoformat()
        items.append(
            Item(
                f"checkin:{checkin.id}",
                f"{day}T21:00",
                {"kind": "check-in", "date": day, **checkin.values},
                True,
                checkin.updated_at,
            )
        )
    for message in chat.unmemorized(vault):
        items.append(
            Item(
                f"chat_message:{message.id}",
                _local(message.created_at),
                {
                    "kind": "chat message",
                    "session_id": message.session_id,
                    "role": message.role,
                    "text": message.content,
                },
                message.role == "user",
                session_id=message.session_id,
            )
        )
    for item in items:
        item.data = {"id": item.ref, "when": item.when, **item.data}
    items.sort(key=lambda i: (i.when, i.ref))
    return items


def chunks(items: list[Item], budget: int) -> list[Chunk]:
    """Consecutive slices of the window, each within ``budget`` tokens (a single item larger
    than the budget travels alone, cut to fit)."""
    parts: list[Chunk] = []
    current, used = Chunk(), 0
    for item in items:
        if current.items and used + item.size > budget:
            parts.append(current)
            current, used = Chunk(), 0
        if item.size > budget and "text" in item.data:
            keep = max(200, budget * 4 - 400)
            item.data["text"] = item.data["text"][:keep] + " [cut to fit]"
        current.items.append(item)
        used += item.size
    if current.items:
        parts.append(current)
    return parts


def document(vault: Vault, chunk: Chunk) -> dict[str, Any]:
    """The JSON the model reads: today, the live facts (with ids), the profile, previous
    summaries of the sessions in this chunk, and the activity."""
    now = clock.now()
    facts = [
        {
            "id": f.id,
            "text": f.text,
            "category": f.category,
            "tier": f.tier,
            "user_wrote_it": f.source == "wrote",
        }
        for f in store.live_facts(vault)
    ]
    summaries = store.summaries_of(vault, list(chunk.sessions))
    previous = {str(sid): content for sid, content in summaries.items()}
    return {
        "today": now.date().isoformat(),
        "timezone": now.tzname() or "",
        "profile": profile.load(vault),
        "facts": facts,
        "previous_session_summaries": previous,
        "sessions_to_summarise": sorted(chunk.sessions),
        "activity": [item.data for item in chunk.items],
    }
