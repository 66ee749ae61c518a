"""A plugin repository in a real `codebot -p` against the scripted server: its skills are
listed as `name:skill`, its SessionStart context reaches the model in a trusted folder
only, a Task can use its agent, and `--continue` restores `--plugin-dir`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from plugin_kit import make_plugin

pytestmark = pytest.mark.slow

CONTEXT = "PLUGIN-START-CONTEXT-7731"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_plugin(tmp_path / "toolkit-repo")
    (root / ".git").mkdir()
    return root


def run(cwd: Path, url: str, *args: str, prompt: str = "go") -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "codebot", "-p", prompt, "--output-format", "json"]
    cmd += ["--model", "openai/x", "--api-base", url, *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=120, cwd=cwd, stdin=subprocess.DEVNULL
    )


def sent(server: Any, i: int = 0) -> str:
    return json.dumps(server.requests[i]["messages"])


def test_trusted_plugin_repo_lists_its_skills_and_runs_its_start_hook(
    fake_openai: Any, repo: Path
) -> None:
    fake_openai.script([{"text": "ok"}])
    done = run(repo, fake_openai.url, "--trust")
    assert done.returncode == 0, done.stderr
    text = sent(fake_openai)
    for name in ("toolkit:brainstorm", "toolkit:plan-work", "toolkit:verify", "toolkit:review-pr"):
        assert f"- {name}" in text, name
    assert CONTEXT in text


def test_untrusted_plugin_repo_is_not_loaded_and_its_hook_does_not_run(
    fake_openai: Any, repo: Path
) -> None:
    fake_openai.script([{"text": "ok"}])
    done = run(repo, fake_openai.url)
    assert done.returncode == 0, done.stderr
    text = sent(fake_openai)
    assert "toolkit:" not in text and CONTEXT not in text
    (line,) = [ln for ln in done.stderr.splitlines() if "Claude Code plugin" in ln]
    assert "`toolkit`" in line and "not loaded in an untrusted folder" in line


def test_plugin_dir_loads_skills_but_its_hook_needs_a_trusted_folder(
    fake_openai: Any, repo: Path, project: Path
) -> None:
    fake_openai.script([{"text": "ok"}, {"text": "ok"}])
    done = run(project, fake_openai.url, "--plugin-dir", str(repo))
    assert done.returncode == 0, done.stderr
    assert "- toolkit:verify" in sent(fake_openai, 0) and CONTEXT not in sent(fake_openai, 0)
    done = run(project, fake_openai.url, "--plugin-dir", str(repo), "--trust")
    assert done.returncode == 0, done.stderr
    assert CONTEXT in sent(fake_openai, 1)


def test_a_task_runs_the_plugins_agent(fake_openai: Any, repo: Path, project: Path) -> None:
    call = {
        "name": "Task",
        "arguments": json.dumps(
            {"description": "check", "prompt": "check it", "agent": "toolkit:checker"}
        ),
    }
    fake_openai.script([{"tool_calls": [call]}, {"text": "checked"}, {"text": "done"}])
    done = run(project, fake_openai.url, "--plugin-dir", str(repo))
    assert done.returncode == 0, done.stderr
    child = fake_openai.requests[1]
    assert "CHECKER-AGENT-PROMPT" in json.dumps(child["messages"][0])
    assert child["model"].endswith("x")  # the agent's `model:` is dropped (plugin)


def test_continue_restores_plugin_dir(fake_openai: Any, repo: Path, project: Path) -> None:
    fake_openai.script([{"text": "first"}, {"text": "second"}])
    assert run(project, fake_openai.url, "--plugin-dir", str(repo)).returncode == 0
    again = run(project, fake_openai.url, "--continue", prompt="more")
    assert again.returncode == 0, again.stderr
    assert "plugin folder" in again.stderr and "restored from the session" in again.stderr
    assert "- toolkit:verify" in sent(fake_openai, 1)


def test_a_plugin_command_runs_as_a_slash_skill_with_its_arguments(
    fake_openai: Any, repo: Path, project: Path
) -> None:
    fake_openai.script([{"text": "reviewed"}])
    done = run(project, fake_openai.url, "--plugin-dir", str(repo), prompt="/toolkit:review-pr 42")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "reviewed"
    assert "Review pull request 42 carefully." in sent(fake_openai)
