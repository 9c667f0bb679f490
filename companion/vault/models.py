"""Tables of the vault. Plaintext columns are ids, timestamps, dates, kinds, links and flags;
everything a person wrote or that was learned about them is in the sealed ``payload`` column.

``docs/vault-format.md`` lists every column; keep the two in step.
"""

from __future__ import annotations

from typing import Any

import peewee as pw

db = pw.DatabaseProxy()


class Record(pw.Model):
    """A row whose ``payload`` is sealed with associated data (kind=table name, id, field)."""

    row_version = pw.IntegerField(default=0)  # schema 6: one more on every write
    row_mac = pw.BlobField(null=True)  # schema 6: see vault/integrity.py

    class Meta:
        database = db
        legacy_table_names = False

    @classmethod
    def kind(cls) -> str:
        return str(cls._meta.table_name)

    @classmethod
    def key_column(cls) -> str:
        """The primary key's column (``id``, or ``key`` for settings)."""
        key: Any = cls._meta.primary_key  # a field (peewee types it "field or False")
        return str(key.column_name)


class HeaderRow(pw.Model):
    id = pw.IntegerField(primary_key=True)
    body = pw.TextField()
    sha256 = pw.TextField()
    hmac = pw.TextField(null=True)  # schema 6: keyed from the data key

    class Meta:
        database = db
        table_name = "header"


class CheckIn(Record):
    id = pw.IntegerField(primary_key=True)
    date = pw.TextField(unique=True)  # local date, YYYY-MM-DD
    created_at = pw.TextField()
    updated_at = pw.TextField()
    memorized = pw.BooleanField(default=False)
    payload = pw.BlobField()

    class Meta:
        table_name = "checkin"


class JournalEntry(Record):
    id = pw.IntegerField(primary_key=True)
    created_at = pw.TextField(index=True)  # UTC stamp
    local_date = pw.TextField(index=True)
    updated_at = pw.TextField()
    memorized = pw.BooleanField(default=False)
    starred = pw.BooleanField(default=False)  # added in schema 2
    fingerprint = pw.TextField(null=True, index=True)  # schema 5: HMAC of date and text
    imported = pw.BooleanField(default=False)  # schema 5
    payload = pw.BlobField()

    class Meta:
        table_name = "journal_entry"


class ChatSession(Record):
    id = pw.IntegerField(primary_key=True)
    started_at = pw.TextField(index=True)
    ended_at = pw.TextField(null=True)
    off_record = pw.BooleanField(default=False)
    payload = pw.BlobField()

    class Meta:
        table_name = "chat_session"


class ChatMessage(Record):
    id = pw.IntegerField(primary_key=True)
    session = pw.ForeignKeyField(ChatSession, on_delete="CASCADE", column_name="session_id")
    created_at = pw.TextField()
    role = pw.TextField()  # user | assistant
    memorized = pw.BooleanField(default=False)
    payload = pw.BlobField()
    session_id: int  # peewee's accessor for the foreign key's value

    class Meta:
        table_name = "chat_message"
        indexes = ((("session", "id"), False),)


class Profile(Record):
    id = pw.IntegerField(primary_key=True)  # always 1
    updated_at = pw.TextField()
    payload = pw.BlobField()

    class Meta:
        table_name = "profile"


class Fact(Record):
    id = pw.IntegerField(primary_key=True)
    category = pw.TextField()
    tier = pw.TextField()  # semantic | episodic | conversation
    source = pw.TextField()  # learned | said | wrote
    pinned = pw.BooleanField(default=False)
    created_at = pw.TextField()
    updated_at = pw.TextField()
    valid_until = pw.TextField(null=True)  # closed by an update or contradiction
    expires_at = pw.TextField(null=True)  # tier TTL
    deleted = pw.BooleanField(default=False)
    supersedes = pw.ForeignKeyField("self", null=True, on_delete="SET NULL")
    payload = pw.BlobField()
    supersedes_id: int | None  # peewee's accessor for the foreign key's value

    class Meta:
        table_name = "fact"


class DailyMemory(Record):
    id = pw.IntegerField(primary_key=True)
    date = pw.TextField(index=True)
    covering_from = pw.TextField()
    covering_to = pw.TextField()
    created_at = pw.TextField()
    payload = pw.BlobField()

    class Meta:
        table_name = "daily_memory"


class SessionSummary(Record):
    id = pw.IntegerField(primary_key=True)
    session = pw.ForeignKeyField(
        ChatSession, on_delete="CASCADE", unique=True, column_name="session_id"
    )
    tier = pw.TextField()
    created_at = pw.TextField()
    updated_at = pw.TextField()
    expires_at = pw.TextField(null=True)
    payload = pw.BlobField()
    session_id: int  # peewee's accessor for the foreign key's value

    class Meta:
        table_name = "session_summary"


class ExtractionRun(Record):
    id = pw.IntegerField(primary_key=True)
    started_at = pw.TextField()
    finished_at = pw.TextField(null=True)
    status = pw.TextField()  # running | done | failed
    payload = pw.BlobField()

    class Meta:
        table_name = "extraction_run"


class OutboundCall(Record):
    id = pw.IntegerField(primary_key=True)
    created_at = pw.TextField(index=True)
    purpose = pw.TextField()  # chat | extraction | greeting ...
    status = pw.TextField()  # ok | error
    payload = pw.BlobField()

    class Meta:
        table_name = "outbound_call"


class Setting(Record):
    key = pw.TextField(primary_key=True)
    updated_at = pw.TextField()
    payload = pw.BlobField()

    class Meta:
        table_name = "setting"


class Draft(Record):
    id = pw.IntegerField(primary_key=True)
    kind_name = pw.TextField(column_name="draft_kind")  # journal | chat
    ref_id = pw.IntegerField(null=True)  # the entry or session it belongs to
    updated_at = pw.TextField()
    payload = pw.BlobField()

    class Meta:
        table_name = "draft"


class FollowUp(Record):
    id = pw.IntegerField(primary_key=True)
    created_at = pw.TextField()
    due_date = pw.TextField(null=True)
    done_at = pw.TextField(null=True)
    daily_memory = pw.ForeignKeyField(
        DailyMemory, null=True, on_delete="SET NULL", column_name="daily_memory_id"
    )
    payload = pw.BlobField()

    class Meta:
        table_name = "follow_up"


class UrgeEvent(Record):
    id = pw.IntegerField(primary_key=True)
    occurred_at = pw.TextField(index=True)
    created_at = pw.TextField()
    extraction_run = pw.ForeignKeyField(
        ExtractionRun, null=True, on_delete="SET NULL", column_name="extraction_run_id"
    )
    payload = pw.BlobField()

    class Meta:
        table_name = "urge_event"


class IndexBucket(Record):
    """Schema 7: the search index's postings for the terms whose first three letters hash to
    this bucket (see vault/index.py)."""

    id = pw.IntegerField(primary_key=True)
    payload = pw.BlobField()

    class Meta:
        table_name = "index_bucket"


class IndexDelta(Record):
    """Schema 7: documents written since the buckets were last merged, one row per write."""

    id = pw.IntegerField(primary_key=True)
    payload = pw.BlobField()

    class Meta:
        table_name = "index_delta"


class IndexState(Record):
    """Schema 7: the index's format version, bucket key and document counts (one row)."""

    id = pw.IntegerField(primary_key=True)
    payload = pw.BlobField()

    class Meta:
        table_name = "index_state"


SEALED_TABLES: list[type[Record]] = [
    CheckIn,
    JournalEntry,
    ChatSession,
    ChatMessage,
    Profile,
    Fact,
    DailyMemory,
    SessionSummary,
    ExtractionRun,
    OutboundCall,
    Setting,
    Draft,
    FollowUp,
    UrgeEvent,
    IndexBucket,
    IndexDelta,
    IndexState,
]
ALL_TABLES: list[type[pw.Model]] = [HeaderRow, *SEALED_TABLES]
