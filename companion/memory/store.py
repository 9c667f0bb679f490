"""Storage for learned memory: facts, daily memories, session summaries and extraction runs,
each sealed; the queries the coach, extraction and the screens need live here too.

Facts are never silently destroyed: an edit closes the old version (``valid_until``) and links
the new one through ``supersedes``."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple

from companion import clock
from companion.activity import chat
from companion.errors import InvalidInput, RecordDamaged
from companion.vault import Vault, settings, tuples
from companion.vault.models import DailyMemory, ExtractionRun, Fact, SessionSummary

TIERS = {"semantic": None, "episodic": timedelta(days=30), "conversation": timedelta(days=7)}
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


@dataclass(frozen=True)
class DailyInfo:
    id: int
    date: str
    covering_from: str
    covering_to: str


class DailyMemoryView(NamedTuple):
    info: DailyInfo
    content: dict[str, Any]


@dataclass(frozen=True)
class RunInfo:
    id: int
    status: str  # running | done | failed
    started_at: str
    finished_at: str | None


class RunView(NamedTuple):
    info: RunInfo
    details: dict[str, Any]


@dataclass(frozen=True)
class SummaryView:
    session_id: int
    updated_at: datetime
    content: dict[str, Any]


def _expiry(tier: str) -> str | None:
    if tier not in TIERS:
        raise InvalidInput(f"tier must be one of {', '.join(TIERS)}.")
    ttl = TIERS[tier]
    return clock.stamp(clock.now() + ttl) if ttl else None


def _event_expiry(tier: str, data: dict[str, Any], learned: datetime | None) -> datetime | None:
    """A tier's time counts from when the thing happened in the person's life (the sealed
    ``valid_to``, else ``valid_from``), not from when the app learned it. Life dates stay in
    the payload: the plaintext column only bounds it by the learning time."""
    ttl = TIERS.get(tier)
    if ttl is None:
        return None
    days = [
        _life_date(data.get("valid_to") or data.get("valid_from")),
        _life_date(data.get("said")),
    ]
    known = [d for d in days if d is not None]
    if not known:
        return learned
    try:
        return datetime.combine(max(known), datetime.min.time()).astimezone() + ttl
    except (OverflowError, ValueError):  # a date at the edge of the calendar: learning time
        return learned


def _life_date(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


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
        expires_at=_expiry(tier),
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
        _event_expiry(row.tier, data, learned),
        [dict(a) for a in data.get("about") or [] if isinstance(a, dict)],
        _life_date(data.get("valid_from")),
        _life_date(data.get("valid_to")),
        [str(t) for t in data.get("search_terms") or []],
        _life_date(data.get("said")),
    )


_LIVE: weakref.WeakKeyDictionary[Vault, tuple[tuple[int, int, int], list[FactView]]] = (
    weakref.WeakKeyDictionary()
)


def live_facts(vault: Vault) -> list[FactView]:
    """Facts in force: not deleted, not superseded. Expired tiers are filtered by callers.
    Read again only when a fact changed (the coach asks on every message)."""
    mark = vault.table_mark("fact")
    cached = _LIVE.get(vault)
    if cached is not None and cached[0] == mark:
        return list(cached[1])
    rows = Fact.select().where((Fact.deleted == 0) & Fact.valid_until.is_null())
    # A damaged fact (a flag flipped outside Companion: an un-deleted fact) never goes out.
    found = _readable(rows.order_by(Fact.category, Fact.id), lambda r: fact_view(vault, r))
    _LIVE[vault] = (mark, found)
    return list(found)


def all_facts(vault: Vault) -> list[FactView]:
    """Every fact not deleted, history included (damaged ones left out), for export."""
    return _readable(
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


def replacements(vault: Vault) -> dict[int, int]:
    """Each replaced version's newest successor (live or not), from the plaintext links alone:
    nothing is opened."""
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
    vault.update(Fact, fact.id, payload, expires_at=_expiry(fact.tier), updated_at=clock.stamp())


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


def normalized(text: str) -> str:
    """A fact's words as compared: lower case, spaces collapsed, no final period."""
    return " ".join(text.lower().split()).rstrip(".")


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


def scrub_runs(vault: Vault, texts: list[str]) -> None:
    """Drop the lines of the memory update log that quote any of ``texts``; a kept raw answer
    that quotes one goes whole."""
    needles = [normalized(t) for t in texts if t.strip()]
    if not needles:
        return
    for row in ExtractionRun.select():
        try:
            details = vault.open(row)
        except RecordDamaged:
            continue
        changed = False
        for key in ("changes", "dropped"):
            lines = details.get(key)
            if isinstance(lines, list):
                kept = [ln for ln in lines if not any(n in normalized(str(ln)) for n in needles)]
                if len(kept) != len(lines):
                    details[key], changed = kept, True
        for key in ("raw", "partial"):  # an answer kept, summaries carried: go whole
            held = details.get(key)
            if held and any(n in normalized(str(held)) for n in needles):
                details.pop(key)
                changed = True
        if changed:
            vault.update(ExtractionRun, row.id, details)


def scrub_daily_memories(vault: Vault, texts: list[str]) -> None:
    """Drop a forgotten fact from the daily memories' list of facts learned that day."""
    needles = {normalized(t) for t in texts if t.strip()}
    for row in DailyMemory.select():
        try:
            content = vault.open(row)
        except RecordDamaged:
            continue
        facts = content.get("user_facts")
        if isinstance(facts, list):
            kept = [f for f in facts if normalized(str(f)) not in needles]
            if len(kept) != len(facts):
                vault.update(DailyMemory, row.id, {**content, "user_facts": kept})


def add_daily_memory(
    vault: Vault, day: date, covering_from: date, covering_to: date, content: dict[str, Any]
) -> int:
    return vault.insert(
        DailyMemory,
        content,
        date=day.isoformat(),
        covering_from=covering_from.isoformat(),
        covering_to=covering_to.isoformat(),
        created_at=clock.stamp(),
    )


def _daily(vault: Vault, row: DailyMemory) -> DailyMemoryView:
    info = DailyInfo(row.id, row.date, row.covering_from, row.covering_to)
    return DailyMemoryView(info, vault.open(row))


def newest_daily_memory(vault: Vault) -> DailyMemoryView | None:
    row = DailyMemory.select().order_by(DailyMemory.date.desc(), DailyMemory.id.desc()).first()
    return _daily(vault, row) if row else None


def daily_memories(vault: Vault, first: date | None = None) -> list[DailyMemoryView]:
    """Daily memories dated ``first`` or later (all by default), oldest first."""
    rows = DailyMemory.select().order_by(DailyMemory.date)
    if first is not None:
        rows = rows.where(DailyMemory.date >= first.isoformat())
    return _readable(rows, lambda r: _daily(vault, r))


def put_session_summary(
    vault: Vault, session_id: int, content: dict[str, Any], tier: str = "semantic"
) -> int:
    """One summary per session: a session that grew gets its summary replaced."""
    now = clock.stamp()
    with vault.transaction():
        row = SessionSummary.get_or_none(SessionSummary.session == session_id)
        if row is None:
            return vault.insert(
                SessionSummary,
                content,
                session=session_id,
                tier=tier,
                created_at=now,
                updated_at=now,
                expires_at=_expiry(tier),
            )
        vault.update(
            SessionSummary, row.id, content, tier=tier, updated_at=now, expires_at=_expiry(tier)
        )
        return int(row.id)


def _unexpired(column: Any) -> Any:
    return column.is_null() | (column > clock.stamp())


def _summary(vault: Vault, row: SessionSummary) -> SummaryView:
    content = vault.open(row)
    return SummaryView(row.session_id, clock.parse_stamp(row.updated_at), content)


def session_summaries(
    vault: Vault,
    limit: int | None = None,
    on_record: bool = True,
    fresh: bool = True,
    newest_first: bool = True,
) -> list[SummaryView]:
    """Newest first (else in the order they were written). ``on_record``: off-the-record
    sessions left out (they have none to give anyway); ``fresh``: summaries past their tier's
    TTL left out."""
    order = SessionSummary.updated_at.desc() if newest_first else SessionSummary.id
    rows = SessionSummary.select().order_by(order)
    if fresh:
        rows = rows.where(_unexpired(SessionSummary.expires_at))
    if on_record:
        rows = rows.where(SessionSummary.session.not_in(list(chat.off_record_ids(vault))))
    if limit is not None:
        rows = rows.limit(limit)
    return _readable(rows, lambda r: _summary(vault, r))


def summaries_updated_between(vault: Vault, start: str, end: str) -> list[SummaryView]:
    rows = SessionSummary.select().where(
        (SessionSummary.updated_at >= start) & (SessionSummary.updated_at < end)
    )
    return _readable(rows, lambda r: _summary(vault, r))


def summaries_of(vault: Vault, session_ids: list[int]) -> dict[int, dict[str, Any]]:
    rows = SessionSummary.select().where(SessionSummary.session.in_(session_ids))
    return {view.session_id: view.content for view in (_summary(vault, r) for r in rows)}


def has_summary(session_id: int) -> bool:
    return SessionSummary.get_or_none(SessionSummary.session == session_id) is not None


def start_run(vault: Vault) -> int:
    return vault.insert(ExtractionRun, {}, started_at=clock.stamp(), status="running")


def note_run(vault: Vault, run_id: int, details: dict[str, Any]) -> None:
    """Progress of a run still going (what the panel shows, what a failure carries on)."""
    vault.update(ExtractionRun, run_id, details)


def finish_run(vault: Vault, run_id: int, status: str, details: dict[str, Any]) -> None:
    vault.update(ExtractionRun, run_id, details, status=status, finished_at=clock.stamp())


def close_interrupted_runs(vault: Vault) -> None:
    """A run left "running" belongs to a process that died: record it as interrupted."""
    for row in ExtractionRun.select().where(ExtractionRun.status == "running"):
        finish_run(vault, row.id, "failed", {"reason": "interrupted (the app stopped)"})


def set_pinned(vault: Vault, fact_id: int, pinned: bool) -> None:
    """Pinned facts rank with the profile essentials and are never retired by the size cap."""
    vault.update(Fact, fact_id, pinned=pinned, updated_at=clock.stamp())


def latest_run(vault: Vault) -> RunView | None:
    row = ExtractionRun.select().order_by(ExtractionRun.id.desc()).first()
    if row is None:
        return None
    info = RunInfo(row.id, row.status, row.started_at, row.finished_at)
    return RunView(info, vault.open(row))


def failures_in_a_row() -> tuple[int, datetime | None]:
    """How many memory updates failed since the last that did not, and when the newest of
    them ended (plaintext status and times: nothing is decrypted)."""
    count, newest = 0, None
    query = ExtractionRun.select(ExtractionRun.status, ExtractionRun.finished_at)
    for status, finished_at in tuples(query.order_by(ExtractionRun.id.desc()).limit(50)):
        if status == "running":
            continue
        if status != "failed":
            break
        count += 1
        if newest is None and finished_at:
            newest = clock.parse_stamp(finished_at)
    return count, newest


SOURCE_LABELS = {"learned": "learned", "said": "you said", "wrote": "you wrote"}


def facts_citing(vault: Vault, refs: set[str]) -> list[FactView]:
    """Live facts learned from any of ``refs`` (offered for deletion with their source)."""
    return [f for f in live_facts(vault) if refs & set(f.evidence)]


@dataclass
class Erased:
    facts: int
    daily_memories: int
    session_summaries: int


def erase_all(vault: Vault) -> Erased:
    """Everything learned goes (a fresh start): facts with their history, daily memories,
    session summaries and extraction runs."""
    with vault.transaction():
        erased = Erased(
            vault.delete_where(Fact, None),
            vault.delete_where(DailyMemory, None),
            vault.delete_where(SessionSummary, None),
        )
        vault.delete_where(ExtractionRun, None)
    return erased


def _readable(rows: Any, show: Any) -> list[Any]:
    """Every record that reads; a damaged one is left out (`companion verify` names it)."""
    out = []
    for row in rows:
        try:
            out.append(show(row))
        except RecordDamaged:
            continue
    return out


# -- what the retrieval index reads ----------------------------------------------------------


def summary_ids_of(session_ids: Iterable[int]) -> set[int]:
    """The summaries of these sessions."""
    wanted = list(session_ids)
    rows = SessionSummary.select(SessionSummary.id).where(SessionSummary.session << wanted)
    return {int(rid) for (rid,) in tuples(rows)} if wanted else set()


def fresh_summary_ids() -> set[int]:
    """Session summaries within their tier's time (expired ones stay out of recall)."""
    rows = SessionSummary.select(SessionSummary.id).where(_unexpired(SessionSummary.expires_at))
    return {int(rid) for (rid,) in tuples(rows)}
