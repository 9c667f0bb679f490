"""Schema versions, kept in ``PRAGMA user_version``. Each step runs in its own transaction,
after a backup, so a failed migration leaves the vault as it was.

Version 1's DDL is frozen here as text: a new vault is created at version 1 and migrated, so
every vault in the field took the same path.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

SCHEMA_V1 = [
    'CREATE TABLE "header" ("id" INTEGER NOT NULL PRIMARY KEY, "body" TEXT NOT NULL, '
    '"sha256" TEXT NOT NULL)',
    'CREATE TABLE "checkin" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"date" TEXT NOT NULL, "created_at" TEXT NOT NULL, "updated_at" TEXT NOT NULL, '
    '"memorized" INTEGER NOT NULL DEFAULT 0, "payload" BLOB NOT NULL)',
    'CREATE UNIQUE INDEX "checkin_date" ON "checkin" ("date")',
    'CREATE TABLE "journal_entry" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"created_at" TEXT NOT NULL, "local_date" TEXT NOT NULL, "updated_at" TEXT NOT NULL, '
    '"memorized" INTEGER NOT NULL DEFAULT 0, "payload" BLOB NOT NULL)',
    'CREATE INDEX "journal_entry_created_at" ON "journal_entry" ("created_at")',
    'CREATE INDEX "journal_entry_local_date" ON "journal_entry" ("local_date")',
    'CREATE TABLE "chat_session" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"started_at" TEXT NOT NULL, "ended_at" TEXT, "off_record" INTEGER NOT NULL DEFAULT 0, '
    '"payload" BLOB NOT NULL)',
    'CREATE INDEX "chat_session_started_at" ON "chat_session" ("started_at")',
    'CREATE TABLE "chat_message" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"session_id" INTEGER NOT NULL REFERENCES "chat_session" ("id") ON DELETE CASCADE, '
    '"created_at" TEXT NOT NULL, "role" TEXT NOT NULL, '
    '"memorized" INTEGER NOT NULL DEFAULT 0, "payload" BLOB NOT NULL)',
    'CREATE INDEX "chat_message_session_id_id" ON "chat_message" ("session_id", "id")',
    'CREATE TABLE "profile" ("id" INTEGER NOT NULL PRIMARY KEY, "updated_at" TEXT NOT NULL, '
    '"payload" BLOB NOT NULL)',
    'CREATE TABLE "fact" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"category" TEXT NOT NULL, "tier" TEXT NOT NULL, "source" TEXT NOT NULL, '
    '"pinned" INTEGER NOT NULL DEFAULT 0, "created_at" TEXT NOT NULL, '
    '"updated_at" TEXT NOT NULL, "valid_until" TEXT, "expires_at" TEXT, '
    '"deleted" INTEGER NOT NULL DEFAULT 0, '
    '"supersedes_id" INTEGER REFERENCES "fact" ("id") ON DELETE SET NULL, '
    '"payload" BLOB NOT NULL)',
    'CREATE INDEX "fact_supersedes_id" ON "fact" ("supersedes_id")',
    'CREATE TABLE "daily_memory" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"date" TEXT NOT NULL, "covering_from" TEXT NOT NULL, "covering_to" TEXT NOT NULL, '
    '"created_at" TEXT NOT NULL, "payload" BLOB NOT NULL)',
    'CREATE INDEX "daily_memory_date" ON "daily_memory" ("date")',
    'CREATE TABLE "session_summary" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"session_id" INTEGER NOT NULL UNIQUE REFERENCES "chat_session" ("id") ON DELETE CASCADE, '
    '"tier" TEXT NOT NULL, "created_at" TEXT NOT NULL, "updated_at" TEXT NOT NULL, '
    '"expires_at" TEXT, "payload" BLOB NOT NULL)',
    'CREATE TABLE "extraction_run" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"started_at" TEXT NOT NULL, "finished_at" TEXT, "status" TEXT NOT NULL, '
    '"payload" BLOB NOT NULL)',
    'CREATE TABLE "outbound_call" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"created_at" TEXT NOT NULL, "purpose" TEXT NOT NULL, "status" TEXT NOT NULL, '
    '"payload" BLOB NOT NULL)',
    'CREATE INDEX "outbound_call_created_at" ON "outbound_call" ("created_at")',
    'CREATE TABLE "setting" ("key" TEXT NOT NULL PRIMARY KEY, "updated_at" TEXT NOT NULL, '
    '"payload" BLOB NOT NULL)',
    'CREATE TABLE "draft" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
    '"draft_kind" TEXT NOT NULL, "ref_id" INTEGER, "updated_at" TEXT NOT NULL, '
    '"payload" BLOB NOT NULL)',
]


def _v2_starred(conn: sqlite3.Connection) -> None:
    """Schema 2: journal entries can be starred (jrnl and Day One carry a star)."""
    conn.execute('ALTER TABLE "journal_entry" ADD COLUMN "starred" INTEGER NOT NULL DEFAULT 0')


def _v3_follow_ups(conn: sqlite3.Connection) -> None:
    """Schema 3: follow-ups ("remind me to...") that the user can mark done."""
    conn.execute(
        'CREATE TABLE "follow_up" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
        '"created_at" TEXT NOT NULL, "due_date" TEXT, "done_at" TEXT, '
        '"daily_memory_id" INTEGER REFERENCES "daily_memory" ("id") ON DELETE SET NULL, '
        '"payload" BLOB NOT NULL)'
    )


def _v4_urge_events(conn: sqlite3.Connection) -> None:
    """Schema 4: urge episodes (trigger, strategy, outcome as vocabulary labels) that
    extraction finds, for the weekly insights."""
    conn.execute(
        'CREATE TABLE "urge_event" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, '
        '"occurred_at" TEXT NOT NULL, "created_at" TEXT NOT NULL, '
        '"extraction_run_id" INTEGER REFERENCES "extraction_run" ("id") ON DELETE SET NULL, '
        '"payload" BLOB NOT NULL)'
    )
    conn.execute('CREATE INDEX "urge_event_occurred_at" ON "urge_event" ("occurred_at")')


def _v5_import_marks(conn: sqlite3.Connection) -> None:
    """Schema 5: journal entries carry a keyed fingerprint of date and text (so importing the
    same file twice adds nothing) and whether they were imported."""
    conn.execute('ALTER TABLE "journal_entry" ADD COLUMN "fingerprint" TEXT')
    conn.execute('ALTER TABLE "journal_entry" ADD COLUMN "imported" INTEGER NOT NULL DEFAULT 0')
    conn.execute('CREATE INDEX "journal_entry_fingerprint" ON "journal_entry" ("fingerprint")')


def _v6_integrity(conn: sqlite3.Connection) -> None:
    """Schema 6: every sealed row gets a version and a MAC over all its columns, the vault an
    integrity manifest, the header a keyed MAC (the keyed part runs in the same transaction)."""
    for table in SEALED:
        conn.execute(f'ALTER TABLE "{table}" ADD COLUMN "row_version" INTEGER NOT NULL DEFAULT 0')
        conn.execute(f'ALTER TABLE "{table}" ADD COLUMN "row_mac" BLOB')
    conn.execute('ALTER TABLE "header" ADD COLUMN "hmac" TEXT')
    conn.execute(
        'CREATE TABLE "manifest" ("id" INTEGER NOT NULL PRIMARY KEY, "body" TEXT NOT NULL, '
        '"mac" TEXT NOT NULL)'
    )
    conn.execute('CREATE TABLE "session_epoch" ("id" INTEGER NOT NULL PRIMARY KEY, "value" BLOB)')


def _v7_index(conn: sqlite3.Connection) -> None:
    """Schema 7: the sealed search index (filled after the upgrade, through the vault's door,
    so its rows are MACed and counted like every other)."""
    for table, key in (
        ("index_bucket", "INTEGER NOT NULL PRIMARY KEY"),
        ("index_delta", "INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT"),
        ("index_state", "INTEGER NOT NULL PRIMARY KEY"),
    ):
        conn.execute(
            f'CREATE TABLE "{table}" ("id" {key}, "payload" BLOB NOT NULL, '
            '"row_version" INTEGER NOT NULL DEFAULT 0, "row_mac" BLOB)'
        )
    # Recall reads a span of days newest first from these plaintext columns.
    conn.execute('CREATE INDEX "chat_message_created_at" ON "chat_message" ("created_at")')
    conn.execute('CREATE INDEX "daily_memory_covering_to" ON "daily_memory" ("covering_to")')
    conn.execute('CREATE INDEX "session_summary_updated_at" ON "session_summary" ("updated_at")')


# The sealed tables as schema 6 found them (frozen: a later table gets its columns in its own step).
SEALED = (
    "checkin",
    "journal_entry",
    "chat_session",
    "chat_message",
    "profile",
    "fact",
    "daily_memory",
    "session_summary",
    "extraction_run",
    "outbound_call",
    "setting",
    "draft",
    "follow_up",
    "urge_event",
)

Keyed = Callable[[sqlite3.Connection, int], None]
"""Called with the version a step reached, inside its transaction, for what needs the key."""

# STEPS[n] takes a vault from version n+1 to n+2.
STEPS: list[Callable[[sqlite3.Connection], None]] = [
    _v2_starred,
    _v3_follow_ups,
    _v4_urge_events,
    _v5_import_marks,
    _v6_integrity,
    _v7_index,
]
CURRENT_VERSION = 1 + len(STEPS)


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def create_v1(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    for statement in SCHEMA_V1:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("COMMIT")


def pending(conn: sqlite3.Connection) -> bool:
    return schema_version(conn) < CURRENT_VERSION


def migrate(conn: sqlite3.Connection, keyed: Keyed) -> list[int]:
    """Apply every pending step; returns the versions reached. Newer-than-us is refused."""
    version = schema_version(conn)
    if version > CURRENT_VERSION:
        raise RuntimeError(f"schema {version} is newer than this Companion ({CURRENT_VERSION})")
    reached = []
    while version < CURRENT_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            STEPS[version - 1](conn)
            keyed(conn, version + 1)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        version += 1
        reached.append(version)
    return reached
