"""The metered call: every request that leaves the machine goes through :class:`Gateway`, which
picks the provider the user configured, retries what is worth retrying, and writes exactly one
ledger line per request (failed, invalid and cancelled ones included)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from companion.errors import ModelError
from companion.llm import ledger, pricing
from companion.llm.claude import ClaudeProvider
from companion.llm.local import LocalProvider
from companion.llm.provider import OnText, Provider, Reply, Request, emit
from companion.llm.tokens import estimate
from companion.vault import Vault, settings

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


BACKOFF_S = 0.5
BACKOFF_CAP_S = 8.0
OFFLINE_HELP = (
    "The coach is offline: no provider is set up. Add an Anthropic API key in Settings (F10) "
    "or set ANTHROPIC_API_KEY, or choose a local model server in Settings."
)


@dataclass(frozen=True)
class ProviderConfig:
    kind: str  # a key of PROVIDERS
    model: str
    api_key: str = ""
    base_url: str = ""
    max_retries: int = 2
    timeout: float = 60.0


PROVIDERS: dict[str, Callable[[ProviderConfig], Provider]] = {
    "anthropic": lambda c: ClaudeProvider(c.model, c.api_key, c.timeout),
    "local": lambda c: LocalProvider(c.model, c.base_url, c.timeout),
}


def provider_config(vault: Vault, purpose: str = "chat") -> ProviderConfig | None:
    """What the user set up for ``purpose`` (chat, greeting or extraction); ``None`` = offline."""
    kind = str(settings.get(vault, "provider"))
    retries = int(os.environ.get("COMPANION_MAX_RETRIES", "2"))
    timeout = float(os.environ.get("COMPANION_TIMEOUT", "60"))
    if kind == "local":
        return ProviderConfig(
            "local",
            str(settings.get(vault, "local_model")),
            base_url=str(settings.get(vault, "local_base_url")),
            max_retries=retries,
            timeout=timeout,
        )
    if kind != "anthropic":
        return None
    key = os.environ.get("ANTHROPIC_API_KEY") or str(settings.get(vault, "anthropic_api_key"))
    if not key:
        return None
    model_key = "extraction_model" if purpose == "extraction" else "chat_model"
    model = str(settings.get(vault, model_key))
    return ProviderConfig("anthropic", model, api_key=key, max_retries=retries, timeout=timeout)


def configured(vault: Vault, purpose: str = "chat") -> Gateway | None:
    """The gateway for ``purpose``, or ``None`` when the coach is offline."""
    config = provider_config(vault, purpose)
    return Gateway(vault, config) if config is not None else None


def backoff(attempt: int) -> float:
    return float(min(BACKOFF_CAP_S, BACKOFF_S * 2**attempt))


class Gateway:
    def __init__(self, vault: Vault, config: ProviderConfig, sleep: Sleep = asyncio.sleep) -> None:
        self.vault = vault
        self.config = config
        self.provider = PROVIDERS[config.kind](config)
        self._sleep = sleep

    @property
    def model(self) -> str:
        return self.provider.model

    @property
    def budget(self) -> int:
        """Tokens of "What You Know" this model is given."""
        return self.provider.budget

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return pricing.cost(self.model, input_tokens, output_tokens, self.provider.local)

    async def call(self, purpose: str, request: Request, on_text: OnText | None = None) -> Reply:
        return await self.call_checked(purpose, request, lambda reply: reply, on_text)

    async def call_checked(
        self,
        purpose: str,
        request: Request,
        check: Callable[[Reply], T],
        on_text: OnText | None = None,
    ) -> T:
        """Send ``request``; ``check`` turns the reply into what the caller needs and raises
        ``ValueError`` when it cannot (the line then says "invalid output").

        A failure worth retrying (429, 529, 5xx, timeouts, a lost connection) is retried up to
        ``max_retries`` times, but only while nothing has streamed: text already on screen is
        never sent twice."""
        attempt = 0
        while True:
            try:
                reply = await self._send(purpose, request, on_text)
            except ModelError as err:
                self._record(purpose, err.input_tokens, err.output_tokens, err.kind)
                if not err.retryable or err.partial or attempt >= self.config.max_retries:
                    raise
                wait = backoff(attempt) if err.retry_after is None else err.retry_after
                await self._sleep(min(wait, BACKOFF_CAP_S))
                attempt += 1
                continue
            try:
                value = check(reply)
            except Exception:  # the reply came, but it cannot be used
                self._record(purpose, reply.input_tokens, reply.output_tokens, "invalid output")
                raise
            self._record(purpose, reply.input_tokens, reply.output_tokens)
            return value

    async def _send(self, purpose: str, request: Request, on_text: OnText | None) -> Reply:
        """One request; a failure carries what streamed before it, so it is never re-sent."""
        streamed: list[str] = []

        async def relay(piece: str) -> None:
            streamed.append(piece)
            await emit(on_text, piece)

        try:
            return await self.provider.send(request, relay)
        except asyncio.CancelledError:
            # Cut short by lock or quit: billed all the same, so estimate what was sent.
            made = estimate("".join(streamed))
            self._record(purpose, request.estimated_input(), made, ledger.CANCELLED)
            raise
        except ModelError as err:
            err.partial = err.partial or "".join(streamed)
            raise
        except Exception:  # a failure of ours or the provider's: the request still went out
            made = estimate("".join(streamed))
            self._record(purpose, request.estimated_input(), made, "failed")
            raise

    def _record(self, purpose: str, tokens_in: int, tokens_out: int, error: str = "") -> None:
        cost = self.cost(tokens_in, tokens_out)
        ledger.record(self.vault, purpose, self.model, tokens_in, tokens_out, cost, error=error)
