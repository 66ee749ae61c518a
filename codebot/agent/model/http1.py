"""A streaming HTTP/1.1 POST on asyncio streams, framed by h11: what a chat request needs
and nothing more, because importing httpx costs 70–400 ms on every turn's critical path
(bench/peers.py) and h11 — httpx's own HTTP/1.1 layer — costs 15.

Connections are kept per origin and event loop and reused when the last answer was read
to its end (a turn's second request skips the TCP and TLS handshakes). A request through a
proxy (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` not excluded by `NO_PROXY`) is not this
module's job: `proxy_for` says so and the caller uses httpx, which speaks every kind.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import ssl
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import h11

#: Bytes read from the socket at a time.
READ_SIZE = 65_536
#: The longest line kept while waiting for its end (a stream's event is one line).
MAX_LINE = 8_000_000
CONNECT_TIMEOUT = 30.0


@dataclass(frozen=True, slots=True)
class Origin:
    scheme: str
    host: str
    port: int


def split(url: str) -> tuple[Origin, str]:
    """(origin, path with query) of an http(s) URL; ValueError for anything else."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Origin(parts.scheme, parts.hostname, port), path


def _no_proxy(host: str, env: Mapping[str, str]) -> bool:
    raw = env.get("NO_PROXY") or env.get("no_proxy") or ""
    for item in (i.strip().lower() for i in raw.split(",")):
        if item == "*":
            return True
        item = item.lstrip(".").split(":")[0]
        if item and (host == item or host.endswith("." + item)):
            return True
    return False


def proxy_for(url: str, env: Mapping[str, str] | None = None) -> str | None:
    """The proxy the environment sets for `url`, as httpx would use it; None for none."""
    env = os.environ if env is None else env
    origin, _ = split(url)
    names = (
        ("HTTPS_PROXY", "https_proxy") if origin.scheme == "https" else ("HTTP_PROXY", "http_proxy")
    )
    proxy = next((env[n] for n in (*names, "ALL_PROXY", "all_proxy") if env.get(n)), None)
    if proxy is None or _no_proxy(origin.host.lower(), env):
        return None
    return proxy


_tls: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    """The system's trust store plus certifi's bundle when installed (httpx trusts certifi's;
    a corporate CA in SSL_CERT_FILE is honoured by the default context)."""
    global _tls
    if _tls is None:
        context = ssl.create_default_context()
        try:
            import certifi

            context.load_verify_locations(certifi.where())
        except (ImportError, OSError):
            pass
        _tls = context
    return _tls


@dataclass(eq=False)
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    h11: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))

    def close(self) -> None:
        self.writer.close()


class Pool:
    """Idle connections per origin, for one event loop."""

    def __init__(self) -> None:
        self._idle: dict[Origin, list[_Connection]] = {}

    async def _connect(self, origin: Origin) -> _Connection:
        tls = _tls_context() if origin.scheme == "https" else None
        async with asyncio.timeout(CONNECT_TIMEOUT):
            reader, writer = await asyncio.open_connection(
                origin.host, origin.port, ssl=tls, server_hostname=origin.host if tls else None
            )
        return _Connection(reader, writer)

    def _take(self, origin: Origin) -> _Connection | None:
        idle = self._idle.get(origin) or []
        while idle:
            conn = idle.pop()
            if not conn.reader.at_eof() and not conn.writer.is_closing():
                return conn
            conn.close()
        return None

    def _give_back(self, origin: Origin, conn: _Connection) -> None:
        if conn.h11.our_state is h11.DONE and conn.h11.their_state is h11.DONE:
            try:
                conn.h11.start_next_cycle()
            except h11.LocalProtocolError:
                conn.close()
                return
            self._idle.setdefault(origin, []).append(conn)
        else:
            conn.close()

    async def post(self, url: str, body: object, headers: Mapping[str, str]) -> Response:
        """Send a JSON POST and return once the answer's status and headers are in."""
        origin, path = split(url)
        data = json.dumps(body).encode()
        fields = [("host", _host_header(origin)), ("content-length", str(len(data)))]
        fields += [
            (k, v) for k, v in headers.items() if k.lower() not in ("host", "content-length")
        ]
        request = h11.Request(method="POST", target=path, headers=fields)
        reused = self._take(origin)
        if reused is not None:
            try:
                return await self._exchange(origin, reused, request, data)
            except (ConnectionError, h11.RemoteProtocolError, asyncio.IncompleteReadError):
                reused.close()  # the server had closed it meanwhile: a fresh connection
        return await self._exchange(origin, await self._connect(origin), request, data)

    async def _exchange(
        self, origin: Origin, conn: _Connection, request: h11.Request, data: bytes
    ) -> Response:
        try:
            conn.writer.write(conn.h11.send(request) or b"")
            conn.writer.write(conn.h11.send(h11.Data(data=data)) or b"")
            conn.writer.write(conn.h11.send(h11.EndOfMessage()) or b"")
            await conn.writer.drain()
            event = await _next_event(conn)
            while isinstance(event, h11.InformationalResponse):
                event = await _next_event(conn)
            if not isinstance(event, h11.Response):
                raise ConnectionError("the server closed the connection without an answer")
        except BaseException:
            conn.close()
            raise
        return Response(
            event.status_code, _headers(event), conn, lambda c: self._give_back(origin, c)
        )


def _host_header(origin: Origin) -> str:
    default = 443 if origin.scheme == "https" else 80
    host = f"[{origin.host}]" if ":" in origin.host else origin.host
    return host if origin.port == default else f"{host}:{origin.port}"


def _headers(event: h11.Response) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in event.headers}


async def _next_event(conn: _Connection) -> object:
    while True:
        event = conn.h11.next_event()
        if event is h11.NEED_DATA:
            chunk = await conn.reader.read(READ_SIZE)
            conn.h11.receive_data(chunk)  # b"" says the server closed
            continue
        return event


class Response:
    """An answer being read: `status_code`, `headers`, then `aiter_lines()` or
    `aread(limit)`; `aclose()` ends it (and returns the connection when it was read whole)."""

    def __init__(
        self,
        status: int,
        headers: dict[str, str],
        conn: _Connection,
        done: Callable[[_Connection], None],
    ) -> None:
        self.status_code = status
        self.headers = headers
        self._conn: _Connection | None = conn
        self._done = done

    async def _bodies(self) -> AsyncIterator[bytes]:
        conn = self._conn
        while conn is not None:
            try:
                event = await _next_event(conn)
            except h11.RemoteProtocolError as exc:  # e.g. closed inside a chunk
                raise ConnectionError(
                    f"the server closed the connection mid-answer ({exc})"
                ) from exc
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self._conn = None
                self._done(conn)  # read to its end: the connection may serve the next request
                return
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("the server closed the connection mid-answer")
            else:
                raise h11.RemoteProtocolError(f"unexpected {type(event).__name__}")

    async def aread(self, limit: int) -> bytes:
        out = b""
        async for piece in self._bodies():
            out += piece
            if len(out) >= limit:
                break
        return out[:limit]

    async def aiter_lines(self) -> AsyncIterator[str]:
        """The body as text lines (UTF-8, split on \\n, \\r\\n or \\r as SSE allows)."""
        pending = ""
        decoder = _utf8()
        async for piece in self._bodies():
            text = pending + decoder.decode(piece)
            # A "\r" at the end may be the first half of a "\r\n" still on its way.
            held = "\r" if text.endswith("\r") else ""
            text = text[: len(text) - len(held)].replace("\r\n", "\n").replace("\r", "\n")
            *lines, rest = text.split("\n")
            pending = rest + held
            if len(pending) > MAX_LINE:  # a server that never ends a line: not held forever
                raise ConnectionError(f"a line of the answer is over {MAX_LINE:,} characters")
            for line in lines:
                yield line
        pending += decoder.decode(b"", final=True)
        if pending:
            yield pending.rstrip("\r")

    async def aclose(self) -> None:
        if self._conn is not None:  # not read to its end: the connection cannot be reused
            self._conn.close()
            self._conn = None


def _utf8() -> codecs.IncrementalDecoder:
    return codecs.getincrementaldecoder("utf-8")("replace")
