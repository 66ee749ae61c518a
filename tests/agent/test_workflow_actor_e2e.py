"""Workflows end to end, by who started them (issue 35 §2 leftovers), against the scripted
server: the person's workflow runs person-only steps and their `!` commands (also in
`-p`); the model's may not reach a person-only skill, at any depth, and its steps'
commands still need approval. `-p` JSON has an entry per step, `-p` text shows the steps
on stderr only."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.session import build_session
from codebot.config import load_settings
from codebot.workspace import open_catalog

pytestmark = pytest.mark.slow
MODEL = "openai/test-model"


def outcome_call(match: str, **arguments: Any) -> dict[str, Any]:
    return {
        "match": match,
        "tool_calls": [{"name": "SkillOutcome", "arguments": json.dumps(arguments)}],
    }


def with_body(fake, marker: str) -> list[dict[str, Any]]:
    return [r for r in fake.requests if marker in json.dumps(r["messages"])]


def run(project: Path, fake, text: str):
    settings = load_settings(cwd=project, model=MODEL, api_base=fake.url, trust=True)
    session = build_session(settings, open_catalog(settings), emit=lambda e: None)
    session.client.backoff = 0.0
    try:
        return asyncio.run(session.run_turn(text))
    finally:
        if session.transcript is not None:
            session.transcript.close()


def fork_skill(write_skill, root: Path, name: str, extra: str = "", body: str = "") -> None:
    write_skill(
        root,
        name,
        f"description: The {name} step of the workflows here. Not for anything else.\n"
        f"context: fork\n{extra}",
        f"{name.upper()}-BODY: do the {name} part for $ARGUMENTS.\n{body}",
    )


def workflow(write_skill, root: Path, name: str, steps: str, extra: str = "") -> None:
    write_skill(
        root,
        name,
        f"description: The {name} workflow. Not for anything else.\n{extra}steps:\n{steps}",
        "Not sent.",
    )


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    skills = project / ".codebot" / "skills"
    for name in ("one", "three", "slow", "rescue"):
        fork_skill(write_skill, skills, name)
    fork_skill(write_skill, skills, "two")
    fork_skill(
        write_skill, skills, "secret", "disable-model-invocation: true\n", "!`touch SECRET-RAN`"
    )
    fork_skill(write_skill, skills, "cmd", body="!`touch CMD-RAN`")
    workflow(
        write_skill, skills, "personal", "  - {id: a, skill: one}\n  - {id: b, skill: secret}\n"
    )
    workflow(
        write_skill, skills, "outer", "  - {id: x, skill: one}\n  - {id: y, skill: personal}\n"
    )
    workflow(
        write_skill,
        skills,
        "fanpriv",
        "  - id: g\n    parallel:\n      - {skill: one}\n      - {skill: secret}\n",
    )
    workflow(
        write_skill,
        skills,
        "fbpriv",
        "  - id: a\n    skill: one\n    on: {failed: {skill: secret}}\n",
    )
    workflow(
        write_skill, skills, "shut", "  - {id: a, skill: one}\n", "disable-model-invocation: true\n"
    )
    workflow(write_skill, skills, "wrap", "  - {id: w, skill: shut}\n")
    workflow(write_skill, skills, "withcmd", "  - {id: c, skill: cmd}\n")
    workflow(
        write_skill,
        skills,
        "lenient",
        "  - id: a\n    skill: one\n    on: {needs_confirmation: continue}\n"
        "  - {id: b, skill: three}\n",
    )
    workflow(
        write_skill,
        skills,
        "mixed",
        "  - id: both\n    parallel:\n      - {skill: slow, args: left}\n"
        "      - {skill: slow, args: right}\n"
        "  - id: b\n    skill: two\n    on: {failed: {skill: rescue}}\n",
    )
    return project


def codebot(project: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust", *args]
    cmd += ["--api-base", url, "--model", MODEL]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project)


def steps_in(skills: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {f"{s['workflow']}/{s['step']}": s for s in skills if "step" in s}


def test_the_persons_workflow_runs_a_person_only_step_and_its_commands_in_print_mode(
    fake_openai, project: Path
) -> None:
    fake_openai.script(
        [
            outcome_call("ONE-BODY", status="success", summary="one done"),
            outcome_call("SECRET-BODY", status="success", summary="secret done"),
        ]
    )
    r = codebot(project, fake_openai.url, "-p", "/personal", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert with_body(fake_openai, "SECRET-BODY")  # the person-only step ran
    assert (project / "SECRET-RAN").exists()  # and its command, with nobody to approve it
    skills = json.loads(r.stdout)["skills"]
    (own,) = [s for s in skills if s["name"] == "personal"]
    assert "step" not in own and own["status"] == "success" and own["mode"] == "workflow"
    steps = steps_in(skills)
    assert set(steps) == {"personal/a", "personal/b"}
    b = steps["personal/b"]
    assert b["name"] == "secret" and b["actor"] == "human" and b["mode"] == "fork"
    assert b["status"] == "success" and b["summary"] == "secret done"
    assert isinstance(b["ms"], int | float) and b["ms"] >= 0
    assert [s.get("step") for s in skills] == [None, "a", "b"]  # the workflow, then its steps


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("personal", "may not run step b: skill 'secret'"),
        ("outer", "step y → workflow personal, step b: skill 'secret'"),
        ("fanpriv", "step g (member g-2): skill 'secret'"),
        ("fbpriv", "step a (fallback on failed): skill 'secret'"),
        ("wrap", "step w: skill 'shut'"),
    ],
)
def test_the_models_workflow_cannot_reach_a_person_only_skill(
    fake_openai, project: Path, name: str, where: str
) -> None:
    fake_openai.script(
        [
            {"tool_calls": [{"name": "Skill", "arguments": {"skill": name}}]},
            outcome_call("ONE-BODY", status="success", summary="must not run"),
            {"text": "done"},
        ]
    )
    rec = run(project, fake_openai, "run it")
    assert not with_body(fake_openai, "ONE-BODY")  # refused before any step ran
    assert not with_body(fake_openai, "SECRET-BODY")
    assert not (project / "SECRET-RAN").exists()
    tool = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert where in tool["content"], tool["content"]
    assert "disable-model-invocation: true" in tool["content"]
    assert "started by the model" in tool["content"] and "no step ran" in tool["content"]
    (own,) = [s for s in rec.skills if s["name"] == name]
    assert own["actor"] == "model" and own["status"] == "failed"


def test_the_person_may_run_the_same_nested_workflow(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            outcome_call("ONE-BODY", status="success", summary="x"),
            outcome_call("ONE-BODY", status="success", summary="a"),
            outcome_call("SECRET-BODY", status="success", summary="b"),
        ]
    )
    rec = run(project, fake_openai, "/outer")
    assert next(s for s in rec.skills if s["name"] == "outer")["status"] == "success"
    steps = steps_in(rec.skills)
    # a nested workflow's steps name it; its own entry is outer's step y
    assert set(steps) == {"outer/x", "outer/y", "personal/a", "personal/b"}
    assert steps["personal/b"]["actor"] == "human"
    y = steps["outer/y"]
    assert (y["name"], y["mode"], y["status"]) == ("personal", "workflow", "success")
    assert [s.get("step") for s in rec.skills] == [None, "x", "a", "b", "y"]  # as they ended


def test_the_models_workflow_steps_commands_still_need_approval(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            {"tool_calls": [{"name": "Skill", "arguments": {"skill": "withcmd"}}]},
            outcome_call("CMD-BODY", status="success", summary="ran"),
            {"text": "done"},
        ]
    )
    r = codebot(project, fake_openai.url, "-p", "go", "--output-format", "json")
    assert not (project / "CMD-RAN").exists()  # print mode cannot approve it
    step = steps_in(json.loads(r.stdout)["skills"])["withcmd/c"]
    assert step["actor"] == "skill"
    (body,) = with_body(fake_openai, "CMD-BODY")
    assert "not approved" in json.dumps(body["messages"])
    # the control: the person's own workflow runs the same command
    fake_openai.script([outcome_call("CMD-BODY", status="success", summary="ran")])
    r = codebot(project, fake_openai.url, "-p", "/withcmd", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert (project / "CMD-RAN").exists()


def test_step_entries_keep_parallel_members_and_fallbacks_apart(fake_openai, project: Path) -> None:
    slow = {"text": "thinking " * 4, "chunks": 4, "chunk_delay": 0.05}
    fake_openai.script(
        [
            {**outcome_call("for right", status="success", summary="R"), **slow},
            {**outcome_call("for left", status="partial", summary="L"), "delay": 0.3},
            outcome_call("TWO-BODY", status="failed", summary="two broke"),
            outcome_call("RESCUE-BODY", status="success", summary="rescued"),
        ]
    )
    rec = run(project, fake_openai, "/mixed")
    steps = steps_in(rec.skills)
    assert set(steps) == {"mixed/both-1", "mixed/both-2", "mixed/b", "mixed/b.fallback"}
    assert (steps["mixed/both-1"]["summary"], steps["mixed/both-1"]["status"]) == ("L", "partial")
    assert (steps["mixed/both-2"]["summary"], steps["mixed/both-2"]["status"]) == ("R", "success")
    assert steps["mixed/b"]["summary"] == "two broke"
    assert steps["mixed/b.fallback"]["name"] == "rescue"
    assert steps["mixed/b.fallback"]["status"] == "success"


def test_a_step_that_needs_confirmation_under_continue_does_not_exit_3(
    fake_openai, project: Path
) -> None:
    fake_openai.script(
        [
            outcome_call("ONE-BODY", status="needs_confirmation", summary="sure?"),
            outcome_call("THREE-BODY", status="success", summary="after"),
        ]
    )
    r = codebot(project, fake_openai.url, "-p", "/lenient", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert "needs_confirmation" not in out
    assert steps_in(out["skills"])["lenient/a"]["status"] == "needs_confirmation"


def test_print_text_shows_the_steps_on_stderr_escaped_never_on_stdout(
    fake_openai, project: Path
) -> None:
    fake_openai.script(
        [
            outcome_call("ONE-BODY", status="success", summary="one \x1b[2J\x07done"),
            outcome_call("SECRET-BODY", status="success", summary="secret done"),
        ]
    )
    r = codebot(project, fake_openai.url, "-p", "/personal")
    assert r.returncode == 0, r.stderr
    assert "personal › a ok" in r.stderr and "personal › b ok" in r.stderr
    assert "personal › a running" in r.stderr and "personal › b waiting" in r.stderr
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr
    assert "personal ›" not in r.stdout


WRITTEN_STEPS = "  - {id: a, skill: one}\n  - {id: b, skill: secret}\n"


@pytest.mark.parametrize("target", ["host", "inner"])
def test_a_workflow_the_agent_wrote_runs_as_the_models_even_when_the_person_starts_it(
    fake_openai, project: Path, write_skill, target: str
) -> None:
    """The agent rewrites a workflow the person will run (or one it nests) to reach a
    person-only skill: the person's /host then runs it by the model's rules."""
    from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest

    skills = project / ".codebot" / "skills"
    workflow(write_skill, skills, "host", "  - {id: h, skill: inner}\n")
    workflow(write_skill, skills, "inner", "  - {id: a, skill: one}\n")
    text = (
        f"---\nname: {target}\ndescription: The {target} workflow. Not for anything else.\n"
        f"steps:\n{WRITTEN_STEPS}---\nNot sent.\n"
    )
    path = str(skills / target / "SKILL.md")
    fake_openai.script(
        [
            {"tool_calls": [{"name": "Write", "arguments": {"path": path, "content": text}}]},
            {"text": "rewritten"},
            outcome_call("ONE-BODY", status="success", summary="must not run"),
        ]
    )
    settings = load_settings(cwd=project, model=MODEL, api_base=fake_openai.url, trust=True)

    def emit(e: Any) -> None:
        if isinstance(e, ApprovalRequest):  # the person allows the write, unaware
            e.future.set_result(ApprovalAnswer.ALLOW_ONCE)

    session = build_session(settings, open_catalog(settings), emit=emit, interactive=True)
    session.client.backoff = 0.0

    async def go():
        await session.run_turn("tidy the workflows")
        session.catalog.reload()  # what the UI's watcher does after a skill file changes
        return await session.run_turn("/host")

    try:
        rec = asyncio.run(go())
    finally:
        session.transcript.close()
    assert "skill: secret" in (skills / target / "SKILL.md").read_text()  # the write happened
    assert not with_body(fake_openai, "ONE-BODY")  # refused before any step
    assert not with_body(fake_openai, "SECRET-BODY")
    (own,) = [s for s in rec.skills if s["name"] == "host"]
    assert own["status"] == "failed", own
    assert f"changed by codebot's agent (workflow {target})" in own["summary"]
    assert "codebot written --accept" in own["summary"]
    assert "skill 'secret' is refused" in own["summary"]


def test_a_nested_workflow_the_agent_rewrites_mid_run_runs_as_the_models(
    fake_openai, project: Path, write_skill
) -> None:
    """A step's sub-agent rewrites the workflow a later step nests, after the check that
    ran before the first step: the lookup sees it and the rest runs by the model's rules."""
    from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest

    skills = project / ".codebot" / "skills"
    workflow(write_skill, skills, "host2", "  - {id: a, skill: one}\n  - {id: h, skill: inner}\n")
    workflow(write_skill, skills, "inner", "  - {id: c, skill: three}\n")
    text = (
        "---\nname: inner\ndescription: The inner workflow. Not for anything else.\n"
        "steps:\n  - {id: b, skill: secret}\n---\nNot sent.\n"
    )
    path = str(skills / "inner" / "SKILL.md")
    write = {"name": "Write", "arguments": {"path": path, "content": text}}
    fake_openai.script(
        [
            {"match": "ONE-BODY", "tool_calls": [write]},
            outcome_call("ONE-BODY", status="success", summary="rewrote inner"),
            outcome_call("SECRET-BODY", status="success", summary="must not run"),
        ]
    )
    settings = load_settings(cwd=project, model=MODEL, api_base=fake_openai.url, trust=True)

    def emit(e: Any) -> None:
        if isinstance(e, ApprovalRequest):
            e.future.set_result(ApprovalAnswer.ALLOW_ONCE)

    session = build_session(settings, open_catalog(settings), emit=emit, interactive=True)
    session.client.backoff = 0.0

    def reload_once_written(body: dict[str, Any]) -> None:  # the watcher, as the file changes
        if "skill: secret" in (skills / "inner" / "SKILL.md").read_text():
            session.catalog.reload()

    fake_openai.responder = reload_once_written
    try:
        rec = asyncio.run(session.run_turn("/host2"))
    finally:
        session.transcript.close()
    assert "skill: secret" in (skills / "inner" / "SKILL.md").read_text()
    assert not with_body(fake_openai, "SECRET-BODY")
    steps = steps_in(rec.skills)
    assert steps["host2/a"]["actor"] == "human"
    b = steps["inner/b"]  # refused by the lookup: never invoked
    assert (b["name"], b["actor"], b["status"]) == ("secret", "skill", "failed")
    assert steps["host2/h"]["mode"] == "workflow" and steps["host2/h"]["status"] == "failed"
    own = next(s for s in rec.skills if s["name"] == "host2")
    assert own["status"] == "failed"
    assert "skill may not run skill 'secret'" in json.dumps(own["data"])


def test_a_workflows_own_body_never_runs_its_commands(
    fake_openai, project: Path, write_skill
) -> None:
    """The person's `/bodycmd`: its steps run (and their commands), but the `!` commands
    in the workflow's own body, which is never sent to a model, do not."""
    write_skill(
        project / ".codebot" / "skills",
        "bodycmd",
        "description: The bodycmd workflow. Not for anything else.\n"
        "steps:\n  - {id: c, skill: cmd}\n",
        "Docs !`touch WF-BODY-RAN`\n",
    )
    fake_openai.script([outcome_call("CMD-BODY", status="success", summary="ran")])
    r = codebot(project, fake_openai.url, "-p", "/bodycmd", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert (project / "CMD-RAN").exists()  # the step's own command: the person's, it runs
    assert not (project / "WF-BODY-RAN").exists()
