"""`codebot -p` as a real process, through the real litellm path, against a scripted
OpenAI-compatible server on 127.0.0.1 (and the offline model without any server)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    skills = proj / ".codebot" / "skills"
    write_skill(
        skills,
        "deploy",
        "description: Deploy the app to production. Not for local runs.\nmodel: openai/big-model",
        "DEPLOY-BODY for $ARGUMENTS.",
    )
    write_skill(
        skills,
        "gitstat",
        "description: Show git status. Not for commits.\nallowed-tools: Bash(echo granted:*)",
        "GITSTAT-BODY",
    )
    write_skill(
        skills,
        "research",
        "description: Research a question in a fork. Not for edits.\ncontext: fork",
        "FORK-BODY: find where X is defined.",
    )
    return proj


def codebot(
    project: Path, *args: str, url: str | None = None, timeout: float = 90
) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust", *args]
    if url:
        cmd += ["--api-base", url, "--model", "openai/test-model"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=project)


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}], "split": True}


def user_message(body: dict[str, Any]) -> str:
    return next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"]


def test_listing_in_reminder_skill_body_back_and_stable_system_prompt(
    fake_openai, project: Path
) -> None:
    fake_openai.script(
        [tool_call("Skill", skill="deploy", args="prod"), {"text": "deployed"}, {"text": "hi"}]
    )
    r1 = codebot(project, "-p", "ship it", "--output-format", "json", url=fake_openai.url)
    assert r1.returncode == 0, r1.stderr
    out = json.loads(r1.stdout)
    assert out["result"] == "deployed" and [
        {k: e[k] for k in ("name", "actor", "mode", "status", "summary")} for e in out["skills"]
    ] == [
        {
            "name": "deploy",
            "actor": "model",
            "mode": "inline",
            "status": "success",
            "summary": "deployed",
        }
    ]
    r2 = codebot(project, "-p", "thanks", "--continue", url=fake_openai.url)
    assert r2.returncode == 0, r2.stderr
    first, second, third = fake_openai.requests
    assert "<system-reminder>" in user_message(first) and "- deploy" in user_message(first)
    assert "- deploy" not in first["messages"][0]["content"]
    assert first["messages"][0] == second["messages"][0] == third["messages"][0]
    tool_result = next(m for m in second["messages"] if m["role"] == "tool")["content"]
    assert tool_result.startswith('<skill name="deploy"') and "DEPLOY-BODY for prod." in tool_result
    # model: switches the model for the rest of that turn only; --continue is back on the
    # session model
    assert (first["model"], second["model"], third["model"]) == (
        "test-model",
        "big-model",
        "test-model",
    )


def test_allowed_tools_grant_bash_in_that_turn_only(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            tool_call("Skill", skill="gitstat"),
            tool_call("Bash", command="echo granted now"),
            {"text": "done"},
            tool_call("Bash", command="echo granted now"),
            {"text": "done again"},
        ]
    )
    r1 = codebot(project, "-p", "status please", "--output-format", "json", url=fake_openai.url)
    r2 = codebot(
        project, "-p", "again", "--continue", "--output-format", "json", url=fake_openai.url
    )
    assert [c["status"] for c in json.loads(r1.stdout)["tool_calls"]] == ["ok", "ok"]
    assert [c["status"] for c in json.loads(r2.stdout)["tool_calls"]] == ["denied"]
    bash_result = [m for m in fake_openai.requests[2]["messages"] if m["role"] == "tool"][-1][
        "content"
    ]
    assert "granted now" in bash_result


def test_fork_skill_runs_as_separate_request_without_parent_conversation(
    fake_openai, project: Path
) -> None:
    fake_openai.script(
        [
            {"text": "noted"},
            tool_call("Skill", skill="research"),
            {"match": "FORK-BODY", "text": "X is defined in x.py:3"},
            {"text": "the sub-agent says x.py:3"},
        ]
    )
    codebot(project, "-p", "remember PARROT", url=fake_openai.url)
    r = codebot(
        project, "-p", "research X", "--continue", "--output-format", "json", url=fake_openai.url
    )
    assert r.returncode == 0, r.stderr
    sub = next(b for b in fake_openai.requests if "FORK-BODY" in json.dumps(b["messages"]))
    assert "PARROT" not in json.dumps(sub["messages"])
    final = fake_openai.requests[-1]
    assert [m for m in final["messages"] if m["role"] == "tool"][-1][
        "content"
    ] == "X is defined in x.py:3"
    assert "FORK-BODY" not in json.dumps(final["messages"])  # only the answer came back


def test_two_server_errors_then_success_recovers(fake_openai, project: Path) -> None:
    fake_openai.script([{"status": 500}, {"status": 500}, {"text": "recovered"}])
    r = codebot(project, "-p", "hello", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "recovered"
    assert len(fake_openai.requests) == 3


def test_auth_error_is_clear_and_exits_nonzero(fake_openai, project: Path) -> None:
    fake_openai.script([{"status": 401}])
    r = codebot(project, "-p", "hello", "--output-format", "json", url=fake_openai.url)
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["is_error"] is True and out["error"]["kind"] == "auth"
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert len(fake_openai.requests) == 1  # never retried


def test_offline_review_calls_skill_without_importing_litellm(tmp_path: Path) -> None:
    code = (
        "import sys; from codebot.cli import main; "
        "rc = main(['-p', 'please review my recent changes', '--output-format', 'json']); "
        "print('LITELLM' if 'litellm' in sys.modules else 'NO-LITELLM'); sys.exit(rc)"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[-1] == "NO-LITELLM"
    out = json.loads(lines[0])
    assert out["model"] == "offline"
    assert (
        out["tool_calls"][0]["name"] == "Skill"
        and out["tool_calls"][0]["arguments"]["skill"] == "review"
    )


def test_killed_mid_turn_then_continue_keeps_earlier_messages(fake_openai, project: Path) -> None:
    fake_openai.script([{"text": "noted PARROT"}, {"stall": 60}, {"text": "still here"}])
    assert codebot(project, "-p", "remember PARROT", url=fake_openai.url).returncode == 0
    cmd = [
        sys.executable,
        "-m",
        "codebot",
        "--cwd",
        str(project),
        "-p",
        "second message",
        "--continue",
        "--api-base",
        fake_openai.url,
        "--model",
        "openai/test-model",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project)
    deadline = time.monotonic() + 60
    while len(fake_openai.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(fake_openai.requests) == 2, "the second turn never reached the server"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    r = codebot(project, "-p", "third", "--continue", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    messages = json.dumps(fake_openai.requests[-1]["messages"])
    assert (
        "remember PARROT" in messages
        and "noted PARROT" in messages
        and "second message" in messages
    )


# -- a denied call says which rule would allow it ------------------------------------------------


def test_a_denied_bash_call_names_the_rule_to_add_and_that_rule_works(
    fake_openai, project: Path
) -> None:
    fake_openai.script(
        [
            tool_call("Bash", command="git status --short"),
            {"text": "could not"},
            tool_call("Bash", command="git status --short"),
            {"text": "done"},
        ]
    )
    r1 = codebot(project, "-p", "status?", "--output-format", "json", url=fake_openai.url)
    assert r1.returncode == 0, r1.stderr
    assert [c["status"] for c in json.loads(r1.stdout)["tool_calls"]] == ["denied"]
    hint = [line for line in r1.stderr.splitlines() if "was denied" in line]
    assert len(hint) == 1, r1.stderr
    assert "Bash `git status --short`" in hint[0] and "--allow 'Bash(git status:*)'" in hint[0]
    assert "--allow 'Bash(git status --short)'" in hint[0]  # the narrow alternative
    r2 = codebot(
        project,
        "-p",
        "status?",
        "--output-format",
        "json",
        "--allow",
        "Bash(git status:*)",
        url=fake_openai.url,
    )
    assert [c["status"] for c in json.loads(r2.stdout)["tool_calls"]] != ["denied"]
    assert "was denied" not in r2.stderr


def test_a_call_denied_by_a_rule_says_to_remove_the_rule(fake_openai, project: Path) -> None:
    fake_openai.script([tool_call("Bash", command="git push origin main"), {"text": "no"}])
    r = codebot(project, "-p", "push", "--deny", "Bash(git push:*)", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    assert (
        "denied by the rule Bash(git push:*)" in r.stderr
        and "--allow" in r.stderr
        and "remove it" in r.stderr
    )


def test_print_mode_compacts_with_flag_and_with_a_typed_compact(fake_openai, project: Path) -> None:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        last = body["messages"][-1]
        if str(last.get("content") or "").startswith("Summarize the conversation so far"):
            assert "Keep in focus above all: the deploy" in last["content"]
            return {"text": "SUMMARY: deploy prod was asked"}
        return {"text": "ok"}

    fake_openai.responder = answer
    assert codebot(project, "-p", "/deploy prod", url=fake_openai.url).returncode == 0
    assert codebot(project, "-p", "and then?", "--continue", url=fake_openai.url).returncode == 0
    r = codebot(
        project,
        "-p",
        "/compact the deploy",
        "--continue",
        "--output-format",
        "json",
        url=fake_openai.url,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["compaction"]["summarized"] >= 2 and out["compaction"]["attached"] == ["deploy"]
    r = codebot(
        project, "-p", "go on", "--continue", "--compact", "the deploy", url=fake_openai.url
    )
    assert r.returncode == 0, r.stderr
    last = fake_openai.requests[-1]["messages"]
    assert (
        last[1]["content"].startswith("<conversation-summary")
        and "SUMMARY: deploy prod" in last[1]["content"]
    )
    assert "DEPLOY-BODY for prod" in last[1]["content"]
