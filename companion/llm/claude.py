"""Anthropic's models through the official SDK, streamed. The SDK takes about a second to
import, so it loads inside the first call (the app preloads it in a thread after unlock).

The SDK's own retries are off: the gateway retries, so every request is one ledger line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.errors import ModelError
from companion.llm.provider import OnText, Reply, Request, emit
from companion.llm.tokens import CLAUDE_BUDGET

if TYPE_CHECKING:
    import anthropic


def preload() -> None:
    """Import the SDK now (about a second), in a thread, so the first message does not wait."""
    import anthropic  # noqa: F401


RETRYABLE = {"408", "409", "429", "timeout", "connection"}
"""Failures worth asking again for (with every 5xx, the service's own trouble)."""


def _retry_after(exc: BaseException) -> float | None:
    """Seconds the service asked us to wait, from ``retry-after-ms`` or ``retry-after``."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / scale)
        except ValueError:
            continue
    return None


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


def failure(
    exc: BaseException, partial: str = "", tokens_in: int = 0, tokens_out: int = 0
) -> ModelError:
    kind, message = describe(exc)
    return ModelError(
        message,
        kind,
        partial,
        tokens_in,
        tokens_out,
        retryable=kind in RETRYABLE or (kind.isdigit() and int(kind) >= 500),
        retry_after=_retry_after(exc),
    )


class ClaudeProvider:
    local = False
    budget = CLAUDE_BUDGET

    def __init__(self, model: str, api_key: str, timeout: float) -> None:
        self.model = model
        self.api_key = api_key
        self.timeout = timeout

    def _client(self) -> anthropic.AsyncAnthropic:
        import anthropic

        # A client per request: the CLI and the app run calls on different event loops.
        return anthropic.AsyncAnthropic(api_key=self.api_key, max_retries=0, timeout=self.timeout)

    async def send(self, request: Request, on_text: OnText | None) -> Reply:
        if request.tool is not None:
            return await self._tool_call(request)
        return await self._stream(request, on_text)

    async def _tool_call(self, request: Request) -> Reply:
        tool: Any = request.tool
        client = self._client()
        try:
            message = await client.messages.create(  # type: ignore[call-overload]  # plain dicts are the wire form the SDK's TypedDicts describe
                model=self.model,
                max_tokens=request.max_tokens,
                system=request.system,
                tools=[tool],
                tool_choice={"type": "tool", "name": tool["name"]},
                messages=request.messages,
            )
        except Exception as exc:
            raise failure(exc) from None
        finally:
            await client.close()
        answer = next((b.input for b in message.content if b.type == "tool_use"), None)
        return Reply("", message.usage.input_tokens, message.usage.output_tokens, answer)

    async def _stream(self, request: Request, on_text: OnText | None) -> Reply:
        client = self._client()
        parts: list[str] = []
        usage = {"in": 0, "out": 0}
        try:
            async with client.messages.stream(
                model=self.model,
                max_tokens=request.max_tokens,
                system=request.system,
                messages=request.messages,  # type: ignore[arg-type]  # plain dicts are the wire form
            ) as stream:
                async for event in stream:
                    if event.type == "message_start":
                        usage["in"] = event.message.usage.input_tokens
                    elif event.type == "text":
                        parts.append(event.text)
                        await emit(on_text, event.text)
                    elif event.type == "message_delta":
                        usage["out"] = event.usage.output_tokens
                final = await stream.get_final_message()
                if final.stop_reason is None:  # the connection closed before message_stop
                    raise failure(EOFError(), "".join(parts), usage["in"], usage["out"])
                return Reply("".join(parts), final.usage.input_tokens, final.usage.output_tokens)
        except ModelError:
            raise
        except Exception as exc:  # every failure keeps what streamed
            raise failure(exc, "".join(parts), usage["in"], usage["out"]) from None
        finally:
            await client.close()
