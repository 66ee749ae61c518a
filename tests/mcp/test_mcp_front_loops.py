"""The front ends' turns and their session's MCP servers share one event loop
(codebot/mcp/host.py): the TUI's app loop and line mode's loop (`-p` starts them on its
turn's loop: tests/mcp/test_mcp_tools_e2e.py runs it). No thread of the servers' own; the
tool's result reaches the model; the servers are ended on that loop before it closes.
Real `raw_server.py` processes, the scripted model."""

from __future__ import annotations

import asyncio
import io
import re
import threading
import time
from pathlib import Path

import pytest
from test_mcp_session import call, user_server  # noqa: F401 (its fixture: the raw server)
from test_session_servers import alive

from codebot.agent.model import ScriptedModel
from codebot.agent.session.mcp_setup import servers_of
from codebot.config import load_settings
from codebot.ui.controller import Controller

pytestmark = pytest.mark.usefixtures("user_server")


def scripted() -> ScriptedModel:
    return ScriptedModel([call("mcp__raw__pid"), {"text": "done"}])


def controller(project: Path, client: ScriptedModel) -> Controller:
    return Controller(
        load_settings(cwd=project), client=client, interactive=True, allow=["mcp__raw"]
    )


def pid_sent(client: ScriptedModel) -> int:
    """The server's pid, as its tool result reached the model's second request."""
    (request,) = client.requests[1:2]
    texts = [str(m.get("content")) for m in request.messages if m.get("role") == "tool"]
    found = [int(t) for t in texts if re.fullmatch(r"\d+", t.strip())]
    assert found, texts
    return found[0]


def own_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "codebot-mcp"]


async def test_the_tuis_turn_calls_its_servers_on_the_apps_loop(project: Path) -> None:
    from codebot.ui.tui.app import CodebotApp

    client = scripted()
    ctrl = controller(project, client)
    app = CodebotApp(ctrl, watch_skills=False)
    servers = servers_of(ctrl.session)
    assert servers is not None
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"go", "enter")
        end = time.monotonic() + 30
        while (client.remaining or app.turns.busy) and time.monotonic() < end:
            await pilot.pause(0.05)
        assert client.remaining == 0 and not app.turns.busy
        assert servers.host.loop is asyncio.get_running_loop()  # the app's loop
        assert servers.host.thread is None and own_threads() == []
        pid = pid_sent(client)
        assert alive(pid)
    assert servers.status()[0]["status"] == "stopped"  # ended on the app's loop, at unmount
    assert not alive(pid)
    ctrl.close()


def test_line_modes_turn_calls_its_servers_on_its_loop(project: Path) -> None:
    from codebot.ui.line.repl import LineApp

    client = scripted()
    ctrl = controller(project, client)
    servers = servers_of(ctrl.session)
    assert servers is not None
    out = io.StringIO()
    assert LineApp(ctrl, input=io.StringIO("go\n"), output=out, watch=False).run() == 0
    assert "done" in out.getvalue()
    pid = pid_sent(client)
    loop = servers.host.loop
    assert loop is not None and loop.is_closed()  # line mode's loop, over with the app
    assert servers.host.thread is None  # never a thread of their own
    assert servers.status()[0]["status"] == "stopped"  # ended on that loop, before it closed
    assert not alive(pid)
    ctrl.close()
