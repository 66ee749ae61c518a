"""The MCP servers of one session: started in the background, kept connected, called,
restarted, closed (docs/mcp.md, "Servers in a session").

`SessionServers` runs its own event loop in one daemon thread, so no front end's loop ever
waits for a server. A call from the agent's loop is handed over with one
`call_soon_threadsafe` each way; cancelling it cancels the SDK's request (which sends
`notifications/cancelled`). A server that exits mid-call is cut short with an error at
once and started again on its next use, after its backoff (1, 2, 4 … 60 s);
`notifications/tools/list_changed` lists its tools again; `close()` kills every process
group, each also handed to `track` (ended at exit and on SIGTERM/SIGHUP).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codebot.mcp.config import ServerDef
from codebot.mcp.remote import (
    CallOutcome,
    RemoteTool,
    client_info,
    closed,
    first,
    timed_out,
)
from codebot.mcp.session_http import hold_http, lost_during

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from codebot.mcp.connect import Pipe

__all__ = ["CallOutcome", "RemoteTool", "SessionServers"]  # the first two from `remote`

#: Seconds before a server that went down may be started again: 1, 2, 4, ... at most 60.
BACKOFF_MAX = 60.0
#: The most tools read from one server (pages of `tools/list`).
MAX_TOOLS = 1000
MAX_PAGES = 100


@dataclass
class _Link:
    d: ServerDef
    status: str = "starting"  # starting | ready | failed | stopped
    error: str = ""
    server: str = ""  # its name and version, as it says
    tools: tuple[RemoteTool, ...] = ()
    session: ClientSession | None = None
    failures: int = 0
    epoch: int = 0  # which connection is current (each start is a new one)
    down_at: int = -1  # the connection that went down (counted once)
    retry_at: float = 0.0
    log: str = ""
    stop: asyncio.Event | None = None
    exited: asyncio.Event | None = None
    settled: asyncio.Event | None = None
    task: asyncio.Task[None] | None = None
    pids: set[int] = field(default_factory=set)
    refreshing: bool = False  # a tools/list after list_changed is running
    again: bool = False  # and another list_changed came meanwhile
    calls: set[asyncio.Task[Any]] = field(default_factory=set)  # calls in flight
    cut: set[asyncio.Task[Any]] = field(default_factory=set)  # those the exit cancelled


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
        self._links = {d.name: _Link(d) for d in servers}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self._start_asked = False
        self._start_lock = threading.Lock()
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

    def longest_start(self) -> float:
        """The longest startup_timeout, and a margin for the kill and the last answer."""
        return max((lk.d.startup_timeout for lk in self._links.values()), default=0) + 2

    def wait_started(self, timeout: float | None = None) -> bool:
        """Block until no server is still starting (each is bounded by its startup_timeout),
        at most `timeout` seconds; whether none is."""
        self.start()
        if timeout is None:
            timeout = self.longest_start()
        end = time.monotonic() + timeout
        while self.starting() and time.monotonic() < end and not self._closed:
            time.sleep(0.005)
        return not self.starting()

    # -- start and close -------------------------------------------------------------

    def add(self, servers: Sequence[ServerDef]) -> list[str]:
        """Take in servers approved since the session began (the question at start): each
        starts at once when the others have been started, else with them. The names added."""
        with self._start_lock:  # either the loop runs (spawn there) or it has not begun
            new = {d.name: _Link(d) for d in servers if d.name not in self._links}
            if not new or self._closed:
                return []
            # A new dict, bound in one step: readers iterating the old one are not disturbed.
            self._links = {**self._links, **new}
            loop = self._loop
            if loop is not None:
                for link in new.values():
                    loop.call_soon_threadsafe(self._spawn, link)
            start = loop is None and self._start_asked
        if start:
            self.start()
        return list(new)

    def start(self) -> None:
        """Start every server in the background (returns at once)."""
        with self._start_lock:
            self._start_asked = True
            if self._thread is not None or self._closed or not self._links:
                return
            self._start_thread()

    def _start_thread(self) -> None:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            for link in self._links.values():
                loop.call_soon(self._spawn, link)
            ready.set()
            try:
                loop.run_forever()
            finally:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        self._thread = threading.Thread(target=run, name="codebot-mcp", daemon=True)
        self._thread.start()
        ready.wait()

    def close(self, grace: float = 3.0) -> None:
        """Stop every server and kill its process group; safe to call twice, from any
        thread but the servers' own."""
        if self._closed:
            return
        self._closed = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(grace)
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(1.0)
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

    async def _shutdown(self) -> None:
        tasks = []
        for link in self._links.values():
            if link.stop is not None:
                link.stop.set()
            if link.task is not None:
                tasks.append(link.task)
        if tasks:
            await asyncio.wait(tasks, timeout=2.5)

    # -- one server's connection (on the servers' loop) ------------------------------

    def _spawn(self, link: _Link) -> None:
        link.epoch += 1  # a new connection: what an older one does later is ignored
        link.status, link.error = "starting", ""
        link.stop, link.exited, link.settled = asyncio.Event(), asyncio.Event(), asyncio.Event()
        link.task = asyncio.get_running_loop().create_task(self._hold(link, link.epoch))

    async def _hold(self, link: _Link, epoch: int) -> None:
        """Connect, list the tools, then stay connected until stopped or the server exits."""
        from codebot.mcp.connect import ConnectError, log_path, open_stdio, said

        if link.d.transport == "http":  # a connection, not a process (session_http.py)
            return await hold_http(self, link, epoch)
        d = link.d
        link.log = str(log_path(self.home, d.name))
        stop, settled = link.stop, link.settled
        assert stop is not None and settled is not None
        pid = None
        try:
            async with open_stdio(
                d, home=self.home, project=self.project, environ=self.environ
            ) as pipe:
                pid = pipe.process.pid
                link.pids.add(pid)
                self.track(pid)
                await self._serve(link, pipe, epoch)
        except ConnectError as exc:
            self._down(link, str(exc), epoch)
        except asyncio.CancelledError:
            self._down(link, "stopped", epoch)
            raise
        except Exception as exc:  # the server's fault, whatever the SDK raised for it
            if timed_out(exc):
                self._down(
                    link,
                    f"did not answer initialize and tools/list within its startup_timeout "
                    f"({d.startup_timeout:g} s); {_see(link)}",
                    epoch,
                )
            else:
                self._down(link, f"{said(exc)}; {_see(link)}", epoch)
        finally:
            if pid is not None:
                link.pids.discard(pid)
                self.untrack(pid)
            if epoch == link.epoch:
                link.session = None
                if stop.is_set():
                    link.status = "stopped"
            settled.set()

    async def _serve(self, link: _Link, pipe: Pipe, epoch: int) -> None:
        """The protocol over a started server: initialize and list within its
        startup_timeout, then ready until stopped or the process exits."""
        import anyio
        from mcp.client.session import ClientSession

        stop, exited, settled = link.stop, link.exited, link.settled
        assert stop is not None and exited is not None and settled is not None
        watcher = asyncio.get_running_loop().create_task(
            self._watch_exit(pipe.process, link, epoch, exited)
        )
        try:
            async with ClientSession(
                pipe.read,
                pipe.write,
                message_handler=self._handler(link),
                client_info=client_info(),
            ) as session:
                with anyio.fail_after(link.d.startup_timeout):
                    init = await session.initialize()
                    tools = await self._list(link, session)
                if epoch != link.epoch or exited.is_set():
                    return
                info = init.server_info
                link.server = f"{info.name} {info.version}".strip()
                link.session, link.tools, link.status = session, tools, "ready"
                link.failures, link.error = 0, ""
                self.generation += 1
                settled.set()
                await first(stop.wait(), exited.wait())
        finally:
            watcher.cancel()

    async def _watch_exit(
        self, process: Any, link: _Link, epoch: int, exited: asyncio.Event
    ) -> None:
        """When the server exits: it is down at once, and every call in flight is cut short."""
        with contextlib.suppress(Exception):
            await process.wait()
        if link.stop is None or not link.stop.is_set():
            code = process.returncode
            self._down(link, f"the server exited (code {code}); {_see(link)}", epoch)
        exited.set()
        for task in list(link.calls):
            link.cut.add(task)
            task.cancel()

    def _down(self, link: _Link, why: str, epoch: int) -> None:
        """The connection `epoch` is over: the first reason counts, once."""
        if epoch != link.epoch or link.down_at == epoch:
            return
        if link.stop is not None and link.stop.is_set():
            return
        link.down_at = epoch
        link.failures += 1
        link.status, link.error, link.session = "failed", why, None
        link.retry_at = time.monotonic() + min(BACKOFF_MAX, 2.0 ** (link.failures - 1))

    async def _list(self, link: _Link, session: ClientSession) -> tuple[RemoteTool, ...]:
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

    def _handler(self, link: _Link) -> Any:
        async def handle(message: object) -> None:
            from mcp_types import ToolListChangedNotification

            inner = getattr(message, "root", message)
            if isinstance(inner, ToolListChangedNotification):
                asyncio.get_running_loop().create_task(self._refresh(link))

        return handle

    async def _refresh(self, link: _Link) -> None:
        """List the tools again; a flood of list_changed costs one listing at a time."""
        if link.refreshing:
            link.again = True
            return
        link.refreshing = True
        try:
            while link.session is not None:
                link.again = False
                with contextlib.suppress(Exception):
                    link.tools = await asyncio.wait_for(
                        self._list(link, link.session), link.d.startup_timeout
                    )
                    self.generation += 1
                if not link.again:
                    break
        finally:
            link.refreshing = False

    # -- calls -------------------------------------------------------------------------

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        """Call a tool from any event loop; never raises but CancelledError (which cancels
        the call on the servers' loop, and so sends notifications/cancelled)."""
        loop = self._loop
        if loop is None or self._closed:
            return CallOutcome(error=f"MCP server {server} is not running (the session closed)")
        caller = asyncio.get_running_loop()
        done: asyncio.Future[CallOutcome] = caller.create_future()
        running: list[asyncio.Task[CallOutcome]] = []

        def settle(task: asyncio.Task[CallOutcome]) -> None:  # on the caller's loop
            if done.done():
                return
            if task.cancelled():
                done.cancel()
            elif (exc := task.exception()) is not None:
                done.set_exception(exc)
            else:
                done.set_result(task.result())

        def begin() -> None:  # on the servers' loop
            task = loop.create_task(self._call(server, tool, arguments))
            running.append(task)
            task.add_done_callback(lambda t: caller.call_soon_threadsafe(settle, t))

        # One wake-up each way (cheaper than run_coroutine_threadsafe + wrap_future).
        try:
            loop.call_soon_threadsafe(begin)
        except RuntimeError:  # its loop has just closed
            return CallOutcome(error=f"MCP server {server} is not running (the session closed)")
        try:
            return await done
        except asyncio.CancelledError:
            with contextlib.suppress(RuntimeError):  # FIFO: runs after `begin`
                loop.call_soon_threadsafe(lambda: [t.cancel() for t in running])
            raise

    async def _usable(self, server: str, use: str) -> tuple[_Link | None, str]:
        """The server's link, up if it can be: a failed one started again once its backoff
        has passed, a starting one waited for. (link, "") or (None, why not)."""
        link = self._links.get(server)
        if link is None:
            return None, f"no MCP server {server} in this session"
        if link.status == "failed":
            wait = link.retry_at - time.monotonic()
            if wait > 0:
                return None, (
                    f"MCP server {server} is down ({link.error}); it is started again "
                    f"on {use} in {wait:.0f} s or later"
                )
            self._spawn(link)
        if link.status == "starting" and link.settled is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(link.settled.wait(), link.d.startup_timeout + 1)
        return link, ""

    async def _call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        link, why = await self._usable(server, "a call")
        if link is None:
            return CallOutcome(error=why)
        session, exited = link.session, link.exited
        if link.status != "ready" or session is None or exited is None:
            return CallOutcome(error=f"MCP server {server} is not ready: {link.error or 'down'}")
        return await self._request(link, session, exited, tool, arguments)

    async def _request(
        self,
        link: _Link,
        session: ClientSession,
        exited: asyncio.Event,
        tool: str,
        arguments: dict[str, Any],
    ) -> CallOutcome:
        """The request itself, in this task (no task of its own: a call costs little more
        than the SDK's); the exit watcher cancels it when the server exits."""
        from codebot.mcp.connect import said

        task = asyncio.current_task()
        assert task is not None
        link.calls.add(task)
        try:
            async with asyncio.timeout(link.d.timeout):
                return CallOutcome(result=await session.call_tool(tool, arguments))
        except asyncio.CancelledError:
            if task not in link.cut:
                raise  # the turn was cancelled: the SDK has sent notifications/cancelled
            task.uncancel()
            return self._exited_during(link)
        except TimeoutError:
            return CallOutcome(
                error=f"MCP server {link.d.name} did not answer within its timeout "
                f"({link.d.timeout:g} s); the call was cancelled"
            )
        except Exception as exc:
            if closed(exc):  # the pipe closed: did the server exit?
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(exited.wait(), 1.0)
            if exited.is_set():
                return self._exited_during(link)
            return CallOutcome(error=f"the server answered with an error: {said(exc)}")
        finally:
            link.calls.discard(task)
            link.cut.discard(task)

    def _exited_during(self, link: _Link) -> CallOutcome:
        if link.d.transport == "http":
            return CallOutcome(error=lost_during(link))
        return CallOutcome(
            error=f"MCP server {link.d.name} exited during the call; {_see(link)}; it is "
            "started again on its next use"
        )


def _see(link: _Link) -> str:
    return f"its stderr is in {link.log}" if link.log else "see its log"
