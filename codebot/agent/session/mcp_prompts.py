"""`/mcp__<server>__<prompt> args`: an MCP server's prompt typed by the person (docs/mcp.md).

`expand(session, text)` is None when `text` names no prompt of the session's servers (it
is then a skill or a message as before). Otherwise it binds the typed arguments to the
prompt's (`codebot.mcp.prompts.bind`), runs `prompts/get` on the servers' loop and returns
the rendered text, which enters the conversation as an inline skill's does: the user
message, remembered among the skills in force (compaction re-attaches it) and announced
as a `SkillActivated` of source `mcp:<server>`. A problem is a `PromptRefused` whose
message names the command and what to do.

Only the session's servers have prompts here, and those are the approved servers of a
trusted project (`mcp.startable`): an unapproved or untrusted server's prompt never appears.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from codebot.agent.session import events as ev
from codebot.agent.session.compact import InForce
from codebot.agent.session.emit import Emit
from codebot.agent.session.state import SessionState
from codebot.agent.session.toolset import Toolset
from codebot.agent.session.transcript import Transcript
from codebot.skills.catalog import Catalog

if TYPE_CHECKING:
    from codebot.mcp.live_servers import LiveServers
    from codebot.mcp.prompts import RemotePrompt

__all__ = ["PREFIX", "PromptRefused", "expand", "find", "live_servers"]

PREFIX = "/mcp__"


class SessionLike(Protocol):
    """What this module reads of the session (`loop.Session`, which imports this module)."""

    catalog: Catalog
    state: SessionState
    transcript: Transcript | None
    emit: Emit
    toolset: Toolset


@dataclass(frozen=True)
class PromptRefused:
    message: str


def live_servers(session: SessionLike) -> LiveServers | None:
    from codebot.mcp.live_servers import LiveServers

    mcp = session.toolset.mcp  # as `mcp_setup.servers_of` (which imports the loop)
    servers = mcp.servers if mcp is not None else None
    return servers if isinstance(servers, LiveServers) else None


def find(servers: LiveServers, command: str) -> RemotePrompt | None:
    from codebot.mcp.prompts import command_names

    return command_names(servers.prompts()).get(command)


async def expand(session: SessionLike, text: str) -> str | PromptRefused | None:
    """The prompt's text for `/mcp__server__prompt args`, why not, or None (not a prompt)."""
    from codebot.mcp.prompts import ArgumentError, bind, describe, render, shown

    if not text.startswith(PREFIX):
        return None
    servers = live_servers(session)
    if servers is None:
        return None
    command, _, typed = text[1:].partition(" ")
    prompt = find(servers, command)
    if prompt is None and servers.starting():  # `-p` at once, or typed just after start
        await asyncio.to_thread(servers.wait_started)
        prompt = find(servers, command)
    if prompt is None:
        if session.catalog.snapshot.get(command) is not None:
            return None  # a skill of that name
        return PromptRefused(
            f"no MCP prompt /{shown(command, 80)} among the servers' prompts "
            f"({shown(describe(servers.prompts()), 400)}); /mcp shows the servers"
        )
    try:
        arguments = bind(prompt, typed.strip())
    except ArgumentError as exc:
        return PromptRefused(f"/{command}: {exc}")
    got = await servers.get_prompt(prompt.server, prompt.name, arguments)
    if got.error:
        return PromptRefused(f"/{command}: {got.error}")
    body = render(command, prompt, got.result, arguments)
    _in_force(session, command, body, prompt.server)
    return body


def _in_force(session: SessionLike, command: str, body: str, server: str) -> None:
    """As an inline skill's text: remembered (compaction re-attaches it) and announced."""
    item = InForce(command, command, body, time.time())
    session.state.in_force.append(item)
    if session.transcript is not None:
        session.transcript.mark("skill", **item.to_json())
    session.emit(ev.SkillActivated(command, "human", "inline", f"mcp:{server}"))
