"""The MCP question at start in the TUI (Textual's pilot): a dialog over the painted app,
one per server not approved, escaped; `a` approves (recorded), `s` skips, Escape skips
the rest; an untrusted project is never asked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pilot_wait import until

from codebot import trust
from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.mcp.approval import APPROVALS_FILE
from codebot.ui.controller import Controller
from codebot.ui.tui.app import CodebotApp
from codebot.ui.tui.mcp_screen import McpQuestion

EVIL_ARG = "x\x1b]52;c;AAAA\x07\u202eevil"


def write(project: Path, tmp_path: Path, *names: str) -> None:
    servers = {
        n: {
            "command": sys.executable,
            "args": ["-c", f"open({str(tmp_path / n)!r}, 'w').close()", EVIL_ARG],
            "env": {"GITHUB_TOKEN": "ghp_secretvalue", "MODE": "ro"},
        }
        for n in names
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def make_app(project: Path, trusted: bool = True) -> CodebotApp:
    ctrl = Controller(
        load_settings(cwd=project, trust=trusted), client=ScriptedModel([]), interactive=True
    )
    return CodebotApp(ctrl, watch_skills=False)


def approved(codebot_home: Path) -> set[str]:
    path = codebot_home / APPROVALS_FILE
    if not path.exists():
        return set()
    return set(next(iter(json.loads(path.read_text())["approvals"].values()), {}))


async def question_up(pilot, app: CodebotApp, after: object = None) -> McpQuestion:
    """The next dialog, laid out (its end on screen: `a` is taken)."""

    def up() -> bool:
        screen = app.screen
        return isinstance(screen, McpQuestion) and screen is not after and screen.seen()

    await until(pilot, up, timeout=15)
    assert isinstance(app.screen, McpQuestion)
    return app.screen


def conversation_text(app: CodebotApp) -> str:
    from textual.widgets import Static

    return "\n".join(str(s.content) for s in app.conversation.query(Static))


async def test_each_server_is_asked_about_escaped_and_answered(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    write(project, tmp_path, "alpha", "beta")
    trust.add(codebot_home, project)
    app = make_app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await question_up(pilot, app)
        assert screen.ask.server.name == "alpha"
        assert app.startup.painted and not app.startup.mcp_decided.is_set()
        text = str(screen.query_one("#question").render())
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "\\x1b]52;c;AAAA\\x07\\u202eevil" in text
        assert "ghp_" not in text and "GITHUB_TOKEN=(value hidden)" in text and "MODE=ro" in text
        assert "server 1 of 2" in str(screen.query_one("#position").render())
        await pilot.press("a")
        assert (await question_up(pilot, app, after=screen)).ask.server.name == "beta"
        await pilot.press("s")
        await until(pilot, app.startup.mcp_decided.is_set, timeout=15)
        assert app.startup.mcp_allowed == {"alpha"}
        assert not isinstance(app.screen, McpQuestion)
        await until(
            pilot, lambda: "skipped for this run: beta" in conversation_text(app), timeout=15
        )
        assert "approved MCP server(s): alpha" in conversation_text(app)
        # the server approved here starts in this session; the skipped one never does
        await until(pilot, (tmp_path / "alpha").exists, timeout=15)
    assert approved(codebot_home) == {"alpha"}
    assert not (tmp_path / "beta").exists()


async def test_escape_skips_the_rest_and_records_nothing(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    write(project, tmp_path, "alpha", "beta")
    trust.add(codebot_home, project)
    app = make_app(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, McpQuestion), timeout=15)
        await pilot.press("escape")
        await until(pilot, app.startup.mcp_decided.is_set, timeout=15)
        assert app.startup.mcp_allowed == frozenset()
        await until(
            pilot, lambda: "skipped for this run: alpha, beta" in conversation_text(app), timeout=15
        )
    assert approved(codebot_home) == set()


async def test_an_untrusted_project_is_not_asked(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    write(project, tmp_path, "alpha")
    app = make_app(project, trusted=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, app.startup.mcp_decided.is_set, timeout=15)
        assert not isinstance(app.screen, McpQuestion)
        assert app.startup.mcp_allowed == frozenset()


async def test_an_approved_server_is_not_asked_again(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    write(project, tmp_path, "alpha")
    trust.add(codebot_home, project)
    app = make_app(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await question_up(pilot, app)
        await pilot.press("a")
        await until(pilot, app.startup.mcp_decided.is_set, timeout=15)
    app = make_app(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, app.startup.mcp_decided.is_set, timeout=15)
        assert not isinstance(app.screen, McpQuestion)
        assert app.startup.mcp_allowed == {"alpha"}


async def test_a_definition_taller_than_its_box_must_be_read_to_the_end(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    servers = {
        "long": {
            "command": "srv",
            "env": {f"V{i}": "x" for i in range(80)} | {"ZZ_LAST": "rm-everything"},
        }
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    trust.add(codebot_home, project)
    app = make_app(project)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, McpQuestion), timeout=15)
        screen = app.screen
        assert isinstance(screen, McpQuestion)
        await pilot.pause()
        await pilot.press("a")  # refused: the end is not on screen yet
        await pilot.pause()
        assert app.screen is screen and not screen.seen_end
        await pilot.press("end")
        await until(pilot, screen.seen)
        await pilot.press("a")
        await until(pilot, app.startup.mcp_decided.is_set, timeout=15)
        assert app.startup.mcp_allowed == {"long"}
