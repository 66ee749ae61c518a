"""`--mcp-config FILE` wherever the catalog is loaded: `-p`, the TUI and line mode (the
session's servers), `skills list|route|show`, `mcp list|get`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codebot.commands.args import UsageError, mcp_configs

RAW = Path(__file__).with_name("raw_server.py")


def codebot(project: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=project)


@pytest.fixture
def flag_file(tmp_path: Path) -> Path:
    f = tmp_path / "servers.json"
    server = {"command": sys.executable, "args": [str(RAW), str(tmp_path / "raw.log")]}
    f.write_text(json.dumps({"mcpServers": {"raw": server}}))
    return f


def test_print_mode_starts_a_flag_files_server_without_trust_or_approval(
    project: Path, fake_openai, flag_file: Path, tmp_path: Path
) -> None:
    fake_openai.script(
        [
            {"tool_calls": [{"name": "mcp__raw__echo", "arguments": '{"text": "hi"}'}]},
            {"text": "ok"},
        ]
    )
    model = ["--api-base", fake_openai.url, "--model", "openai/x"]
    out = codebot(
        project, "-p", "go", *model, "--mcp-config", str(flag_file), "--allow", "mcp__raw"
    )
    assert out.returncode == 0, out.stderr
    tool = next(m for m in fake_openai.requests[1]["messages"] if m["role"] == "tool")
    assert tool["content"] == "hi"


@pytest.mark.parametrize(
    "words",
    [
        ["skills", "list"],
        ["skills", "list", "--json"],
        ["skills", "route", "format the code"],
        ["mcp", "list", "--no-connect"],
    ],
)
def test_the_flag_is_accepted_by_catalog_commands(
    project: Path, flag_file: Path, words: list[str]
) -> None:
    out = codebot(project, *words, "--mcp-config", str(flag_file))
    assert "unrecognized arguments" not in out.stderr
    assert out.returncode in (0, 1), out.stderr


def test_skills_show_accepts_it_too(project: Path, flag_file: Path, write_skill) -> None:
    write_skill(project / ".codebot" / "skills", "demo", "name: demo\ndescription: Demo skill.")
    out = codebot(project, "skills", "show", "demo", "--mcp-config", str(flag_file))
    assert out.returncode == 0, out.stderr


def test_the_flag_before_the_command_counts_too(project: Path, flag_file: Path) -> None:
    out = codebot(project, "--mcp-config", str(flag_file), "mcp", "list", "--json", "--no-connect")
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)
    assert (row["name"], row["source"]) == ("raw", "flag")


def test_a_missing_file_or_a_folder_is_a_usage_error(tmp_path: Path, project: Path) -> None:
    with pytest.raises(UsageError, match=r"missing\.json does not exist"):
        mcp_configs([tmp_path / "missing.json"])
    with pytest.raises(UsageError, match="is a folder"):
        mcp_configs([tmp_path])
    out = codebot(project, "skills", "list", "--mcp-config", str(tmp_path / "nope.json"))
    assert out.returncode == 2 and "--mcp-config" in out.stderr


def test_a_fifo_given_as_the_file_never_blocks(tmp_path: Path, project: Path) -> None:
    fifo = tmp_path / "servers.fifo"
    os.mkfifo(fifo)
    out = codebot(project, "mcp", "list", "--no-connect", "--mcp-config", str(fifo), timeout=30)
    assert out.returncode == 0 and "servers.fifo" in out.stderr


def test_line_mode_starts_a_flag_files_server_and_its_tool_is_called(
    project: Path, fake_openai, flag_file: Path
) -> None:
    fake_openai.script(
        [
            {"tool_calls": [{"name": "mcp__raw__echo", "arguments": '{"text": "hi"}'}]},
            {"text": "ok"},
        ]
    )
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--plain"]
    cmd += ["--api-base", fake_openai.url, "--model", "openai/x"]
    cmd += ["--mcp-config", str(flag_file), "--allow", "mcp__raw"]
    out = subprocess.run(
        cmd, input="use the echo tool\n", capture_output=True, text=True, timeout=60, cwd=project
    )
    assert out.returncode == 0, out.stderr
    first, second = fake_openai.requests
    assert "mcp__raw__echo" in [t["function"]["name"] for t in first.get("tools") or []]
    tool = next(m for m in second["messages"] if m["role"] == "tool")
    assert tool["content"] == "hi"
