"""One server's state in a session (`Link`) and what every transport does with it: the
server came up (`came_up`), it went down (`went_down`), a listing asked for again while it
runs (`Coalesce`). Shared by the stdio (`session_stdio`) and HTTP (`session_http`)
connections and `SessionServers` (docs/mcp.md, "Servers in a session").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from codebot.mcp.config import ServerDef
from codebot.mcp.remote import RemoteTool, first

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp_types import InitializeResult

__all__ = [
    "BACKOFF_MAX",
    "Coalesce",
    "Link",
    "Versioned",
    "came_up",
    "cut_call",
    "cut_calls",
    "see",
    "stay_up",
    "went_down",
]

#: Seconds before a server that went down may be started again: 1, 2, 4, ... at most 60.
BACKOFF_MAX = 60.0


class Coalesce:
    """One listing at a time: asked again while it runs, it runs once more after, however
    many times it was asked (a flood of list_changed costs a few listings, not hundreds)."""

    __slots__ = ("again", "running")

    def __init__(self) -> None:
        self.running = False
        self.again = False

    async def run(self, once: Callable[[], Awaitable[object]], more: Callable[[], bool]) -> None:
        """`once()` now (or after the listing running now), while `more()` holds."""
        if self.running:
            self.again = True
            return
        self.running = True
        try:
            while more():
                self.again = False
                await once()
                if not self.again:
                    break
        finally:
            self.running = False


@dataclass
class Link:
    """One server of a session: its definition, its current connection and what it listed.
    Read from any thread; changed only on the loop the servers run on."""

    d: ServerDef
    status: str = "starting"  # starting | ready | failed | stopped
    error: str = ""
    server: str = ""  # its name and version, as it says
    tools: tuple[RemoteTool, ...] = ()
    session: ClientSession | None = None
    failures: int = 0
    epoch: int = 0  # which connection is current (each start is a new one)
    down_at: int = -1  # the connection that went down (counted once)
    was_up: bool = False  # that connection had come up (the server went away after)
    retry_at: float = 0.0
    log: str = ""
    stop: asyncio.Event | None = None
    exited: asyncio.Event | None = None
    settled: asyncio.Event | None = None
    task: asyncio.Task[None] | None = None
    pids: set[int] = field(default_factory=set)
    calls: set[asyncio.Task[object]] = field(default_factory=set)  # calls in flight
    #: calls cancelled by the session, and why: "gone" (the connection ended), "timeout"
    cut: dict[asyncio.Task[object], str] = field(default_factory=dict)
    listings: dict[str, Coalesce] = field(default_factory=dict)  # "tools", "prompts", ...

    def listing(self, kind: str) -> Coalesce:
        """The coalesced listing of one kind (tools, prompts, skills) of this server."""
        found = self.listings.get(kind)
        if found is None:
            found = self.listings[kind] = Coalesce()
        return found

    @property
    def refreshing(self) -> bool:
        """Whether its tools are being listed again (after list_changed), not at connect."""
        found = self.listings.get("tools")
        return found is not None and found.running


class Versioned(Protocol):
    """What `came_up` bumps: the owner's count of tool changes."""

    generation: int


def came_up(
    owner: Versioned,
    link: Link,
    epoch: int,
    gone: asyncio.Event,
    init: InitializeResult,
    session: ClientSession,
    tools: tuple[RemoteTool, ...],
) -> bool:
    """The connection `epoch` answered initialize and its lists: the link is ready (and
    those waiting for it are woken). False when that connection is over already."""
    if epoch != link.epoch or gone.is_set():
        return False
    info = init.server_info
    link.server = f"{info.name} {info.version}".strip()
    link.session, link.tools, link.status = session, tools, "ready"
    link.failures, link.error = 0, ""
    owner.generation += 1
    if link.settled is not None:
        link.settled.set()
    return True


async def stay_up(link: Link, gone: asyncio.Event) -> None:
    """Until the session stops the link or its connection is over."""
    assert link.stop is not None
    await first(link.stop.wait(), gone.wait())


def went_down(link: Link, why: str, epoch: int) -> None:
    """The connection `epoch` is over: the first reason counts, once; the next start waits
    its backoff (1, 2, 4 ... 60 s from now)."""
    if epoch != link.epoch or link.down_at == epoch:
        return
    if link.stop is not None and link.stop.is_set():
        return
    link.down_at = epoch
    link.was_up = link.status == "ready"
    link.failures += 1
    link.status, link.error, link.session = "failed", why, None
    link.retry_at = time.monotonic() + min(BACKOFF_MAX, 2.0 ** (link.failures - 1))


def cut_calls(link: Link) -> None:
    """Cut short every call in flight on the link (its connection is over)."""
    for task in list(link.calls):
        cut_call(link, task, "gone")


def cut_call(link: Link, task: asyncio.Task[object], why: str) -> None:
    """Cancel one call in flight, saying why (its `_request` turns it into an error)."""
    if task in link.calls and task not in link.cut:
        link.cut[task] = why
        task.cancel()


def see(link: Link) -> str:
    """Where the server's stderr is, for an error message."""
    return f"its stderr is in {link.log}" if link.log else "see its log"
