"""Local fakes of three model APIs for `bench/peers.py` (stdlib only, 127.0.0.1 only).

Each fake answers at once with a short text and records every request it sees (method,
path, parsed JSON body) so the bench can report what an agent sent:

- `ChatFake`: OpenAI chat completions (`POST /v1/chat/completions`, streamed or not), for
  codebot's real provider path (`--model openai/x --api-base URL/v1`);
- `ResponsesFake`: the OpenAI Responses API (`POST /v1/responses`, SSE), for Codex's
  custom provider with `wire_api = "responses"`;
- `MessagesFake`: the Anthropic Messages API (`POST /v1/messages`, SSE or JSON, and
  `HEAD /`), for Claude Code through `ANTHROPIC_BASE_URL`.

Any other route gets a 404 (recorded). Each fake also acts as the agents' HTTP(S) proxy:
a `CONNECT host:port` or an absolute-URL request is recorded as an attempt to reach the
outside and refused with 403, so the bench sees (and blocks) traffic meant for the network.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "Hello! How can I help you today?"


class Fake:
    """A server on 127.0.0.1 (port chosen by the OS) recording `(method, path, body)`."""

    name = "fake"

    def __init__(self, reply: str = REPLY) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> Fake:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def take(self) -> list[dict[str, Any]]:
        """The requests recorded since the last call (and forget them)."""
        with self._lock:
            out, self.requests = self.requests, []
        return out

    def record(self, method: str, path: str, body: Any) -> None:
        with self._lock:
            self.requests.append({"method": method, "path": path, "body": body})

    # -- overridden per API ---------------------------------------------------------
    def answer(self, handler: _Handler, path: str, body: Any) -> bool:
        """Write the response for a POST to `path`; False when the route is unknown."""
        return False


class ChatFake(Fake):
    name = "openai-chat"

    def answer(self, handler: _Handler, path: str, body: Any) -> bool:
        if path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            return False
        model = body.get("model", "x") if isinstance(body, dict) else "x"
        usage = {"prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18}
        if not (isinstance(body, dict) and body.get("stream")):
            message = {"role": "assistant", "content": self.reply}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            handler.json(200, _chat(model, choices=[choice], usage=usage))
            return True

        def delta(d: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": d, "finish_reason": finish}
            return _chat(model, object="chat.completion.chunk", choices=[choice])

        events: list[Any] = [
            delta({"role": "assistant", "content": ""}),
            delta({"content": self.reply}),
            delta({}, "stop"),
        ]
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(_chat(model, object="chat.completion.chunk", choices=[], usage=usage))
        handler.sse([(None, e) for e in events] + [(None, "[DONE]")])
        return True


class ResponsesFake(Fake):
    name = "openai-responses"

    def answer(self, handler: _Handler, path: str, body: Any) -> bool:
        if path.rstrip("/") not in ("/v1/responses", "/responses"):
            return False
        model = body.get("model", "x") if isinstance(body, dict) else "x"
        rid, mid = "resp_bench", "msg_bench"
        text = {"type": "output_text", "text": self.reply, "annotations": []}
        item = {"type": "message", "id": mid, "role": "assistant", "status": "completed"}
        base = {"id": rid, "object": "response", "model": model, "created_at": int(time.time())}
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 8,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 18,
        }
        events = [
            ("response.created", {"response": base | {"status": "in_progress", "output": []}}),
            ("response.output_item.added", {"output_index": 0, "item": item | {"content": []}}),
            (
                "response.content_part.added",
                {
                    "item_id": mid,
                    "output_index": 0,
                    "content_index": 0,
                    "part": text | {"text": ""},
                },
            ),
            (
                "response.output_text.delta",
                {"item_id": mid, "output_index": 0, "content_index": 0, "delta": self.reply},
            ),
            (
                "response.output_text.done",
                {"item_id": mid, "output_index": 0, "content_index": 0, "text": self.reply},
            ),
            ("response.output_item.done", {"output_index": 0, "item": item | {"content": [text]}}),
            (
                "response.completed",
                {"response": base | {"status": "completed", "output": [], "usage": usage}},
            ),
        ]
        handler.sse(
            [
                (kind, {"type": kind, "sequence_number": n} | data)
                for n, (kind, data) in enumerate(events)
            ]
        )
        return True


class MessagesFake(Fake):
    name = "anthropic-messages"

    def answer(self, handler: _Handler, path: str, body: Any) -> bool:
        route = path.split("?", 1)[0].rstrip("/")
        if route == "/v1/messages/count_tokens":
            handler.json(200, {"input_tokens": 10})
            return True
        if route != "/v1/messages":
            return False
        model = body.get("model", "x") if isinstance(body, dict) else "x"
        usage = {"input_tokens": 10, "output_tokens": 8}
        message = {
            "id": "msg_bench",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        if not (isinstance(body, dict) and body.get("stream")):
            text = [{"type": "text", "text": self.reply}]
            handler.json(200, message | {"content": text, "stop_reason": "end_turn"})
            return True
        events = [
            ("message_start", {"message": message}),
            (
                "content_block_start",
                {"index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {"index": 0, "delta": {"type": "text_delta", "text": self.reply}},
            ),
            ("content_block_stop", {"index": 0}),
            (
                "message_delta",
                {"delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": usage},
            ),
            ("message_stop", {}),
        ]
        handler.sse([(kind, {"type": kind} | data) for kind, data in events])
        return True


def _chat(model: str, object: str = "chat.completion", **rest: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-bench",
        "object": object,
        "created": int(time.time()),
        "model": model,
    } | rest


def _handler_for(fake: Fake) -> type[_Handler]:
    class Handler(_Handler):
        owner = fake

    return Handler


class _Handler(BaseHTTPRequestHandler):
    owner: Fake
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _body(self) -> Any:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return {"_raw_bytes": len(raw)}

    def _outside(self) -> bool:
        """A proxy request for the network: record it and refuse it."""
        if self.command == "CONNECT" or self.path.startswith(("http://", "https://")):
            self.owner.record(self.command, self.path, "outside")
            self.json(403, {"error": "bench: no network"})
            return True
        return False

    def do_CONNECT(self) -> None:
        self._outside()
        self.close_connection = True

    def do_HEAD(self) -> None:
        if self._outside():
            return
        self.owner.record("HEAD", self.path, None)
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        if self._outside():
            return
        self.owner.record("GET", self.path, None)
        if self.path.split("?", 1)[0].rstrip("/") in ("/v1/models", "/models"):
            self.json(200, {"object": "list", "data": [], "models": []})
            return
        self.json(404, {"error": {"message": f"bench fake: no route GET {self.path}"}})

    def do_POST(self) -> None:
        if self._outside():
            return
        body = self._body()
        self.owner.record("POST", self.path, body)
        try:
            if not self.owner.answer(self, self.path, body):
                self.json(404, {"error": {"message": f"bench fake: no route POST {self.path}"}})
        except (BrokenPipeError, ConnectionResetError):
            pass

    def json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse(self, events: Sequence[tuple[str | None, Any]]) -> None:
        out = []
        for kind, data in events:
            head = f"event: {kind}\n" if kind else ""
            text = data if isinstance(data, str) else json.dumps(data)
            out.append(f"{head}data: {text}\n\n")
        payload = "".join(out).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()
