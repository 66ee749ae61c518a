"""A session's MCP servers: which start (`codebot.mcp.startable`), started in the background
on the loop the session's turns run on (the front end's), their tools in its registry
(`McpTools`), and closing them."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from codebot.config import Settings

if TYPE_CHECKING:
    import asyncio

    from codebot.agent.session.loop import Session
    from codebot.mcp.config import ServerDef
    from codebot.mcp.session_servers import SessionServers

__all__ = [
    "aclose_servers",
    "admit_approved",
    "any_servers",
    "attach_servers",
    "close_servers",
    "servers_of",
    "start_servers",
]


def attach_servers(session: Session, settings: Settings, notices: list[str]) -> None:
    """The session's approved servers, started in the background on the front end's loop
    (`start_servers`: print mode when its loop runs, the TUI and line mode after the first
    paint; else at the first request; the first request waits for them, each within its
    startup_timeout), their tools in its registry from then on; what does not start is
    said."""
    if not any_servers(settings):
        return  # nothing defined anywhere: not even the MCP modules are loaded
    from codebot.mcp.startable import startable

    # The TUI and line mode ask about unapproved project servers after the first paint
    # (`ui/mcp_start.py`), then call `admit_approved`: no notice for them here.
    chosen, said = startable(settings, asked=session.interactive)
    notices.extend(said)
    if chosen:
        _attach(session, settings, chosen, notices)


def any_servers(settings: Settings) -> bool:
    """Whether any server could be defined: a `.mcp.json` in the project, an `mcp` section
    in the config, or `--mcp-config` files (a cheap look, before any MCP module loads)."""
    return bool(
        settings.mcp_configs
        or settings.raw.get("mcp")
        or os.path.lexists(settings.project_dir / ".mcp.json")
    )


def admit_approved(session: Session, loop: asyncio.AbstractEventLoop | None = None) -> list[str]:
    """After the question at start (so after the first paint): the servers approved since
    the session was built join it, and the session's servers start (on `loop`, the front
    end's). The names added."""
    from codebot.mcp.startable import startable

    chosen, _ = startable(session.settings, asked=True)
    servers = servers_of(session)
    if servers is None:
        if not chosen:
            return []
        _attach(session, session.settings, chosen, [])
        added = [d.name for d in chosen]
    else:
        added = servers.add(chosen)
    start_servers(session, loop)
    return added


def _attach(
    session: Session, settings: Settings, chosen: list[ServerDef], notices: list[str]
) -> None:
    from codebot.agent.session.context import resolve_window
    from codebot.agent.tools import McpTools
    from codebot.mcp.session_skills import SkillServers, source_set
    from codebot.mcp.startable import budget_percent

    percent, warning = budget_percent(settings)
    if warning:
        notices.append(warning)
    from codebot.agent.tools.shell import install_handlers, track_group, untrack_group

    install_handlers()  # from this (usually the main) thread: the servers' cannot

    servers = SkillServers(  # SessionServers with prompts, reconnect and skills
        chosen,
        home=settings.home,
        project=settings.project_dir,
        environ=os.environ,
        track=track_group,  # ended at exit and on SIGTERM/SIGHUP like Bash's groups
        untrack=untrack_group,
    )
    # Their SEP-2640 skills join every snapshot of the session's catalog (mcp/session_skills).
    session.catalog.sources = source_set(servers)
    if not session.interactive:
        servers.prepare()  # print mode: the SDK's import begins now; the start on its loop
    session.toolset.mcp = McpTools(
        servers,
        session.registry,
        window=lambda: resolve_window(session.settings, session.client, may_import=False)[0],
        budget_percent=percent,
    )


def start_servers(session: Session, loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Start the session's servers now on `loop`, the one the session's turns run on (the
    TUI and line mode: after the first paint; print mode: when its loop begins; otherwise
    the first request does). Calls from that loop then cost what the SDK's own do."""
    servers = servers_of(session)
    if servers is not None:
        servers.start(loop)


def servers_of(session: Session) -> SessionServers | None:
    mcp = session.toolset.mcp
    return mcp.servers if mcp is not None else None


def close_servers(session: Session) -> None:
    """Stop the session's servers and kill their process groups (idempotent)."""
    servers = servers_of(session)
    if servers is not None:
        servers.close()


async def aclose_servers(session: Session) -> None:
    """`close_servers`, awaited on the loop they run on (each HTTP session ended too)."""
    servers = servers_of(session)
    if servers is not None:
        await servers.aclose()
