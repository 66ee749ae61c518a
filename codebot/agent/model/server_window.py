"""Ask the configured OpenAI-compatible server what it serves: its model ids and its
context window (what litellm's table cannot know about a local model).

Only the configured `api_base` is asked, over a plain socket (HTTP/1.0, TLS for https),
under one hard deadline for every request together (default 2 s): a server that stalls,
drips, floods or answers garbage costs at most the budget and tells nothing. What is read:

- `GET <api_base>/models`: the ids (OpenAI), `max_model_len` (vLLM), `meta.n_ctx` /
  `meta.n_ctx_train` (llama.cpp);
- `GET <root>/props`: llama.cpp's `default_generation_settings.n_ctx` (asked when the model
  list looks like llama.cpp's, or when there was no model list);
- `POST <root>/api/show`: Ollama's `parameters` `num_ctx` (what it runs with), else its
  `model_info.<arch>.context_length`.

The parsing is pure functions over the parsed JSON, so any client can share them. Never
imports litellm; the caller runs `ask_server` off the event loop (a thread).
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from codebot.agent.model.local_probe import _MODEL_ID, _parse_http, _unchunk, read_answer

#: The whole conversation with the server, every request together, in seconds.
DEFAULT_BUDGET_S = 2.0
#: What is read of one answer; a longer one is ignored (Ollama's /api/show carries a licence).
MAX_ANSWER = 1024 * 1024
#: Windows outside this range are not believed.
MIN_WINDOW, MAX_WINDOW = 256, 100_000_000
#: Model ids kept.
MAX_MODELS = 20


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What the server said: its window and where that came from ("/props", "/v1/models",
    "/api/show"; None when it did not say), and the model ids it lists."""

    window: int | None = None
    source: str | None = None
    models: tuple[str, ...] = ()


# -- pure readers of each answer ------------------------------------------------------------


def _tokens(value: Any) -> int | None:
    """A believable window from a JSON value, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or not MIN_WINDOW <= value <= MAX_WINDOW:  # NaN, absurd
        return None
    return int(value)


def model_ids(doc: Any) -> tuple[str, ...]:
    """The ids an OpenAI `GET /models` answer lists (plain characters only)."""
    data = doc.get("data") if isinstance(doc, dict) else None
    ids: list[str] = []
    for item in data[:1000] if isinstance(data, list) else ():
        mid = item.get("id") if isinstance(item, dict) else None
        if isinstance(mid, str) and _MODEL_ID.fullmatch(mid) and mid not in ids:
            ids.append(mid)
        if len(ids) >= MAX_MODELS:
            break
    return tuple(ids)


def _entry(doc: Any, model_id: str | None) -> dict[str, Any] | None:
    """The `/models` entry of `model_id` (the first when it is not listed)."""
    data = doc.get("data") if isinstance(doc, dict) else None
    entries = [d for d in data[:1000] if isinstance(d, dict)] if isinstance(data, list) else []
    named = [d for d in entries if model_id and d.get("id") == model_id]
    return (named or entries or [None])[0]


def window_from_models(doc: Any, model_id: str | None = None) -> tuple[int | None, bool]:
    """(window, is_llama_cpp) from a `/models` answer: vLLM's `max_model_len`, llama.cpp's
    `meta.n_ctx` (what it runs with) else `meta.n_ctx_train`."""
    entry = _entry(doc, model_id)
    if entry is None:
        return None, False
    meta = entry.get("meta")
    if isinstance(meta, dict):
        return _tokens(meta.get("n_ctx")) or _tokens(meta.get("n_ctx_train")), True
    return _tokens(entry.get("max_model_len")), entry.get("owned_by") == "llamacpp"


def window_from_props(doc: Any) -> int | None:
    """llama.cpp's `/props`: `default_generation_settings.n_ctx` (or a top-level `n_ctx`)."""
    if not isinstance(doc, dict):
        return None
    settings = doc.get("default_generation_settings")
    inner = _tokens(settings.get("n_ctx")) if isinstance(settings, dict) else None
    return inner or _tokens(doc.get("n_ctx"))


_NUM_CTX = re.compile(r"(?m)^\s*num_ctx\s+([0-9]{1,9})\s*$")


def window_from_show(doc: Any) -> int | None:
    """Ollama's `/api/show`: `num_ctx` in its parameters (what it runs with), else
    `model_info.<arch>.context_length` (what the model was made for)."""
    if not isinstance(doc, dict):
        return None
    params = doc.get("parameters")
    if isinstance(params, str):
        m = _NUM_CTX.search(params)
        if m and _tokens(int(m.group(1))):
            return int(m.group(1))
    info = doc.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if isinstance(key, str) and key.endswith(".context_length") and _tokens(value):
                return _tokens(value)
    return None


# -- asking -------------------------------------------------------------------------------


def ask_server(
    api_base: str,
    model_id: str | None = None,
    budget_s: float = DEFAULT_BUDGET_S,
    api_key: str | None = None,
) -> ServerInfo:
    """What the server at `api_base` says about itself, within `budget_s` seconds in all.
    `api_key` (the one the requests send) goes to that server only, as a bearer token
    (vLLM's `--api-key` guards `/v1/models` too). Never raises: a server that does not
    answer gives `ServerInfo()`."""
    try:
        parts = urlsplit(api_base)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return ServerInfo()
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ServerInfo()
    base = parts.path.rstrip("/")
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    deadline = time.monotonic() + max(0.0, budget_s)
    target = (parts.hostname, port, parts.scheme == "https")
    key = api_key if api_key and _HEADER_SAFE.fullmatch(api_key) else None

    def ask(path: str, body: dict[str, Any] | None = None) -> Any:
        return _json(target, path, body, deadline, key)

    listed = ask(f"{base}/models")
    models = model_ids(listed)
    wanted = model_id or (models[0] if models else None)
    window, llama = window_from_models(listed, wanted) if listed is not None else (None, False)
    if (llama or listed is None) and (props := window_from_props(ask(f"{root}/props"))):
        return ServerInfo(props, "/props", models)
    if window:
        return ServerInfo(window, "/v1/models", models)
    if wanted:
        shown = window_from_show(ask(f"{root}/api/show", {"model": wanted}))
        if shown:
            return ServerInfo(shown, "/api/show", models)
    return ServerInfo(None, None, models)


#: What may go into a header line: printable ASCII, no CR/LF (a key is never a way in).
_HEADER_SAFE = re.compile(r"[\x21-\x7e]{1,512}")


def _json(
    target: tuple[str, int, bool],
    path: str,
    body: dict[str, Any] | None,
    deadline: float,
    key: str | None = None,
) -> Any:
    """The parsed JSON of a 200 answer to one request, or None."""
    host, port, tls = target
    try:
        raw = _exchange(host, port, tls, _request(host, port, path, body, key), deadline)
    except (OSError, ValueError):
        return None
    if raw is None:
        return None
    status, headers, data = _parse_http(raw)
    if status != 200:
        return None
    if "chunked" in headers.get("transfer-encoding", ""):
        data = _unchunk(data)
        if data is None:
            return None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def _request(
    host: str, port: int, path: str, body: dict[str, Any] | None, key: str | None = None
) -> bytes:
    netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    payload = json.dumps(body).encode() if body is not None else b""
    head = (
        f"{'POST' if body is not None else 'GET'} {path or '/'} HTTP/1.0\r\nHost: {netloc}\r\n"
        "Accept: application/json\r\nUser-Agent: codebot\r\nConnection: close\r\n"
    )
    if key:
        head += f"Authorization: Bearer {key}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    return (head + "\r\n").encode("ascii", "replace") + payload


def _exchange(host: str, port: int, tls: bool, request: bytes, deadline: float) -> bytes | None:
    """Send `request`, read the whole answer; None when it does not come whole in time."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None
    sock: socket.socket = socket.create_connection((host, port), timeout=remaining)
    try:
        if tls:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        sock.sendall(request)
        return read_answer(sock, deadline, MAX_ANSWER)
    finally:
        sock.close()


#: How a window's source is named in `/context` (keys: what `ServerView.window` returns).
SOURCE_WORDS = {
    "server:/props": "from the server's /props",
    "server:/v1/models": "from the server's /v1/models",
    "server:/api/show": "from the server's /api/show",
    "refusal": "learned from the server's refusal",
}


class ServerView:
    """What one client knows of its server: asked once (`learn`, from a thread), plus the
    window a refusal named (`refused`), which wins over what the server said."""

    def __init__(
        self,
        api_base: str,
        ask: Any = None,
        budget_s: float = DEFAULT_BUDGET_S,
        api_key: str | None = None,
    ) -> None:
        self.api_base = api_base
        self.api_key = api_key
        self._ask = ask or ask_server
        self.budget_s = budget_s
        self.info: ServerInfo | None = None
        self.learned: int | None = None
        self._lock = threading.Lock()

    @property
    def asked(self) -> bool:
        return self.info is not None

    def learn(self, model_id: str | None = None, *, again: bool = False) -> ServerInfo:
        """Ask the server (once, unless `again`); what it said."""
        with self._lock:
            if self.info is None or again:
                try:
                    self.info = self._ask(self.api_base, model_id, self.budget_s, self.api_key)
                except Exception:  # a broken server is one that said nothing
                    self.info = ServerInfo()
            return self.info or ServerInfo()

    def refused(self, window: int) -> None:
        """The server refused a request and named its window."""
        if _tokens(window):
            self.learned = window

    def window(self) -> tuple[int, str] | None:
        """(tokens, source key) when the server told, else None."""
        if self.learned:
            return self.learned, "refusal"
        info = self.info
        if info is not None and info.window:
            return info.window, f"server:{info.source}"
        return None
