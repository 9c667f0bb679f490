"""Saving and deleting journal entries with everything that follows: the draft goes, the
search index follows, and words that sound like danger bring help at once."""

from __future__ import annotations

from dataclasses import dataclass

from companion.activity import drafts, journal
from companion.coach import safety
from companion.memory import store
from companion.usecases.unlocked import Unlocked


@dataclass
class Saved:
    entry: journal.Entry
    crisis: bool
    """The words sound like danger: show the crisis lines now (when asked to look)."""


def save_entry(
    unlocked: Unlocked,
    text: str,
    title: str = "",
    tags: list[str] | None = None,
    entry_id: int | None = None,
    *,
    from_editor: bool = False,
) -> Saved:
    """A new entry, or a new version of ``entry_id``. Saved from the app's editor
    (``from_editor``), the draft the editor kept goes and the words are checked for danger;
    a command leaves the app's drafts alone."""
    vault = unlocked.vault
    if entry_id is None:
        entry = journal.add(vault, text, title, tags)
    else:
        entry = journal.edit(vault, entry_id, text, title, tags)
    if from_editor:
        drafts.discard(vault, "journal", entry_id)
    unlocked.indexed(entry)
    crisis = from_editor and safety.detect(f"{entry.title}\n{entry.text}")
    return Saved(entry, crisis)


def delete_entry(unlocked: Unlocked, entry_id: int) -> list[store.FactView]:
    """Delete an entry and its draft; returns what was learned from it, to offer forgetting."""
    vault = unlocked.vault
    journal.delete(vault, entry_id)
    drafts.discard(vault, "journal", entry_id)
    unlocked.unindexed("journal", entry_id)
    return store.facts_citing(vault, {f"journal_entry:{entry_id}"})


def forget(unlocked: Unlocked, facts: list[store.FactView]) -> int:
    """Forget facts (a deleted entry's or chat's): they are not learned again from it."""
    for fact in facts:
        store.forget_fact(unlocked.vault, fact.id)
    return len(facts)
