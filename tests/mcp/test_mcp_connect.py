"""Connecting to stdio MCP servers (codebot/mcp/connect.py) through real processes: the
reference server `mcp-server-time` (extra `mcp-test`), and small scripts that stay silent,
record their environment, or spawn children."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codebot.mcp import connect
from codebot.mcp.approval import BASE_VARIABLES, approve
from codebot.mcp.config import ServerDef, servers_from
from codebot.mcp.connect import log_path, probe_all

HAS_TIME = importlib.util.find_spec("mcp_server_time") is not None
needs_time = pytest.mark.skipif(
    not HAS_TIME, reason="mcp_server_time is not installed (pip install -e '.[mcp-test]')"
)
HAS_GIT = importlib.util.find_spec("mcp_server_git") is not None and shutil.which("git")


def define(name: str, entry: dict, source: str = "user") -> ServerDef:
    (d,), _ = servers_from({name: entry}, source=source, path="test", prefix="s", environ={})
    assert d.error == ""
    return d


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie waiting for its parent."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


SILENT = textwrap.dedent(
    """
    import json, os, subprocess, sys, time
    out = sys.argv[1]
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(out + ".tmp", "w") as f:
        json.dump({"pid": os.getpid(), "child": child.pid, "env": dict(os.environ)}, f)
    os.replace(out + ".tmp", out)
    print("silent server started", file=sys.stderr, flush=True)
    time.sleep(300)
    """
)


@pytest.fixture
def silent(tmp_path: Path) -> tuple[Path, Path]:
    script = tmp_path / "silent.py"
    script.write_text(SILENT)
    return script, tmp_path / "started.json"


def test_a_server_that_never_answers_fails_at_its_timeout_and_its_group_is_killed(
    silent: tuple[Path, Path], codebot_home: Path, project: Path, wait_until
) -> None:
    script, marker = silent
    d = define(
        "quiet",
        # Long enough for the script to start and record itself on a busy machine.
        {"command": sys.executable, "args": [str(script), str(marker)], "startup_timeout": 3},
    )
    found = probe_all([d], home=codebot_home, project=project, environ=os.environ)
    p = found["quiet"]
    assert not p.ready and p.tools is None
    assert "did not answer initialize" in p.error and "(3 s)" in p.error
    started = json.loads(marker.read_text())
    wait_until(lambda: not alive(started["pid"]), what="the server to be gone")
    wait_until(lambda: not alive(started["child"]), what="its child (same group) to be gone")
    log = log_path(codebot_home, "quiet")
    assert "silent server started" in log.read_text()
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_the_server_gets_only_its_env_and_the_minimal_base(
    silent: tuple[Path, Path], codebot_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script, marker = silent
    secrets = {
        "OPENAI_API_KEY": "sk-o",
        "ANTHROPIC_API_KEY": "sk-a",
        "CODEBOT_API_KEY": "sk-c",
        "GITHUB_TOKEN": "ghp",
        "SOME_SECRET": "s",
        "USER": "me",
        "SHELL": "/bin/sh",
    }
    for k, v in secrets.items():
        monkeypatch.setenv(k, v)
    d = define(
        "quiet",
        {
            "command": sys.executable,
            "args": [str(script), str(marker)],
            "env": {"MODE": "x"},
            "startup_timeout": 3,
        },
    )
    probe_all([d], home=codebot_home, project=project, environ=os.environ)
    env = json.loads(marker.read_text())["env"]
    assert not set(env) & set(secrets)
    # Python may set LC_CTYPE itself (PEP 538) when the locale is C.
    assert set(env) <= {*BASE_VARIABLES, "MODE", "LC_CTYPE"}
    assert env["MODE"] == "x"


def test_a_server_that_cannot_start(codebot_home: Path, project: Path) -> None:
    d = define("gone", {"command": "/nonexistent/mcp-server"})
    p = probe_all([d], home=codebot_home, project=project, environ=os.environ)["gone"]
    assert not p.ready and "cannot start it" in p.error and "/nonexistent/mcp-server" in p.error


def test_a_line_without_end_ends_the_connection(
    tmp_path: Path, codebot_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connect, "MAX_LINE", 1000)
    script = tmp_path / "flood.py"
    script.write_text("import sys, time\nsys.stdout.write('x' * 50000)\nsys.stdout.flush()\n")
    d = define("flood", {"command": sys.executable, "args": [str(script)], "startup_timeout": 5})
    p = probe_all([d], home=codebot_home, project=project, environ=os.environ)["flood"]
    assert not p.ready and p.error


def test_garbage_on_stdout_is_not_a_crash(
    tmp_path: Path, codebot_home: Path, project: Path
) -> None:
    script = tmp_path / "garbage.py"
    script.write_text("print('not json'); print('{\"jsonrpc\": 1}'); import time; time.sleep(60)\n")
    d = define("junk", {"command": sys.executable, "args": [str(script)], "startup_timeout": 0.5})
    p = probe_all([d], home=codebot_home, project=project, environ=os.environ)["junk"]
    assert not p.ready and p.error


@needs_time
def test_the_reference_time_server_is_ready_with_its_tools(
    codebot_home: Path, project: Path
) -> None:
    slow_ok = {"startup_timeout": 60}  # a loaded machine can stretch the SDK's import past 10 s
    d = define("time", {"command": sys.executable, "args": ["-m", "mcp_server_time"], **slow_ok})
    p = probe_all([d], home=codebot_home, project=project, environ=os.environ)["time"]
    assert p.ready, p.error
    assert p.tools is not None and p.tools >= 1 and p.prompts == 0
    assert "time" in p.server


@pytest.mark.skipif(
    not HAS_GIT, reason="mcp_server_git (pip install -e '.[mcp-test]') or git is missing"
)
def test_the_reference_git_server_in_its_cwd(codebot_home: Path, project: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project / "repo")], check=True, timeout=60)
    d = define(
        "git",
        {
            "command": sys.executable,
            "args": ["-m", "mcp_server_git", "--repository", "."],
            "cwd": "repo",
            "startup_timeout": 60,  # a loaded machine can stretch the SDK's import past 10 s
        },
    )
    p = probe_all([d], home=codebot_home, project=project, environ=os.environ)["git"]
    assert p.ready, p.error
    assert p.tools is not None and p.tools >= 1 and "git" in p.server


def test_a_missing_cwd_is_said(codebot_home: Path, project: Path) -> None:
    d = define("x", {"command": sys.executable, "cwd": "nope"})
    p = probe_all([d], home=codebot_home, project=project, environ=os.environ)["x"]
    assert not p.ready and p.error == f"its cwd {project / 'nope'} is not a folder"


def codebot(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codebot", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
        stdin=subprocess.DEVNULL,
    )


def test_mcp_list_starts_no_process_for_untrusted_unapproved_or_changed_servers(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    """The marker each server would write proves no process started."""

    def server(tag: str) -> dict:
        return {
            "command": sys.executable,
            "args": ["-c", f"open({str(tmp_path / tag)!r}, 'w').close()"],
        }

    servers = {"a": server("a"), "b": server("b")}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    done = codebot(project, "mcp", "list", "--json")
    assert {r["status"] for r in json.loads(done.stdout)} == {"not started: project not trusted"}
    from codebot import trust

    trust.add(codebot_home, project)
    (a,), _ = servers_from(
        {"a": server("a")}, source="project", path="x", prefix="s", environ=os.environ
    )
    approve(codebot_home, project, [a])
    servers["a"]["args"].append("changed")  # approved, then changed
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    done = codebot(project, "mcp", "list", "--json")
    rows = {r["name"]: r["status"] for r in json.loads(done.stdout)}
    assert rows == {"a": "not approved", "b": "not approved"}
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@needs_time
def test_mcp_list_connects_an_approved_project_server(project: Path, codebot_home: Path) -> None:
    entry = {"command": sys.executable, "args": ["-m", "mcp_server_time"], "startup_timeout": 60}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"time": entry}}))
    from codebot import trust

    trust.add(codebot_home, project)
    assert codebot(project, "mcp", "approve", "time").returncode == 0
    done = codebot(project, "mcp", "list", "--json")
    (row,) = json.loads(done.stdout)
    assert row["status"] == "ready", row
    assert row["tools"] >= 1 and row["prompts"] == 0 and row["skills"] == 0  # no SEP-2640
    done = codebot(project, "mcp", "list", "--no-connect", "--json")
    (row,) = json.loads(done.stdout)
    assert row["status"] == "approved" and row["tools"] is None
    done = codebot(project, "mcp", "list")
    assert "time  project  ready" in done.stdout and "tools" in done.stdout
