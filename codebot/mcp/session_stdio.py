"""A session's connection to a stdio MCP server: start its process (`connect.open_stdio`:
its own process group, its log), initialize and list within its `startup_timeout`, then
stay connected until the session stops it or the server goes away (docs/mcp.md).

The server going away is noticed when it happens, busy or idle: the process exits, or it
closes its output (end of stream) while still running. Either way the link is down at
once (`/mcp` says so), every call in flight is cut short with an error result, the
process group is killed, and the next use starts it again (after its backoff).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from codebot.mcp.link import Link, came_up, cut_calls, see, stay_up, went_down
from codebot.mcp.remote import client_info, first, timed_out

if TYPE_CHECKING:
    from anyio.abc import Process
    from mcp.client.session import ClientSession, MessageHandlerFnT

    from codebot.mcp.connect import Pipe
    from codebot.mcp.remote import RemoteTool

__all__ = ["Owner", "StdioOwner", "hold_stdio"]


class Owner(Protocol):
    """What a connection uses of `SessionServers` (it does not import it: no circle)."""

    generation: int

    def _handler(self, link: Link) -> MessageHandlerFnT: ...

    async def _list(self, link: Link, session: ClientSession) -> tuple[RemoteTool, ...]: ...


class StdioOwner(Owner, Protocol):
    """And what a stdio connection needs to start the process."""

    @property
    def home(self) -> Path: ...

    @property
    def project(self) -> Path: ...

    @property
    def environ(self) -> Mapping[str, str]: ...

    @property
    def track(self) -> Callable[[int], None]: ...

    @property
    def untrack(self) -> Callable[[int], None]: ...


async def hold_stdio(owner: StdioOwner, link: Link, epoch: int) -> None:
    """Start the server, connect, list its tools, then stay connected until stopped or
    the server goes away; every end is recorded on the link, nothing raises but a
    cancellation."""
    from codebot.mcp.connect import ConnectError, log_path, open_stdio, said

    d = link.d
    link.log = str(log_path(owner.home, d.name))
    stop, settled = link.stop, link.settled
    assert stop is not None and settled is not None
    pid = None
    try:
        async with open_stdio(
            d, home=owner.home, project=owner.project, environ=owner.environ
        ) as pipe:
            pid = pipe.process.pid
            link.pids.add(pid)
            owner.track(pid)
            await _serve(owner, link, pipe, epoch)
    except ConnectError as exc:
        went_down(link, str(exc), epoch)
    except asyncio.CancelledError:
        went_down(link, "stopped", epoch)
        raise
    except Exception as exc:  # the server's fault, whatever the SDK raised for it
        if timed_out(exc):
            why = (
                f"did not answer initialize and tools/list within its startup_timeout "
                f"({d.startup_timeout:g} s); {see(link)}"
            )
        else:
            why = f"{said(exc)}; {see(link)}"
        went_down(link, why, epoch)
    finally:
        if pid is not None:
            link.pids.discard(pid)
            owner.untrack(pid)
        if epoch == link.epoch:
            link.session = None
            if stop.is_set():
                link.status = "stopped"
        settled.set()


async def _serve(owner: StdioOwner, link: Link, pipe: Pipe, epoch: int) -> None:
    """The protocol over a started server: initialize and list within its
    startup_timeout, then ready until stopped or the server goes away."""
    import anyio
    from mcp.client.session import ClientSession

    exited = link.exited
    assert exited is not None
    watcher = asyncio.get_running_loop().create_task(_watch(pipe, link, epoch, exited))
    try:
        async with ClientSession(
            pipe.read,
            pipe.write,
            message_handler=owner._handler(link),
            client_info=client_info(),
        ) as session:
            with anyio.fail_after(link.d.startup_timeout):
                init = await session.initialize()
                tools = await owner._list(link, session)
            if came_up(owner, link, epoch, exited, init, session, tools):
                await stay_up(link, exited)
    finally:
        watcher.cancel()


async def _watch(pipe: Pipe, link: Link, epoch: int, exited: asyncio.Event) -> None:
    """When the server exits or closes its output: it is down at once, and every call in
    flight is cut short (the caller's `_request` turns that into an error result)."""
    process = pipe.process
    await first(_exit(process), pipe.ended.wait())
    if process.returncode is None:  # its output ended first: is it exiting too?
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_exit(process), 0.5)
    if link.stop is None or not link.stop.is_set():
        code = process.returncode
        if code is None:
            why = f"the server closed its output (still running: it is stopped); {see(link)}"
        else:
            why = f"the server exited (code {code}); {see(link)}"
        went_down(link, why, epoch)
    exited.set()
    cut_calls(link)


async def _exit(process: Process) -> None:
    with contextlib.suppress(Exception):
        await process.wait()
