"""A local OpenAI-compatible model server (Ollama, llama.cpp, LM Studio) over plain HTTP,
streamed: ``/chat/completions`` with ``stream: true``, read in a thread so the event loop and
the screen never wait on the socket. Nothing leaves the machine, so it costs nothing."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import threading
from typing import Any
from urllib.parse import urlsplit

from companion.errors import ModelError
from companion.llm.provider import Message, OnText, Reply, Request, emit
from companion.llm.tokens import LOCAL_BUDGET, estimate

TOOL_INSTRUCTION = "\n\nAnswer with only one JSON object that matches this JSON schema:\n{schema}"


def _parse_json(text: str) -> Any:
    """The model's answer as JSON, fences removed; ``None`` when it is not JSON at all."""
    cleaned = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        return json.loads(cleaned.strip())
    except ValueError:
        return None


class LocalProvider:
    local = True
    budget = LOCAL_BUDGET

    def __init__(self, model: str, base_url: str, timeout: float) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = timeout

    async def send(self, request: Request, on_text: OnText | None) -> Reply:
        system = request.system
        if request.tool is not None:
            # No forced tool calls on these servers: ask for the tool's input as JSON instead.
            schema = json.dumps(request.tool["input_schema"])
            system += TOOL_INSTRUCTION.format(schema=schema)
            reply = await self._stream(system, request.messages, None)
            reply.tool_input = _parse_json(reply.text)
            return reply
        return await self._stream(system, request.messages, on_text)

    async def _stream(self, system: str, messages: list[Message], on_text: OnText | None) -> Reply:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        body = json.dumps(
            {
                "model": self.model,
                "stream": True,
                "messages": [{"role": "system", "content": system}, *messages],
            }
        )

        def put(kind: str, value: Any) -> None:
            # The caller may have gone (cancelled by lock or quit, its loop closed): drop it.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

        def run() -> None:
            conn: http.client.HTTPConnection | None = None
            try:
                url = urlsplit(self.base_url.rstrip("/") + "/chat/completions")
                cls = (
                    http.client.HTTPSConnection
                    if url.scheme == "https"
                    else http.client.HTTPConnection
                )
                conn = cls(url.hostname or "localhost", url.port, timeout=self.timeout)
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
                    for choice in chunk.get("choices") or []:
                        text = (choice.get("delta") or {}).get("content")
                        if text:
                            put("text", text)
                put("error", ("stream", None))
            except (OSError, ValueError, http.client.HTTPException) as exc:
                put("error", ("timeout" if isinstance(exc, TimeoutError) else "connection", None))
            except Exception:  # an answer of another shape: never leave the caller waiting
                put("error", ("stream", None))
            finally:
                if conn is not None:
                    conn.close()

        threading.Thread(target=run, daemon=True, name="local-model").start()
        sent = estimate(system + "".join(m["content"] for m in messages))
        parts: list[str] = []
        usage: dict[str, int] = {}
        while True:
            kind, value = await queue.get()
            if kind == "text":
                parts.append(value)
                await emit(on_text, value)
            elif kind == "usage":
                usage = value
            elif kind == "done":
                break
            else:
                reason, status = value
                raise self._failure(reason, status, "".join(parts), sent)
        text = "".join(parts)
        return Reply(
            text,
            int(usage.get("prompt_tokens") or sent),
            int(usage.get("completion_tokens") or estimate(text)),
        )

    def _failure(self, reason: str, status: int | None, partial: str, sent: int) -> ModelError:
        message = {
            "status": f"The local model server answered {status}. Check its URL and model "
            "name in Settings.",
            "timeout": "The local model server did not answer in time.",
            "connection": f"Could not reach the local model server at {self.base_url}. "
            "Is it running?",
            "stream": "The reply stopped half-way. What arrived is kept; you can retry.",
        }[reason]
        retryable = reason in ("timeout", "connection") or (
            status is not None and (status in (408, 429) or status >= 500)
        )
        return ModelError(
            message,
            str(status or reason),
            partial,
            sent,
            estimate(partial),
            retryable=retryable,
        )
