"""Fresh start: erase everything the app learned, keep everything the user wrote.

Journal, check-ins and chats stay, and stay memorized, so nothing is learned again unless the
user asks to re-learn from their history (:func:`relearn_history`).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.activity import chat, checkins, journal, profile
from companion.memory import entities, followups, runs, store, summaries, urges
from companion.memory.pending import PENDING_KEY
from companion.vault import Vault, backup, settings

CONFIRM_WORD = "forget"


@dataclass
class Erased:
    facts: int
    daily_memories: int
    session_summaries: int
    follow_ups: int
    profile: bool
    backups: int


def fresh_start(vault: Vault, profile_too: bool = False, backups_too: bool = False) -> Erased:
    with vault.transaction():
        facts = store.erase_all(vault)
        daily, sessions = summaries.erase_all(vault)
        runs.erase_all(vault)
        follow_ups = followups.erase_all(vault)
        urges.erase_all(vault)
        settings.remove(vault, PENDING_KEY)
        settings.remove(vault, entities.KEY)  # the people learned go with what was learned
        removed_profile = profile.erase(vault) if profile_too else False
    vault.erase_traces()
    removed_backups = backup.delete_all(vault.paths) if backups_too else 0
    return Erased(
        facts,
        daily,
        sessions,
        follow_ups,
        removed_profile,
        removed_backups,
    )


def relearn_history(vault: Vault) -> int:
    """Mark all activity unmemorized, so the next extraction learns from it again."""
    with vault.transaction():
        return (
            journal.mark_all_unmemorized(vault)
            + checkins.mark_all_unmemorized(vault)
            + chat.mark_all_unmemorized(vault)
        )
