"""What a model provider offers the gateway: one request in, one reply out, text streamed as it
arrives. Providers neither retry nor write the ledger; the gateway does both, once, for all."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.llm.tokens import estimate

OnText = Callable[[str], Awaitable[None] | None]
Message = dict[str, str]
"""``{"role": "user" | "assistant", "content": ...}``, as the Messages API takes it."""


async def emit(on_text: OnText | None, text: str) -> None:
    """Hand a streamed piece on; ``on_text`` may be a plain function or a coroutine."""
    if on_text is not None:
        result = on_text(text)
        if asyncio.iscoroutine(result):
            await result


@dataclass(frozen=True)
class Request:
    system: str
    messages: list[Message]
    max_tokens: int
    tool: dict[str, Any] | None = None
    """A tool the model must call: structured output, returned in ``Reply.tool_input``."""

    def estimated_input(self) -> int:
        """What the request costs in tokens, for a call that ended before the provider said."""
        sent = self.system + "".join(m["content"] for m in self.messages)
        if self.tool is not None:
            sent += json.dumps(self.tool)
        return estimate(sent)


@dataclass
class Reply:
    text: str
    input_tokens: int
    output_tokens: int
    tool_input: Any = field(default=None)


class Provider(Protocol):
    """One way to reach a model. ``budget`` is the memory section's size for that model;
    ``local`` providers run on the user's machine and cost nothing."""

    model: str
    budget: int
    local: bool

    async def send(self, request: Request, on_text: OnText | None) -> Reply:
        """Make one request; raise :class:`companion.errors.ModelError` when it fails."""
        ...
