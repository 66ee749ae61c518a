"""Find a local OpenAI-compatible server (Ollama, llama.cpp, LM Studio) on this machine.

`probe()` asks `GET /v1/models` on a few loopback ports at once and returns what
answered. It only ever connects to 127.0.0.1 and ::1, sends no key, and is bounded in
time by one deadline (default 150 ms) however the other side behaves: a port that
accepts and then stalls, drips one byte at a time, sends a huge body, redirects or
answers garbage costs at most the budget and is ignored. It speaks HTTP/1.0 over a
plain socket (so there is no chunked encoding to trust and no redirect is followed),
caps what it reads at `MAX_BODY` bytes, and keeps only model ids that are plain words.

`connect_line(found)` is the one line the offline model ends its answers with.
Never imports litellm (or anything heavy): front ends call `probe` after the first paint.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: Ollama, llama.cpp's server, LM Studio: their usual ports.
DEFAULT_PORTS: tuple[int, ...] = (11434, 8080, 1234)
#: The whole probe, every port together, in seconds.
DEFAULT_BUDGET_S = 0.15
#: Only these hosts are ever asked (loopback; validated again before connecting).
LOOPBACK: tuple[str, ...] = ("127.0.0.1", "::1")
#: What is read of one answer, headers included; a longer answer is ignored.
MAX_BODY = 256 * 1024
#: Model ids kept per server.
MAX_MODELS = 5
_KIND_BY_PORT = {11434: "ollama", 8080: "llama.cpp", 1234: "lm-studio"}
_LABEL = {
    "ollama": "Ollama",
    "llama.cpp": "llama.cpp",
    "lm-studio": "LM Studio",
    "openai-compatible": "an OpenAI-compatible server",
}
# A model id is shown in a command line the person may paste: plain characters only.
_MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}")
#: The suggestion when nothing local answered.
DEFAULT_CONNECT = (
    "Connect a model: export OPENAI_API_KEY=… or run "
    "codebot --api-base http://127.0.0.1:11434/v1 --model openai/llama3.1"
)


@dataclass(frozen=True, slots=True)
class Found:
    """A local server that answered `GET /v1/models` like an OpenAI-compatible one."""

    port: int
    kind: str  # "ollama" | "llama.cpp" | "lm-studio" | "openai-compatible" (a guess)
    base_url: str  # http://127.0.0.1:PORT/v1: what --api-base takes
    models: tuple[str, ...] = ()  # at most MAX_MODELS ids, in the server's order
    host: str = "127.0.0.1"

    @property
    def label(self) -> str:
        """'Ollama at http://127.0.0.1:11434/v1'."""
        return f"{_LABEL.get(self.kind, _LABEL['openai-compatible'])} at {self.base_url}"

    def model_string(self, model_id: str | None = None) -> str:
        """The litellm model string for one of its models (the first when not given)."""
        mid = model_id or (self.models[0] if self.models else "default")
        return f"openai/{mid}"

    def to_json(self) -> dict[str, object]:
        return {
            "port": self.port,
            "kind": self.kind,
            "base_url": self.base_url,
            "models": list(self.models),
            "host": self.host,
        }


def connect_line(found: Sequence[Found] = ()) -> str:
    """The one line on how to connect a model: the server found, else the general advice."""
    if not found:
        return DEFAULT_CONNECT
    f = found[0]
    return (
        f"Connect a model: {f.label} is running; run codebot --api-base {f.base_url} --model "
        f"{f.model_string()}"
    )


def probe(
    ports: Iterable[int] = DEFAULT_PORTS,
    budget_s: float = DEFAULT_BUDGET_S,
    hosts: Sequence[str] = LOOPBACK,
) -> list[Found]:
    """Ask every (loopback host, port) at once; what answered, in `ports` order, one per port
    (the first host in `hosts` that answered). Returns within about `budget_s`."""
    deadline = time.monotonic() + max(0.0, budget_s)
    wanted = [
        p
        for p in dict.fromkeys(ports)
        if isinstance(p, int) and not isinstance(p, bool) and 0 < p < 65536
    ]
    targets = [(h, p) for p in wanted for h in hosts if _is_loopback(h)]
    results: dict[tuple[str, int], Found] = {}
    lock = threading.Lock()

    def run(host: str, port: int) -> None:
        try:
            found = _ask(host, port, deadline)
        except Exception:  # a broken server is one that did not answer
            found = None
        if found is not None:
            with lock:
                results[(host, port)] = found

    threads = [
        threading.Thread(target=run, args=t, name=f"codebot-probe-{t[1]}", daemon=True)
        for t in targets
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    with lock:
        done = dict(results)
    out: list[Found] = []
    for port in wanted:
        hit = next((done[(h, port)] for h in hosts if (h, port) in done), None)
        if hit is not None:
            out.append(hit)
    return out


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name would need resolving: never


def _ask(host: str, port: int, deadline: float) -> Found | None:
    if not _is_loopback(host):
        return None
    raw = _get(host, port, "/v1/models", deadline)
    if raw is None:
        return None
    status, headers, body = _parse_http(raw)
    if status != 200:
        return None  # redirects, errors, anything else: not what we asked for
    if "chunked" in headers.get("transfer-encoding", ""):
        body = _unchunk(body)
        if body is None:
            return None
    models, owners = _model_ids(body)
    if models is None:
        return None
    kind = _guess_kind(port, headers.get("server", ""), owners)
    netloc = f"[{host}]" if ":" in host else host
    return Found(port, kind, f"http://{netloc}:{port}/v1", models, host)


def _get(host: str, port: int, path: str, deadline: float) -> bytes | None:
    """The raw answer to one HTTP/1.0 GET, or None when it did not come whole in time."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(remaining)
        try:
            sock.connect((host, port))
            netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            request = (
                f"GET {path} HTTP/1.0\r\nHost: {netloc}\r\nAccept: application/json\r\n"
                "User-Agent: codebot-probe\r\nConnection: close\r\n\r\n"
            )
            sock.sendall(request.encode("ascii"))
            return read_answer(sock, deadline, MAX_BODY)
        except OSError:  # refused, reset, timed out
            return None


def read_answer(sock: socket.socket, deadline: float, cap: int) -> bytes | None:
    """An HTTP answer read from `sock` until it is whole (even if the server keeps the
    connection open) or the server closes; None when it is still coming at `deadline` (a
    slow drip) or grows past `cap` bytes (a flood). server_window reads the same way."""
    buf = bytearray()
    while not _complete(bytes(buf)):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        sock.settimeout(remaining)
        data = sock.recv(65536)
        if not data:
            break
        buf += data
        if len(buf) > cap:
            return None
    return bytes(buf)


def _complete(raw: bytes) -> bool:
    """Whether `raw` holds the whole answer its Content-Length announces."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        return False
    m = re.search(rb"(?im)^content-length:[ \t]*([0-9]{1,9})[ \t]*$", head)
    return m is not None and len(body) >= int(m.group(1))


def _parse_http(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        return 0, {}, b""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        return 0, {}, b""
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip().lower()
    length = headers.get("content-length", "")
    if length.isdigit() and int(length) < len(body):
        body = body[: int(length)]
    return int(parts[1]), headers, body


def _unchunk(body: bytes) -> bytes | None:
    """Chunked transfer coding (a server that ignores HTTP/1.0), or None when malformed."""
    out = bytearray()
    rest = body
    while True:
        size_line, sep, rest = rest.partition(b"\r\n")
        size_text = size_line.split(b";", 1)[0].strip()
        if not sep or not size_text or len(size_text) > 8:
            return None
        try:
            size = int(size_text, 16)
        except ValueError:
            return None
        if size == 0:
            return bytes(out)
        if len(rest) < size:
            return None
        out += rest[:size]
        rest = rest[size + 2 :]


def _model_ids(body: bytes) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """The model ids and owners of an OpenAI `GET /v1/models` answer; (None, ()) when it is
    not one."""
    try:
        doc = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):
        return None, ()
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, list):
        return None, ()
    models: list[str] = []
    owners: list[str] = []
    for item in data[:1000]:
        if not isinstance(item, dict):
            continue
        mid = item.get("id")
        if (
            isinstance(mid, str)
            and _MODEL_ID.fullmatch(mid)
            and mid not in models
            and len(models) < MAX_MODELS
        ):
            models.append(mid)
        owner = item.get("owned_by")
        if isinstance(owner, str) and len(owner) <= 64:
            owners.append(owner.lower())
    return tuple(models), tuple(owners)


def _guess_kind(port: int, server: str, owners: Sequence[str]) -> str:
    """Which server this probably is: what its models say, else its port."""
    if "llamacpp" in owners or "llama.cpp" in server:
        return "llama.cpp"
    if "organization_owner" in owners or "lm studio" in server or "lmstudio" in server:
        return "lm-studio"
    if "library" in owners or "ollama" in owners or "ollama" in server:
        return "ollama"
    return _KIND_BY_PORT.get(port, "openai-compatible")
