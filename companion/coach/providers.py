"""Talking to a model: Anthropic through the official SDK, or a local OpenAI-compatible server
(Ollama, llama.cpp, LM Studio) over plain HTTP.

The SDK takes about a second to import, so it is imported inside the call, never at start-up.
Transport retries are the SDK's own (``max_retries``); errors come back as a ``CoachError``
whose message says what happened and what to do, with any half-streamed text kept.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from companion import settings
from companion.coach.context import CLAUDE_BUDGET, LOCAL_BUDGET
from companion.errors import CompanionError
from companion.vault import Vault

OnText = Callable[[str], Awaitable[None] | None]
CHAT_MAX_TOKENS = 1024


@dataclass(frozen=True)
class ProviderConfig:
    kind: str  # anthropic | local
    model: str
    api_key: str = ""
    base_url: str = ""
    max_retries: int = 2
    timeout: float = 60.0

    @property
    def budget(self) -> int:
        return LOCAL_BUDGET if self.kind == "local" else CLAUDE_BUDGET

    @property
    def local(self) -> bool:
        return self.kind == "local"


@dataclass
class Reply:
    text: str
    input_tokens: int
    output_tokens: int
    model: str


class CoachError(CompanionError):
    """A call failed; ``partial`` holds what had streamed before it did."""

    def __init__(
        self,
        message: str,
        kind: str,
        partial: str = "",
        input_tokens: int = 0,
        output_tokens: int = 0,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.partial = partial
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens


OFFLINE_HELP = (
    "The coach is offline: no provider is set up. Add an Anthropic API key in Settings (F10) "
    "or set ANTHROPIC_API_KEY, or choose a local model server in Settings."
)


def configured(vault: Vault, purpose: str = "chat") -> ProviderConfig | None:
    """The provider to use, or ``None`` when the coach is offline."""
    kind = settings.get(vault, "provider")
    retries = int(os.environ.get("COMPANION_MAX_RETRIES", "2"))
    timeout = float(os.environ.get("COMPANION_TIMEOUT", "60"))
    if kind == "local":
        return ProviderConfig(
            "local",
            settings.get(vault, "local_model"),
            base_url=settings.get(vault, "local_base_url"),
            max_retries=retries,
            timeout=timeout,
        )
    if kind != "anthropic":
        return None
    key = os.environ.get("ANTHROPIC_API_KEY") or settings.get(vault, "anthropic_api_key")
    if not key:
        return None
    model = settings.get(vault, "extraction_model" if purpose == "extraction" else "chat_model")
    return ProviderConfig("anthropic", model, api_key=key, max_retries=retries, timeout=timeout)


async def _emit(on_text: OnText | None, text: str) -> None:
    if on_text is not None:
        result = on_text(text)
        if asyncio.iscoroutine(result):
            await result


def describe(exc: BaseException) -> tuple[str, str]:
    """(kind, message) for an SDK exception: what happened and what to do next."""
    import anthropic

    status = getattr(exc, "status_code", None)
    if isinstance(exc, anthropic.AuthenticationError):
        return "401", "The API key was refused (401). Check it in Settings (F10)."
    if isinstance(exc, anthropic.PermissionDeniedError):
        return "403", "The API key may not use this model (403). Check the model in Settings."
    if isinstance(exc, anthropic.NotFoundError):
        return "404", "That model was not found (404). Check the model name in Settings."
    if isinstance(exc, anthropic.RateLimitError):
        return "429", "Too many requests right now (429). Wait a minute, then retry."
    if isinstance(exc, anthropic.APIStatusError) and status == 529:
        return "529", "Anthropic is overloaded at the moment (529). Retry in a little while."
    if isinstance(exc, anthropic.InternalServerError):
        return str(status or 500), f"The service had an error ({status}). Retry in a moment."
    if isinstance(exc, anthropic.APITimeoutError):
        return "timeout", "No answer in time. Check your connection, then retry."
    if isinstance(exc, anthropic.APIConnectionError):
        return "connection", "Could not reach the service. Check your connection, then retry."
    if isinstance(exc, anthropic.APIStatusError):
        return str(status), f"The service refused the request ({status})."
    return "stream", "The reply stopped half-way. What arrived is kept; you can retry."


async def stream_anthropic(
    config: ProviderConfig, system: str, messages: list[dict[str, str]], on_text: OnText | None
) -> Reply:
    import anthropic

    client = anthropic.AsyncAnthropic(
        api_key=config.api_key, max_retries=config.max_retries, timeout=config.timeout
    )
    parts: list[str] = []
    usage = {"in": 0, "out": 0}
    try:
        async with client.messages.stream(
            model=config.model, max_tokens=CHAT_MAX_TOKENS, system=system, messages=messages
        ) as stream:
            async for event in stream:
                if event.type == "message_start":
                    usage["in"] = event.message.usage.input_tokens
                elif event.type == "text":
                    parts.append(event.text)
                    await _emit(on_text, event.text)
                elif event.type == "message_delta":
                    usage["out"] = event.usage.output_tokens
            final = await stream.get_final_message()
            if final.stop_reason is None:  # the connection closed before message_stop
                raise CoachError(
                    *reversed(describe(EOFError())), "".join(parts), usage["in"], usage["out"]
                )
            return Reply(
                "".join(parts), final.usage.input_tokens, final.usage.output_tokens, config.model
            )
    except CoachError:
        raise
    except Exception as exc:  # every failure keeps what streamed
        kind, message = describe(exc)
        raise CoachError(message, kind, "".join(parts), usage["in"], usage["out"]) from None
    finally:
        await client.close()


async def stream_local(
    config: ProviderConfig, system: str, messages: list[dict[str, str]], on_text: OnText | None
) -> Reply:
    """OpenAI-compatible ``/chat/completions`` with ``stream: true``, read in a thread."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    body = json.dumps(
        {
            "model": config.model,
            "stream": True,
            "messages": [{"role": "system", "content": system}, *messages],
        }
    )

    def put(kind: str, value: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

    def run() -> None:
        url = urlsplit(config.base_url.rstrip("/") + "/chat/completions")
        cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        try:
            conn = cls(url.hostname or "localhost", url.port, timeout=config.timeout)
            conn.request("POST", url.path, body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            if response.status != 200:
                put("error", ("status", response.status))
                return
            for raw in response:
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    put("done", None)
                    return
                chunk = json.loads(data)
                if chunk.get("usage"):
                    put("usage", chunk["usage"])
                for choice in chunk.get("choices", []):
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        put("text", text)
            put("error", ("stream", None))
        except (OSError, ValueError, http.client.HTTPException) as exc:
            put("error", ("timeout" if isinstance(exc, TimeoutError) else "connection", None))

    threading.Thread(target=run, daemon=True, name="local-model").start()
    parts: list[str] = []
    usage: dict[str, int] = {}
    while True:
        kind, value = await queue.get()
        if kind == "text":
            parts.append(value)
            await _emit(on_text, value)
        elif kind == "usage":
            usage = value
        elif kind == "done":
            break
        else:
            reason, status = value
            estimate = sum(len(m["content"]) for m in messages) // 4 + len(system) // 4
            message = {
                "status": f"The local model server answered {status}. Check its URL and model "
                "name in Settings.",
                "timeout": "The local model server did not answer in time.",
                "connection": f"Could not reach the local model server at {config.base_url}. "
                "Is it running?",
                "stream": "The reply stopped half-way. What arrived is kept; you can retry.",
            }[reason]
            raise CoachError(
                message, str(status or reason), "".join(parts), estimate, len("".join(parts)) // 4
            )
    text = "".join(parts)
    return Reply(
        text,
        int(
            usage.get(
                "prompt_tokens", (len(system) + sum(len(m["content"]) for m in messages)) // 4
            )
        ),
        int(usage.get("completion_tokens", len(text) // 4)),
        config.model,
    )


async def stream_reply(
    config: ProviderConfig,
    system: str,
    messages: list[dict[str, str]],
    on_text: OnText | None = None,
) -> Reply:
    if config.local:
        return await stream_local(config, system, messages, on_text)
    return await stream_anthropic(config, system, messages, on_text)
