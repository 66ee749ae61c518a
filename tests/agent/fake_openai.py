"""A scripted chat server on 127.0.0.1 speaking OpenAI's and Anthropic's wire formats, for
tests (stdlib only).

Use it in-process (`FakeOpenAI().start()`, or the `fake_openai` fixture) or as a script:

    python tests/agent/fake_openai.py --port 0 --script replies.json [--log requests.jsonl]

which prints `READY <port>` once it listens and serves until killed.

Each request to POST /v1/chat/completions (or /chat/completions), and each to Anthropic's
POST /v1/messages (or /messages), takes the next scripted response from one queue. A
response is a dict; the keys that matter:

    {"text": "hello", "chunks": 3}             text, streamed in `chunks` SSE pieces
    {"tool_calls": [{"name": "Read", "arguments": "{...}" or {...}, "id"?: "call_1"}],
     "text": "optional prefix", "split": true,  arguments split over several chunks
     "interleave": false}                       interleave parallel calls' pieces
    {"status": 401, "body": {...}}              an error response, `body` sent as is
    {"status": 400, "message": "..."}           the error JSON of the route, this message
    {"stall": 5}                                headers and one chunk, then silence
    {"usage": {"prompt_tokens": 7, ...}}        the usage to report (streamed only when
                                                the request asks stream_options.include_usage)
    {"match": "substring", ...}                 only answers a request whose serialized
                                                messages contain the substring
    {"drop_after": 2, ...}                      close the connection after 2 chunks
    {"error_after": {"code": 500, "message": "..."}}  the text, then an SSE error event
    {"delay": 0.5, ...}                         wait before answering
    {"chunk_delay": 0.05, ...}                  wait between streamed chunks (a slow stream)
    {"headers": {"retry-after": "0"}, ...}      extra response headers
    {"finish_reason": "length", ...}, {"model": "..."}

A request picks the first queued response that has no `match` or whose `match` occurs
in its messages. When nothing fits: a 500 with "fake server: script exhausted".

The Anthropic route (writers in fake_anthropic_wire.py, beside this file; `.anthropic_url`
is the base URL without /v1, to which litellm and the SDK append /v1/messages): `match`
searches `system` and `messages`; a stream is message_start, a text block (`chunks`
text_delta pieces), a tool_use block per call (id the script's or `toolu_<i>`, `split`
input_json_delta pieces), message_delta (finish_reason "stop" -> stop_reason end_turn,
"tool_calls" -> tool_use, "length" -> max_tokens) and message_stop. Usage is always sent
(prompt_tokens -> input_tokens, completion_tokens -> output_tokens); `interleave` is
ignored; `error_after` ends with `event: error` (api_error; 529: overloaded_error). Errors
are {"type": "error", "error": {"type": T, "message": M}}, T by status (401
authentication_error, 429 rate_limit_error, 529 overloaded_error, ...). `.paths` holds
each recorded request's path.

GET /v1/models, GET /props and POST /api/show answer `.models`, `.props` and `.show`
(JSON documents, like llama.cpp's, vLLM's and Ollama's) when set, else 404; every GET
and /api/show path is kept in `.asked`.
In-process, `.responder = fn` answers first: `fn(body)` returns a response or None (then
the queue answers), e.g. to answer every compaction summary request wherever it falls.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import threading
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any


def _load_wire() -> ModuleType:
    """fake_anthropic_wire.py, loaded by path from beside this file (tests/ is no package)."""
    module = sys.modules.get("fake_anthropic_wire")
    if module is None:
        path = Path(__file__).resolve().with_name("fake_anthropic_wire.py")
        spec = importlib.util.spec_from_file_location("fake_anthropic_wire", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["fake_anthropic_wire"] = module
        spec.loader.exec_module(module)
    return module


anthropic = _load_wire()

ERROR_TYPES = {
    400: ("invalid_request_error", "Bad request"),
    401: (
        "invalid_request_error",
        "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.",
    ),
    403: ("permission_error", "You are not allowed to use this model"),
    404: ("invalid_request_error", "The model `test-model` does not exist"),
    429: (
        "rate_limit_exceeded",
        "Rate limit reached for test-model: 3 requests per minute. Please try again in 1s.",
    ),
    500: ("server_error", "The server had an error while processing your request."),
    503: ("server_error", "The engine is currently overloaded, please try again later."),
}
ERROR_CODES = {401: "invalid_api_key", 429: "rate_limit_exceeded", 404: "model_not_found"}


def error_body(status: int, message: str | None = None) -> dict[str, Any]:
    kind, default = ERROR_TYPES.get(status, ("server_error", f"HTTP {status}"))
    return {
        "error": {
            "message": message or default,
            "type": kind,
            "param": None,
            "code": ERROR_CODES.get(status),
        }
    }


def _pieces(text: str, n: int) -> list[str]:
    """`text` cut into at most `n` non-empty consecutive pieces (at least one)."""
    if not text:
        return []
    n = max(1, min(n, len(text)))
    size = -(-len(text) // n)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _arguments(raw: Any) -> str:
    return raw if isinstance(raw, str) else json.dumps(raw)


class FakeOpenAI:
    """A scripted chat-completions server; `.url` ends in /v1, `.requests` holds bodies."""

    def __init__(
        self,
        responses: Iterable[dict[str, Any]] = (),
        *,
        port: int = 0,
        log_path: str | Path | None = None,
    ) -> None:
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.paths: list[str] = []  # the path of each recorded request (which wire format)
        self.log_path = Path(log_path) if log_path else None
        self._queue: list[dict[str, Any]] = list(responses)
        self.responder: Any = None  # (body) -> response | None, asked before the queue
        self.models: Any = None  # GET /v1/models answer
        self.props: Any = None  # GET /props answer (llama.cpp)
        self.show: Any = None  # POST /api/show answer (Ollama)
        self.asked: list[str] = []
        self.get_headers: list[dict[str, str]] = []  # of each GET, names lower-case
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control -------------------------------------------------------------------
    def script(self, responses: Iterable[dict[str, Any]]) -> None:
        """Append responses to the queue."""
        with self._lock:
            self._queue.extend(dict(r) for r in responses)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        """The base URL for Anthropic clients (no /v1: litellm and the SDK append
        /v1/messages to it)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeOpenAI:
        server = ThreadingHTTPServer(("127.0.0.1", self._port), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-openai",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the handler -------------------------------------------------------
    def _take(self, body: dict[str, Any], haystack: str) -> dict[str, Any] | None:
        if self.responder is not None:
            answer = self.responder(body)
            if answer is not None:
                return dict(answer)
        with self._lock:
            for i, response in enumerate(self._queue):
                match = response.get("match")
                if match is None or match in haystack:
                    return self._queue.pop(i)
        return None

    def _record(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            self.paths.append(path)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(body) + "\n")

    def _sleep(self, seconds: float) -> None:
        self._stopping.wait(seconds)


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        server_fake = fake

    return Handler


class _Handler(BaseHTTPRequestHandler):
    server_fake: FakeOpenAI
    protocol_version = "HTTP/1.0"  # one response per connection, closed when done

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        fake = self.server_fake
        fake.asked.append(self.path)
        fake.get_headers.append({k.lower(): v for k, v in self.headers.items()})
        doc = {"/v1/models": fake.models, "/props": fake.props}.get(self.path.rstrip("/"))
        if doc is None:
            self._json(404, error_body(404, f"fake server: no route GET {self.path}"))
        else:
            self._json(200, doc)

    def do_POST(self) -> None:
        path = self.path.rstrip("/")
        if path == "/api/show":
            self.server_fake.asked.append(self.path)
            length = int(self.headers.get("content-length") or 0)
            self.rfile.read(length)
            doc = self.server_fake.show
            self._json(200 if doc is not None else 404, doc or error_body(404))
            return
        is_anthropic = path in anthropic.ROUTES
        if not is_anthropic and path not in ("/v1/chat/completions", "/chat/completions"):
            self._json(404, error_body(404, f"fake server: no route POST {self.path}"))
            return
        errors = anthropic.error_body if is_anthropic else error_body
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._json(400, errors(400, "fake server: request body is not JSON"))
            return
        fake = self.server_fake
        fake._record(self.path, body, {k.lower(): v for k, v in self.headers.items()})
        haystack = (
            anthropic.haystack(body)
            if is_anthropic
            else json.dumps(body.get("messages", []), ensure_ascii=False)
        )
        response = fake._take(body, haystack)
        if response is None:
            self._json(500, errors(500, "fake server: script exhausted"))
            return
        if response.get("delay"):
            fake._sleep(float(response["delay"]))
        try:
            if "status" in response:
                status = int(response["status"])
                payload = response.get("body") or errors(status, response.get("message"))
                self._json(status, payload, response.get("headers"))
            elif is_anthropic:
                self._answer_messages(body, response)
            elif body.get("stream"):
                frames = [_frame(c) for c in _chunks(body, response)]
                error = _frame({"error": response.get("error_after")})
                self._stream(response, frames, len(frames) - 1, error, b"data: [DONE]\n\n")
            else:
                self._json(200, _completion(body, response), response.get("headers"))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away (cancelled, timed out): nothing to do

    def _answer_messages(self, body: dict[str, Any], response: dict[str, Any]) -> None:
        """An Anthropic Messages answer (POST /v1/messages): SSE events or one JSON."""
        chat_usage = _usage(anthropic.as_chat_body(body), response, response.get("text", ""))
        if not body.get("stream"):
            payload = anthropic.message(body, response, chat_usage)
            self._json(200, payload, response.get("headers"))
            return
        events = anthropic.events(body, response, chat_usage, _pieces)
        error = anthropic.sse(anthropic.error_event(response.get("error_after") or {}))
        error_at = [name for name, _ in events].index("message_delta")
        self._stream(response, [anthropic.sse(e) for e in events], error_at, error)

    # -- writers -------------------------------------------------------------------
    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def _stream(
        self,
        response: dict[str, Any],
        frames: list[bytes],
        error_at: int,
        error: bytes,
        tail: bytes = b"",
    ) -> None:
        """Send SSE `frames` as the script says: all then `tail`; or (`stall`) the first,
        then silence; or (`error_after`) the first `error_at`, then `error`; or
        (`drop_after`) the first few, then a close."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        for k, v in (response.get("headers") or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        if "stall" in response:
            self._write(frames[0])
            self.server_fake._sleep(float(response["stall"]))
            return
        if "error_after" in response:  # text, then an error event (llama.cpp mid-stream)
            for frame in frames[:error_at]:
                self._write(frame)
            self._write(error)
            return
        drop_after = response.get("drop_after")
        gap = float(response.get("chunk_delay") or 0)
        for n, frame in enumerate(frames):
            if drop_after is not None and n >= int(drop_after):
                return  # connection closes without the end of the stream
            if gap and n:
                self.server_fake._sleep(gap)
            self._write(frame)
        if tail:
            self._write(tail)

    def _write(self, frame: bytes) -> None:
        self.wfile.write(frame)
        self.wfile.flush()


def _frame(chunk: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def _usage(body: dict[str, Any], response: dict[str, Any], text: str) -> dict[str, Any]:
    if response.get("usage"):
        usage = dict(response["usage"])
    else:
        prompt = sum(len(str(m.get("content") or "").split()) for m in body.get("messages", []))
        usage = {"prompt_tokens": prompt + 3, "completion_tokens": max(1, len(text.split()))}
    usage.setdefault(
        "total_tokens", usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
    )
    return usage


def _calls(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "id": c.get("id") or f"call_{i}",
            "name": c["name"],
            "arguments": _arguments(c.get("arguments", {})),
        }
        for i, c in enumerate(response.get("tool_calls") or [])
    ]


def _finish(response: dict[str, Any]) -> str:
    return response.get("finish_reason") or ("tool_calls" if response.get("tool_calls") else "stop")


def _completion(body: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    text = response.get("text", "")
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    calls = _calls(response)
    if calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in calls
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": response.get("model") or body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(response)}],
        "usage": _usage(body, response, text),
    }


def _chunks(body: dict[str, Any], response: dict[str, Any]) -> Iterable[dict[str, Any]]:
    model = response.get("model") or body.get("model", "fake")
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }

    text = response.get("text", "")
    yield chunk({"role": "assistant", "content": ""})
    for piece in _pieces(text, int(response.get("chunks", 3))):
        yield chunk({"content": piece})
    calls = _calls(response)
    split = response.get("split", True)
    per_call: list[list[dict[str, Any]]] = []
    for i, c in enumerate(calls):
        head = {
            "index": i,
            "id": c["id"],
            "type": "function",
            "function": {"name": c["name"], "arguments": ""},
        }
        pieces = _pieces(c["arguments"], 4) if split else [c["arguments"]]
        per_call.append([head] + [{"index": i, "function": {"arguments": p}} for p in pieces])
    if response.get("interleave"):
        longest = max((len(p) for p in per_call), default=0)
        ordered = [p[k] for k in range(longest) for p in per_call if k < len(p)]
    else:
        ordered = [d for p in per_call for d in p]
    for d in ordered:
        yield chunk({"tool_calls": [d]})
    yield chunk({}, _finish(response))
    if (body.get("stream_options") or {}).get("include_usage"):
        yield {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [],
            "usage": _usage(body, response, text),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help="a JSON file holding the list of responses")
    parser.add_argument("--log", type=Path, help="append each request body here as a JSON line")
    args = parser.parse_args(argv)
    responses = json.loads(args.script.read_text(encoding="utf-8")) if args.script else []
    fake = FakeOpenAI(responses, port=args.port, log_path=args.log).start()
    print(f"READY {fake.port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
