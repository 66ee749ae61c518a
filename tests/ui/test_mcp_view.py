"""`/mcp` (codebot/ui/mcp_view.py): the pure table, the rows' standing, `/mcp probe` and
`/mcp reconnect NAME` against real server processes, in the TUI (off the event loop) and
in line mode through a real process."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pilot_wait import until

from codebot import trust
from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.mcp.approval import approve
from codebot.ui import commands
from codebot.ui.controller import Controller
from codebot.ui.mcp_start import pending
from codebot.ui.mcp_view import USAGE, Row, render, rows, run

ROOT = Path(__file__).resolve().parents[2]
HAS_TIME = importlib.util.find_spec("mcp_server_time") is not None
needs_time = pytest.mark.skipif(
    not HAS_TIME, reason="mcp_server_time is not installed (pip install -e '.[mcp-test]')"
)
# a generous start-up: the real server imports the SDK, which a loaded CI machine can
# stretch past the 10 s default (this test is about what is shown once it is up)
TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time"], "startup_timeout": 60}
# Writes a marker when started, then never answers initialize.
SILENT = textwrap.dedent(
    """
    import sys, time
    open(sys.argv[1], "w").close()
    time.sleep(60)
    """
)


def write_servers(project: Path, servers: dict) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def approve_all(project: Path, codebot_home: Path) -> None:
    trust.add(codebot_home, project)
    approve(codebot_home, project, [a.server for a in pending(load_settings(cwd=project))])


# -- the pure table ------------------------------------------------------------------------------


def test_render_is_a_table_with_counts_errors_and_hints() -> None:
    text = render(
        [
            Row("time", "project", "ready", "stdio", tools=2, prompts=0, skills=0),
            Row("web", "user", "failed", "http", error="HTTP 401 Unauthorized"),
            Row("new", "project", "not approved", hint="approve it with `codebot mcp approve new`"),
        ],
        ["a clash"],
    )
    lines = text.splitlines()
    assert lines[0].split() == ["name", "source", "status", "tools", "prompts", "skills"]
    assert lines[1].split() == ["time", "project", "ready", "2", "0", "0"]
    assert lines[2].split() == ["web", "user", "failed", "-", "-", "-"]
    assert lines[3] == "  error: HTTP 401 Unauthorized"
    assert lines[4].split()[:4] == ["new", "project", "not", "approved"]
    assert lines[5] == "  approve it with `codebot mcp approve new`"
    assert lines[-1] == "warning: a clash"
    assert "no MCP servers" in render([])


def test_render_escapes_and_clips_hostile_values() -> None:
    evil = "ev\x1b[2J\u202eil\nx" + "n" * 100
    text = render([Row(evil, "project", "invalid", error="bad\x1b]52;c;AAAA\x07\r\n" * 200)])
    for bad in ("\x1b", "\u202e", "\x07", "\r"):
        assert bad not in text
    assert "ev\\x1b[2J\\u202eil\\nx" in text
    assert len(text.splitlines()) == 3  # header, row, error: no newline got through
    assert max(len(line) for line in text.splitlines()) < 500


# -- rows: standing from the definitions ---------------------------------------------------------


def test_rows_carry_the_standing(project: Path, codebot_home: Path) -> None:
    write_servers(project, {"a": {"command": "true"}, "b": {"command": 5}})
    table, _ = rows(load_settings(cwd=project))
    assert [(r.name, r.status) for r in table] == [
        ("a", "not started: project not trusted"),
        ("b", "invalid"),
    ]
    trust.add(codebot_home, project)
    table, _ = rows(load_settings(cwd=project))
    assert table[0].status == "not approved" and "codebot mcp approve a" in table[0].hint
    assert "mcpServers.b.command" in table[1].error


def test_a_damaged_mcp_json_is_a_warning(project: Path) -> None:
    (project / ".mcp.json").write_text("{not json")
    text, _ = run(load_settings(cwd=project), "", None)
    assert "warning:" in text and ".mcp.json" in text


def test_wrong_arguments_are_said(project: Path, codebot_home: Path) -> None:
    write_servers(project, {"a": {"command": "true"}})
    s = load_settings(cwd=project, trust=True)
    assert run(s, "explode", None)[0] == USAGE
    assert run(s, "reconnect", None)[0] == USAGE
    assert "no MCP server zz\\x1b" in run(s, "reconnect zz\x1b", None)[0]
    trust.add(codebot_home, project)
    assert "a may not start" in run(load_settings(cwd=project), "reconnect a", None)[0]


# -- probing real processes -----------------------------------------------------------------------


def test_a_probe_that_fails_shows_failed_with_the_error(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    crash = {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}
    never = {"command": sys.executable, "args": ["-c", "print(1)"]}
    write_servers(project, {"crash": crash, "unapproved": never})
    trust.add(codebot_home, project)
    s = load_settings(cwd=project)
    (crash_def,) = [a.server for a in pending(s) if a.server.name == "crash"]
    approve(codebot_home, project, [crash_def])
    text, probes = run(s, "probe", None)
    assert set(probes) == {"crash"}  # an unapproved server is never started
    row = text.splitlines()[1].split()
    assert row[:3] == ["crash", "project", "failed"]
    assert "error:" in text.splitlines()[2]


@needs_time
def test_probe_and_reconnect_show_ready_with_counts(project: Path, codebot_home: Path) -> None:
    write_servers(project, {"time": TIME})
    approve_all(project, codebot_home)
    ctrl = Controller(load_settings(cwd=project), client=ScriptedModel([]), interactive=True)
    try:
        before = ctrl.builtin("mcp", "").text
        assert before.splitlines()[1].split()[:3] == ["time", "project", "approved"]
        assert "/mcp probe" in before
        after = ctrl.builtin("mcp", "reconnect time").text
        name, _source, status, tools, prompts, skills = after.splitlines()[1].split()
        assert (name, status, prompts, skills) == ("time", "ready", "0", "0")
        assert int(tools) >= 1
        assert ctrl.builtin("mcp", "").text == after  # the last probe is remembered
        # a definition changed since: no longer "ready", it is not approved
        write_servers(project, {"time": {**TIME, "env": {"X": "1"}}})
        assert ctrl.builtin("mcp", "").text.splitlines()[1].split()[2:4] == ["not", "approved"]
    finally:
        ctrl.close()


def test_mcp_is_a_builtin_with_help_and_completion(project: Path) -> None:
    for front in commands.Front:
        assert "/mcp [probe | reconnect NAME]" in commands.help_text(front)
    assert commands.complete("mc", [], {})[0].name == "mcp"
    assert commands.BY_NAME["mcp"].off_loop and commands.BY_NAME["mcp"].background


async def test_tui_probe_runs_off_the_event_loop(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    from textual.widgets import Static

    from codebot.ui.tui.app import CodebotApp

    script = tmp_path / "silent.py"
    script.write_text(SILENT)
    marker = tmp_path / "started"
    entry = {"command": sys.executable, "args": [str(script), str(marker)], "startup_timeout": 10}
    write_servers(project, {"slow": entry})
    approve_all(project, codebot_home)
    ctrl = Controller(load_settings(cwd=project), client=ScriptedModel([]), interactive=True)
    app = CodebotApp(ctrl, watch_skills=False)

    def shown() -> str:
        return "\n".join(str(s.content) for s in app.conversation.query(Static))

    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, app.startup.mcp_decided.is_set, timeout=15)
        await pilot.press(*"/mcp probe", "enter")
        await until(pilot, marker.exists, timeout=15)
        await pilot.press(*"still typing")  # the loop is free while the server is probed
        await until(pilot, lambda: app.prompt.text == "still typing")
        assert "failed" not in shown()
        await until(pilot, lambda: "startup_timeout" in shown(), timeout=30)
        assert "slow" in shown() and "failed" in shown()


@needs_time
def test_line_mode_mcp_through_a_real_process(project: Path, codebot_home: Path) -> None:
    write_servers(project, {"time": TIME, "evil\x1b[2J": {"command": "true"}})
    trust.add(codebot_home, project)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-m", "codebot", "--plain"],
        input="a\n/mcp\n/mcp probe\n/exit\n",  # the invalid one is not asked about
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\x1b" not in out
    first, second = out.split("> /mcp probe")
    assert "approved MCP server(s): time" in first
    # the session's own connection, live (ui/mcp_live.py): starting or ready by now
    assert any(
        ln.split()[:3] in (["time", "project", "starting"], ["time", "project", "ready"])
        for ln in first.splitlines()
    )
    assert "invalid" in first  # the hostile name is an invalid definition, shown escaped
    assert "evil\\x1b[2J" in first
    assert any(ln.split()[:3] == ["time", "project", "ready"] for ln in second.splitlines())


def test_rows_include_the_sessions_mcp_config_servers(project: Path, tmp_path: Path) -> None:
    import dataclasses
    import json

    flag = tmp_path / "extra.json"
    flag.write_text(json.dumps({"mcpServers": {"fromflag": {"command": "true"}}}))
    s = dataclasses.replace(load_settings(cwd=project), mcp_configs=(flag,))
    table, _ = rows(s)
    assert [(r.name, r.source, r.status) for r in table] == [("fromflag", "flag", "approved")]
