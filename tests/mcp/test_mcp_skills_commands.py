"""Servers' SEP-2640 skills in `codebot skills list|route|show|validate` outside a session,
through the real CLI (a subprocess): the servers a session would start, and only those,
are started, listed, closed; `show` fetches and checks the body; a server that fails or
may not start is a line on stderr, never a crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codebot.mcp.approval import approve
from codebot.mcp.config import load_servers

HERE = Path(__file__).parent
SEP = HERE / "sep2640_server.py"
RAW_SKILLS = HERE / "raw_skills_server.py"
RAW = HERE / "raw_server.py"


def codebot(project: Path, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=project)


def server(script: Path, *args: object) -> dict:
    return {"command": sys.executable, "args": [str(script), *map(str, args)]}


def flag(tmp_path: Path, servers: dict) -> Path:
    f = tmp_path / "servers.json"
    f.write_text(json.dumps({"mcpServers": servers}))
    return f


def running(marker: str) -> list[int]:
    """Processes whose command line holds `marker` (a path only one test uses)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry.name))
    return found


@pytest.fixture
def sep(tmp_path: Path) -> dict:
    return {
        "srv": server(SEP, tmp_path / "reads.log", tmp_path / "marker"),
        "dead": {"command": str(tmp_path / "no-such-program")},
    }


def listed(out: subprocess.CompletedProcess) -> dict[str, dict]:
    assert out.returncode == 0, out.stderr
    return {s["name"]: s for s in json.loads(out.stdout)["skills"]}


def test_list_has_the_servers_skills_and_a_line_for_the_server_that_failed(
    project: Path, tmp_path: Path, sep: dict
) -> None:
    out = codebot(project, "skills", "list", "--json", "--mcp-config", str(flag(tmp_path, sep)))
    skills = listed(out)
    good = skills["srv:good"]
    assert (good["source"], good["family"]) == ("mcp", "mcp:srv")
    assert {"srv:tampered", "srv:acme/refunds", "srv:shop/refunds"} <= set(skills)
    assert "review" in skills  # the folders' skills are still there
    failed = [line for line in out.stderr.splitlines() if "dead" in line]
    assert len(failed) == 1 and "failed to start" in failed[0], out.stderr
    assert "no-such-program" in failed[0]
    problems = json.loads(out.stdout)["diagnostics"]
    assert any("dynamic" in d["message"] for d in problems)  # the server's bad entries
    # nothing is read at listing, and the servers are gone once the command is
    assert not (tmp_path / "reads.log").exists()
    assert running(str(tmp_path / "reads.log")) == []


def test_plain_list_and_validate_count_the_same_problems(
    project: Path, tmp_path: Path, sep: dict
) -> None:
    cfg = str(flag(tmp_path, {"srv": sep["srv"]}))
    out = codebot(project, "skills", "list", "--mcp-config", cfg)
    assert out.returncode == 0, out.stderr
    assert "srv:good" in out.stdout and "mcp:srv" in out.stdout
    assert "name-format" not in out.stdout  # `<server>:<name>` is no folder skill's name
    assert "\x1b" not in out.stdout and "\u202e" not in out.stdout  # the hostile entry
    head = next(line for line in out.stdout.splitlines() if "problem" in line)
    checked = codebot(project, "skills", "validate", "--json", "--mcp-config", cfg)
    count = json.loads(checked.stdout)["problem_count"]
    assert head.startswith(f"{count} problem") and count >= 3


def test_route_finds_a_servers_skill(project: Path, tmp_path: Path, sep: dict) -> None:
    cfg = str(flag(tmp_path, {"srv": sep["srv"]}))
    out = codebot(
        project,
        "skills",
        "route",
        "format the release notes from the changelog",
        "--json",
        "--mcp-config",
        cfg,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["selected"] == "srv:good"


def test_show_fetches_and_checks_the_body_and_runs_nothing(
    project: Path, tmp_path: Path, sep: dict
) -> None:
    cfg = str(flag(tmp_path, {"srv": sep["srv"]}))
    out = codebot(project, "skills", "show", "srv:good", "--mcp-config", cfg)
    assert out.returncode == 0, out.stderr
    assert "Write the notes." in out.stdout and "family:" in out.stdout
    assert not (tmp_path / "marker").exists()  # its !`cmd` line is text here
    reads = (tmp_path / "reads.log").read_text().split()
    assert reads == ["skill://good/SKILL.md"]  # its SKILL.md only, no supporting file
    # a plain name reaches it when no other skill has it; --json has the body
    out = codebot(project, "skills", "show", "good", "--json", "--mcp-config", cfg)
    shown = json.loads(out.stdout)
    assert shown["name"] == "srv:good" and shown["body"].startswith("Write the notes.")
    assert shown["allowed_tools"] == [] and shown["model"] is None  # a server grants nothing
    assert running(str(tmp_path / "reads.log")) == []


@pytest.mark.parametrize(("name", "why"), [("srv:tampered", "digest"), ("srv:drift", "")])
def test_show_refuses_a_body_that_does_not_match_its_listing(
    project: Path, tmp_path: Path, sep: dict, name: str, why: str
) -> None:
    cfg = str(flag(tmp_path, {"srv": sep["srv"]}))
    out = codebot(project, "skills", "show", name, "--mcp-config", cfg)
    assert out.returncode == 1
    assert "refused" in out.stderr and "'srv'" in out.stderr and why in out.stderr
    assert "--- body not shown: refused" in out.stdout
    assert "Body" not in out.stdout
    out = codebot(project, "skills", "show", name, "--json", "--mcp-config", cfg)
    shown = json.loads(out.stdout)
    assert out.returncode == 1 and shown["body"] is None and "refused" in shown["error"]


def test_only_servers_a_session_would_start_are_started(
    project: Path, tmp_path: Path, codebot_home: Path
) -> None:
    """A project's server starts only in a trusted project and once approved; the
    person's own config's starts; nothing is asked."""
    log = tmp_path / "project.log"
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"proj": server(RAW_SKILLS, log)}})
    )
    out = codebot(project, "skills", "list", "--json")
    assert "proj:first" not in listed(out)
    assert "MCP server proj not started (not started: project not trusted" in out.stderr
    assert not log.exists()  # no process ever started

    from codebot import trust as store

    store.add(codebot_home, project)
    out = codebot(project, "skills", "list", "--json")
    assert "proj:first" not in listed(out) and "not approved" in out.stderr
    assert not log.exists()

    cfg = load_servers(project, {}, codebot_home / "config.yaml")
    assert approve(codebot_home, project, cfg.servers)
    out = codebot(project, "skills", "list", "--json")
    assert "proj:first" in listed(out), out.stderr
    assert log.exists()

    mine = tmp_path / "mine.log"
    (codebot_home / "config.yaml").write_text(
        "mcp:\n  servers:\n    mine:\n"
        f"      command: {json.dumps(sys.executable)}\n"
        f"      args: [{json.dumps(str(RAW_SKILLS))}, {json.dumps(str(mine))}]\n"
    )
    skills = listed(codebot(project, "skills", "list", "--json"))
    assert {"mine:first", "proj:first"} <= set(skills)
    assert running(str(mine)) == [] and running(str(log)) == []


def test_a_server_that_never_answers_is_a_warning_after_its_timeout(
    project: Path, tmp_path: Path
) -> None:
    silent = {**server(RAW, tmp_path / "silent.log", "--silent"), "startup_timeout": 1}
    cfg = flag(tmp_path, {"silent": silent, "bad\x1b[2J": {"command": "x"}})
    out = codebot(project, "skills", "list", "--mcp-config", str(cfg))
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if "silent" in line]
    assert len(lines) == 1 and "startup_timeout" in lines[0]
    assert "\x1b" not in out.stderr  # a hostile name is shown escaped
    assert running(str(tmp_path / "silent.log")) == []


def test_no_server_defined_loads_no_mcp_module(project: Path) -> None:
    code = (
        "import sys; from codebot.cli import main; rc = main(['skills', 'list']); "
        "print('LOADED' if 'mcp' in sys.modules or 'codebot.mcp.session_skills' in "
        "sys.modules else 'CLEAN'); sys.exit(rc)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=project, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("CLEAN")


def test_ctrl_c_while_servers_start_leaves_none_running(
    project: Path, tmp_path: Path, wait_until
) -> None:
    import signal

    log = tmp_path / "slow.log"
    # it never answers and never reads its stdin: only killing its group ends it
    script = "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(300)"
    slow = {"command": sys.executable, "args": ["-c", script, str(log)], "startup_timeout": 60}
    cfg = flag(tmp_path, {"slow": slow})
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "skills", "list"]
    proc = subprocess.Popen(
        [*cmd, "--mcp-config", str(cfg)],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(lambda: log.exists(), 30, "the server to start")
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    try:
        wait_until(lambda: running(str(log)) == [], 10, "the server's process group to end")
    finally:
        for pid in running(str(log)):  # a failed test leaves nothing behind either
            os.kill(pid, signal.SIGKILL)
