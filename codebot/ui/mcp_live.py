"""`/mcp` over a session's live MCP connections, and its prompts for completion.

- `run(settings, args, probes, servers)`: when the session has servers, `/mcp` shows their
  live standing (`SessionServers.status()`: starting, ready, failed (never came up), down
  (was connected, exited or stopped since), tool and prompt counts, the last error) over the
  approval standing of the others (`mcp_view.rows`), through `mcp_view.render`.
  Before the session has started its servers (the instant before the first paint) it is
  `mcp_view.run` as with none. `/mcp reconnect NAME` of a live server kills its connection
  and starts it again (`LiveServers.reconnect`, blocking: the command runs off the event
  loop); of another server, and `/mcp probe`, it is `mcp_view.run`'s one-shot probe.
- `prompt_completions(session)`: each ready server's prompt as a completion
  `/mcp__<server>__<prompt>`, its arguments as the hint (`<required> [optional]`), its
  description on screen without control characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from codebot.ui.commands import Completion
from codebot.ui.mcp_view import NAME_WIDTH, Row, render, rows
from codebot.ui.mcp_view import run as probe_run

if TYPE_CHECKING:
    from codebot.agent.session.loop import Session
    from codebot.config import Settings
    from codebot.mcp.connect import Probe
    from codebot.mcp.session_servers import SessionServers

__all__ = ["live_rows", "prompt_completions", "run"]


def prompt_completions(session: Session) -> list[Completion]:
    from codebot.agent.session.mcp_prompts import live_servers
    from codebot.mcp.prompts import command_names, hint, shown

    servers = live_servers(session)
    if servers is None:
        return []
    return [
        Completion(name, hint(p), shown(p.description), "prompt", f"mcp:{shown(p.server, 40)}")
        for name, p in command_names(servers.prompts()).items()
    ]


def _state(st: Mapping[str, object]) -> str:
    status = str(st.get("status", ""))
    if status == "stopped" or (status == "failed" and st.get("ever_ready")):
        return "down"
    return status


def _count(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _live(row: Row, st: Mapping[str, object]) -> Row:
    status = _state(st)
    counted = status in ("ready", "down")
    return replace(
        row,
        status=status,
        tools=_count(st.get("tools")) if counted else row.tools,
        prompts=_count(st.get("prompts")) if counted else row.prompts,
        skills=_count(st.get("skills")) if "skills" in st else row.skills,
        error=str(st.get("error") or ""),
        hint="",
    )


def live_rows(
    settings: Settings, servers: SessionServers, probes: Mapping[str, Probe] | None = None
) -> tuple[list[Row], list[str]]:
    """The servers in force, the session's own from their live connections."""
    table, problems = rows(settings, probes)
    live = {str(st["name"]): st for st in servers.status()}
    out = [_live(r, live[r.name]) if r.name in live else r for r in table]
    shown_names = {r.name for r in table}
    out += [_live(Row(n, "session", ""), st) for n, st in live.items() if n not in shown_names]
    return out, problems


def run(
    settings: Settings,
    args: str,
    probes: Mapping[str, Probe] | None,
    servers: SessionServers | None,
) -> tuple[str, dict[str, Probe]]:
    """`/mcp [probe [NAME] | reconnect NAME]` with the session's live servers."""
    from codebot.mcp.live_servers import LiveServers

    if not isinstance(servers, LiveServers) or not servers.names() or not servers.started():
        return probe_run(settings, args, probes)  # no live connection (yet): standing, probes
    known = dict(probes or {})
    verb, _, rest = args.strip().partition(" ")
    name = rest.strip()
    said = ""
    if verb == "reconnect" and name in servers.names():
        ready = servers.reconnect(name)
        said = (
            f"/mcp: {_name(name)} reconnected" if ready else f"/mcp: {_name(name)} did not come up"
        )
    elif verb:
        text, known = probe_run(settings, args, known)
        if text.startswith(("usage:", "/mcp:")):
            return text, known
        # "check now": the session's own servers still starting are waited for (each
        # within its startup_timeout; this runs off the event loop), so the table says
        # how they came up rather than "starting".
        servers.wait_started()
    table, problems = live_rows(settings, servers, known)
    text = render(table, problems)
    return (f"{said}\n{text}" if said else text), known


def _name(name: str) -> str:
    from codebot.ui.mcp_view import _shown

    return _shown(name, NAME_WIDTH)
