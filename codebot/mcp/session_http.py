"""A session's connection to a Streamable HTTP MCP server: what `session_stdio.hold_stdio`
does for a stdio server's process, over `http_transport.open_http` (docs/mcp.md).

- The same client as `codebot mcp list`: the definition's headers, the body and event
  caps, redirects to another origin refused, header values masked in every message; a
  401 or 403 at start names the header and the variable its value came from.
- `initialize` and `tools/list` within the server's `startup_timeout`; then the link is
  ready until the session stops it or the connection is lost. Reads have no timeout of
  their own (the server-sent event stream may be quiet for hours): each call is bounded
  by the server's `timeout` in `SessionServers._request`.
- A lost connection (the server went away: a request refused at the socket, a body cut
  short, a response stream ended without its answer, a 404 for the session's id after
  the server restarted) ends the link at once, like a
  stdio server's exit: it is down, every call in flight is cut short with an error
  result, and the next use connects again once its backoff allows.
- A cancelled call: the SDK sends `notifications/cancelled` (or, for a server that
  negotiated the 2026 protocol, closes that request's stream, which is its cancellation).
- A server that goes away while idle: when its own event stream (the GET the SDK keeps
  open) ends or breaks, a `ping` asks whether it is still there; no answer within the
  startup_timeout (refused, cut short, silent) is a lost connection, noticed then, so
  `/mcp` shows it down and the next use connects again (a server that keeps no such
  stream is noticed at its next use, as before).
- At the session's end the link is stopped and the SDK ends the HTTP session (DELETE).
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import TYPE_CHECKING

from codebot.mcp.link import Link, came_up, cut_calls, stay_up, went_down
from codebot.mcp.remote import client_info

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp.client.session import ClientSession
    from mcp.shared._stream_protocols import ReadStream, WriteStream
    from mcp.shared.message import SessionMessage

    from codebot.mcp.http_transport import Exchange
    from codebot.mcp.session_stdio import Owner

__all__ = ["hold_http", "lost_during"]


async def hold_http(owner: Owner, link: Link, epoch: int) -> None:
    """Connect `link` (an http server), list its tools, then stay connected until stopped
    or the connection is lost; every end is recorded on the link, nothing raises but a
    cancellation. What ends the link is recorded before the connection is closed, and the
    close (the SDK's DELETE) takes at most the startup_timeout."""
    import anyio

    from codebot.mcp.http_transport import Exchange, describe, open_http, redact, shown_url

    d = link.d
    stop, exited, settled = link.stop, link.exited, link.settled
    assert stop is not None and exited is not None and settled is not None
    exchange, lost, up = Exchange(), asyncio.Event(), asyncio.Event()

    def lose(why: str) -> None:
        _lose(link, epoch, redact(why, d), lost)

    def failed(exc: BaseException | None) -> None:
        if stop.is_set():
            return
        if up.is_set():
            why = _said(exc) if exc is not None else "it closed"
            lose(f"the connection to {shown_url(d.url)} was lost: {why}")
        else:
            lose(describe(d, exchange, exc))

    idle = _IdleCheck(d.startup_timeout, exchange, stop, lost, failed)

    def on_up(session: ClientSession) -> None:
        up.set()
        idle.arm(session)

    try:
        with anyio.CancelScope() as closing:
            async with open_http(d, exchange, unbounded_reads=True) as (read, write):
                try:
                    await _serve(
                        owner, link, epoch, _Watched(read, exchange, lose), write, lost, on_up
                    )
                except Exception as exc:  # the session's: the server's answer, a timeout
                    failed(exc)
                finally:
                    closing.deadline = anyio.current_time() + d.startup_timeout
        if not up.is_set():
            failed(None)
    except asyncio.CancelledError:
        went_down(link, "stopped", epoch)
        raise
    except Exception as exc:  # the transport's (a refused connection), whatever httpx2 raised
        failed(exc)
    finally:
        idle.disarm()
        _lose(link, epoch, "", lost, down=False)
        exited.set()
        if epoch == link.epoch:
            link.session = None
            if stop.is_set():
                link.status = "stopped"
        settled.set()


async def _serve(
    owner: Owner,
    link: Link,
    epoch: int,
    read: ReadStream[SessionMessage | Exception],
    write: WriteStream[SessionMessage],
    lost: asyncio.Event,
    on_up: Callable[[ClientSession], None],
) -> None:
    """Initialize and list within the startup_timeout, then ready (`on_up`) until stopped
    or lost."""
    import anyio
    from mcp.client.session import ClientSession

    async with ClientSession(
        read, write, message_handler=owner._handler(link), client_info=client_info()
    ) as session:
        with anyio.fail_after(link.d.startup_timeout):
            init = await session.initialize()
            tools = await owner._list(link, session)
        if came_up(owner, link, epoch, lost, init, session, tools):
            on_up(session)
            await stay_up(link, lost)


def _lose(link: Link, epoch: int, why: str, lost: asyncio.Event, *, down: bool = True) -> None:
    """The connection `epoch` is over: down (once, unless stopped), and its calls in flight
    cut short."""
    if lost.is_set():
        return
    if down:
        went_down(link, why, epoch)
    lost.set()
    if link.exited is not None and epoch == link.epoch:
        link.exited.set()
    cut_calls(link)


class _IdleCheck:
    """Once up: when the server's own event stream ends or breaks, a ping (within the
    startup_timeout) asks whether it is still there; a failure is the connection's end,
    noticed while idle (`gone`)."""

    def __init__(
        self,
        timeout: float,
        exchange: Exchange,
        stop: asyncio.Event,
        lost: asyncio.Event,
        gone: Callable[[BaseException], None],
    ) -> None:
        self.timeout, self.exchange, self.gone = timeout, exchange, gone
        self.stop, self.lost = stop, lost
        self.checks: set[asyncio.Task[None]] = set()

    def arm(self, session: ClientSession) -> None:
        def ended() -> None:
            if not self.stop.is_set() and not self.lost.is_set():
                check = asyncio.get_running_loop().create_task(self._ping(session))
                self.checks.add(check)
                check.add_done_callback(self.checks.discard)

        self.exchange.stream_ended = ended

    def disarm(self) -> None:
        self.exchange.stream_ended = None
        for check in list(self.checks):
            check.cancel()

    async def _ping(self, session: ClientSession) -> None:
        import anyio

        try:
            with anyio.fail_after(self.timeout):
                await session.send_ping()
        except Exception as exc:  # refused, cut short, no answer: gone
            self.gone(exc)


def lost_during(link: Link) -> str:
    """The error result of a call whose connection was lost."""
    why = link.error or "the connection was lost"
    return (
        f"MCP server {link.d.name}: the connection was lost during the call ({why}); it is "
        "connected again on its next use"
    )


class _Watched:
    """The transport's read stream as the session reads it, watching for the SDK's own
    word that a request's answer can never come (its response stream ended), and for an
    error answered after the server said 404 to the session's id: the connection is then
    taken as lost."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        exchange: Exchange,
        lose: Callable[[str], None],
    ) -> None:
        self.inner, self.exchange, self.lose = inner, exchange, lose

    @property
    def last_context(self) -> object:
        return getattr(self.inner, "last_context", None)

    def _see(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        from mcp_types import CONNECTION_CLOSED, JSONRPCError

        message = getattr(item, "message", None)
        if not isinstance(message, JSONRPCError):
            return item
        error = message.error
        if error.code == CONNECTION_CLOSED:
            self.lose(f"the server's answer stream ended: {error.message}")
        elif self.exchange.session_gone:
            self.lose("the server no longer knows this session (HTTP 404; did it restart?)")
        return item

    async def receive(self) -> SessionMessage | Exception:
        return self._see(await self.inner.receive())

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        return self._see(await self.inner.__anext__())

    async def __aenter__(self) -> _Watched:
        await self.inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self.inner.__aexit__(exc_type, exc_val, exc_tb)


def _said(exc: BaseException) -> str:
    from codebot.mcp.http_transport import describe_error

    return describe_error(exc)
