"""Storage for learned memory. Facts are never silently destroyed: an edit closes the old
version (``valid_until``) and links the new one through ``supersedes``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from companion import clock
from companion.errors import InvalidInput
from companion.vault import Vault
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

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


def _expiry(tier: str) -> str | None:
    if tier not in TIERS:
        raise InvalidInput(f"tier must be one of {', '.join(TIERS)}.")
    ttl = TIERS[tier]
    return clock.stamp(clock.now() + ttl) if ttl else None


def add_fact(
    vault: Vault,
    text: str,
    category: str = "general",
    tier: str = "semantic",
    source: str = "wrote",
    evidence: list[str] | None = None,
    pinned: bool = False,
    supersedes: int | None = None,
) -> int:
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
        {"text": text, "evidence": list(evidence or [])},
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
    data = vault.unseal(Fact, row.id, row.payload)
    return FactView(
        row.id,
        str(data.get("text", "")),
        row.category,
        row.tier,
        row.source,
        bool(row.pinned),
        clock.parse_stamp(row.created_at),
        clock.parse_stamp(row.valid_until) if row.valid_until else None,
        list(data.get("evidence", [])),  # type: ignore[arg-type]
        row.supersedes_id,
        clock.parse_stamp(row.expires_at) if row.expires_at else None,
    )


def live_facts(vault: Vault) -> list[FactView]:
    """Facts in force: not deleted, not superseded. Expired tiers are filtered by callers."""
    rows = Fact.select().where((Fact.deleted == 0) & Fact.valid_until.is_null())
    return [fact_view(vault, row) for row in rows.order_by(Fact.category, Fact.id)]


def edit_fact(vault: Vault, fact_id: int, text: str, source: str = "wrote") -> int:
    """Close the old version and add the new one, linked; returns the new id."""
    old = Fact.get_or_none(Fact.id == fact_id)
    if old is None or old.deleted or old.valid_until:
        raise InvalidInput(f"there is no live fact {fact_id}.")
    with vault.transaction():
        previous = fact_view(vault, old)
        Fact.update(valid_until=clock.stamp()).where(Fact.id == fact_id).execute()
        return add_fact(
            vault,
            text,
            old.category,
            old.tier,
            source,
            previous.evidence,
            bool(old.pinned),
            supersedes=fact_id,
        )


def forget_fact(vault: Vault, fact_id: int) -> None:
    """Mark deleted (kept so the same evidence never teaches it again)."""
    if Fact.get_or_none(Fact.id == fact_id) is None:
        raise InvalidInput(f"there is no fact {fact_id}.")
    with vault.transaction():
        Fact.update(deleted=True, updated_at=clock.stamp()).where(Fact.id == fact_id).execute()


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


def newest_daily_memory(vault: Vault) -> tuple[DailyMemory, dict[str, Any]] | None:
    row = DailyMemory.select().order_by(DailyMemory.date.desc(), DailyMemory.id.desc()).first()
    return (row, vault.unseal(DailyMemory, row.id, row.payload)) if row else None


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


def start_run(vault: Vault) -> int:
    return vault.insert(ExtractionRun, {}, started_at=clock.stamp(), status="running")


def finish_run(vault: Vault, run_id: int, status: str, details: dict[str, Any]) -> None:
    vault.update(ExtractionRun, run_id, details, status=status, finished_at=clock.stamp())


def set_pinned(vault: Vault, fact_id: int, pinned: bool) -> None:
    """Pinned facts rank with the profile essentials and are never retired by the size cap."""
    with vault.transaction():
        Fact.update(pinned=pinned, updated_at=clock.stamp()).where(Fact.id == fact_id).execute()


def latest_run(vault: Vault) -> tuple[ExtractionRun, dict[str, Any]] | None:
    row = ExtractionRun.select().order_by(ExtractionRun.id.desc()).first()
    return (row, vault.unseal(ExtractionRun, row.id, row.payload)) if row else None


SOURCE_LABELS = {"learned": "learned", "said": "you said", "wrote": "you wrote"}


def facts_citing(vault: Vault, refs: set[str]) -> list[FactView]:
    """Live facts learned from any of ``refs`` (offered for deletion with their source)."""
    return [f for f in live_facts(vault) if refs & set(f.evidence)]
