"""A loopback fake of the Anthropic Messages API (and of an OpenAI-compatible local server),
for the real SDK to talk to over real HTTP. Tests queue behaviours; the server records every
request it receives."""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Behaviour:
    kind: str  # text | tool | status | truncate | hang
    text: str = ""
    status: int = 200
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_name: str = "record_memory"
    input_tokens: int = 120
    output_tokens: int = 40
    gated: bool = False


def text(reply: str, **kw: Any) -> Behaviour:
    return Behaviour("text", reply, **kw)


def tool(payload: dict[str, Any], name: str = "record_memory", **kw: Any) -> Behaviour:
    return Behaviour("tool", tool_input=payload, tool_name=name, **kw)


def status(code: int, message: str = "error") -> Behaviour:
    return Behaviour("status", message, status=code)


def truncate(partial: str) -> Behaviour:
    return Behaviour("truncate", partial)


def hang() -> Behaviour:
    return Behaviour("hang")


def gated(behaviour: Behaviour) -> Behaviour:
    """Answer only once the test sets ``fake.gate``: the call is in flight until then."""
    behaviour.gated = True
    return behaviour


ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


class FakeLLM:
    def __init__(self) -> None:
        self.queue: deque[Behaviour] = deque()
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()
        self.received = threading.Event()
        self.gate = threading.Event()
        """Set when a request arrives (crash tests kill the client at that moment)."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(
                    {"path": self.path, "body": body, "headers": dict(self.headers)}
                )
                fake.received.set()
                behaviour = fake.queue.popleft() if fake.queue else text("Hello from the fake.")
                if behaviour.gated:
                    fake.gate.wait(30)
                if self.path.endswith("/chat/completions"):
                    fake.openai(self, body, behaviour)
                else:
                    fake.anthropic(self, body, behaviour)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> FakeLLM:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()

    def push(self, *behaviours: Behaviour) -> None:
        self.queue.extend(behaviours)

    # -- Anthropic Messages API ---------------------------------------------------------

    @staticmethod
    def send_json(handler: BaseHTTPRequestHandler, code: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(code)
        if code in (429, 529):
            handler.send_header("retry-after", "0")  # as the real API asks; no waiting in tests
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def anthropic(
        self, handler: BaseHTTPRequestHandler, body: dict[str, Any], b: Behaviour
    ) -> None:
        if b.kind == "hang":
            self.release.wait(30)
            return
        if b.kind == "status":
            self.send_json(
                handler,
                b.status,
                {
                    "type": "error",
                    "error": {"type": ERROR_TYPES.get(b.status, "api_error"), "message": b.text},
                },
            )
            return
        model = body.get("model", "fake")
        usage = {"input_tokens": b.input_tokens, "output_tokens": b.output_tokens}
        if b.kind == "tool":
            self.send_json(
                handler,
                200,
                {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_fake",
                            "name": b.tool_name,
                            "input": b.tool_input,
                        }
                    ],
                    "stop_reason": "tool_use",
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        if not body.get("stream"):
            self.send_json(
                handler,
                200,
                {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": b.text}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()

        def event(name: str, data: dict[str, Any]) -> None:
            handler.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            handler.wfile.flush()

        event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": b.input_tokens, "output_tokens": 1},
                },
            },
        )
        event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        )
        words = b.text.split(" ")
        for i, word in enumerate(words):
            piece = word if i == 0 else " " + word
            event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": piece},
                },
            )
        if b.kind == "truncate":
            handler.close_connection = True
            handler.wfile.flush()
            handler.connection.shutdown(2)
            return
        event("content_block_stop", {"type": "content_block_stop", "index": 0})
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": b.output_tokens},
            },
        )
        event("message_stop", {"type": "message_stop"})
        handler.close_connection = True

    # -- OpenAI-compatible chat completions ---------------------------------------------

    def openai(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], b: Behaviour) -> None:
        if b.kind == "status":
            self.send_json(handler, b.status, {"error": {"message": b.text}})
            return
        if b.kind == "hang":
            self.release.wait(30)
            return
        if b.kind == "tool":  # a local model answers structured output as JSON text
            b = Behaviour("text", json.dumps(b.tool_input))
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("connection", "close")
        handler.end_headers()
        for word in b.text.split(" "):
            chunk = {"choices": [{"index": 0, "delta": {"content": word + " "}}]}
            handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        usage = {
            "choices": [],
            "usage": {"prompt_tokens": b.input_tokens, "completion_tokens": b.output_tokens},
        }
        handler.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
        handler.wfile.flush()
        handler.close_connection = True
