"""The Streamable HTTP side of connecting to an MCP server: the official SDK's
`streamable_http_client` over an `httpx2` client set up here, and the words for what went
wrong (docs/mcp.md, "Connecting (HTTP)").

- Only `http://` and `https://` URLs with a host; the definition's (expanded) `headers`
  go on every request. A header value is never shown: every message here is cut of the
  values before it leaves (`redact`).
- Connect, read, write and pool timeouts are the caller's (the server's
  `startup_timeout` for `codebot mcp list`); the caller bounds the whole exchange too.
- Redirects: the SDK follows one only within the URL's origin (a trailing-slash 307/308)
  and refuses any other without sending anything there; `Exchange` notes where it pointed
  so the message can say so.
- An answer is bounded: a JSON body over `MAX_BODY` bytes or one server-sent event over
  it ends the connection; a compressed answer (never asked for) is refused, so a small
  body cannot inflate.
- A 401 or 403 names the header the definition sends and the variable its value came
  from, or says how to add one.

The SDK and httpx2 are imported inside the functions (tests/test_imports.py).
"""

from __future__ import annotations

import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codebot.mcp.config import ServerDef
from codebot.mcp.expand import variables_in

if TYPE_CHECKING:
    import httpx2
    from mcp.client._transport import TransportStreams

__all__ = [
    "MAX_BODY",
    "Exchange",
    "HttpRefused",
    "describe",
    "describe_error",
    "open_http",
    "redact",
    "shown_url",
]

#: The largest answer body (and server-sent event) read from a server.
MAX_BODY = 16 * 1024 * 1024
_AUTH_STATUS = {401: "401 Unauthorized", 403: "403 Forbidden"}


class HttpRefused(Exception):
    """codebot refused what the server sent, or what the definition asks; the message is
    safe to show (it holds no header value)."""


@dataclass
class Exchange:
    """What the HTTP layer saw of one connection: the first error status answered to a
    message (POST), where a redirect to another origin pointed, and whether the server
    said it no longer knows the session (it restarted)."""

    status: int | None = None
    reason: str = ""
    redirect: str = ""
    statuses: deque[int] = field(default_factory=lambda: deque(maxlen=100))  # the latest
    session_gone: bool = False  # a POST with the session's id was answered 404
    #: Called when the server's own event stream (the GET) ends or breaks: the session's
    #: cue to ask whether the server is still there (`session_http`).
    stream_ended: Callable[[], None] | None = None


def shown_url(url: str) -> str:
    """`url` without user info, query or fragment (they can hold secrets)."""
    import httpx2

    try:
        return str(httpx2.URL(url).copy_with(userinfo=b"", query=None, fragment=None))
    except (httpx2.InvalidURL, TypeError, ValueError):
        return "(an unreadable URL)"


def redact(text: str, d: ServerDef) -> str:
    """`text` with every header value of `d` (and each longer word of one) replaced by
    `***`: a message from the SDK or httpx2 must not carry a secret to the screen."""
    secrets: set[str] = set()
    for value in d.headers.values():
        secrets.add(value.strip())
        secrets.update(part for part in value.split() if len(part) >= 6)
    for secret in sorted((s for s in secrets if len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _check(d: ServerDef) -> None:
    """What the definition itself makes impossible, said before anything is sent."""
    import httpx2

    try:
        url = httpx2.URL(d.url)
    except (httpx2.InvalidURL, TypeError, ValueError) as exc:
        raise HttpRefused(f"its url is not a URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise HttpRefused("its url must be http:// or https:// with a host")
    for name, value in d.headers.items():
        if any((ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F for c in value):
            raise HttpRefused(f"its header {name} holds a control character (not sent)")


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
    return (url.scheme, url.host, url.port)


def _capped(inner: httpx2.AsyncByteStream, limit: int) -> httpx2.AsyncByteStream:
    """`inner`, ending the connection past `limit` bytes."""
    import httpx2

    class Capped(httpx2.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            async for chunk in inner:
                seen += len(chunk)
                if seen > limit:
                    raise HttpRefused(f"the server's answer is over {limit} bytes")
                yield chunk

        async def aclose(self) -> None:
            await inner.aclose()

    return Capped()


def _ending(inner: httpx2.AsyncByteStream, exchange: Exchange) -> httpx2.AsyncByteStream:
    """`inner` (the GET event stream), calling `exchange.stream_ended` when it ends."""
    import httpx2

    class Ending(httpx2.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            try:
                async for chunk in inner:
                    yield chunk
            finally:
                if exchange.stream_ended is not None:
                    exchange.stream_ended()

        async def aclose(self) -> None:
            await inner.aclose()

    return Ending()


def _watch(exchange: Exchange) -> Callable[[httpx2.Response], Awaitable[None]]:
    """The response hook that fills `exchange`, refuses compressed answers and caps bodies
    (the SSE stream is capped per event by the SDK)."""

    async def on_response(response: httpx2.Response) -> None:
        import httpx2

        if response.request.method == "POST":  # not the optional GET stream (often a 405)
            _note(exchange, response)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise HttpRefused(f"the server sent a {encoding}-compressed answer, never asked for")
        sse = response.headers.get("content-type", "").lower().startswith("text/event-stream")
        stream = response.stream
        is_stream = isinstance(stream, httpx2.AsyncByteStream)
        if is_stream and sse and response.request.method == "GET" and response.status_code == 200:
            response.stream = _ending(stream, exchange)
        if not sse and isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = _capped(response.stream, MAX_BODY)

    return on_response


def _note(exchange: Exchange, response: httpx2.Response) -> None:
    """Record a message's answer: its status, and a redirect to another origin."""
    import httpx2

    status = response.status_code
    exchange.statuses.append(status)
    if status == 404 and "mcp-session-id" in response.request.headers:
        exchange.session_gone = True
    location = response.headers.get("location")
    if 300 <= status < 400 and location is not None and not exchange.redirect:
        with contextlib.suppress(httpx2.InvalidURL, TypeError, ValueError):
            target = response.request.url.join(location)
            if _origin(target) != _origin(response.request.url):
                exchange.redirect = shown_url(str(target))
    if status >= 400 and exchange.status is None:
        exchange.status, exchange.reason = status, response.reason_phrase


@contextlib.asynccontextmanager
async def open_http(
    d: ServerDef,
    exchange: Exchange,
    *,
    read_timeout: float | None = None,
    unbounded_reads: bool = False,
) -> AsyncIterator[TransportStreams]:
    """The read and write streams of a `ClientSession` over Streamable HTTP to `d.url`.
    Connect, write and pool time out after the server's `startup_timeout`, reads after
    `read_timeout` (the same by default), or never with `unbounded_reads` (a session's
    connection: its server-sent event stream may be quiet for hours; the caller bounds
    each request). Raises HttpRefused for a definition that cannot be sent; what the
    server does wrong reaches the session or raises out of here."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    _check(d)
    mcp_log = logging.getLogger("mcp")
    if not mcp_log.handlers:  # the SDK's warnings are in our messages; no stray tracebacks
        mcp_log.addHandler(logging.NullHandler())
    read = None if unbounded_reads else read_timeout or d.startup_timeout
    timeout = httpx2.Timeout(d.startup_timeout, read=read)
    client = httpx2.AsyncClient(
        headers={**d.headers, "accept-encoding": "identity"},
        timeout=timeout,
        follow_redirects=False,
        event_hooks={"response": [_watch(exchange)]},
    )
    async with (
        client,
        streamable_http_client(d.url, http_client=client, max_sse_event_size=MAX_BODY) as streams,
    ):
        yield streams


def describe(d: ServerDef, exchange: Exchange, exc: BaseException | None) -> str:
    """Why connecting to `d` failed, for the `error` of its row; never a header value."""
    url = shown_url(d.url)
    if exchange.redirect:
        text = (
            f"{url} redirected to {exchange.redirect}, another origin: not followed (its "
            "headers are not sent elsewhere); use that URL if it is the intended server"
        )
    elif exchange.status in _AUTH_STATUS:
        text = f"{url} answered {_AUTH_STATUS[exchange.status]}: {_auth_hint(d)}"
    elif exchange.status is not None:
        text = f"{url} answered HTTP {exchange.status} {exchange.reason}".rstrip()
        if exchange.status == 404:
            text += " (is the path of its url right?)"
    elif exc is None or _timed_out(exc):
        text = (
            f"{url} did not answer initialize and the lists within its startup_timeout "
            f"({d.startup_timeout:g} s)"
        )
    else:
        text = f"{url}: {_said(exc)}"
    return redact(text, d)


def describe_error(exc: BaseException) -> str:
    """What an exception from the connection says (no URL; the caller redacts it)."""
    return _said(exc)


def _auth_hint(d: ServerDef) -> str:
    if not d.headers:
        return (
            "the definition sends no headers; add one with `codebot mcp add "
            f"{d.name} --transport http URL --header 'Authorization: Bearer …'`"
        )
    written = d.written.get("headers")
    raw: Mapping[object, object] = written if isinstance(written, Mapping) else {}
    parts = []
    for name in _auth_first(d.headers):
        text = raw.get(name)
        names = variables_in(text) if isinstance(text, str) else []
        if names:
            what = ", ".join(f"${{{v}}}" for v in names)
            parts.append(f"the header {name} (its value comes from {what}: set that variable)")
        else:
            parts.append(f"the header {name} (its value is written in {d.path})")
    return "check " + "; ".join(parts) + " — the value is not shown"


def _auth_first(headers: Mapping[str, str]) -> list[str]:
    """Header names, the ones that look like credentials first."""
    words = ("auth", "token", "key", "secret", "cookie", "session")
    return sorted(headers, key=lambda n: not any(w in n.lower() for w in words))


def _timed_out(exc: BaseException) -> bool:
    import httpx2

    if isinstance(exc, BaseExceptionGroup):
        return any(_timed_out(e) for e in exc.exceptions)
    return isinstance(exc, httpx2.TimeoutException | TimeoutError)


def _said(exc: BaseException) -> str:
    import httpx2

    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(dict.fromkeys(_said(e) for e in exc.exceptions))
    if isinstance(exc, HttpRefused):
        return str(exc)
    if isinstance(exc, httpx2.TimeoutException):
        return f"no answer in time ({type(exc).__name__})"
    if isinstance(exc, httpx2.ConnectError):
        return f"cannot connect: {exc or 'connection failed'}"
    if isinstance(exc, httpx2.TransportError):
        return f"the connection failed: {type(exc).__name__}: {exc}".rstrip(": ")
    said = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    if said.startswith("Failed to parse JSON response"):
        return "its answer is not JSON-RPC (Failed to parse JSON response)"
    return f"{type(exc).__name__}: {said}" if said else type(exc).__name__
