"""A deterministic ten-year vault: 3,650 check-ins, 10,000 journal entries and 1,500 chat
sessions with 60,000 messages. Same seeds, same words, every run."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path

from companion import clock
from companion.activity import chat, checkins, journal
from companion.paths import VaultPaths
from companion.vault import Vault

END = date(2026, 11, 21)
PASSPHRASE = "benchmark passphrase, not a real one"

WORDS = (
    "morning evening meeting sponsor coffee walk craving urge tired lonely angry hungry work "
    "family sister brother mother father friend call text gym run breathe pray meditate read "
    "sleep dream anxious hopeful calm grateful proud ashamed honest step program relapse sober "
    "day week month year again better worse slowly finally still maybe really today tomorrow "
    "yesterday kitchen car bus office park rain sun cold warm quiet loud music book journal "
    "therapist group share listen talk cry laugh eat cook clean plan list goal small win hard "
    "easy enough trying learning noticed remembered wanted needed felt thought said asked told "
    "the a and but so because when then after before with without about into over under"
).split()
TAGS = ("recovery", "family", "work", "gratitude", "cravings", "meeting", "sleep", "win")


@dataclass(frozen=True)
class Sizes:
    days: int = 3650
    entries: int = 10_000
    sessions: int = 1_500
    messages_per_session: int = 40


def words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def spread(rng: random.Random, count: int, days: int) -> list[datetime]:
    """``count`` moments spread evenly over the ``days`` before END, at random hours."""
    start = END - timedelta(days=days - 1)
    return [
        datetime.combine(
            start + timedelta(days=i * days // count), time(rng.randint(6, 23), rng.randint(0, 59))
        ).astimezone()
        for i in range(count)
    ]


def journal_entries(sizes: Sizes = Sizes()) -> Iterator[tuple[datetime, str, str]]:
    """(moment, title, text) for every journal entry; shared with the jrnl comparison."""
    rng = random.Random(11)
    for moment in spread(rng, sizes.entries, sizes.days):
        text = words(rng, 50, 400)
        if rng.random() < 0.5:
            text += f" #{rng.choice(TAGS)}"
        title = words(rng, 2, 5).capitalize() if rng.random() < 0.3 else ""
        yield moment, title, text


def build(root: Path, sizes: Sizes = Sizes(), kdf_memory_mib: int | None = None) -> VaultPaths:
    """Create the vault at ``root`` (which must not exist yet)."""
    paths = VaultPaths(root)
    clock.set_clock(lambda: datetime.combine(END, time(22, 0)).astimezone())
    batch = 500
    try:
        vault, _ = Vault.create(paths, PASSPHRASE, kdf_memory_mib)
        with vault:
            rng = random.Random(10)
            start = END - timedelta(days=sizes.days - 1)
            for offset in range(0, sizes.days, batch):
                with vault.transaction():
                    for i in range(offset, min(offset + batch, sizes.days)):
                        checkins.record(
                            vault,
                            start + timedelta(days=i),
                            mood=rng.randint(1, 10),
                            cravings=rng.randint(0, 10),
                            sleep_hours=rng.choice((5, 6, 7, 7.5, 8)),
                            sober=rng.random() > 0.05,
                            note=words(rng, 5, 40) if rng.random() < 0.6 else None,
                        )
            entries = list(journal_entries(sizes))
            for offset in range(0, len(entries), batch):
                with vault.transaction():
                    for moment, title, text in entries[offset : offset + batch]:
                        journal.add(vault, text, title=title, when=moment)
            rng = random.Random(12)
            for moment in spread(rng, sizes.sessions, sizes.days):
                # Through the chat module, as the app writes them: a message written around
                # it would be missing from the index and reported by verify as added outside.
                clock.set_clock(lambda m=moment: m)
                with vault.transaction():
                    session = chat.start(vault, words(rng, 2, 4)).id
                    for n in range(sizes.messages_per_session):
                        role = "user" if n % 2 == 0 else "assistant"
                        chat.add_message(vault, session, role, words(rng, 8, 80))
                    chat.end(vault, session, at=moment)
    finally:
        clock.set_clock(None)
    return paths
