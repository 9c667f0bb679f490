"""Learned facts, each sealed, and the queries the coach, extraction and the screens need.
(Daily memories and session summaries are ``summaries``; the memory update log is ``runs``;
tiers and what else they share, ``common``.)

Facts are never silently destroyed: an edit closes the old version (``valid_until``) and links
the new one through ``supersedes``."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import weakref
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from companion import clock
from companion.errors import InvalidInput, RecordDamaged
from companion.memory import common
from companion.vault import Vault, settings
from companion.vault.models import Fact

SOURCES = ("learned", "said", "wrote")
FACT_LIMIT = 2000


@dataclass
class FactView:
    id: int
    text: str
    category: str
    tier: str
    source: str
    pinned: bool
    created_at: datetime
    valid_until: datetime | None
    evidence: list[str] = field(default_factory=list)
    supersedes: int | None = None
    expires_at: datetime | None = None  # the tier's TTL; past it, out of the coach's context
    about: list[dict[str, str]] = field(default_factory=list)  # {"name", "kind", "relation"}
    valid_from: date | None = None  # when it became true in the person's life
    valid_to: date | None = None
    search_terms: list[str] = field(default_factory=list)
    said: date | None = None  # the newest day the person said it again

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    @property
    def locked(self) -> bool:
        """The user wrote or edited it: extraction may only ask about changing it."""
        return self.source == "wrote"


def _details(
    about: list[dict[str, str]] | None,
    valid_from: date | None,
    valid_to: date | None,
    search_terms: list[str] | None,
    said: date | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if said:
        out["said"] = said.isoformat()
    if about:
        out["about"] = about
    if valid_from:
        out["valid_from"] = valid_from.isoformat()
    if valid_to:
        out["valid_to"] = valid_to.isoformat()
    if search_terms:
        out["search_terms"] = search_terms
    return out


def add_fact(
    vault: Vault,
    text: str,
    category: str = "general",
    tier: str = "semantic",
    source: str = "wrote",
    evidence: list[str] | None = None,
    pinned: bool = False,
    supersedes: int | None = None,
    *,
    about: list[dict[str, str]] | None = None,
    valid_from: date | None = None,
    valid_to: date | None = None,
    search_terms: list[str] | None = None,
    said: date | None = None,
) -> int:
    """``about``, the life dates, the search terms and ``said`` (the day of the words it was
    learned from) are sealed with the text."""
    text = text.strip()
    if not text:
        raise InvalidInput("a fact needs some text.")
    if len(text) > FACT_LIMIT:
        raise InvalidInput(f"a fact is limited to {FACT_LIMIT} characters.")
    if source not in SOURCES:
        raise InvalidInput(f"source must be one of {', '.join(SOURCES)}.")
    now = clock.stamp()
    return vault.insert(
        Fact,
        {
            "text": text,
            "evidence": list(evidence or []),
            **_details(about, valid_from, valid_to, search_terms, said),
        },
        category=category.strip().lower() or "general",
        tier=tier,
        source=source,
        pinned=pinned,
        created_at=now,
        updated_at=now,
        expires_at=common.expiry(tier),
        supersedes=supersedes,
    )


def fact_view(vault: Vault, row: Fact) -> FactView:
    data = vault.open(row)
    learned = clock.parse_stamp(row.expires_at) if row.expires_at else None
    return FactView(
        row.id,
        str(data.get("text", "")),
        row.category,
        row.tier,
        row.source,
        bool(row.pinned),
        clock.parse_stamp(row.created_at),
        clock.parse_stamp(row.valid_until) if row.valid_until else None,
        list(data.get("evidence", [])),
        row.supersedes_id,
        common.event_expiry(row.tier, data, learned),
        [dict(a) for a in data.get("about") or [] if isinstance(a, dict)],
        common.life_date(data.get("valid_from")),
        common.life_date(data.get("valid_to")),
        [str(t) for t in data.get("search_terms") or []],
        common.life_date(data.get("said")),
    )


_LIVE: weakref.WeakKeyDictionary[Vault, tuple[tuple[object, ...], list[FactView]]] = (
    weakref.WeakKeyDictionary()
)


def live_facts(vault: Vault) -> list[FactView]:
    """Facts in force: not deleted, not superseded. Expired tiers are filtered by callers.
    Read again only when a fact changed (the coach asks on every message)."""
    mark = vault.changes(("fact",))
    cached = _LIVE.get(vault)
    if cached is not None and cached[0] == mark:
        return list(cached[1])
    rows = Fact.select().where((Fact.deleted == 0) & Fact.valid_until.is_null())
    # A damaged fact (a flag flipped outside Companion: an un-deleted fact) never goes out.
    found = common.readable(rows.order_by(Fact.category, Fact.id), lambda r: fact_view(vault, r))
    _LIVE[vault] = (mark, found)
    return list(found)


def all_facts(vault: Vault) -> list[FactView]:
    """Every fact not deleted, history included (damaged ones left out), for export."""
    return common.readable(
        Fact.select().where(Fact.deleted == 0).order_by(Fact.id), lambda r: fact_view(vault, r)
    )


def get_fact(vault: Vault, fact_id: int) -> FactView | None:
    row = Fact.get_or_none(Fact.id == fact_id)
    return fact_view(vault, row) if row is not None else None


def history(vault: Vault, fact_id: int) -> list[FactView]:
    """The fact and the versions it replaced, newest first."""
    versions = []
    row = Fact.get_or_none(Fact.id == fact_id)
    while row is not None:
        versions.append(fact_view(vault, row))
        row = Fact.get_or_none(Fact.id == row.supersedes_id) if row.supersedes_id else None
    return versions


_REPLACED: weakref.WeakKeyDictionary[Vault, tuple[tuple[object, ...], dict[int, int]]] = (
    weakref.WeakKeyDictionary()
)


def replacements(vault: Vault) -> dict[int, int]:
    """Each replaced version's newest successor (live or not), from the plaintext links alone:
    nothing is opened. Read again only when a fact changed (recall asks on every message)."""
    mark = vault.changes(("fact",))
    cached = _REPLACED.get(vault)
    if cached is None or cached[0] != mark:
        cached = _REPLACED[vault] = (mark, _replacements())
    return dict(cached[1])


def _replacements() -> dict[int, int]:
    successor: dict[int, int] = {}
    rows = Fact.select(Fact.id, Fact.supersedes).where(
        (Fact.deleted == 0) & Fact.supersedes.is_null(False)
    )
    for row in rows:
        if row.supersedes_id is not None:
            successor[row.supersedes_id] = row.id
    out: dict[int, int] = {}
    for old in successor:
        newest, seen = successor[old], {old}
        while newest in successor and newest not in seen:  # a loop only in a damaged file
            seen.add(newest)
            newest = successor[newest]
        out[old] = newest
    return out


def close_fact(vault: Vault, fact_id: int, why: dict[str, Any] | None = None) -> None:
    """No longer in force (an update, a contradiction, the size cap): kept in history. ``why``
    (reason, evidence, run) is sealed with the version it closes."""
    if why is None:
        vault.update(Fact, fact_id, valid_until=clock.stamp())
        return
    row = Fact.get_by_id(fact_id)
    payload = {**vault.open(row), "closed": why}
    vault.update(Fact, fact_id, payload, valid_until=clock.stamp())


def _payload(fact: FactView) -> dict[str, Any]:
    return {
        "text": fact.text,
        "evidence": fact.evidence,
        **_details(fact.about, fact.valid_from, fact.valid_to, fact.search_terms, fact.said),
    }


def restate(
    vault: Vault,
    fact: FactView,
    evidence: list[str],
    said_on: date | None = None,
    search_terms: list[str] | None = None,
) -> None:
    """A fact said again (on ``said_on``, the day of the words): one fact, every source, and
    a tier's time counts again from the newest telling (an expired fact is live again). When
    it was true in the person's life stays as it was."""
    payload = _payload(fact)
    payload["evidence"] = sorted(set(fact.evidence) | set(evidence))
    newest = (
        max(d for d in (said_on, fact.said) if d is not None) if (said_on or fact.said) else None
    )
    if newest is not None:
        payload["said"] = newest.isoformat()
    terms = [*fact.search_terms, *(t for t in search_terms or [] if t not in fact.search_terms)]
    if terms:
        payload["search_terms"] = terms[:12]
    vault.update(
        Fact, fact.id, payload, expires_at=common.expiry(fact.tier), updated_at=clock.stamp()
    )


def set_details(
    vault: Vault,
    fact: FactView,
    about: list[dict[str, str]] | None = None,
    valid_from: date | None = None,
    valid_to: date | None = None,
    search_terms: list[str] | None = None,
) -> None:
    """New subjects, life dates or search terms for a fact (None: kept as they are)."""
    payload = _payload(fact)
    payload.update(_details(about, valid_from, valid_to, search_terms))
    vault.update(Fact, fact.id, payload, updated_at=clock.stamp())


def edit_fact(
    vault: Vault,
    fact_id: int,
    text: str,
    source: str = "wrote",
    why: dict[str, Any] | None = None,
    evidence: list[str] | None = None,
) -> int:
    """Close the old version (with ``why``, when extraction asked for the change) and add the
    new one, linked, with the old evidence plus ``evidence`` and the old subjects and life
    dates; returns the new id."""
    old = Fact.get_or_none(Fact.id == fact_id)
    if old is None or old.deleted or old.valid_until:
        raise InvalidInput(f"there is no live fact {fact_id}.")
    with vault.transaction():
        previous = fact_view(vault, old)
        close_fact(vault, fact_id, why)
        return add_fact(
            vault,
            text,
            old.category,
            old.tier,
            source,
            sorted(set(previous.evidence) | set(evidence or [])),
            bool(old.pinned),
            supersedes=fact_id,
            about=previous.about,
            valid_from=previous.valid_from,
            valid_to=previous.valid_to,
            search_terms=previous.search_terms,
        )


# -- forgotten facts: the rows (the rule is forgetting.py's) ---------------------------------


FINGERPRINT_KEY = "fingerprint_key"


def fingerprint(vault: Vault, words: str) -> str:
    """A keyed mark of ``words``: equal for equal words, useless without the key. The key is
    its own random secret, sealed in the settings, so a rekey (a new data key) keeps every
    forgotten fact forgotten."""
    key = settings.get(vault, FINGERPRINT_KEY)
    if not key:
        key = secrets.token_hex(32)
        settings.put(vault, FINGERPRINT_KEY, key)
    return hmac.new(bytes.fromhex(str(key)), words.encode(), hashlib.sha256).hexdigest()


def legacy_mark(vault: Vault, words: str) -> str:
    """The mark facts forgotten before fingerprints carry (keyed by the data key)."""
    return vault.sealer.mac("forgotten fact", words)


def bury(vault: Vault, fact_id: int, payload: dict[str, Any] | None) -> None:
    """Mark a fact deleted; ``payload`` (None: kept) replaces what it holds."""
    vault.update(Fact, fact_id, payload, deleted=True, updated_at=clock.stamp())


def unbury(vault: Vault, fact_id: int, payload: dict[str, Any]) -> None:
    vault.update(Fact, fact_id, payload, deleted=False, updated_at=clock.stamp())


def buried(vault: Vault) -> list[tuple[int, str, bool, dict[str, Any]]]:
    """(id, category, was in force, payload) of every deleted fact that reads."""
    out = []
    for row in Fact.select().where(Fact.deleted == 1):
        try:
            out.append((int(row.id), str(row.category), row.valid_until is None, vault.open(row)))
        except RecordDamaged:
            continue
    return out


def set_pinned(vault: Vault, fact_id: int, pinned: bool) -> None:
    """Pinned facts rank with the profile essentials and are never retired by the size cap."""
    vault.update(Fact, fact_id, pinned=pinned, updated_at=clock.stamp())


SOURCE_LABELS = {"learned": "learned", "said": "you said", "wrote": "you wrote"}


def facts_citing(vault: Vault, refs: set[str]) -> list[FactView]:
    """Live facts learned from any of ``refs`` (offered for deletion with their source)."""
    return [f for f in live_facts(vault) if refs & set(f.evidence)]


def erase_all(vault: Vault) -> int:
    """Every fact goes, history and forgotten ones included (a fresh start)."""
    return vault.delete_where(Fact, None)
