"""A session's MCP servers: which start (`codebot.mcp.startable`), started in the background
once the session is built, their tools in its registry (`McpTools`), and closing them."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from codebot.config import Settings

if TYPE_CHECKING:
    from codebot.agent.session.loop import Session
    from codebot.mcp.session_servers import SessionServers

__all__ = ["attach_servers", "close_servers", "servers_of", "start_servers"]


def attach_servers(session: Session, settings: Settings, notices: list[str]) -> None:
    """The session's approved servers, started in the background (print mode: now; the
    TUI and line mode: after the first paint, `start_servers`, or at the first request;
    the first request waits for them, each within its startup_timeout), their tools in
    its registry from then on; what does not start is said."""
    from codebot.mcp.startable import budget_percent, startable

    chosen, said = startable(settings)
    notices.extend(said)
    if not chosen:
        return
    from codebot.agent.session.context import resolve_window
    from codebot.agent.tools import McpTools
    from codebot.mcp.session_servers import SessionServers

    percent, warning = budget_percent(settings)
    if warning:
        notices.append(warning)
    from codebot.agent.tools.shell import install_handlers, track_group, untrack_group

    install_handlers()  # from this (usually the main) thread: the servers' cannot

    servers = SessionServers(
        chosen,
        home=settings.home,
        project=settings.project_dir,
        environ=os.environ,
        track=track_group,  # ended at exit and on SIGTERM/SIGHUP like Bash's groups
        untrack=untrack_group,
    )
    if not session.interactive:
        servers.start()  # print mode: no paint to wait for
    session.toolset.mcp = McpTools(
        servers,
        session.registry,
        window=lambda: resolve_window(session.settings, session.client, may_import=False)[0],
        budget_percent=percent,
    )


def start_servers(session: Session) -> None:
    """Start the session's servers now (the TUI and line mode: after the first paint;
    otherwise the first request does)."""
    servers = servers_of(session)
    if servers is not None:
        servers.start()


def servers_of(session: Session) -> SessionServers | None:
    mcp = session.toolset.mcp
    return mcp.servers if mcp is not None else None


def close_servers(session: Session) -> None:
    """Stop the session's servers and kill their process groups (idempotent)."""
    servers = servers_of(session)
    if servers is not None:
        servers.close()
