"""Journal entries: text, an optional title, tags (given, or written inline as #tags)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from companion import clock
from companion.errors import InvalidInput, RecordDamaged
from companion.vault import Vault
from companion.vault.models import JournalEntry

TEXT_LIMIT = 5 * 1024 * 1024  # characters; a 1 MB paste is well inside
TITLE_LIMIT = 500
INLINE_TAG = re.compile(r"(?<![\w#&/])#([^\W\d_][\w-]{0,63})", re.UNICODE)


@dataclass
class Entry:
    id: int
    created_at: datetime
    text: str
    title: str = ""
    tags: list[str] = field(default_factory=list)
    starred: bool = False
    memorized: bool = False

    @property
    def headline(self) -> str:
        """The title, or the first line of the text, for lists."""
        if self.title:
            return self.title
        for line in self.text.splitlines():
            if line.strip():
                return line.strip()
        return "(empty)"


def normalise_tag(tag: str) -> str:
    return tag.strip().lstrip("#@").strip().lower()


def collect_tags(text: str, given: list[str] | None = None) -> list[str]:
    """Given tags plus inline ``#tags``, lower-cased, each once, in first-seen order."""
    seen: dict[str, None] = {}
    for tag in [*(given or []), *INLINE_TAG.findall(text)]:
        name = normalise_tag(tag)
        if name:
            seen.setdefault(name, None)
    return list(seen)


def _check(text: str, title: str) -> None:
    if not text.strip():
        raise InvalidInput("the entry is empty; write something first.")
    if len(text) > TEXT_LIMIT:
        raise InvalidInput(
            f"the entry is {len(text):,} characters; the limit is {TEXT_LIMIT:,}. "
            "Split it into several entries."
        )
    if len(title) > TITLE_LIMIT:
        raise InvalidInput(f"the title is {len(title):,} characters; the limit is {TITLE_LIMIT}.")


def fingerprint(vault: Vault, moment: datetime, title: str, text: str) -> str:
    """A keyed hash of when and what, to notice an entry imported twice (reveals nothing)."""
    return vault.sealer.entry_fingerprint(moment, title, text)


def add(
    vault: Vault,
    text: str,
    title: str = "",
    tags: list[str] | None = None,
    when: datetime | None = None,
    starred: bool = False,
    imported: bool = False,
) -> Entry:
    _check(text, title)
    moment = when or clock.now()
    payload = {"text": text, "title": title, "tags": collect_tags(text, tags)}
    stamp = clock.stamp(moment)
    rid = vault.insert(
        JournalEntry,
        payload,
        created_at=stamp,
        updated_at=clock.stamp(),
        local_date=moment.date().isoformat(),
        starred=starred,
        fingerprint=fingerprint(vault, moment, title, text),
        imported=imported,
        memorized=imported,  # imported history is learned from only when asked
    )
    return Entry(rid, moment, text, title, payload["tags"], starred)  # type: ignore[arg-type]


def edit(
    vault: Vault, entry_id: int, text: str, title: str = "", tags: list[str] | None = None
) -> Entry:
    """Save new text; an edited entry is no longer memorized, so it is learned again."""
    _check(text, title)
    row = _row(entry_id)
    payload = {"text": text, "title": title, "tags": collect_tags(text, tags)}
    moment = clock.parse_stamp(row.created_at)
    vault.update(
        JournalEntry,
        row.id,
        payload,
        updated_at=clock.stamp(),
        memorized=False,
        fingerprint=fingerprint(vault, moment, title, text),
    )
    return Entry(
        row.id,
        clock.parse_stamp(row.created_at),
        text,
        title,
        payload["tags"],  # type: ignore[arg-type]
        bool(row.starred),
    )


def delete(vault: Vault, entry_id: int) -> None:
    row = _row(entry_id)
    with vault.transaction():
        JournalEntry.delete().where(JournalEntry.id == row.id).execute()


def _row(entry_id: int) -> JournalEntry:
    row = JournalEntry.get_or_none(JournalEntry.id == entry_id)
    if row is None:
        raise InvalidInput(f"there is no journal entry {entry_id}.")
    return row


DAMAGED = "[This entry is damaged and cannot be read. `companion verify` lists damage.]"


def view(vault: Vault, row: JournalEntry, tolerant: bool = True) -> Entry:
    """One entry. In lists a damaged one shows as a placeholder, so every other entry still
    reads; asked for by itself (``tolerant=False``) it raises the integrity error."""
    try:
        data = vault.unseal(JournalEntry, row.id, row.payload)
    except RecordDamaged:
        if not tolerant:
            raise
        data = {"text": DAMAGED, "title": f"Damaged entry {row.id}", "tags": []}
    return Entry(
        row.id,
        clock.parse_stamp(row.created_at),
        str(data.get("text", "")),
        str(data.get("title", "")),
        list(data.get("tags", [])),  # type: ignore[arg-type]
        bool(row.starred),
        bool(row.memorized),
    )


def get(vault: Vault, entry_id: int) -> Entry:
    return view(vault, _row(entry_id), tolerant=False)


def newest(vault: Vault, limit: int = 50, offset: int = 0) -> list[Entry]:
    rows = (
        JournalEntry.select()
        .order_by(JournalEntry.created_at.desc(), JournalEntry.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return [view(vault, row) for row in rows]


def count() -> int:
    return JournalEntry.select().count()
