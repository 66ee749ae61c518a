"""The MCP question at start (codebot/ui/mcp_start.py): what is asked about, what is shown
(escaped, no secret value), and line mode answering through a real process's stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codebot import trust
from codebot.config import load_settings
from codebot.mcp.approval import APPROVALS_FILE, approve
from codebot.ui.mcp_start import Ask, looks_secret, may_start, pending, question

ROOT = Path(__file__).resolve().parents[2]
# A command line a hostile .mcp.json may hold: a screen clear, a bidi override, a newline.
EVIL_ARG = "x\x1b[2J\u202eevil\nnext"


def write_servers(project: Path, servers: dict) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def marker_server(tmp_path: Path, tag: str, *extra: str) -> dict:
    """A server that would leave a file behind if it ever started."""
    return {
        "command": sys.executable,
        "args": ["-c", f"open({str(tmp_path / tag)!r}, 'w').close()", *extra],
    }


def settings(project: Path, trusted: bool = True):
    return load_settings(cwd=project, trust=trusted)


def approvals(codebot_home: Path) -> dict:
    path = codebot_home / APPROVALS_FILE
    if not path.exists():
        return {}
    return next(iter(json.loads(path.read_text())["approvals"].values()), {})


# -- what is asked about -------------------------------------------------------------------------


def test_only_unapproved_servers_of_a_trusted_project_are_asked_about(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    write_servers(
        project,
        {
            "new": marker_server(tmp_path, "new"),
            "ok": marker_server(tmp_path, "ok"),
            "bad": {"command": 3},
        },
    )
    assert pending(settings(project, trusted=False)) == []  # untrusted: nothing asked
    s = settings(project)
    ok = next(a.server for a in pending(s) if a.server.name == "ok")
    approve(codebot_home, project, [ok])
    asks = pending(s)
    assert [(a.server.name, a.changed) for a in asks] == [("new", False)]  # invalid: never
    assert may_start(s) == {"ok"}
    write_servers(
        project,
        {"new": marker_server(tmp_path, "new"), "ok": marker_server(tmp_path, "ok", "changed")},
    )
    asks = pending(s)
    assert {(a.server.name, a.changed) for a in asks} == {("new", False), ("ok", True)}
    assert may_start(s) == frozenset()


def test_an_agent_written_mcp_json_is_not_asked_about(project: Path, codebot_home: Path) -> None:
    from codebot.provenance import Provenance

    write_servers(project, {"x": {"command": "true"}})
    assert [a.server.name for a in pending(settings(project))] == ["x"]
    Provenance(codebot_home, project).record(
        [(".mcp.json", "changed", "MCP servers")], by="Bash", detail="echo > .mcp.json", session="x"
    )
    assert pending(settings(project)) == []


def test_your_own_servers_are_never_asked_about(project: Path, codebot_home: Path) -> None:
    (codebot_home / "config.yaml").write_text("mcp:\n  servers:\n    mine: {command: 'true'}\n")
    s = settings(project)
    assert pending(s) == [] and may_start(s) == {"mine"}


# -- what is shown -------------------------------------------------------------------------------


def one_ask(project: Path, entry: dict, changed: bool = False, **env: str) -> Ask:
    write_servers(project, {"srv": entry})
    os.environ.update(env)
    try:
        (ask,) = pending(settings(project))
    finally:
        for k in env:
            del os.environ[k]
    return Ask(ask.server, changed)


def test_the_whole_command_line_is_shown_escaped(project: Path) -> None:
    ask = one_ask(project, {"command": "node", "args": ["a b", EVIL_ARG], "cwd": "t\x07ools"})
    text = "\n".join(question(ask))
    for bad in ("\x1b", "\u202e", "\x07"):
        assert bad not in text
    assert "\\x1b[2J" in text and "\\u202e" in text and "\\x07" in text
    assert "command:   node 'a b' 'x\\x1b[2J\\u202eevil\\nnext'" in text
    assert "t\\x07ools" in text
    assert text.count("\n") == len(question(ask)) - 1  # the newline in the argument is \\n


def test_secret_values_are_never_shown_but_names_are(project: Path) -> None:
    entry = {
        "command": "srv",
        "args": ["--token", "${MY_TOKEN}"],
        "env": {"API_KEY": "k1", "MODE": "ro", "PLAIN": "sk-live-123", "FROM": "${MY_TOKEN}"},
    }
    ask = one_ask(project, entry, MY_TOKEN="hunter2-secret")
    text = "\n".join(question(ask))
    assert "hunter2" not in text and "k1" not in text and "sk-live" not in text
    assert "API_KEY=(value hidden)" in text and "MODE=ro" in text and "PLAIN=(value hidden)" in text
    assert "srv --token '${MY_TOKEN}'" in text and "MY_TOKEN: value not shown" in text
    assert "reads:     MY_TOKEN" in text


def test_a_url_server_shows_header_names_only(project: Path) -> None:
    entry = {
        "type": "http",
        "url": "https://me:pw@example.com/mcp?api_key=abc&region=eu",
        "headers": {"Authorization": "Bearer abc", "X-Mode": "fast"},
    }
    text = "\n".join(question(one_ask(project, entry)))
    assert "pw" not in text and "abc" not in text and "fast" not in text
    assert "https://me:(value hidden)@example.com/mcp?api_key=(value hidden)&region=eu" in text
    assert "header:    Authorization: (value hidden)" in text
    assert "header:    X-Mode: (value hidden)" in text


def test_a_changed_definition_says_it_changed(project: Path) -> None:
    new = question(one_ask(project, {"command": "srv"}))
    changed = question(one_ask(project, {"command": "srv"}, changed=True))
    assert "CHANGED" not in "\n".join(new)
    assert "CHANGED since you approved it" in changed[0]


def test_what_looks_secret() -> None:
    assert looks_secret("ghp_abc") and looks_secret("a1" * 20)
    assert not looks_secret("ro") and not looks_secret("/usr/lib/libx-1.2.3-aaaaaaaaaaaaaaa.so")


# -- line mode through a real process -------------------------------------------------------------


def codebot(project: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)  # private HOME/CODEBOT_HOME, no provider key (tests/conftest.py)
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "codebot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=120,
    )


@pytest.fixture
def two(project: Path, codebot_home: Path, tmp_path: Path) -> Path:
    write_servers(
        project,
        {
            "alpha": marker_server(tmp_path, "alpha", EVIL_ARG),
            "beta": marker_server(tmp_path, "beta"),
        },
    )
    trust.add(codebot_home, project)
    return project


def test_line_mode_asks_each_server_and_records_only_approvals(
    two: Path, codebot_home: Path, tmp_path: Path
) -> None:
    done = codebot(two, "maybe\na\ns\n/exit\n", "--plain")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.index("MCP server alpha") < out.index("MCP server beta") < out.index("> /exit")
    assert "please answer a (approve) or s (skip)" in out
    assert "\x1b" not in out and "\u202e" not in out and "\\x1b[2J\\u202eevil\\nnext" in out
    assert "approved MCP server(s): alpha" in out and "skipped for this run: beta" in out
    assert set(approvals(codebot_home)) == {"alpha"}
    assert not (tmp_path / "beta").exists()  # skipped: never started (alpha may have)
    # next run: only the skipped one is asked about again
    done = codebot(two, "s\n/exit\n", "--plain")
    assert "MCP server beta" in done.stdout and "MCP server alpha" not in done.stdout


def test_line_mode_end_of_input_skips_everything(two: Path, codebot_home: Path) -> None:
    done = codebot(two, "", "--plain")
    assert done.returncode == 0, done.stderr
    assert "skipped for this run: alpha, beta" in done.stdout
    assert approvals(codebot_home) == {}


def test_a_changed_server_is_asked_again_and_says_so(two: Path, codebot_home: Path) -> None:
    codebot(two, "a\na\n/exit\n", "--plain")
    servers = json.loads((two / ".mcp.json").read_text())["mcpServers"]
    servers["beta"]["args"].append("--more")
    write_servers(two, servers)
    done = codebot(two, "s\n/exit\n", "--plain")
    assert "MCP server beta in .mcp.json CHANGED since you approved it" in done.stdout
    assert "alpha" not in done.stdout.split("> /exit")[0].split("model offline")[1]


def test_print_mode_and_untrusted_projects_never_ask(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    write_servers(project, {"alpha": marker_server(tmp_path, "alpha")})
    done = codebot(project, "a\n/exit\n", "--plain")  # untrusted: no question
    assert "MCP server" not in done.stdout and "> a" in done.stdout
    trust.add(codebot_home, project)
    done = codebot(project, "a\n", "-p", "hello")
    assert done.returncode == 0, done.stderr
    # print mode never asks; it says the server was not started and why
    assert "start it?" not in done.stdout + done.stderr
    assert "MCP server alpha not started (not approved" in done.stderr
    assert approvals(codebot_home) == {} and not (tmp_path / "alpha").exists()


def test_a_fifo_mcp_json_is_never_waited_on(project: Path) -> None:
    import threading

    os.mkfifo(project / ".mcp.json")
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(pending(settings(project))))
    worker.start()
    worker.join(20)
    assert found == [[]]


def test_an_approval_that_cannot_be_stored_says_so_and_starts_nothing(
    project: Path, codebot_home: Path
) -> None:
    import asyncio

    from codebot.ui.mcp_start import ask_line

    write_servers(project, {"srv": {"command": "srv"}})
    (codebot_home / APPROVALS_FILE).write_text("{damaged")
    said: list[str] = []
    replies = iter(["a"])

    async def ask(_prompt: str) -> str:
        return next(replies)

    allowed = asyncio.run(ask_line(settings(project), ask, said.append))
    assert allowed == frozenset()
    assert "could not record the approval" in said[-1] and "fix or remove it" in said[-1]
    assert (codebot_home / APPROVALS_FILE).read_text() == "{damaged"  # never overwritten


def test_ctrl_c_at_the_question_skips_the_rest(project: Path) -> None:
    import asyncio

    from codebot.ui.mcp_start import ask_line

    write_servers(project, {"a": {"command": "a"}, "b": {"command": "b"}})
    said: list[str] = []

    async def ask(_prompt: str) -> str:
        raise KeyboardInterrupt

    assert asyncio.run(ask_line(settings(project), ask, said.append)) == frozenset()
    assert "skipped for this run: a, b" in said[-1]
