"""Fresh start: erase everything the app learned, keep everything the user wrote.

Journal, check-ins and chats stay, and stay memorized, so nothing is learned again unless the
user asks to re-learn from their history (:func:`relearn_history`).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.vault import Vault, backup
from companion.vault.models import (
    ChatMessage,
    CheckIn,
    DailyMemory,
    ExtractionRun,
    Fact,
    FollowUp,
    JournalEntry,
    Profile,
    SessionSummary,
    Setting,
    UrgeEvent,
)

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
        facts = Fact.delete().execute()
        followups = FollowUp.delete().execute()
        memories = DailyMemory.delete().execute()
        summaries = SessionSummary.delete().execute()
        ExtractionRun.delete().execute()
        UrgeEvent.delete().execute()
        Setting.delete().where(Setting.key == "pending_profile_changes").execute()
        removed_profile = bool(Profile.delete().execute()) if profile_too else False
    # secure_delete zeroes the freed pages; a checkpoint moves that into the main file.
    vault.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    removed_backups = backup.delete_all(vault.paths) if backups_too else 0
    return Erased(facts, memories, summaries, followups, removed_profile, removed_backups)


def relearn_history(vault: Vault) -> int:
    """Mark all activity unmemorized, so the next extraction learns from it again."""
    with vault.transaction():
        return sum(
            model.update(memorized=False).execute()
            for model in (JournalEntry, CheckIn, ChatMessage)
        )
