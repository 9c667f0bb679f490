"""A small, fixed demo vault: the same person, the same words, on the same day, every time.

Used by the screenshot script and the snapshot tests. The clock is frozen at DEMO_NOW.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from pathlib import Path

from companion import clock
from companion.activity import chat, checkins, journal, profile
from companion.memory import followups, store, summaries
from companion.paths import VaultPaths
from companion.vault import Vault

DEMO_NOW = datetime(2026, 11, 22, 9, 30).astimezone()
DEMO_PASSPHRASE = "demo passphrase for screenshots"

ENTRIES = [
    (
        40,
        "First week back",
        "Went to the Tuesday meeting and actually shared. My hands shook "
        "but Dana nodded the whole time. #meeting #recovery",
    ),
    (
        31,
        "",
        "Rough night. The craving hit around 10pm after the call with my brother. I made "
        "tea, texted Dana, went to bed early. It passed. #cravings",
    ),
    (
        22,
        "Gratitude",
        "Three things: the walk by the river, Mia laughing at breakfast, "
        "and 100 days on the calendar. #gratitude",
    ),
    (
        9,
        "Work stress",
        "Deadline week. I noticed I was skipping lunch and getting short "
        "with people. HALT: hungry and tired. Packed lunch for tomorrow. #work",
    ),
    (
        1,
        "",
        "Slept badly. Still, I did the morning check-in and read a page of the daily "
        "reader. Small wins. #sleep",
    ),
]


def build(root: Path, kdf_memory_mib: int = 64) -> VaultPaths:
    """Create the demo vault at ``root`` and return its paths."""
    paths = VaultPaths(root)
    clock.set_clock(lambda: DEMO_NOW)
    try:
        vault, _ = Vault.create(paths, DEMO_PASSPHRASE, kdf_memory_mib)
        with vault:
            fill(vault)
            vault.backup("daily")
    finally:
        clock.set_clock(None)
    return paths


def fill(vault: Vault) -> None:
    rng = random.Random(22)
    today = DEMO_NOW.date()
    profile.update(
        vault,
        {
            "preferred_name": "Sam",
            "recovery_focus": "alcohol",
            "recovery_start_date": "2026-08-14",
            "current_step": 4,
            "sponsor": "Dana, 555-0142",
            "fellowship": "AA, Tuesday and Saturday meetings",
            "known_triggers": "work stress, late nights, calls with my brother",
            "coping_plan": "Eat something, text Dana, walk for 20 minutes, then decide.",
            "support_contacts": "Dana (sponsor) 555-0142, Priya (sister) 555-0199",
            "coach_preferences": "be direct, keep it short",
            "goals": "90 meetings in 90 days, sleep before midnight",
        },
    )
    for back in range(75, -1, -1):
        day = today - timedelta(days=back)
        if back in (12, 13, 47) or back == 0:
            continue  # a few missed days, and today not done yet
        mood = max(1, min(10, 6 + rng.randint(-2, 3) - (2 if back in (31, 32) else 0)))
        checkins.record(
            vault,
            day,
            mood=mood,
            cravings=max(0, 6 - mood + rng.randint(-1, 2)),
            sleep_hours=rng.choice((6, 6.5, 7, 7.5, 8)),
            sober=True,
            note="long day at work" if back == 9 else None,
        )
    for back, title, text in ENTRIES:
        when = datetime.combine(today - timedelta(days=back), datetime.min.time()).astimezone()
        journal.add(vault, text, title, when=when + timedelta(hours=21, minutes=15))
    session = chat.start(vault, "Cravings after the call")
    chat.add_message(
        vault, session.id, "user", "I talked to my brother and now I really want a drink."
    )
    chat.add_message(
        vault,
        session.id,
        "assistant",
        "That sounds hard. Calls with him have "
        "been a trigger before. **What would help in the next ten minutes?** "
        "Your plan says: eat something, text Dana, walk.",
    )
    chat.add_message(vault, session.id, "user", "I'll text Dana and make some food.")
    chat.end(vault, session.id)
    for text, category, source in (
        ("Sam prefers short, direct answers", "preferences", "said"),
        ("Main trigger is work stress, especially deadline weeks", "patterns", "learned"),
        ("Calls with his brother often lead to cravings", "patterns", "learned"),
        ("Sponsor is Dana", "relationships", "wrote"),
        ("Wants to sleep before midnight", "goals", "learned"),
    ):
        store.add_fact(vault, text, category, source=source, evidence=["journal_entry:2"])
    memory = summaries.add_daily_memory(
        vault,
        today,
        today - timedelta(days=1),
        today - timedelta(days=1),
        {
            "journal_summary": "Slept badly but kept the morning routine.",
            "checkin_summary": "Mood steady around 6; cravings low.",
            "conversation_summary": "",
            "emotional_state": "Tired but steady",
            "follow_ups": ["Pack lunch for the deadline week"],
            "notable_patterns": ["Cravings follow skipped meals"],
        },
    )
    followups.add(vault, "Pack lunch for the deadline week", daily_memory_id=memory)
    followups.add(vault, "Call Priya on Sunday", due=date(2026, 11, 23))
