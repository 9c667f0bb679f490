"""Saving and deleting journal entries with everything that follows: the draft goes, the
search index follows, and words that sound like danger bring help at once."""

from __future__ import annotations

from dataclasses import dataclass

from companion.activity import drafts, journal
from companion.coach import safety
from companion.memory import forgetting, store
from companion.usecases.unlocked import Unlocked


@dataclass
class Saved:
    entry: journal.Entry
    danger: safety.Danger | None
    """What the new words sound like, if danger: show that help now."""
    words: str = ""
    """The words this version added: what is read for danger."""


def save_entry(
    unlocked: Unlocked,
    text: str,
    title: str = "",
    tags: list[str] | None = None,
    entry_id: int | None = None,
    *,
    from_editor: bool = False,
    read: bool = True,
) -> Saved:
    """A new entry, or a new version of ``entry_id``, checked for danger in its new words
    unless not ``read`` (the app reads them in a worker: a pasted megabyte takes seconds).
    Saved from the app's editor (``from_editor``), the draft the editor kept goes; a command
    leaves the app's drafts alone."""
    vault = unlocked.vault
    before = ""
    if entry_id is None:
        journal.check_new_tags(tags)
        entry = journal.add(vault, text, title, tags)
    else:
        old = journal.get(vault, entry_id)
        journal.check_new_tags(tags, old.tags)
        before = f"{old.title}\n{old.text}"
        entry = journal.edit(vault, entry_id, text, title, tags)
    if from_editor:
        drafts.discard(vault, "journal", entry_id)
    words = safety.new_sentences(before, f"{entry.title}\n{entry.text}")
    return Saved(entry, safety.assess(words) if read else None, words)


def delete_entry(unlocked: Unlocked, entry_id: int) -> list[store.FactView]:
    """Delete an entry and its draft; returns what was learned from it, to offer forgetting."""
    vault = unlocked.vault
    journal.delete(vault, entry_id)
    drafts.discard(vault, "journal", entry_id)
    return store.facts_citing(vault, {f"journal_entry:{entry_id}"})


def forget(unlocked: Unlocked, facts: list[store.FactView]) -> int:
    """Forget facts (a deleted entry's or chat's): they are not learned again from it."""
    for fact in facts:
        forgetting.forget_fact(unlocked.vault, fact.id)
    return len(facts)
