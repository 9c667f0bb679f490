"""Recall: "what did we talk about yesterday?", "do you remember when...". Searches daily
memories, session summaries, facts and raw activity, and returns dated matches (absolute
dates, so the coach never guesses what "yesterday" meant)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from companion import clock
from companion.activity import chat, checkins, journal
from companion.memory import store
from companion.vault import Vault

RECALL = re.compile(
    r"\b(do you remember|remember when|remember what|what did (we|i)|what have (we|i)|"
    r"did (we|i) (talk|discuss|chat|say|write|mention)|last time (we|i)|"
    r"(talk|talked|discuss|discussed|chat|chatted) about|when did i|what was i)\b",
    re.IGNORECASE,
)
STOP = set(
    "about after again also always because been before being could didn does doing from have "
    "having just like last know more much really remember said should still than that their "
    "them then there these they thing things this those time today tomorrow what when where "
    "which while with would yesterday week month your you we talk talked discuss discussed "
    "chat chatted did do".split()
)
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


@dataclass(frozen=True)
class Memory:
    day: date
    kind: str  # daily memory | session | journal | check-in | chat
    text: str

    def line(self) -> str:
        return f"[{self.day.isoformat()}] {self.kind}: {self.text}"


def is_recall_question(text: str) -> bool:
    return bool(RECALL.search(text))


def keywords(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z']{4,}", text.lower()) if w not in STOP}


def window(text: str, today: date) -> tuple[date, date] | None:
    """The dates a question points at, if it names them."""
    lowered = text.lower()
    if "yesterday" in lowered:
        day = today - timedelta(days=1)
        return day, day
    if "today" in lowered or "this morning" in lowered:
        return today, today
    if "last week" in lowered:
        return today - timedelta(days=7), today
    if "last month" in lowered:
        return today - timedelta(days=31), today
    for index, name in enumerate(WEEKDAYS):
        if re.search(rf"\b(on |last )?{name}\b", lowered):
            back = (today.weekday() - index) % 7 or 7
            day = today - timedelta(days=back)
            return day, day
    return None


def _score(text: str, words: set[str]) -> int:
    lowered = text.lower()
    return sum(1 for w in words if w in lowered)


def recall(
    vault: Vault, question: str, limit: int = 8, current_session: int | None = None
) -> list[Memory]:
    """Dated memories that match the question (by date window, else by shared words).

    The current session is left out: the model already has it as conversation history.
    """
    today = clock.today()
    span = window(question, today)
    words = keywords(question)
    first, last = span if span else (today - timedelta(days=365), today)
    found: list[tuple[int, Memory]] = []

    def consider(day: date, kind: str, text: str) -> None:
        if not text or not first <= day <= last:
            return
        score = _score(text, words)
        if score or (span and not words):
            found.append((score, Memory(day, kind, " ".join(text.split())[:240])))

    for info, data in store.daily_memories(vault, first):
        text = " ".join(
            str(data.get(k) or "")
            for k in (
                "conversation_summary",
                "journal_summary",
                "checkin_summary",
                "emotional_state",
            )
        )
        consider(date.fromisoformat(info.covering_to), "daily memory", text)
    for summary in store.session_summaries(vault, newest_first=False):
        text = str(summary.content.get("summary_text", ""))
        consider(summary.updated_at.date(), "session", text)
    since = clock.now().replace(
        year=first.year, month=first.month, day=first.day, hour=0, minute=0, second=0, microsecond=0
    )
    for entry in journal.written_since(vault, since):
        day = date.fromisoformat(entry.local_date)
        consider(day, "journal", f"{entry.title} {entry.text}".strip())
    for _id, day, note in checkins.notes(vault, first):
        consider(day, "check-in note", note)
    for message in chat.said_since(vault, since, leave_out=current_session):
        consider(message.created_at.date(), "you said in chat", message.content)
    found.sort(key=lambda item: (-item[0], -item[1].day.toordinal(), item[1].kind))
    return [memory for _, memory in found[:limit]]
