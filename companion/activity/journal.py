"""Journal entries: text, an optional title, tags (given, or written inline as #tags)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from companion import clock
from companion.errors import InvalidInput, RecordDamaged
from companion.vault import Vault, tuples, words
from companion.vault.crypto import Sealer
from companion.vault.models import JournalEntry

TEXT_LIMIT = 5 * 1024 * 1024  # characters; a 1 MB paste is well inside
TITLE_LIMIT = 500
TAGS_LIMIT = 30
"""Tags given beside an entry: more is writing pasted into the tags field, one tag a word."""
TAG_LIMIT = 64
"""Characters of a tag, as of a #tag in the text (``words.TAG``)."""
SENTENCE_ENDS = (".", "!", "?", ";", ":")
"""How a word ends in a sentence, not in a tag: several such among new tags are writing."""


@dataclass
class Entry:
    id: int
    created_at: datetime
    text: str
    title: str = ""
    tags: list[str] = field(default_factory=list)
    starred: bool = False
    memorized: bool = False
    updated_at: str = ""
    """The stored stamp of the last save, to notice an edit made while a model read the entry."""
    local_date: str = ""
    """The day it belongs to where it was written (YYYY-MM-DD), whatever the zone is now."""

    @property
    def headline(self) -> str:
        """The title, or the first line of the text, for lists (a Markdown heading's or
        quote's marks left off: "## Ninety days" lists as "Ninety days")."""
        if self.title:
            return self.title
        for line in self.text.splitlines():
            words = HEADING.sub("", line.strip())  # "#tag" stays: a heading has a space
            if words:
                return words
        return "(empty)"


HEADING = re.compile(r"^(?:#{1,6}|>+)\s+")


def normalise_tag(tag: str) -> str:
    return tag.strip().lstrip("#@").strip().lower()


def collect_tags(text: str, given: list[str] | None = None) -> list[str]:
    """Given tags plus inline ``#tags``, lower-cased, each once, in first-seen order."""
    seen: dict[str, None] = {}
    for tag in [*(given or []), *words.TAG.findall(text)]:
        name = normalise_tag(tag)
        if name:
            seen.setdefault(name, None)
    return list(seen)


def check_new_tags(given: list[str] | None, had: list[str] | None = None) -> None:
    """Tags typed beside an entry: more than ``TAGS_LIMIT`` new ones, or one of more than
    ``TAG_LIMIT`` characters, is writing that went into the tags field (it became one tag a
    word) and is refused. Tags an entry already had (an import's) are never counted."""
    kept = set(had or [])
    new = [tag for tag in collect_tags("", given) if tag not in kept]
    if len(new) > TAGS_LIMIT:
        raise InvalidInput(
            f"that is {len(new):,} new tags; an entry takes at most {TAGS_LIMIT} at a time. If "
            "writing went into the tags, move it into the entry."
        )
    if any(len(tag) > TAG_LIMIT for tag in new):
        raise InvalidInput(f"a tag is a word or two, at most {TAG_LIMIT} characters.")
    if len(new) > 3 and any(tag.endswith(SENTENCE_ENDS) for tag in new):
        raise InvalidInput(
            "the tags read like sentences. If writing went into the tags, move it into the "
            "entry; a tag is a word or two, without a full stop."
        )


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


def local_minute(moment: datetime) -> str:
    """The wall-clock minute an entry was written at, where it was written. Stored in the
    entry (``minute``), so a fingerprint recomputed later (rekey) does not depend on the time
    zone the machine is in by then."""
    return moment.astimezone().strftime("%Y-%m-%dT%H:%M")


def _fingerprint(sealer: Sealer, minute: str, title: str, text: str) -> str:
    words = "\n".join(part for part in (title.strip(), text.strip()) if part)
    return sealer.mac("journal", minute, words)


def fingerprint(vault: Vault, moment: datetime, title: str, text: str) -> str:
    """A keyed hash of when (to the local minute) and what, to notice an entry imported twice;
    it reveals nothing (docs/vault-format.md)."""
    return _fingerprint(vault.sealer, local_minute(moment), title, text)


def refingerprint(old: Sealer, new: Sealer) -> None:
    """The vault's rekey hook: fingerprints are keyed, so they follow the new key. The minute
    is the one stored with the entry; for entries from before it was stored, the one their
    old fingerprint was made with (see ``_written_minute``)."""
    query = JournalEntry.select(
        JournalEntry.id, JournalEntry.created_at, JournalEntry.fingerprint, JournalEntry.payload
    )
    offsets: list[timedelta] = []
    for row in query:
        data = new.open(JournalEntry.kind(), row.id, row.payload)
        title, text = str(data.get("title", "")), str(data.get("text", ""))
        minute = str(data.get("minute") or "") or _written_minute(
            old, row.fingerprint, clock.parse_stamp(row.created_at), title, text, offsets
        )
        mark = _fingerprint(new, minute, title, text)
        # The vault gives every row a new MAC under the new key after the hooks have run.
        JournalEntry.update(fingerprint=mark).where(JournalEntry.id == row.id).execute()


def _written_minute(
    old: Sealer,
    mark: str | None,
    moment: datetime,
    title: str,
    text: str,
    offsets: list[timedelta],
) -> str:
    """The local minute an old entry's fingerprint was made with. Only its UTC time is
    stored, and the zone it was written in may not be today's, so try today's zone, then the
    offsets that matched before, then every offset there is (-12:00 to +14:00)."""
    here = local_minute(moment)
    if not mark or _fingerprint(old, here, title, text) == mark:
        return here
    utc = moment.astimezone(UTC)
    for offset in [*offsets, *ALL_OFFSETS]:
        minute = (utc + offset).strftime("%Y-%m-%dT%H:%M")
        if _fingerprint(old, minute, title, text) == mark:
            if offset not in offsets:
                offsets.insert(0, offset)
            return minute
    return here  # not found (edited outside the app?): today's zone, as before


ALL_OFFSETS = [timedelta(minutes=15 * q) for q in range(-48, 57)]


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
    all_tags = collect_tags(text, tags)
    payload = {"text": text, "title": title, "tags": all_tags, "minute": local_minute(moment)}
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
    return Entry(rid, moment, text, title, all_tags, starred)


def edit(
    vault: Vault, entry_id: int, text: str, title: str = "", tags: list[str] | None = None
) -> Entry:
    """Save new text; an edited entry is no longer memorized, so it is learned again."""
    _check(text, title)
    row = _row(entry_id)
    all_tags = collect_tags(text, tags)
    minute = str(vault.open(row).get("minute") or "") or local_minute(
        clock.parse_stamp(row.created_at)
    )
    payload = {"text": text, "title": title, "tags": all_tags, "minute": minute}
    vault.update(
        JournalEntry,
        row.id,
        payload,
        updated_at=clock.stamp(),
        memorized=False,
        fingerprint=_fingerprint(vault.sealer, minute, title, text),
    )
    return Entry(
        row.id,
        clock.parse_stamp(row.created_at),
        text,
        title,
        all_tags,
        bool(row.starred),
    )


def delete(vault: Vault, entry_id: int) -> None:
    row = _row(entry_id)
    vault.delete_where(JournalEntry, JournalEntry.id == row.id)
    vault.erase_traces()


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
        data = vault.open(row)
    except RecordDamaged:
        if not tolerant:
            raise
        data = {"text": DAMAGED, "title": f"Damaged entry {row.id}", "tags": []}
    return Entry(
        row.id,
        clock.parse_stamp(row.created_at),
        str(data.get("text", "")),
        str(data.get("title", "")),
        list(data.get("tags", [])),
        bool(row.starred),
        bool(row.memorized),
        row.updated_at,
        row.local_date,
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


def between(vault: Vault, first: date, last: date, limit: int = 200) -> list[Entry]:
    """Entries written on the local days ``first`` to ``last``, newest first (the plaintext
    local date column: nothing is opened that is not shown)."""
    rows = (
        JournalEntry.select()
        .where(
            (JournalEntry.local_date >= first.isoformat())
            & (JournalEntry.local_date <= last.isoformat())
        )
        .order_by(JournalEntry.created_at.desc(), JournalEntry.id.desc())
        .limit(limit)
    )
    return [view(vault, row) for row in rows]


def days_written(first: date, last: date) -> dict[date, int]:
    """How many entries each day from ``first`` to ``last`` has (the plaintext local date
    column only: nothing is decrypted), for the calendar."""
    day = JournalEntry.local_date
    rows = JournalEntry.select(day).where((day >= first.isoformat()) & (day <= last.isoformat()))
    return dict(Counter(date.fromisoformat(row.local_date) for row in rows))


def count() -> int:
    return JournalEntry.select().count()


def everything(vault: Vault) -> list[Entry]:
    """Every entry, oldest first (damaged ones as placeholders), for export."""
    return [view(vault, row) for row in JournalEntry.select().order_by(JournalEntry.created_at)]


def written_since(vault: Vault, since: datetime) -> list[Entry]:
    """Entries written at or after ``since`` (damaged ones left out)."""
    rows = JournalEntry.select().where(JournalEntry.created_at >= clock.stamp(since))
    return [e for e in (view(vault, row) for row in rows) if e.text != DAMAGED]


def on_this_day(vault: Vault, today: date, limit: int = 8) -> list[Entry]:
    """Entries written on this day of the month in earlier months and years."""
    rows = (
        JournalEntry.select()
        .where(
            JournalEntry.local_date.endswith(f"-{today.day:02d}")
            & (JournalEntry.local_date < today.isoformat())
        )
        .order_by(JournalEntry.local_date.desc())
        .limit(limit)
    )
    return [view(vault, row) for row in rows]


# -- what extraction reads and marks -----------------------------------------------------


def unmemorized(vault: Vault) -> list[Entry]:
    """Entries extraction has not read; a damaged one is never sent (verify names it)."""
    rows = JournalEntry.select().where(JournalEntry.memorized == 0)
    return [e for e in (view(vault, row) for row in rows) if e.text != DAMAGED]


def mark_memorized(vault: Vault, entry_id: int, updated_at: str) -> None:
    """Memorized, unless the entry was edited after ``updated_at`` (it is learned again)."""
    vault.update_where(
        JournalEntry,
        (JournalEntry.id == entry_id) & (JournalEntry.updated_at == updated_at),
        memorized=True,
    )


def mark_all_unmemorized(vault: Vault) -> int:
    """Everything becomes new to extraction again (after a fresh start, on request)."""
    return vault.update_where(JournalEntry, JournalEntry.memorized == True, memorized=False)  # noqa: E712


# -- imported history ----------------------------------------------------------------------


def fingerprints() -> set[str]:
    return {fp for (fp,) in tuples(JournalEntry.select(JournalEntry.fingerprint)) if fp}


def backfill_fingerprints(vault: Vault) -> None:
    """Entries written before fingerprints existed get one, so re-imports still match them."""
    with vault.transaction():
        for row in JournalEntry.select().where(JournalEntry.fingerprint.is_null()):
            entry = view(vault, row)
            mark = fingerprint(vault, entry.created_at, entry.title, entry.text)
            vault.update(JournalEntry, row.id, fingerprint=mark)


def imported_unlearned(vault: Vault) -> list[Entry]:
    """Imported entries kept from extraction until the user asks to learn from them."""
    rows = JournalEntry.select().where((JournalEntry.imported == 1) & (JournalEntry.memorized == 1))
    return [view(vault, row) for row in rows]


def release_imports(vault: Vault) -> int:
    """Let extraction read imported entries (they were kept from it until now)."""
    held = (JournalEntry.imported == 1) & (JournalEntry.memorized == 1)
    return vault.update_where(JournalEntry, held, memorized=False)
