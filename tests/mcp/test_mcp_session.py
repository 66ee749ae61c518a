"""MCP tools inside a session (build_session, the scripted model, real `raw_server.py`
processes): the interactive question, a cancelled turn, /context, closing."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest
from codebot.agent.session import build_session
from codebot.agent.session.mcp_setup import close_servers, servers_of
from codebot.config import load_settings
from codebot.ui.reports import context_report
from codebot.workspace import open_catalog

RAW = Path(__file__).with_name("raw_server.py")


@pytest.fixture
def user_server(codebot_home: Path, tmp_path: Path) -> Path:
    """The person's own server (approved: theirs), logging what it receives."""
    log = tmp_path / "raw.log"
    codebot_home.mkdir(parents=True, exist_ok=True)
    entry = {"command": sys.executable, "args": [str(RAW), str(log)]}
    (codebot_home / "config.yaml").write_text(
        "sandbox:\n  mode: off\nmcp:\n  servers:\n    raw: " + json.dumps(entry) + "\n"
    )
    return log


def received(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def make(project: Path, replies: list[Any], answer: ApprovalAnswer | None, **kw: Any):
    settings = load_settings(cwd=project)
    events: list[Any] = []

    def emit(e: Any) -> None:
        events.append(e)
        if isinstance(e, ApprovalRequest) and answer is not None:
            e.future.set_result(answer)

    session = build_session(
        settings, open_catalog(settings), client=ScriptedModel(replies), emit=emit, **kw
    )
    servers = servers_of(session)
    assert servers is not None and servers.wait_started()
    return session, events


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": args}]}


def test_interactive_mode_asks_and_shows_the_read_only_hint(project: Path, user_server) -> None:
    session, events = make(
        project,
        [call("mcp__raw__echo", text="hi"), {"text": "done"}],
        ApprovalAnswer.ALLOW_ONCE,
        interactive=True,
    )
    try:
        record = asyncio.run(session.run_turn("go"))
    finally:
        close_servers(session)
    (asked,) = [e for e in events if isinstance(e, ApprovalRequest)]
    assert asked.tool == "mcp__raw__echo"
    assert "readOnlyHint; not verified" in asked.reason
    assert [c["status"] for c in record.tool_calls] == ["ok"]
    (tool,) = [m for m in session.history if m["role"] == "tool"]
    assert tool["content"] == "hi"


def test_interactive_deny_never_reaches_the_server(project: Path, user_server) -> None:
    replies = [call("mcp__raw__echo", text="hi"), {"text": "done"}]
    session, _ = make(project, replies, ApprovalAnswer.DENY, interactive=True)
    try:
        record = asyncio.run(session.run_turn("go"))
    finally:
        close_servers(session)
    assert [c["status"] for c in record.tool_calls] == ["denied"]
    assert not any(m.get("method") == "tools/call" for m in received(user_server))


def test_a_cancelled_turn_sends_notifications_cancelled(
    project: Path, user_server, wait_until
) -> None:
    session, _ = make(
        project, [call("mcp__raw__hang"), {"text": "never"}], None, allow=["mcp__raw"]
    )

    async def turn_then_cancel() -> None:
        task = asyncio.ensure_future(session.run_turn("go"))
        async with asyncio.timeout(30):  # a poll with an end, never a hang
            while not any(m.get("params", {}).get("name") == "hang" for m in received(user_server)):
                await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(asyncio.wait_for(turn_then_cancel(), 20))
        hang = next(m for m in received(user_server) if m.get("params", {}).get("name") == "hang")
        wait_until(
            lambda: any(
                m.get("method") == "notifications/cancelled"
                and m["params"]["requestId"] == hang["id"]
                for m in received(user_server)
            ),
            timeout=5,
        )
    finally:
        close_servers(session)


def test_context_names_the_servers_and_closing_stops_them(
    project: Path, user_server, wait_until
) -> None:
    session, _ = make(project, [{"text": "hi"}], None)
    report = context_report(session.context_use(), session, session.settings)
    assert "MCP: 1 servers (raw ready); 10 tools" in report
    servers = servers_of(session)
    assert servers is not None
    close_servers(session)
    assert servers.status()[0]["status"] == "stopped"


def test_interactive_sessions_start_servers_after_the_paint_not_while_building(
    project: Path, user_server
) -> None:
    from codebot.agent.session.mcp_setup import start_servers

    settings = load_settings(cwd=project)
    session = build_session(
        settings, open_catalog(settings), client=ScriptedModel([]), interactive=True
    )
    servers = servers_of(session)
    try:
        assert servers is not None and not servers.started()  # building started nothing
        assert not user_server.exists()
        start_servers(session)  # what the front end does once it has painted
        assert servers.wait_started() and servers.status()[0]["status"] == "ready"
    finally:
        close_servers(session)
