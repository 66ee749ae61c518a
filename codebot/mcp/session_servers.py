"""The MCP servers of one session: started in the background, kept connected, called,
restarted, closed (docs/mcp.md, "Servers in a session").

`SessionServers` runs them on a `Host` (host.py): the event loop the session's turns run
on, which the front end gives `start(loop)`, so a call is the SDK's own call in the
caller's task; without one, a loop of their own in a daemon thread, reached with one
wake-up each way. Each connection is `session_stdio`'s or `session_http`'s, its state a
`link.Link`. A server that goes away, busy or idle, is down at once and started again on
its next use, after its backoff (1, 2, 4 … 60 s; a use waits out the rest of a backoff of
up to `WAIT_BACKOFF` seconds rather than fail); cancelling a call cancels the SDK's
request (which sends notifications/cancelled); `notifications/tools/list_changed` lists
its tools again; `close()` kills every process group, each also handed to `track` (ended
at exit and on SIGTERM/SIGHUP).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codebot.mcp.config import ServerDef
from codebot.mcp.host import HTTP_MODULES, SDK_MODULES, Host, loaded, preload, running_loop
from codebot.mcp.link import Link, cut_call, see, went_down
from codebot.mcp.remote import CallOutcome, RemoteTool, closed
from codebot.mcp.session_http import hold_http, lost_during
from codebot.mcp.session_stdio import hold_stdio

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

__all__ = ["CallOutcome", "RemoteTool", "SessionServers"]  # the first two from `remote`

#: A tool call's arguments, as the model sent them (checked against the tool's schema).
Arguments = dict[str, Any]
#: The most tools read from one server (pages of `tools/list`).
MAX_TOOLS = 1000
MAX_PAGES = 100
#: A use of a server that went away after it was up (exited, idle or mid-call) waits out
#: at most this much of its backoff (seconds) and starts it again; past it, or for one
#: that never came up, the use is an error that says when to try again.
WAIT_BACKOFF = 2.0


class SessionServers:
    """The approved servers of one session (see the module docstring)."""

    def __init__(
        self,
        servers: Sequence[ServerDef],
        *,
        home: Path,
        project: Path,
        environ: Mapping[str, str] | None = None,
        track: Callable[[int], None] = lambda pgid: None,
        untrack: Callable[[int], None] = lambda pgid: None,
    ) -> None:
        # `track(pgid)` for each server started, `untrack` once it is gone: the owner
        # ends tracked groups at exit and on SIGTERM/SIGHUP (agent/tools/shell.py).
        self.track, self.untrack = track, untrack
        self.home, self.project = Path(home), Path(project)
        self.environ = dict(os.environ if environ is None else environ)
        self._links = {d.name: Link(d) for d in servers}
        self.host = Host()
        self._closed = False
        self._start_asked = False
        self._start_lock = threading.Lock()
        self._sdk: Future[None] | None = None  # the SDK's import (host.preload)
        #: Bumped whenever a server's tools change (ready, list_changed, restarted).
        self.generation = 0

    # -- what the session reads ------------------------------------------------------

    def names(self) -> list[str]:
        return list(self._links)

    def tools(self) -> list[RemoteTool]:
        """Every tool of every server that has been ready, in the servers' order."""
        return [t for link in self._links.values() for t in link.tools]

    def status(self) -> list[dict[str, object]]:
        """One row per server: name, status, tools, server, error."""
        return [
            {
                "name": n,
                "status": link.status,
                "tools": len(link.tools),
                "server": link.server,
                "error": link.error,
            }
            for n, link in self._links.items()
        ]

    def starting(self) -> bool:
        return any(link.status == "starting" for link in self._links.values())

    def started(self) -> bool:
        """Whether the servers have been started (the TUI and line mode: after the paint)."""
        return self.host.loop is not None

    def longest_start(self) -> float:
        """The longest startup_timeout, and a margin for the kill and the last answer."""
        return max((lk.d.startup_timeout for lk in self._links.values()), default=0) + 2

    def wait_started(self, timeout: float | None = None) -> bool:
        """Block until no server is still starting (each is bounded by its startup_timeout),
        at most `timeout` seconds; whether none is. On the servers' own loop it does not
        wait (they could not start meanwhile): call it off that loop."""
        self.start()
        if self.host.here():
            return not self.starting()
        if timeout is None:
            timeout = self.longest_start()
        end = time.monotonic() + timeout
        while self.starting() and time.monotonic() < end and not self._closed:
            time.sleep(0.005)
        return not self.starting()

    # -- start and close -------------------------------------------------------------

    def prepare(self) -> None:
        """Begin importing the SDK (in a thread), so that a start soon after waits less."""
        with self._start_lock:
            if self._sdk is None and self._links:
                self._sdk = preload(self._modules())

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Start every server in the background (returns at once) on `loop`, the loop the
        session's turns run on (None: a loop of their own, in a thread). Once started,
        nothing, unless the loop they ran on has closed since: they start again on this
        one (their connections ended with it)."""
        with self._start_lock:
            self._start_asked = True
            if self._closed or not self._links or self.host.usable():
                return
            if self._sdk is None:
                self._sdk = preload(self._modules())
            again = self.host.loop is not None
            self.host.bind(loop)
            self._launch_soon(list(self._links.values()), again)

    def _modules(self) -> list[str]:
        http = any(link.d.transport == "http" for link in self._links.values())
        return [*SDK_MODULES, *(HTTP_MODULES if http else ())]

    def add(self, servers: Sequence[ServerDef]) -> list[str]:
        """Take in servers approved since the session began (the question at start): each
        starts at once when the others have been started, else with them. The names added."""
        with self._start_lock:  # either the loop runs (spawn there) or it has not begun
            new = {d.name: Link(d) for d in servers if d.name not in self._links}
            if not new or self._closed:
                return []
            # A new dict, bound in one step: readers iterating the old one are not disturbed.
            self._links = {**self._links, **new}
            self._sdk = preload(self._modules())  # done at once when all are there
            launched = self.host.usable() and self._launch_soon(list(new.values()))
            start = not launched and self._start_asked
        if start:
            self.start()
        return list(new)

    def _launch_soon(self, links: list[Link], again: bool = False) -> bool:
        """Connect `links` on the servers' loop soon; meanwhile they are starting, and a
        use waits for them as for any start. (No connection of theirs is alive: new links,
        or their loop closed.)"""
        for link in links:
            link.status, link.settled = "starting", asyncio.Event()
        return self.host.soon(self._launch, links, again)

    def _launch(self, links: list[Link], again: bool) -> None:
        """On the servers' loop: connect each link (again: their old loop closed, its
        connections with it; whatever process is left is killed first)."""
        if again:
            self.kill_now()
        for link in links:
            if again:
                link.failures, link.retry_at = 0, 0.0
            self._spawn(link, link.settled)

    def close(self, grace: float = 3.0) -> None:
        """Stop every server and kill its process group; safe to call twice, from any
        thread. On the servers' own loop it only begins (`aclose` waits for the end)."""
        if self._closed:
            return
        self._closed = True
        loop = self.host.loop
        if loop is not None and self.host.here():
            loop.create_task(self._finish())
            return
        self.host.wait(self._shutdown, grace)
        self.host.end()
        self._stopped()

    async def aclose(self) -> None:
        """`close`, awaited: every connection has ended (process groups killed, HTTP
        sessions ended) when it returns."""
        if not self.host.here():
            await asyncio.to_thread(self.close)
            return
        if not self._closed:
            self._closed = True
            await self._finish()

    async def _finish(self) -> None:
        await self._shutdown()
        self._stopped()

    def _stopped(self) -> None:
        self.kill_now()
        for link in self._links.values():
            link.status, link.session = "stopped", None

    def kill_now(self) -> None:
        """SIGKILL every process group still known (a last resort: exit, a signal)."""
        for link in self._links.values():
            for pid in list(link.pids):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)
                link.pids.discard(pid)
                self.untrack(pid)

    async def _shutdown(self) -> None:
        tasks = []
        for link in self._links.values():
            if link.stop is not None:
                link.stop.set()
            if link.task is not None and not link.task.done():
                tasks.append(link.task)
        if tasks:
            await asyncio.wait(tasks, timeout=2.5)

    # -- one server's connection (on the servers' loop) ------------------------------

    def _spawn(self, link: Link, settled: asyncio.Event | None = None) -> None:
        """A new connection of `link` (`settled`: the one those waiting already wait on)."""
        link.epoch += 1  # what an older connection does later is ignored
        link.status, link.error = "starting", ""
        link.stop, link.exited = asyncio.Event(), asyncio.Event()
        link.settled = settled or asyncio.Event()
        link.task = asyncio.get_running_loop().create_task(self._hold(link, link.epoch))

    async def _hold(self, link: Link, epoch: int) -> None:
        """The SDK imported (off this loop), then the connection (stdio or HTTP)."""
        assert self._sdk is not None and link.settled is not None
        try:
            await loaded(self._sdk)
        except asyncio.CancelledError:
            went_down(link, "stopped", epoch)
            link.settled.set()
            raise
        except Exception as exc:
            went_down(link, f"cannot load the MCP SDK: {type(exc).__name__}: {exc}", epoch)
            link.settled.set()
            return
        if link.d.transport == "http":  # a connection, not a process (session_http.py)
            return await hold_http(self, link, epoch)
        return await hold_stdio(self, link, epoch)

    async def _list(self, link: Link, session: ClientSession) -> tuple[RemoteTool, ...]:
        from mcp_types import PaginatedRequestParams

        found: list[RemoteTool] = []
        cursor = None
        for _ in range(MAX_PAGES):
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            for t in page.tools:
                hint = t.annotations.read_only_hint if t.annotations is not None else None
                schema = t.input_schema if isinstance(t.input_schema, dict) else {}
                found.append(RemoteTool(link.d.name, t.name, t.description or "", schema, hint))
            cursor = page.next_cursor
            if not cursor or len(found) >= MAX_TOOLS:
                break
        return tuple(found[:MAX_TOOLS])

    def _handler(self, link: Link) -> Any:
        async def handle(message: object) -> None:
            from mcp_types import ToolListChangedNotification

            inner = getattr(message, "root", message)
            if isinstance(inner, ToolListChangedNotification):
                asyncio.get_running_loop().create_task(self._refresh(link))

        return handle

    async def _refresh(self, link: Link) -> None:
        """List the tools again; a flood of list_changed costs one listing at a time."""

        async def once() -> None:
            session = link.session
            if session is None:
                return
            with contextlib.suppress(Exception):
                link.tools = await asyncio.wait_for(
                    self._list(link, session), link.d.startup_timeout
                )
                self.generation += 1

        await link.listing("tools").run(once, lambda: link.session is not None)

    # -- calls -------------------------------------------------------------------------

    def call(
        self, server: str, tool: str, arguments: Arguments
    ) -> Coroutine[object, object, CallOutcome]:
        """Call a tool from any event loop (`await servers.call(...)`; on the servers' own
        loop it is the request itself, in the caller's task, nothing between); never
        raises but CancelledError, which cancels the SDK's request (it sends
        notifications/cancelled). Servers never started, or whose loop has closed, are
        started on the caller's."""
        loop = running_loop()
        if loop is not None and loop is self.host.loop and not self._closed:
            return self._call(server, tool, arguments)
        return self._call_over(server, tool, arguments)

    async def _call_over(self, server: str, tool: str, arguments: Arguments) -> CallOutcome:
        """`call` from another loop, or made before a loop runs."""
        if not self.host.usable() and not self._closed:
            self.start(asyncio.get_running_loop())
        return await self.host.run(
            lambda: self._call(server, tool, arguments), lambda: CallOutcome(error=gone(server))
        )

    async def _usable(self, server: str, use: str) -> tuple[Link | None, str]:
        """The server's link, up if it can be: a failed one started again once its
        backoff has passed (one that went away after it was up: the rest of a short
        backoff is waited out), a starting one waited for. (link, "") or (None, why not)."""
        link = self._links.get(server)
        if link is None:
            return None, f"no MCP server {server} in this session"
        if self._closed:
            return None, gone(server)
        if link.status == "failed":
            wait = link.retry_at - time.monotonic()
            if wait > (WAIT_BACKOFF if link.was_up else 0):
                return None, (
                    f"MCP server {server} is down ({link.error}); it is started again "
                    f"on {use} in {wait:.0f} s or later"
                )
            if wait > 0:
                await asyncio.sleep(wait)
            if link.status == "failed" and not self._closed:  # nobody started it meanwhile
                self._spawn(link)
        if link.status == "starting" and link.settled is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(link.settled.wait(), link.d.startup_timeout + 1)
        return link, ""

    def _call(
        self, server: str, tool: str, arguments: Arguments
    ) -> Coroutine[object, object, CallOutcome]:
        """The request, on the servers' loop: at once for a ready server, else once it is
        started or waited for (`_usable`)."""
        link = self._links.get(server)
        if link is not None and link.status == "ready" and not self._closed:
            session, exited = link.session, link.exited
            if session is not None and exited is not None:
                return self._request(link, session, exited, tool, arguments)
        return self._call_later(server, tool, arguments)

    async def _call_later(self, server: str, tool: str, arguments: Arguments) -> CallOutcome:
        link, why = await self._usable(server, "a call")
        if link is None:
            return CallOutcome(error=why)
        session, exited = link.session, link.exited
        if link.status != "ready" or session is None or exited is None:
            return CallOutcome(error=f"MCP server {server} is not ready: {link.error or 'down'}")
        return await self._request(link, session, exited, tool, arguments)

    async def _request(
        self,
        link: Link,
        session: ClientSession,
        exited: asyncio.Event,
        tool: str,
        arguments: Arguments,
    ) -> CallOutcome:
        """The request itself, in this task (no task of its own: a call costs little more
        than the SDK's). Its timeout and the connection's end cancel it (`link.cut`)."""
        task = asyncio.current_task()
        assert task is not None
        link.calls.add(task)
        timer = task.get_loop().call_later(link.d.timeout, cut_call, link, task, "timeout")
        try:
            return CallOutcome(result=await session.call_tool(tool, arguments))
        except asyncio.CancelledError:
            why = link.cut.get(task)
            if why is None or task.uncancel() > 0:
                raise  # the turn was cancelled: the SDK has sent notifications/cancelled
            if why == "timeout":
                return CallOutcome(
                    error=f"MCP server {link.d.name} did not answer within its timeout "
                    f"({link.d.timeout:g} s); the call was cancelled"
                )
            return self._exited_during(link)
        except Exception as exc:
            from codebot.mcp.connect import said

            if closed(exc):  # the pipe closed: did the server exit?
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(exited.wait(), 1.0)
            if exited.is_set():
                return self._exited_during(link)
            return CallOutcome(error=f"the server answered with an error: {said(exc)}")
        finally:
            timer.cancel()
            link.calls.discard(task)
            link.cut.pop(task, None)

    def _exited_during(self, link: Link) -> CallOutcome:
        if link.d.transport == "http":
            return CallOutcome(error=lost_during(link))
        return CallOutcome(
            error=f"MCP server {link.d.name} exited during the call; {see(link)}; it is "
            "started again on its next use"
        )


def gone(server: str) -> str:
    return f"MCP server {server} is not running (the session closed)"
