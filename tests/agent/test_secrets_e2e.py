"""Secrets (issue 30, part 3), as a prompt-injected model would go for them: a real
`codebot -p` process, the real litellm path, a scripted server on 127.0.0.1 that records
what the provider would receive. Each attack is checked on that record, with a control
that shows the setup is live.

* Masks fail closed: a deny rule's path is masked however big the project, whatever
  marker sits beside it; when the walk a glob rule needs cannot finish, the command is
  denied with the reason (print mode) instead of running with a partial mask.
* Commands, and a skill's `` !`cmd` ``, get no secret variables: only what the person's
  own config keeps or sets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.tools.sandbox import probe
from codebot.home import codebot_home

pytestmark = pytest.mark.slow
needs_bwrap = pytest.mark.skipif(
    not probe().ok, reason=f"the sandbox is not available here: {probe().reason}"
)

SECRET = "s3cr3t-4711"
SECRET_VARS = {
    "OPENAI_API_KEY": "sk-openai-4712",
    "GITHUB_TOKEN": "ghp-4713",
    "AWS_SECRET_ACCESS_KEY": "aws-4714",
    "AZURE_OPENAI_ENDPOINT": "https://azure-4715.example",
    "db_password": "pw-4716",
}


@pytest.fixture
def project(project: Path) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    (proj / "backend").mkdir()
    (proj / "backend" / ".env").write_text(f"API_TOKEN={SECRET}\n")
    (proj / "backend" / "settings.txt").write_text("DEBUG=visible-4717\n")
    return proj


def fill(folder: Path, n: int = 21000) -> None:
    """`n` new entries in `folder` (hard links: much faster than new files)."""
    src = folder / ".filler"
    src.write_text("x")
    for i in range(n - 1):
        os.link(src, folder / f"f{i:05}")


def bash(*commands: str) -> list[dict[str, Any]]:
    steps = [
        {"tool_calls": [{"name": "Bash", "arguments": json.dumps({"command": c})}], "split": True}
        for c in commands
    ]
    return [*steps, {"text": "done"}]


def codebot(project: Path, url: str, *args: str, prompt: str = "go") -> tuple[dict[str, Any], str]:
    cmd = [
        sys.executable,
        "-m",
        "codebot",
        "--cwd",
        str(project),
        "-p",
        prompt,
        "--output-format",
        "json",
        "--api-base",
        url,
        "--model",
        "openai/test-model",
        *args,
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=project)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), r.stderr


def sent(server) -> str:
    """Everything the provider was sent in the last request: messages and tool results."""
    return json.dumps(server.requests[-1]["messages"])


def tool_outputs(server) -> list[str]:
    return [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]


def user_skill(name: str, body: str) -> None:
    folder = codebot_home() / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Test skill {name}. Not for anything.\n---\n{body}"
    )


# -- masks fail closed -------------------------------------------------------------------


@needs_bwrap
def test_a_literal_rule_masks_its_path_in_a_project_too_big_to_walk(
    fake_openai, project: Path
) -> None:
    fill(project)  # 21,000 entries beside backend/: the old walk stopped before reaching it
    fake_openai.script(bash("cat backend/.env", "cat backend/settings.txt"))
    codebot(
        project, fake_openai.url, "--sandbox", "--allow", "Bash", "--deny", "Read(backend/.env)"
    )
    secret, control = tool_outputs(fake_openai)
    assert SECRET not in sent(fake_openai) and "Permission denied" in secret
    assert (
        "DEBUG=visible-4717" in control
    )  # the control: the command ran, and reads what is not denied


@needs_bwrap
@pytest.mark.parametrize("rule", ["Read(backend/.env)", "Read(.env)", "Read(**/.env)"])
def test_a_virtualenv_marker_beside_the_secret_hides_nothing(
    fake_openai, project: Path, rule: str
) -> None:
    (project / "backend" / "pyvenv.cfg").write_text(
        "home = /usr/bin-4718\n"
    )  # the old walk skipped "virtualenvs"
    fake_openai.script(bash("cat backend/.env", "cat backend/pyvenv.cfg"))
    codebot(project, fake_openai.url, "--sandbox", "--allow", "Bash", "--deny", rule)
    secret, control = tool_outputs(fake_openai)
    assert SECRET not in sent(fake_openai) and "Permission denied" in secret
    assert "home = /usr/bin-4718" in control


@needs_bwrap
def test_a_walk_that_cannot_finish_denies_the_command_in_print_mode(
    fake_openai, project: Path
) -> None:
    fill(project)
    fake_openai.script(bash("cat backend/.env"))
    out, _ = codebot(
        project, fake_openai.url, "--sandbox", "--allow", "Bash", "--deny", "Read(.env)"
    )
    [call] = out["tool_calls"]
    assert call["status"] == "denied"
    assert (
        "not run: the sandbox could not find every path your Read deny rules refuse (Read(.env)): "
        "the project walk stopped after 20,000 entries"
    ) in call["reason"]
    assert SECRET not in sent(fake_openai)


@needs_bwrap
def test_the_control_a_walk_that_finishes_runs_the_command_masked(
    fake_openai, project: Path
) -> None:
    fake_openai.script(bash("cat backend/.env; cat backend/settings.txt"))
    out, _ = codebot(
        project, fake_openai.url, "--sandbox", "--allow", "Bash", "--deny", "Read(.env)"
    )
    assert out["tool_calls"][0]["status"] != "denied"
    assert SECRET not in sent(fake_openai) and "DEBUG=visible-4717" in tool_outputs(fake_openai)[0]


@needs_bwrap
def test_a_skill_command_under_an_incomplete_mask_is_not_run(fake_openai, project: Path) -> None:
    fill(project)
    user_skill("peek", "Config: !`cat backend/.env`\n")
    fake_openai.script([{"text": "done"}])
    codebot(project, fake_openai.url, "--sandbox", "--deny", "Read(.env)", prompt="/peek")
    text = sent(fake_openai)
    assert SECRET not in text
    assert (
        "[command not run: the sandbox could not find every path your Read deny rules refuse"
        in text
    )


# -- the environment ---------------------------------------------------------------------


@pytest.mark.parametrize("sandbox", ["--no-sandbox", pytest.param("--sandbox", marks=needs_bwrap)])
def test_commands_get_no_secret_variables(
    fake_openai, project: Path, monkeypatch, sandbox: str
) -> None:
    for name, value in {
        **SECRET_VARS,
        "MY_SERVICE_TOKEN": "kept-4719",
        "CODEBOT_TEST_PLAIN": "plain-4720",
    }.items():
        monkeypatch.setenv(name, value)
    (codebot_home() / "config.yaml").write_text(
        "shell: {env: {keep: ['MY_SERVICE_*'], set: {FROM_CONFIG: set-4721}}}\n"
    )
    # A trusted project's config cannot keep a secret for its commands: only your own can.
    (project / ".codebot").mkdir()
    (project / ".codebot" / "config.yaml").write_text(
        "shell: {env: {keep: ['*'], set: {LEAK: '${OPENAI_API_KEY}'}}}\n"
    )
    fake_openai.script(bash("env", "cat /proc/self/environ"))
    _, err = codebot(
        project,
        fake_openai.url,
        sandbox,
        "--trust",
        "--allow",
        "Bash(env)",
        "--allow",
        "Bash(cat:*)",
    )
    outputs = tool_outputs(fake_openai)
    assert len(outputs) == 2
    text = sent(fake_openai)
    for name, value in SECRET_VARS.items():
        assert value not in text and f"{name}=" not in text
    for (
        out
    ) in outputs:  # the control: the environment is there, with what your config keeps and sets
        assert "PATH=" in out and "CODEBOT_TEST_PLAIN=plain-4720" in out
        assert "MY_SERVICE_TOKEN=kept-4719" in out and "FROM_CONFIG=set-4721" in out
        assert "LEAK=" not in out
    assert "shell.env is read only from your own config" in err


def test_a_skills_commands_get_no_secret_variables(fake_openai, project: Path, monkeypatch) -> None:
    for name, value in {**SECRET_VARS, "CODEBOT_TEST_PLAIN": "plain-4720"}.items():
        monkeypatch.setenv(name, value)
    user_skill("showenv", "Environment:\n!`env`\n")
    fake_openai.script([{"text": "done"}])
    codebot(project, fake_openai.url, "--no-sandbox", prompt="/showenv")
    text = sent(fake_openai)
    for name, value in SECRET_VARS.items():
        assert value not in text and f"{name}=" not in text
    assert (
        "PATH=" in text and "CODEBOT_TEST_PLAIN=plain-4720" in text
    )  # the control: the command ran
