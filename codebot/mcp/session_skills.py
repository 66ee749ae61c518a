"""A session's servers' SEP-2640 skills (docs/mcp.md, "Skills from servers").

On the servers' own loop (`session_servers`): `connect_skills` builds a ready server's skill
source (`server_skills.skill_source`, bounded by its startup_timeout; a failed
`skills/list` is a problem shown with the skills, never a failed server) and keeps it on
the link; `skills_message` lists them again when the server sends
`notifications/resources/list_changed` (SEP-2640 names no notification of its own; a flood
costs one listing at a time).

For the session (any loop, any thread): `source_set(servers)` is the `SourceSet` the
session's catalog joins to every snapshot; each server's skills are a `ServerSource`,
whose `fetch_body` and `read_file` run on the servers' loop (one hop each way, like
`SessionServers.call`) and fail with a `SourceError` naming the server when it is down.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Hashable

    from mcp.client.session import ClientSession

    from codebot.mcp.config import ServerDef
    from codebot.mcp.server_skills import ServerSkills
    from codebot.skills.catalog import SkillSource, SourceSet
    from codebot.skills.files import Spec

__all__ = ["ServerSource", "connect_skills", "has_tools", "skills_message", "source_set"]

_T = TypeVar("_T")


class _Link(Protocol):  # session_servers._Link (not imported: it imports this module)
    d: ServerDef
    status: str
    error: str
    session: ClientSession | None
    skills: ServerSkills | None
    retry_at: float
    settled: asyncio.Event | None


class SessionServers(Protocol):  # what this module reads of session_servers.SessionServers
    @property
    def _links(self) -> Mapping[str, _Link]: ...
    @property
    def _loop(self) -> asyncio.AbstractEventLoop | None: ...
    @property
    def _closed(self) -> bool: ...
    def names(self) -> list[str]: ...
    def start(self) -> None: ...
    def starting(self) -> bool: ...
    def longest_start(self) -> float: ...
    def _spawn(self, link: Any) -> None: ...


_refreshing: dict[int, bool] = {}  # id(link) -> another list_changed came meanwhile
_listed = itertools.count(1)
#: id(source) -> when it was last listed (a global count: a token is never seen twice)
_stamps: dict[int, int] = {}


async def connect_skills(link: _Link, session: ClientSession) -> None:
    """A server just initialized: its skills, if it declares them (module docstring)."""
    from codebot.mcp.server_skills import ServerSkills, skill_source
    from codebot.skills.catalog import SourceError

    d = link.d
    try:
        source = await skill_source(session, d.name, timeout=d.startup_timeout)
    except SourceError as exc:
        source = ServerSkills(session, d.name, directory_read=False)
        source.problems = [f"{source.label}: no skills loaded: {exc}"]
    if source is not None:
        source.timeout = d.timeout  # each request on invocation, like a tool call
    if source is not None:
        _stamps[id(source)] = next(_listed)
    link.skills = source


def has_tools(session: ClientSession) -> bool:
    """Whether the server declared tools (a SEP-2640 server may declare only skills, and
    answers `tools/list` with "Method not found")."""
    caps = session.server_capabilities
    return caps is None or caps.tools is not None


def skills_message(link: _Link, message: object) -> None:
    """A notification from the server (on its loop): its resources changed → list again."""
    from mcp_types import ResourceListChangedNotification

    if isinstance(message, ResourceListChangedNotification) and link.skills is not None:
        if id(link) in _refreshing:
            _refreshing[id(link)] = True
            return
        _refreshing[id(link)] = False
        asyncio.get_running_loop().create_task(_refresh(link))


async def _refresh(link: _Link) -> None:
    from codebot.skills.catalog import SourceError

    try:
        while (source := link.skills) is not None and link.session is not None:
            _refreshing[id(link)] = False
            try:
                await source.refresh()
            except SourceError as exc:
                source.problems = [f"{source.label}: skills not listed again: {exc}"]
            _stamps[id(source)] = next(_listed)
            if not _refreshing.get(id(link)):
                break
    finally:
        _refreshing.pop(id(link), None)


class ServerSource:
    """One server's skills as the session's catalog sees them (a `SkillSource`): always
    the link's current source, so a restarted server's new listing is the one used."""

    def __init__(self, servers: SessionServers, name: str) -> None:
        self.servers = servers
        self.server = name

    @property
    def label(self) -> str:
        return f"mcp:{self.server}"

    def _link(self) -> _Link | None:
        return self.servers._links.get(self.server)

    def specs(self) -> Sequence[Spec]:
        link = self._link()
        return link.skills.specs() if link is not None and link.skills is not None else ()

    @property
    def problems(self) -> list[str]:
        link = self._link()
        return list(link.skills.problems) if link is not None and link.skills else []

    async def fetch_body(self, spec: Spec) -> str:
        """The checked body of one of its skills (`ServerSkills.fetch_body`)."""
        return await self._hop(self._fetch_body(spec))

    async def read_file(self, spec: Spec, path: str) -> bytes:
        """A supporting file the skill lists, checked (`ServerSkills.read_file`)."""
        return await self._hop(self._read_file(spec, path))

    async def _fetch_body(self, spec: Spec) -> str:
        return await (await self._ready()).fetch_body(spec)

    async def _read_file(self, spec: Spec, path: str) -> bytes:
        return await (await self._ready()).read_file(spec, path)

    async def _ready(self) -> ServerSkills:  # on the servers' loop
        """The link's source once it is connected: a server that went down is started
        again, as a tool call would (no sooner than its backoff allows)."""
        from codebot.skills.catalog import SourceError

        link = self._link()
        if link is None or link.skills is None:
            raise SourceError(f"MCP server {self.server!r} has no skills in this session")
        if link.status == "failed" and time.monotonic() >= link.retry_at:
            self.servers._spawn(link)
        if link.status == "starting" and link.settled is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(link.settled.wait(), link.d.startup_timeout + 1)
        if link.status != "ready" or link.session is None or link.skills is None:
            why = link.error or link.status
            raise SourceError(f"MCP server {self.server!r} is not running ({why}); try again")
        return link.skills

    async def _hop(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run `coro` on the servers' loop; cancelling this cancels it there."""
        from codebot.skills.catalog import SourceError

        loop = self.servers._loop
        gone = SourceError(f"MCP server {self.server!r} is not running (the session closed)")
        if loop is None or self.servers._closed or loop.is_closed():
            coro.close()
            raise gone
        try:
            future = asyncio.run_coroutine_threadsafe(coro, loop)
        except RuntimeError:  # its loop has just closed
            coro.close()
            raise gone from None
        return await asyncio.wrap_future(future)


def source_set(servers: SessionServers) -> SourceSet:
    """The `SourceSet` for a session's catalog: the servers that have skills, in their
    order; its token changes when one is listed (again)."""
    from codebot.skills.catalog import SourceSet

    made: dict[str, ServerSource] = {}

    def provider() -> tuple[Hashable, Sequence[SkillSource]]:
        links = [(n, lk) for n, lk in servers._links.items() if lk.skills is not None]
        token = tuple((n, id(lk.skills), _stamps.get(id(lk.skills))) for n, lk in links)
        for n, _ in links:
            if n not in made:
                made[n] = ServerSource(servers, n)
        return token, [made[n] for n, _ in links]

    async def settle() -> None:
        """Wait for servers still starting (each bounded by its startup_timeout)."""
        if not servers.names():
            return
        servers.start()
        end = time.monotonic() + servers.longest_start()
        while servers.starting() and time.monotonic() < end:
            await asyncio.sleep(0.01)  # polled: a cancelled turn stops waiting at once

    return SourceSet(provider, settle)
