"""`codebot --continue` resumes with the setup the session had, through real processes
against the scripted OpenAI-compatible server: the model, the endpoint and the
`--skills-dir` folder come back without flags (and the restored line says so); a flag
given with --continue wins and is said; a folder that is gone is skipped with a note."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    write_skill(
        project / "skills",
        "deploy-helper",
        "name: deploy-helper\ndescription: Deploys the app to the staging cluster.",
    )
    return project


def codebot(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)  # HOME, CODEBOT_HOME private (conftest); PYTHONPATH kept
    cmd = [sys.executable, "-m", "codebot", "--trust", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=project, env=env)


def first_session(project: Path, url: str) -> None:
    r = codebot(
        project, "-p", "hi", "--model", "openai/x", "--api-base", url, "--skills-dir", "skills"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "one"


def skill_listed(body: dict) -> bool:
    return "deploy-helper" in json.dumps(body["messages"])


def test_continue_without_flags_restores_model_endpoint_and_skills(
    fake_openai, project: Path
) -> None:
    fake_openai.script([{"text": "one"}, {"text": "two"}])
    first_session(project, fake_openai.url)
    assert skill_listed(fake_openai.requests[0])
    r = codebot(project, "--continue", "-p", "again")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "two"  # the answer came from the scripted server
    assert len(fake_openai.requests) == 2
    second = fake_openai.requests[1]
    assert second["model"] == "x"
    assert skill_listed(second)
    sent = [m["content"] for m in second["messages"] if m["role"] == "user"]
    assert "hi" in json.dumps(sent[0]) and "again" in json.dumps(sent[-1])  # same session
    assert (
        "codebot: restored from the session: model openai/x · "
        f"endpoint {fake_openai.url} · skills folder skills"
    ) in r.stderr


def test_a_flag_given_with_continue_wins_and_is_said(fake_openai, project: Path) -> None:
    fake_openai.script([{"text": "one"}, {"text": "two"}])
    first_session(project, fake_openai.url)
    r = codebot(
        project, "--continue", "--model", "openai/y", "--api-base", fake_openai.url, "-p", "again"
    )
    assert r.returncode == 0, r.stderr
    assert fake_openai.requests[1]["model"] == "y"
    assert "--model given: using openai/y, the session used openai/x" in r.stderr
    assert "restored from the session: skills folder skills" in r.stderr
    assert skill_listed(fake_openai.requests[1])


def test_a_skills_folder_that_is_gone_is_skipped_with_a_note(fake_openai, project: Path) -> None:
    fake_openai.script([{"text": "one"}, {"text": "two"}])
    first_session(project, fake_openai.url)
    (project / "skills" / "deploy-helper" / "SKILL.md").unlink()
    (project / "skills" / "deploy-helper").rmdir()
    (project / "skills").rmdir()
    r = codebot(project, "--continue", "-p", "again")
    assert r.returncode == 0, r.stderr
    assert fake_openai.requests[1]["model"] == "x"
    assert "the session's skills folder skills no longer exists; skipped" in r.stderr
    assert "restored from the session: model openai/x" in r.stderr


def test_session_rules_come_back_only_in_the_sessions_own_project(
    fake_openai, project: Path, tmp_path: Path
) -> None:
    fake_openai.script([{"text": "one"}])
    first_session(project, fake_openai.url)
    [path] = (Path(os.environ["CODEBOT_HOME"]) / "sessions").glob("*.jsonl")
    records = [json.loads(x) for x in path.read_text().splitlines()]
    setup = next(r["setup"] for r in records if r["type"] == "setup")
    # as an "allow for this session" answer records it
    with path.open("a") as fh:
        fh.write(
            json.dumps(
                {"type": "setup", "setup": setup | {"session_rules": ["Read(*)", "Write(x.txt)"]}}
            )
            + "\n"
        )
    write = {
        "tool_calls": [
            {"name": "Write", "arguments": json.dumps({"path": "x.txt", "content": "1"})}
        ]
    }
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    fake_openai.script([write, {"text": "tried"}])
    r = codebot(other, "--resume", path.stem, "-p", "write it", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert [c["status"] for c in json.loads(r.stdout)["tool_calls"]] == ["denied"]
    assert not (other / "x.txt").exists()
    assert "were not restored: they were given in another project" in r.stderr
    fake_openai.script([write, {"text": "wrote"}])
    r = codebot(project, "--resume", path.stem, "-p", "write it", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert [c["status"] for c in json.loads(r.stdout)["tool_calls"]] == ["ok"], r.stderr
    assert (project / "x.txt").read_text() == "1"
    assert "restored the session's allow rules: Read(*), Write(x.txt)" in r.stderr
