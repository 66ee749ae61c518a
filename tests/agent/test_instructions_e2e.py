"""AGENTS.md and CLAUDE.md reach the model: a real `codebot -p` process against the scripted
OpenAI-compatible server, through the real litellm path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _run(project: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", "hello", *extra]
    cmd += ["--api-base", url, "--model", "openai/test-model"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project)


def _system(server) -> str:
    return server.requests[-1]["messages"][0]["content"]


def test_agents_and_claude_md_reach_the_request_in_order(fake_openai, tmp_path, codebot_home):
    proj = tmp_path / "repo"
    (proj / ".git").mkdir(parents=True)
    (proj / "AGENTS.md").write_text("AGENTS-RULE: run `make test` before you finish.\n")
    (proj / "CLAUDE.md").write_text("CLAUDE-RULE: see @docs/style.md\n")
    (proj / "docs").mkdir()
    (proj / "docs" / "style.md").write_text("STYLE-RULE: tabs\x1b[2J\n")
    codebot_home.mkdir(parents=True, exist_ok=True)
    (codebot_home / "AGENTS.md").write_text("USER-RULE: answer briefly.\n")
    fake_openai.script([{"text": "ok"}])
    r = _run(proj, fake_openai.url)
    assert r.returncode == 0, r.stderr
    system = _system(fake_openai)
    order = [system.find(k) for k in ("USER-RULE", "AGENTS-RULE", "CLAUDE-RULE", "STYLE-RULE")]
    assert -1 not in order and order == sorted(order), order
    assert str(proj / "AGENTS.md") in system
    assert "not trusted" in system  # an untrusted clone: read, but marked
    assert "\x1b" not in system
    fake_openai.script([{"text": "ok"}])
    assert _run(proj, fake_openai.url, "--trust").returncode == 0
    assert "not trusted" not in _system(fake_openai)  # the control


def test_nested_agents_md_applies_after_a_tool_works_there(fake_openai, tmp_path):
    proj = tmp_path / "repo"
    (proj / ".git").mkdir(parents=True)
    (proj / "api").mkdir()
    (proj / "api" / "main.py").write_text("print(1)\n")
    (proj / "api" / "AGENTS.md").write_text("API-RULE: keep handlers async.\n")
    read = {"name": "Read", "arguments": json.dumps({"path": "api/main.py"})}
    fake_openai.script([{"tool_calls": [read], "split": True}, {"text": "read it"}])
    r = _run(proj, fake_openai.url, "--trust")
    assert r.returncode == 0, r.stderr
    first, second = fake_openai.requests[0], fake_openai.requests[1]
    assert "API-RULE" not in first["messages"][0]["content"]
    assert "API-RULE" in second["messages"][0]["content"]
    tool = [m for m in second["messages"] if m["role"] == "tool"][-1]["content"]
    assert "instructions for this folder now apply" in tool
    assert os.path.exists(proj / "api" / "AGENTS.md")
