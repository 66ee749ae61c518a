"""`codebot -p` tells the truth about its calls, as a real process against a scripted
OpenAI-compatible server: a failed call has status "error" (a Bash command that exits
non-zero, a tool that fails), a denied one "denied"; `is_error` stays about the turn;
`--fail-on-denial` exits 4 when any call of the turn was denied or failed; and a turn
whose sub-agents fan out without end stops at the turn budget."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture
def project(project: Path) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    (proj / "a.txt").write_text("hello\n")
    return proj


def codebot(project: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "codebot",
        "--cwd",
        str(project),
        "--trust",
        "--api-base",
        url,
        "--model",
        "openai/test-model",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=project)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


FAILING_TURN = [
    call("Write", path="new.txt", content="x"),
    call("Bash", command="false"),
    {"text": "tried"},
]


def test_a_denied_write_and_a_failing_bash_are_said_as_such(fake_openai, project: Path) -> None:
    fake_openai.script(FAILING_TURN)
    r = codebot(
        project,
        fake_openai.url,
        "-p",
        "try things",
        "--output-format",
        "json",
        "--allow",
        "Bash(false)",
    )
    assert r.returncode == 0, r.stderr  # without --fail-on-denial the exit code is about the turn
    out = json.loads(r.stdout)
    assert out["is_error"] is False and out["result"] == "tried"
    assert [(c["name"], c["status"]) for c in out["tool_calls"]] == [
        ("Write", "denied"),
        ("Bash", "error"),
    ]
    # The model reads what it always read: the exit code and the output.
    assert tool_results(fake_openai.requests[-1])[-1] == "exit code 1\n(no output)"
    assert not (project / "new.txt").exists()


def test_fail_on_denial_exits_4(fake_openai, project: Path) -> None:
    fake_openai.script(FAILING_TURN)
    r = codebot(
        project, fake_openai.url, "-p", "try things", "--fail-on-denial", "--allow", "Bash(false)"
    )
    assert r.returncode == 4, r.stderr
    assert "tried" in r.stdout and "1 tool call(s) denied and 1 failed" in r.stderr


def test_fail_on_denial_counts_a_tool_that_fails(fake_openai, project: Path) -> None:
    fake_openai.script([call("Read", path="missing.txt"), {"text": "no file"}])
    r = codebot(
        project, fake_openai.url, "-p", "read it", "--output-format", "json", "--fail-on-denial"
    )
    assert r.returncode == 4, r.stderr
    assert [c["status"] for c in json.loads(r.stdout)["tool_calls"]] == ["error"]


def test_fail_on_denial_without_p_is_a_usage_error(project: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "codebot", "--cwd", str(project), "--fail-on-denial", "hello"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 2 and "--fail-on-denial goes with -p" in r.stderr


def test_a_mistyped_fail_on_denial_is_suggested(project: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", "x", "--fail-on-denail"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "did you mean --fail-on-denial?" in r.stderr


# -- controls -------------------------------------------------------------------------------


def test_successful_calls_exit_0_with_fail_on_denial(fake_openai, project: Path) -> None:
    fake_openai.script([call("Read", path="a.txt"), call("Bash", command="true"), {"text": "fine"}])
    r = codebot(
        project,
        fake_openai.url,
        "-p",
        "look",
        "--output-format",
        "json",
        "--fail-on-denial",
        "--allow",
        "Bash(true)",
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["is_error"] is False and [c["status"] for c in out["tool_calls"]] == ["ok", "ok"]


# -- the turn budget, end to end ------------------------------------------------------------


def test_endless_task_fan_out_stops_at_the_budget(
    fake_openai, project: Path, isolated_home: Path
) -> None:
    (isolated_home / ".codebot" / "config.yaml").write_text("limits: {turn_requests: 20}\n")
    four = {
        "tool_calls": [
            {"name": "Task", "arguments": {"description": f"part {i}", "prompt": "split it again"}}
            for i in range(4)
        ]
    }
    fake_openai.responder = lambda _body: four
    t0 = time.monotonic()
    r = codebot(project, fake_openai.url, "-p", "split the work", "--output-format", "json")
    assert time.monotonic() - t0 < 60
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["is_error"] is True and out["error"]["kind"] == "budget"
    assert "limits.turn_requests: 20" in out["error"]["message"]
    assert len(fake_openai.requests) == 20
    assert r.stderr.count("turn budget reached") == 1  # said once, as a warning
    assert out["tool_calls"] and all(c["status"] == "error" for c in out["tool_calls"])
