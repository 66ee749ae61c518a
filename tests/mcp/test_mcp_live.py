"""`/mcp` over a session's live MCP connections (ui/mcp_live.py, mcp/live_servers.py):
status, counts and last error from the running servers, and `/mcp reconnect NAME`, through
real processes (`prompt_server.py`, the reference `mcp-server-time`)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session.mcp_setup import servers_of
from codebot.config import load_settings
from codebot.ui.controller import Controller

PROMPTS = Path(__file__).with_name("prompt_server.py")
HAS_TIME = importlib.util.find_spec("mcp_server_time") is not None
TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


@pytest.fixture
def session_with(project: Path, codebot_home: Path, tmp_path: Path):
    made: list[Controller] = []

    def make(**servers: dict) -> Controller:
        codebot_home.mkdir(parents=True, exist_ok=True)
        body = "".join(f"    {n}: {json.dumps(e)}\n" for n, e in servers.items())
        (codebot_home / "config.yaml").write_text(
            "sandbox:\n  mode: off\nmcp:\n  servers:\n" + body
        )
        c = Controller(
            load_settings(cwd=project), client=ScriptedModel([{"text": "ok"}]), interactive=False
        )
        made.append(c)
        live = servers_of(c.session)
        assert live is not None and live.wait_started()
        return c

    yield make
    for c in made:
        c.close()


def prompts_entry(tmp_path: Path) -> dict:
    return {"command": sys.executable, "args": [str(PROMPTS), str(tmp_path / "p.log")]}


def row(text: str, name: str) -> list[str]:
    """The cells of server `name`'s line in the /mcp table, and the line under it."""
    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if line.split()[:1] == [name])
    below = lines[i + 1] if i + 1 < len(lines) else ""
    return [*lines[i].split(), below.strip()]


def pid_of(c: Controller) -> int:
    live = servers_of(c.session)
    assert live is not None
    got = asyncio.run(live.call("p", "pid", {}))
    assert got.error == "", got.error
    return int(got.result.content[0].text)


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def test_mcp_shows_the_live_servers_with_counts_and_the_failed_one_with_its_error(
    session_with, tmp_path: Path
) -> None:
    c = session_with(p=prompts_entry(tmp_path), bad={"command": str(tmp_path / "no-such-cmd")})
    text = c.builtin("mcp").text
    assert row(text, "p")[:6] == ["p", "user", "ready", "1", "6", "-"]
    bad = row(text, "bad")
    assert bad[2] == "failed" and bad[-1].startswith("error:") and "no-such-cmd" in bad[-1]
    assert "/mcp probe connects" not in text  # live, not a probe's counts


def test_a_server_that_exits_is_down_with_why_and_reconnect_restarts_it(
    session_with, tmp_path: Path, wait_until
) -> None:
    c = session_with(p=prompts_entry(tmp_path))
    old = pid_of(c)
    os.killpg(old, signal.SIGKILL)
    wait_until(lambda: row(c.builtin("mcp").text, "p")[2] == "down")
    assert "exited" in row(c.builtin("mcp").text, "p")[-1]
    text = c.builtin("mcp", "reconnect p").text
    assert text.startswith("/mcp: p reconnected")
    assert row(text, "p")[:5] == ["p", "user", "ready", "1", "6"]
    new = pid_of(c)
    assert new != old


def test_reconnect_kills_a_running_server_and_starts_a_new_one(
    session_with, tmp_path: Path, wait_until
) -> None:
    c = session_with(p=prompts_entry(tmp_path))
    old = pid_of(c)
    text = c.builtin("mcp", "reconnect p").text
    assert "p reconnected" in text
    wait_until(lambda: gone(old))
    assert pid_of(c) != old
    assert {x.name for x in c.completions("mcp__p__")} >= {"mcp__p__review"}  # listed again


@pytest.mark.skipif(not HAS_TIME, reason="mcp_server_time is not installed (.[mcp-test])")
def test_the_reference_time_server_is_live_and_reconnects(session_with, tmp_path: Path) -> None:
    c = session_with(time=TIME)
    assert row(c.builtin("mcp").text, "time")[:5] == ["time", "user", "ready", "2", "0"]
    text = c.builtin("mcp", "reconnect time").text
    assert text.startswith("/mcp: time reconnected")
    assert row(text, "time")[:5] == ["time", "user", "ready", "2", "0"]


def test_reconnect_of_a_server_outside_the_session_is_the_probe(
    session_with, project: Path, tmp_path: Path
) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"q": {"command": sys.executable, "args": ["-c", "pass"]}}})
    )
    c = session_with(p=prompts_entry(tmp_path))
    assert c.builtin("mcp", "reconnect nosuch").text.startswith("/mcp: no MCP server nosuch")
    assert "may not start" in c.builtin("mcp", "reconnect q").text
    text = c.builtin("mcp").text
    assert row(text, "p")[2] == "ready" and row(text, "q")[2] != "ready"
