"""MCP tools end to end: `codebot -p` as a real process, the scripted model
(`fake_openai`), and real servers (`mcp-server-time`, `raw_server.py`)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codebot.mcp.approval import approve
from codebot.mcp.config import load_servers

RAW = Path(__file__).with_name("raw_server.py")
HAS_TIME = importlib.util.find_spec("mcp_server_time") is not None
needs_time = pytest.mark.skipif(
    not HAS_TIME, reason="mcp_server_time is not installed (pip install -e '.[mcp-test]')"
)
TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


def write_servers(project: Path, servers: dict) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def approve_all(project: Path) -> None:
    home = Path(os.environ["CODEBOT_HOME"])
    cfg = load_servers(project, {}, home / "config.yaml")
    assert approve(home, project, cfg.servers)


def marked(tmp_path: Path, name: str) -> dict:
    """A raw server that writes `name.log` (every message it got) when it starts."""
    return {"command": sys.executable, "args": [str(RAW), str(tmp_path / f"{name}.log")]}


def run(project: Path, fake, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", "go"]
    cmd += ["--api-base", fake.url, "--model", "openai/x", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=project)


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def tool_result(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "tool")


def call(name: str, arguments: dict) -> dict:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


@needs_time
def test_an_approved_servers_tool_is_called_and_its_result_reaches_the_model(
    project: Path, fake_openai
) -> None:
    write_servers(project, {"time": TIME})
    approve_all(project)
    fake_openai.script([call("mcp__time__get_current_time", {"timezone": "UTC"}), {"text": "done"}])
    out = run(project, fake_openai, "--trust", "--allow", "mcp__time")
    assert out.returncode == 0, out.stderr
    first, second = fake_openai.requests
    assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(tool_names(first))
    result = json.loads(tool_result(second))
    assert result["timezone"] == "UTC" and "datetime" in result


@needs_time
def test_print_mode_denies_an_mcp_tool_without_an_allow_rule(project: Path, fake_openai) -> None:
    write_servers(project, {"time": TIME})
    approve_all(project)
    fake_openai.script([call("mcp__time__get_current_time", {"timezone": "UTC"}), {"text": "done"}])
    out = run(project, fake_openai, "--trust", "--allow", "mcp__other")
    assert out.returncode == 0, out.stderr
    text = tool_result(fake_openai.requests[1])
    assert "datetime" not in text and "not" in text.lower()


@needs_time
@pytest.mark.parametrize(
    "deny", ["mcp__time", "mcp__time__get_current_time", "mcp__time__*", "mcp__time(*)"]
)
def test_deny_beats_allow(project: Path, fake_openai, deny: str) -> None:
    write_servers(project, {"time": TIME})
    approve_all(project)
    fake_openai.script([call("mcp__time__get_current_time", {"timezone": "UTC"}), {"text": "done"}])
    out = run(project, fake_openai, "--trust", "--allow", "mcp__time", "--deny", deny)
    assert out.returncode == 0, out.stderr
    text = tool_result(fake_openai.requests[1])
    assert "denied by rule" in text and "datetime" not in text


def test_arguments_are_checked_against_the_input_schema(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    write_servers(project, {"raw": marked(tmp_path, "raw")})
    approve_all(project)
    fake_openai.script(
        [
            call("mcp__raw__echo", {"text": 5}),
            call("mcp__raw__echo", {"text": "hi"}),
            {"text": "ok"},
        ]
    )
    out = run(project, fake_openai, "--trust", "--allow", "mcp__raw")
    assert out.returncode == 0, out.stderr
    assert "mcp__raw__echo.text: 5 is not of type 'string'" in tool_result(fake_openai.requests[1])
    calls = [json.loads(x) for x in (tmp_path / "raw.log").read_text().splitlines()]
    sent = [m["params"]["arguments"] for m in calls if m.get("method") == "tools/call"]
    assert sent == [{"text": "hi"}]  # the bad call never reached the server


@pytest.mark.parametrize("case", ["untrusted", "unapproved", "changed"])
def test_servers_that_may_not_start_start_no_process(
    project: Path, fake_openai, tmp_path: Path, case: str
) -> None:
    write_servers(project, {"raw": marked(tmp_path, "raw")})
    if case != "unapproved":
        approve_all(project)
    if case == "changed":
        write_servers(project, {"raw": {**marked(tmp_path, "raw"), "env": {"X": "1"}}})
    fake_openai.script([{"text": "done"}])
    trust = [] if case == "untrusted" else ["--trust"]
    out = run(project, fake_openai, *trust, "--allow", "mcp__raw")
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "raw.log").exists()  # the server never started
    assert "mcp__raw__echo" not in tool_names(fake_openai.requests[0])
    expected = {"untrusted": "project not trusted", "unapproved": "not approved"}
    assert expected.get(case, "changed since it was approved") in out.stderr


def test_a_server_that_dies_mid_call_is_an_error_result(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    # its timeout is 60 s and the run is given 40: only noticing the exit can end the call
    write_servers(project, {"raw": {**marked(tmp_path, "raw"), "timeout": 60}})
    approve_all(project)
    fake_openai.script([call("mcp__raw__die", {}), {"text": "done"}])
    out = run(project, fake_openai, "--trust", "--allow", "mcp__raw", timeout=40)
    assert out.returncode == 0, out.stderr
    text = tool_result(fake_openai.requests[1])
    assert "exited during the call" in text


def test_a_server_that_never_answers_initialize_delays_nothing_past_its_timeout(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    quiet = marked(tmp_path, "quiet")
    quiet["args"].append("--silent")
    write_servers(
        project, {"quiet": {**quiet, "startup_timeout": 1}, "raw": marked(tmp_path, "raw")}
    )
    approve_all(project)
    fake_openai.script([call("mcp__raw__echo", {"text": "hi"}), {"text": "done"}])
    out = run(project, fake_openai, "--trust", "--allow", "mcp__raw", timeout=30)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "quiet.log").exists()  # it was started, and never answered
    first = fake_openai.requests[0]
    assert "mcp__raw__echo" in tool_names(first)
    assert not any(n.startswith("mcp__quiet") for n in tool_names(first))
    assert tool_result(fake_openai.requests[1]) == "hi"


def run_with(project: Path, fake, config: str, *args: str) -> subprocess.CompletedProcess:
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n" + config)
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", "go"]
    cmd += ["--api-base", fake.url, "--model", "openai/x", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=project)


def test_an_ask_rule_in_print_mode_denies_even_when_allowed(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    server = json.dumps(marked(tmp_path, "raw"))
    config = f"permissions:\n  ask: [mcp__raw__echo]\nmcp:\n  servers:\n    raw: {server}\n"
    fake_openai.script([call("mcp__raw__echo", {"text": "hi"}), {"text": "done"}])
    out = run_with(project, fake_openai, config, "--allow", "mcp__raw")
    assert out.returncode == 0, out.stderr
    assert tool_result(fake_openai.requests[1]) != "hi"
    calls = [json.loads(x) for x in (tmp_path / "raw.log").read_text().splitlines()]
    assert not any(m.get("method") == "tools/call" for m in calls)


def test_many_tools_are_deferred_and_toolsearch_makes_one_callable(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    entry = marked(tmp_path, "big")
    entry["args"] += ["--tools", "40"]
    config = f"model_context_window: 20000\nmcp:\n  servers:\n    big: {json.dumps(entry)}\n"
    fake_openai.script(
        [
            call("ToolSearch", {"query": "mcp__big__tool_3"}),
            call("mcp__big__tool_3", {"arg_0": "x"}),
            {"text": "done"},
        ]
    )
    out = run_with(project, fake_openai, config, "--allow", "mcp__big")
    assert out.returncode == 0, out.stderr
    first, second, third = fake_openai.requests
    names = tool_names(first)
    assert "ToolSearch" in names and not any(n.startswith("mcp__big__") for n in names)
    search = next(t for t in first["tools"] if t["function"]["name"] == "ToolSearch")
    assert "mcp__big__tool_39: Generated tool 39." in search["function"]["description"]
    assert '"name": "mcp__big__tool_3"' in tool_result(second)
    assert "mcp__big__tool_3" in tool_names(second)  # loaded: its definition is sent now
    assert [m["content"] for m in third["messages"] if m["role"] == "tool"][-1] == "tool_3 done"


def test_mcp_list_shows_renamed_tools(project: Path, tmp_path: Path) -> None:
    flag = tmp_path / "servers.json"
    servers = {"a__b": marked(tmp_path, "one"), "a_b": marked(tmp_path, "two")}
    flag.write_text(json.dumps({"mcpServers": servers}))
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "mcp", "list", "--json"]
    out = subprocess.run(
        [*cmd, "--mcp-config", str(flag)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    rows = {r["name"]: r for r in json.loads(out.stdout)}
    assert rows["a__b"]["renamed"] == {}
    assert rows["a_b"]["renamed"]["mcp__a_b__echo_2"] == "echo"


def test_sigterm_kills_the_servers_process_group(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    import signal
    import textwrap
    import time

    # the server leaves a child that ignores the closed pipe: only killing the group ends it
    child_pid = tmp_path / "child.pid"
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(
        textwrap.dedent(
            f"""
            import runpy, subprocess, sys
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
            open({str(child_pid)!r}, "w").write(str(child.pid))
            sys.argv = [{str(RAW)!r}, {str(tmp_path / "raw.log")!r}]
            runpy.run_path({str(RAW)!r}, run_name="__main__")
            """
        )
    )
    write_servers(project, {"raw": {"command": sys.executable, "args": [str(wrapper)]}})
    approve_all(project)
    fake_openai.script([call("mcp__raw__hang", {}), {"text": "x"}])
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", "go", "--trust"]
    cmd += ["--api-base", fake_openai.url, "--model", "openai/x", "--allow", "mcp__raw"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project)
    log = tmp_path / "raw.log"

    def gone(pid: int) -> bool:
        stat = Path(f"/proc/{pid}/stat")
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] in "ZX"
        except OSError:
            return True

    try:
        deadline = time.monotonic() + 60
        while '"hang"' not in (log.read_text() if log.exists() else "") and (
            time.monotonic() < deadline
        ):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        child = int(child_pid.read_text())
        assert not gone(child)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        deadline = time.monotonic() + 5
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(child), "the server's child outlived codebot"
        assert proc.returncode == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
        if child_pid.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(child_pid.read_text()), signal.SIGKILL)


def test_ctrl_c_while_the_first_request_waits_for_a_server_ends_at_once(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    import signal
    import time

    quiet = marked(tmp_path, "quiet")
    quiet["args"].append("--silent")
    write_servers(project, {"quiet": {**quiet, "startup_timeout": 60}})
    approve_all(project)
    fake_openai.script([{"text": "never asked"}])
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", "go", "--trust"]
    cmd += ["--api-base", fake_openai.url, "--model", "openai/x"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "quiet.log").exists() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        (tmp_path / "quiet.log").read_text()  # started, initialize sent, never answered
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)  # its startup_timeout is 60 s: only the cancel ends it
        assert proc.returncode == 130
        assert fake_openai.requests == []
    finally:
        if proc.poll() is None:
            proc.kill()


@needs_time
def test_a_server_approved_at_the_question_joins_the_line_mode_session(
    project: Path, fake_openai
) -> None:
    """Line mode: the question at start is answered `a`, and the server approved there is
    started in this very session: its tool reaches the model and its result comes back."""
    write_servers(project, {"time": TIME})
    fake_openai.script([call("mcp__time__get_current_time", {"timezone": "UTC"}), {"text": "done"}])
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--plain", "--trust"]
    cmd += ["--api-base", fake_openai.url, "--model", "openai/x", "--allow", "mcp__time"]
    out = subprocess.run(
        cmd,
        input="a\nwhat time is it\n/exit\n",
        capture_output=True,
        text=True,
        timeout=90,
        cwd=project,
    )
    assert out.returncode == 0, out.stderr
    assert "approved MCP server(s): time" in out.stdout
    first, second = fake_openai.requests
    assert "mcp__time__get_current_time" in tool_names(first)
    assert json.loads(tool_result(second))["timezone"] == "UTC"
