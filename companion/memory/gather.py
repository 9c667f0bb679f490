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
from companion.memory import followups, store, summaries
from companion.retrieval.order import Allowed
from companion.retrieval.rank import Index
from companion.vault import Vault, words

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


FACT_SHARE = 0.2
"""Facts may take this share of the activity's tokens in the document ..."""
FACT_TOKENS = (500, 3000)
"""... and never fewer or more tokens than these (the locked and pinned ones always go)."""


def fact_line(fact: store.FactView) -> str:
    """A fact as the model reads it: compact, one string ("#12 (work) Works nights [locked]")."""
    marks = [m for m, on in (("locked", fact.locked), ("pinned", fact.pinned)) if on]
    flags = f" [{', '.join(marks)}]" if marks else ""
    return f"#{fact.id} ({fact.category}) {fact.text}{flags}"


def relevant_facts(vault: Vault, chunk: Chunk) -> list[store.FactView]:
    """The locked and pinned facts, then the learned facts (all when they fit, else those the
    retrieval index ranks relevant to the chunk's words) within the facts' token share.
    Expired facts stay home: a fact said again is recognised by ``apply`` against every
    fact, sent or not."""
    now = clock.now()
    live = [f for f in store.live_facts(vault) if f.category != "cue" and not f.expired(now)]
    always = [f for f in live if f.locked or f.pinned]
    others = {f.id: f for f in live if not (f.locked or f.pinned)}
    activity = sum(item.size for item in chunk.items)
    share = min(max(int(activity * FACT_SHARE), FACT_TOKENS[0]), FACT_TOKENS[1])
    used = sum(len(fact_line(f)) // 4 + 2 for f in always)
    chosen = list(always)
    everything = sum(len(fact_line(f)) // 4 + 2 for f in others.values())
    if used + everything <= share:  # all fit: the model sees what a new fact might contradict
        return chosen + list(others.values())
    if others and used < share:
        text = "\n".join(str(i.data.get("text") or i.data.get("note") or "") for i in chunk.items)
        weights = dict.fromkeys(words.query_terms(text), 1.0)
        ranked = Index(vault).relevant(  # the order only: no coverage (concepts=[])
            weights, Allowed({"fact": others}), limit=400, kinds=("fact",), concepts=[]
        )
        for scored in ranked:
            fact = others[scored.doc.ref]
            cost = len(fact_line(fact)) // 4 + 2
            if used + cost > share:
                break
            chosen.append(fact)
            used += cost
    return chosen


def escaped(document: dict[str, Any]) -> str:
    """The document as JSON that cannot close its ``<data>`` wrapper: "</" is written "<\\/",
    which JSON reads back as the same text."""
    return json.dumps(document, ensure_ascii=False).replace("</", "<\\/")


def document(vault: Vault, chunk: Chunk) -> dict[str, Any]:
    """The JSON the model reads: today, the facts that matter to this chunk (with ids), the
    open follow-ups (with ids), the profile, previous summaries of the sessions in this
    chunk, and the activity."""
    now = clock.now()
    earlier = summaries.summaries_of(vault, list(chunk.sessions))
    previous = {str(sid): content for sid, content in earlier.items()}
    follow_ups = [
        f"#{f.id} {f.text}" + (f" (due {f.due.isoformat()})" if f.due else "")
        for f in followups.open_items(vault)
    ]
    return {
        "today": now.date().isoformat(),
        "timezone": now.tzname() or "",
        "profile": profile.load(vault),
        "facts": [fact_line(f) for f in relevant_facts(vault, chunk)],
        "open_follow_ups": follow_ups,
        "previous_session_summaries": previous,
        "sessions_to_summarise": sorted(chunk.sessions),
        "activity": [item.data for item in chunk.items],
    }
