"""A session's servers' SEP-2640 skills (docs/mcp.md, "Skills from servers").

`SkillServers` is the session's `LiveServers` with its servers' skills (a subclass, so
`session_servers.py`, which several changes extend at once, stays as it is). On the
servers' own loop, when a server connects (stdio or HTTP): its skill source
(`server_skills.skill_source`, within half its startup_timeout, so a server whose
`skills/list` hangs still starts; a failed listing is a problem shown with the skills,
never a failed server); listed again when the server sends
`notifications/resources/list_changed` (SEP-2640 names no notification of its own; a flood
costs one listing at a time). A server that declares no `tools` (skills only) is not
asked `tools/list`, which it would answer with "Method not found".

For the session (any loop, any thread): `source_set(servers)` is the `SourceSet` the
session's catalog joins to every snapshot; each server's skills are a `ServerSource`,
whose `fetch_body` and `read_file` run on the servers' loop (in the caller's task when
that is the caller's loop, else one hop each way: `host.Host.run`, like
`SessionServers.call`), start a server that went down again (after its backoff, like a
tool call) and fail with a `SourceError` naming the server when it cannot answer.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from codebot.mcp.live_servers import LiveServers

if TYPE_CHECKING:
    from collections.abc import Hashable

    from mcp.client.session import ClientSession

    from codebot.mcp.link import Link
    from codebot.mcp.remote import RemoteTool
    from codebot.mcp.server_skills import ServerSkills
    from codebot.skills.catalog import SkillSource, SourceSet
    from codebot.skills.files import Spec

__all__ = ["ServerSource", "SkillServers", "has_tools", "source_set"]

_T = TypeVar("_T")
_listed = itertools.count(1)  # stamps: a global count, so a token is never seen twice


def has_tools(session: ClientSession) -> bool:
    """Whether the server declared tools (a SEP-2640 server may declare only skills)."""
    caps = session.server_capabilities
    return caps is None or caps.tools is not None


class SkillServers(LiveServers):
    """The session's servers with their skills (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: server name -> its skill source (kept while it is down: using one restarts it)
        self.skills: dict[str, ServerSkills] = {}
        #: server name -> when its skills were last listed (`source_set`'s token)
        self.skill_stamps: dict[str, int] = {}

    def status(self) -> list[dict[str, object]]:
        """LiveServers' rows, each with its server's skill count (the live `/mcp`)."""
        rows = super().status()
        for row in rows:
            source = self.skills.get(str(row["name"]))
            if source is not None:
                row["skills"] = len(source.specs())
        return rows

    async def _list(self, link: Link, session: ClientSession) -> tuple[RemoteTool, ...]:
        if has_tools(session):
            tools = await super()._list(link, session)
        else:  # skills only: no tools/list; the prompts as LiveServers lists them
            tools = ()
            if not link.refreshing:
                await self._list_prompts(link, session)
        if not link.refreshing:  # at connect (a tools list_changed lists only the tools)
            await self._connect_skills(link, session)
        return tools

    async def _connect_skills(self, link: Link, session: ClientSession) -> None:
        from codebot.mcp.server_skills import ServerSkills, skill_source
        from codebot.skills.catalog import SourceError

        d = link.d
        try:
            source = await skill_source(session, d.name, timeout=max(0.5, d.startup_timeout / 2))
        except SourceError as exc:
            source = ServerSkills(session, d.name, directory_read=False)
            source.problems = [f"{source.label}: no skills loaded: {exc}"]
        if source is None:
            self.skills.pop(d.name, None)
        else:
            source.timeout = d.timeout  # each request on invocation, like a tool call
            self.skills[d.name] = source
        self.skill_stamps[d.name] = next(_listed)

    def _handler(self, link: Link) -> Any:
        others = super()._handler(link)

        async def handle(message: object) -> None:
            from mcp_types import ResourceListChangedNotification

            await others(message)
            inner = getattr(message, "root", message)
            if isinstance(inner, ResourceListChangedNotification):
                asyncio.get_running_loop().create_task(self._skills_changed(link))

        return handle

    async def _skills_changed(self, link: Link) -> None:
        """List the skills again; a flood of list_changed costs one listing at a time."""
        from codebot.skills.catalog import SourceError

        name = link.d.name

        async def once() -> None:
            source = self.skills.get(name)
            if source is None:
                return
            try:
                await source.refresh()
            except SourceError as exc:
                source.problems = [f"{source.label}: skills not listed again: {exc}"]
            self.skill_stamps[name] = next(_listed)

        def more() -> bool:
            return name in self.skills and link.session is not None

        await link.listing("skills").run(once, more)


class ServerSource:
    """One server's skills as the session's catalog sees them (a `SkillSource`): always
    the server's current source, so a restarted server's new listing is the one used."""

    def __init__(self, servers: SkillServers, name: str) -> None:
        self.servers = servers
        self.server = name

    @property
    def label(self) -> str:
        return f"mcp:{self.server}"

    def specs(self) -> Sequence[Spec]:
        source = self.servers.skills.get(self.server)
        return source.specs() if source is not None else ()

    @property
    def problems(self) -> list[str]:
        source = self.servers.skills.get(self.server)
        return list(source.problems) if source is not None else []

    async def fetch_body(self, spec: Spec) -> str:
        """The checked body of one of its skills (`ServerSkills.fetch_body`)."""
        return await self._hop(lambda: self._fetch_body(spec))

    async def read_file(self, spec: Spec, path: str) -> bytes:
        """A supporting file the skill lists, checked (`ServerSkills.read_file`)."""
        return await self._hop(lambda: self._read_file(spec, path))

    async def _fetch_body(self, spec: Spec) -> str:
        return await (await self._ready()).fetch_body(spec)

    async def _read_file(self, spec: Spec, path: str) -> bytes:
        return await (await self._ready()).read_file(spec, path)

    async def _ready(self) -> ServerSkills:  # on the servers' loop
        """The server's source once it is connected: a server that went down is started
        again, as a tool call would (after its backoff, `SessionServers._usable`)."""
        from codebot.skills.catalog import SourceError

        if self.server not in self.servers.skills:
            raise SourceError(f"MCP server {self.server!r} has no skills in this session")
        link, why = await self.servers._usable(self.server, "its next use")
        source = self.servers.skills.get(self.server)
        if link is None or link.status != "ready" or link.session is None or source is None:
            why = why or (link.error or link.status if link is not None else "gone")
            raise SourceError(f"MCP server {self.server!r} is not running ({why}); try again")
        return source

    async def _hop(self, make: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
        """Run `make()` on the servers' loop (from it: in this task); cancelling this
        cancels it there."""
        from codebot.skills.catalog import SourceError

        def gone() -> _T:
            raise SourceError(f"MCP server {self.server!r} is not running (the session closed)")

        if self.servers._closed:
            return gone()
        return await self.servers.host.run(make, gone)


def source_set(servers: SkillServers) -> SourceSet:
    """The `SourceSet` for a session's catalog: the servers that have skills, in their
    order; its token changes when one is listed (again)."""
    from codebot.skills.catalog import SourceSet

    made: dict[str, ServerSource] = {}

    def provider() -> tuple[Hashable, Sequence[SkillSource]]:
        skills, stamps = servers.skills, servers.skill_stamps
        names = [n for n in servers._links if n in skills]
        token = tuple((n, id(skills.get(n)), stamps.get(n)) for n in names)
        for n in names:
            if n not in made:
                made[n] = ServerSource(servers, n)
        return token, [made[n] for n in names]

    async def settle() -> None:
        """Wait for servers still starting (each bounded by its startup_timeout)."""
        if not servers.names():
            return
        servers.start(asyncio.get_running_loop())  # on the loop of the session's turns
        end = time.monotonic() + servers.longest_start()
        while servers.starting() and time.monotonic() < end:
            await asyncio.sleep(0.01)  # polled: a cancelled turn stops waiting at once

    return SourceSet(provider, settle)
