"""The model gateway's promise: every request that leaves the machine is one line in the
ledger, with its outcome, whatever kind of call it was and however it ended. Real SDK and real
HTTP against the loopback fake; the local provider against the fake's OpenAI-compatible side."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from companion.activity import chat, journal
from companion.coach import service
from companion.llm import Gateway, ProviderConfig, configured, ledger
from companion.memory import extraction
from companion.vault import Vault
from tests.extraction_helpers import answer
from tests.fake_llm import Behaviour, FakeLLM, hang, status, text, tool

Call = Callable[[Vault, Gateway], Coroutine[Any, Any, Any]]


async def chat_call(vault: Vault, gateway: Gateway) -> Any:
    return await service.respond(vault, chat.start(vault).id, "hello", gateway=gateway)


async def greeting_call(vault: Vault, gateway: Gateway) -> Any:
    return await service.greet(vault, chat.start(vault).id, gateway=gateway)


async def extraction_call(vault: Vault, gateway: Gateway) -> Any:
    journal.add(vault, "A long walk after work helped with the cravings.")
    return await extraction.extract(vault, gateway)


KINDS: dict[str, tuple[str, Call, Callable[[], Behaviour]]] = {
    "chat": ("chat", chat_call, lambda: text("I'm here.")),
    "greeting": ("greeting", greeting_call, lambda: text("Welcome back.")),
    "extraction": ("extraction", extraction_call, lambda: tool(answer())),
}


def gateway_for(vault: Vault, fake: FakeLLM, provider: str, retries: int) -> Gateway:
    if provider == "local":
        config = ProviderConfig("local", "llama3.2", base_url=fake.url + "/v1", max_retries=retries)
        return Gateway(vault, config)
    found = configured(vault)
    assert found is not None
    config = found.config
    return Gateway(vault, ProviderConfig("anthropic", config.model, config.api_key, "", retries))


def lines(vault: Vault) -> list[tuple[str, str, str]]:
    """(purpose, status, error) of every ledger line, oldest first."""
    return [(c.purpose, c.status, c.error) for c in reversed(ledger.calls(vault))]


@pytest.mark.parametrize("provider", ["anthropic", "local"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_failure_retried_is_one_line_per_request(vault, fake_llm, kind, provider) -> None:
    """Two 429s then an answer: three requests, three lines, each with its own outcome."""
    purpose, call, ok = KINDS[kind]
    fake_llm.push(status(429), status(429), ok())
    asyncio.run(call(vault, gateway_for(vault, fake_llm, provider, retries=2)))
    assert len(fake_llm.requests) == 3
    assert lines(vault) == [
        (purpose, "error", "429"),
        (purpose, "error", "429"),
        (purpose, "ok", ""),
    ]


@pytest.mark.parametrize("provider", ["anthropic", "local"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_call_cut_short_is_one_line(vault, fake_llm, kind, provider) -> None:
    """Lock or quit mid-call: billed all the same, so it is in the ledger, once."""
    purpose, call, _ = KINDS[kind]
    fake_llm.push(hang())
    gateway = gateway_for(vault, fake_llm, provider, retries=2)

    async def cut_short() -> None:
        task = asyncio.create_task(call(vault, gateway))
        assert await asyncio.to_thread(fake_llm.received.wait, 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cut_short())
    assert lines(vault) == [(purpose, "error", ledger.CANCELLED)]


def test_a_refused_key_is_not_retried(vault, fake_llm) -> None:
    """401 will not get better by asking again: one request, one line, the message kept."""
    fake_llm.push(status(401), text("never sent"))
    session = chat.start(vault).id
    outcome = asyncio.run(
        service.respond(vault, session, "hi", gateway=gateway_for(vault, fake_llm, "anthropic", 2))
    )
    assert outcome.error is not None and outcome.error.kind == "401"
    assert len(fake_llm.requests) == 1 and lines(vault) == [("chat", "error", "401")]
    assert [m.content for m in chat.messages(vault, session)] == ["hi"]


def test_retries_give_up_and_say_why(vault, fake_llm) -> None:
    """Overloaded three times with two retries: the user sees 529, the ledger three lines."""
    fake_llm.push(status(529), status(529), status(529), text("too late"))
    session = chat.start(vault).id
    outcome = asyncio.run(
        service.respond(vault, session, "hi", gateway=gateway_for(vault, fake_llm, "anthropic", 2))
    )
    assert outcome.error is not None and "overloaded" in str(outcome.error)
    assert lines(vault) == [("chat", "error", "529")] * 3


def test_an_answer_of_the_wrong_form_is_one_line_marked_invalid(vault, fake_llm) -> None:
    """Extraction asks once more on an answer it cannot use; each ask is its own line."""
    fake_llm.push(tool({"nonsense": True}), tool(answer()))
    result = asyncio.run(extraction_call(vault, gateway_for(vault, fake_llm, "anthropic", 0)))
    assert result.error == ""
    assert lines(vault) == [("extraction", "error", "invalid output"), ("extraction", "ok", "")]


def test_the_sdk_never_retries_behind_the_ledger(vault, fake_llm) -> None:
    """With no retries allowed, a 529 is exactly one request: the SDK's own retries are off."""
    fake_llm.push(status(529), text("a hidden retry would get this"))
    session = chat.start(vault).id
    asyncio.run(
        service.respond(vault, session, "hi", gateway=gateway_for(vault, fake_llm, "anthropic", 0))
    )
    assert len(fake_llm.requests) == 1 and lines(vault) == [("chat", "error", "529")]


def test_a_local_server_url_with_a_typo_says_so_instead_of_waiting(vault) -> None:
    """A mistyped port must answer with a clear error (and a ledger line), not hang."""
    url = "http://localhost:11x434/v1"
    config = ProviderConfig("local", "llama3.2", base_url=url, max_retries=0, timeout=2)
    session = chat.start(vault).id
    outcome = asyncio.run(service.respond(vault, session, "hi", gateway=Gateway(vault, config)))
    assert outcome.error is not None and "Could not reach the local model server" in str(
        outcome.error
    )
    assert lines(vault) == [("chat", "error", "connection")]
