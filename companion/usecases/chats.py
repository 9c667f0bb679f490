"""Which chat session a message goes to, one rule for the app and the command line: a session
is open until a new one starts, it is closed, or it sits idle for 30 minutes."""

from __future__ import annotations

from companion.activity import chat
from companion.coach import service
from companion.errors import InvalidInput
from companion.memory import store
from companion.vault import Vault


def resumable(vault: Vault) -> int | None:
    """The newest session if it is open and moved in the last half hour (an idle one closes)."""
    return service.resumable_session(vault)


def start_new(vault: Vault, off_record: bool = False, title: str = "") -> int:
    """A new session; the open one, if any, is closed first."""
    recent = chat.newest_session(vault)
    if recent is not None and recent.ended_at is None:
        service.close_session(vault, recent.id)
    return chat.start(vault, title, off_record=off_record).id


def session_for_message(
    vault: Vault,
    wanted: int | None = None,
    *,
    new: bool = False,
    off_record: bool = False,
    title: str = "",
    strict: bool = False,
) -> int:
    """The session a message goes to.

    ``strict``: the user named ``wanted`` (``--session``): it gets the message unless it has
    ended. Otherwise ``wanted`` is the one on screen: it gets the message while it is the open
    one, else a new session starts. With no ``wanted``, the open session gets it unless
    ``new`` or ``off_record`` asks for a new one."""
    if wanted is not None and strict:
        named = chat.get_session(vault, wanted)
        if named.ended_at is not None:
            raise InvalidInput(f"chat session {wanted} has ended; start a new one.")
        return named.id
    if wanted is not None and not new:
        if resumable(vault) == wanted:
            return wanted
    elif not new and not off_record:
        open_now = resumable(vault)
        if open_now is not None:
            return open_now
    return start_new(vault, off_record, title)


def delete(vault: Vault, session_id: int) -> list[store.FactView]:
    """Delete a session and its messages; returns what was learned from them, to offer
    forgetting."""
    refs = {f"chat_message:{m.id}" for m in chat.messages(vault, session_id)}
    chat.delete(vault, session_id)
    return store.facts_citing(vault, refs)
