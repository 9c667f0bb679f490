"""One turn of the conversation, as the TUI and the CLI both run it: save the user's words,
capture durable preferences, build the prompt, stream the reply through the model gateway, and
keep every outcome (replies, half-replies, failures)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import timedelta

from companion import clock
from companion.activity import chat, profile
from companion.coach import capture, prompt, safety
from companion.errors import ModelError
from companion.llm import Gateway, OnText, Request, configured
from companion.llm.provider import emit
from companion.memory import followups, forgetting, pending, store, summaries
from companion.vault import Vault

HISTORY_LIMIT = 24
CHAT_MAX_TOKENS = 1024
IDLE_CLOSE = timedelta(minutes=30)
GREETING_REQUEST = (
    "(I just opened a new chat. Greet me in one or two sentences, using what you know about "
    "me, and ask one gentle question.)"
)


@dataclass
class Outcome:
    reply: str = ""
    error: ModelError | None = None
    crisis: bool = False
    danger: safety.Danger | None = None
    captured: list[str] = field(default_factory=list)
    to_confirm: list[str] = field(default_factory=list)  # waiting in the memory panel
    offline: bool = False


def evidence(kind: str, record_id: int) -> str:
    return f"{kind}:{record_id}"


def capture_from(vault: Vault, message: chat.Message) -> list[str]:
    """Facts from preference phrases, at once and with no model ("you said"). A sobriety date
    said in chat waits for the user, like one extraction finds (memory/pending.py)."""
    found = capture.detect(message.content, clock.today())
    if not found:
        return []
    source = evidence("chat_message", message.id)
    proposals = [p for p in found if isinstance(p, capture.Proposal)]
    if proposals:  # not when the profile says it already (propose asks a change once)
        current = profile.load(vault)
        pending.propose(
            vault,
            [
                {"field": p.field, "value": p.value, "evidence": [source]}
                for p in proposals
                if current.get(p.field) != p.value
            ],
        )
    facts = [f for f in found if isinstance(f, capture.Capture)]
    if not facts:
        return []
    existing = {f.text.lower() for f in store.live_facts(vault)}
    saved = []
    for item in facts:
        if item.text.lower() in existing or forgetting.is_forgotten(vault, item.text):
            continue
        store.add_fact(vault, item.text, item.category, "semantic", "said", [source])
        if item.category == "reminders":  # the task in the user's words and capitals
            task = item.said or item.text.removeprefix("Asked to be reminded to ")
            followups.add(vault, task[:1].upper() + task[1:], evidence=[source])
        saved.append(item.text)
    return saved


def history(vault: Vault, session_id: int) -> list[dict[str, str]]:
    """The session as the Messages API wants it: alternating roles, a user turn first,
    incomplete replies left out (a retry replaces them)."""
    turns: list[dict[str, str]] = []
    for m in chat.messages(vault, session_id)[-HISTORY_LIMIT:]:
        if m.incomplete or not m.content.strip():
            continue
        if turns and turns[-1]["role"] == m.role:
            turns[-1]["content"] += "\n\n" + m.content
        else:
            turns.append({"role": m.role, "content": m.content})
    if turns and turns[0]["role"] == "assistant":
        turns.insert(0, {"role": "user", "content": "(I opened a new chat.)"})
    return turns


async def respond(
    vault: Vault,
    session_id: int,
    text: str,
    on_text: OnText | None = None,
    gateway: Gateway | None = None,
    crisis_lines: str = "",
    save_user: bool = True,
) -> Outcome:
    """``gateway``: the model to ask (default: the one configured; none means offline)."""
    session = chat.get_session(vault, session_id)
    danger = safety.assess(text)
    outcome = Outcome(crisis=danger is not None, danger=danger)
    if save_user:
        message = chat.add_message(vault, session_id, "user", text)
        # Words heard as danger are not mined for "you said" facts: "i'd prefer to be dead"
        # is no preference to keep (the daily memory reads the message later, as a whole).
        if not session.off_record and danger is None:
            waiting = len(pending.waiting(vault))
            outcome.captured = capture_from(vault, message)
            outcome.to_confirm = [c.label for c in pending.waiting(vault)[waiting:]]
    gateway = gateway or configured(vault)
    if gateway is None:
        outcome.offline = True
        return outcome
    system, _ = prompt.build(vault, text, gateway.budget, session_id, crisis_lines, danger)
    return await _call(
        vault, session_id, gateway, system, history(vault, session_id), on_text, "chat", outcome
    )


async def greet(
    vault: Vault,
    session_id: int,
    on_text: OnText | None = None,
    gateway: Gateway | None = None,
) -> Outcome:
    """A new session's first words, which use the memory section too."""
    gateway = gateway or configured(vault)
    if gateway is None:
        return Outcome(offline=True)
    system, _ = prompt.build(vault, "", gateway.budget, session_id)
    turns = [{"role": "user", "content": GREETING_REQUEST}]
    return await _call(vault, session_id, gateway, system, turns, on_text, "greeting", Outcome())


async def _call(
    vault: Vault,
    session_id: int,
    gateway: Gateway,
    system: str,
    turns: list[dict[str, str]],
    on_text: OnText | None,
    purpose: str,
    outcome: Outcome,
) -> Outcome:
    """Ask the model; whatever happens, the words that arrived are kept in the session."""
    streamed: list[str] = []

    async def relay(piece: str) -> None:
        streamed.append(piece)
        await emit(on_text, piece)

    try:
        reply = await gateway.call(purpose, Request(system, turns, CHAT_MAX_TOKENS), relay)
    except asyncio.CancelledError:  # the app locked or quit mid-reply
        partial = "".join(streamed)
        if partial.strip():
            chat.add_message(vault, session_id, "assistant", partial, incomplete=True)
        raise
    except ModelError as err:
        if err.partial.strip():
            chat.add_message(vault, session_id, "assistant", err.partial, incomplete=True)
        outcome.reply, outcome.error = err.partial, err
        return outcome
    chat.add_message(vault, session_id, "assistant", reply.text)
    outcome.reply = reply.text
    return outcome


def resumable_session(vault: Vault) -> int | None:
    """The newest open session if it moved in the last half hour; an idle one is closed."""
    recent = chat.newest_session(vault)
    if recent is None or recent.ended_at is not None:
        return None
    if clock.now() - chat.last_activity(recent) > IDLE_CLOSE:
        close_session(vault, recent.id)
        return None
    return recent.id


def close_session(vault: Vault, session_id: int) -> None:
    """End a session; without a model, sum up its last exchange in a sentence or two
    (conversation tier, 7 days; the daily extraction's fuller summary replaces it).

    A session closed long after it went quiet (found idle, or closed by a late lock) ends at
    its last message: the end time says when the conversation stopped, not when we looked."""
    session = chat.get_session(vault, session_id)
    if session.ended_at is None:
        last = chat.last_activity(session)
        chat.end(vault, session_id, last if clock.now() - last > IDLE_CLOSE else None)
    if session.off_record or summaries.has_summary(session_id):
        return
    messages = chat.messages(vault, session_id)
    last_user = next((m for m in reversed(messages) if m.role == "user"), None)
    if last_user is None:
        return
    last_reply = next((m for m in reversed(messages) if m.role == "assistant"), None)
    said = _clip(last_user.content, 140)
    text = f'{last_user.created_at:%Y-%m-%d}: you said "{said}"'
    if last_reply is not None:
        text += f'; the coach answered "{_clip(_first_sentence(last_reply.content), 140)}"'
    summaries.put_session_summary(
        vault, session_id, {"summary_text": text + ".", "offline": True}, tier="conversation"
    )


def _clip(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _first_sentence(text: str) -> str:
    for end in (". ", "! ", "? ", "\n"):
        if end in text:
            return text.split(end, 1)[0] + end.strip()
    return text
