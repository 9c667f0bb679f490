"""What the coach's section holds whatever the message says (the profile, sobriety now, the
reserved lines, the facts in force, recent momentum), read once and kept until it changes.

Each of those is a small read through peewee, MAC-checked and decrypted: together about 5 ms
that every chat message paid although none of it moves between two messages. Kept per
unlocked vault, keyed on the changes to every table they come from (as the integrity
manifest counts them, in memory), the sessions off the record, the day, and until the next
fact or session summary expires.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from companion import clock
from companion.activity import chat
from companion.memory import store, summaries
from companion.vault import Vault

TABLES = (
    "profile",
    "setting",  # pending profile changes
    "fact",
    "follow_up",
    "session_summary",
    "daily_memory",
    "checkin",
    "urge_event",
)
"""Every table the standing part of a section reads; a write to any of them reads it again."""


@dataclass(frozen=True)
class Standing:
    prof: dict[str, Any]
    facts: list[store.FactView]  # in force, not expired, no cues
    reserved: list[str]  # the "Keep in mind" tier
    momentum: list[str]  # the profile's details, then recent momentum
    also: list[tuple[int, str]]  # (fact id, line) not pinned: newest, then preferences first


@dataclass(frozen=True)
class _Kept:
    key: tuple[object, ...]
    read_at: datetime  # a clock set back (tests do) to before it: read again
    until: datetime | None  # the next fact to expire
    summaries_until: str | None  # the next session summary to expire (a stored stamp)
    standing: Standing


_KEPT: weakref.WeakKeyDictionary[Vault, _Kept] = weakref.WeakKeyDictionary()


def standing(vault: Vault, today: date, read: Callable[[Vault, date], Standing]) -> Standing:
    """The standing part for ``today``; ``read(vault, today)`` builds it when what is kept
    is stale (context.py's own reads, so there is one way to build a section)."""
    # The sessions off the record, not every session's mark: beginning a chat changes no
    # summary shown (and recall asks for them anyway: kept).
    key = (today, vault.changes(TABLES), chat.off_record_ids(vault))
    kept = _KEPT.get(vault)
    if kept is not None and kept.key == key:
        now = clock.now()
        fresh_facts = kept.read_at <= now and (kept.until is None or now < kept.until)
        fresh_summaries = kept.summaries_until is None or clock.stamp(now) < kept.summaries_until
        if fresh_facts and fresh_summaries:
            return kept.standing
    now = clock.now()  # before reading: what expires after it may be in what is read
    found: Standing = read(vault, today)
    expiries = [f.expires_at for f in store.live_facts(vault) if f.expires_at is not None]
    until = min((e for e in expiries if e > now), default=None)
    _KEPT[vault] = _Kept(key, now, until, summaries.next_expiry(clock.stamp(now)), found)
    return found
