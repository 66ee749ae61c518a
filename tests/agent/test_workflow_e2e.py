"""Workflows end to end (issue 35 §2): a real session against the scripted
OpenAI-compatible server. Each step's sub-agent reports through SkillOutcome; the engine
branches on it in code. `-p` exits 3 when a step needs confirmation."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.session import build_session
from codebot.agent.session import events as ev
from codebot.config import load_settings
from codebot.workspace import open_catalog

pytestmark = pytest.mark.slow
MODEL = "openai/test-model"


def fork_skill(write_skill, root: Path, name: str, extra: str = "") -> None:
    write_skill(
        root,
        name,
        f"description: The {name} step of the workflows here. Not for anything else.\n"
        f"context: fork\n{extra}",
        f"{name.upper()}-BODY: do the {name} part for $ARGUMENTS.",
    )


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    skills = project / ".codebot" / "skills"
    for name in ("one", "three", "rescue", "web", "slow"):
        fork_skill(write_skill, skills, name)
    fork_skill(write_skill, skills, "two", "disallowed-tools: Write\n")
    fork_skill(write_skill, skills, "idem", "idempotent: true\n")
    fork_skill(write_skill, skills, "once")
    write_skill(
        skills,
        "flow",
        "description: Three steps with a fallback. Not for anything else.\n"
        "model: openai/workflow-model\nallowed-tools: Bash\n"
        "steps:\n"
        '  - id: a\n    skill: one\n    args: "{{ args }}"\n'
        '  - id: b\n    skill: two\n    args: "{{ steps.a.data.n }}"\n'
        '    on: {failed: {skill: rescue, args: "after {{ steps.b.summary }}"}}\n'
        "  - id: c\n    skill: three\n    when: \"{{ steps.b.status == 'success' }}\"\n",
        "The body of a workflow is not sent to a model.",
    )
    write_skill(
        skills,
        "fan",
        "description: Two slow members at once. Not for anything else.\n"
        "steps:\n"
        "  - id: both\n    parallel:\n"
        "      - {skill: slow, args: left}\n      - {skill: slow, args: right}\n",
    )
    write_skill(
        skills,
        "retrying",
        "description: Timeouts and retries. Not for anything else.\n"
        "steps:\n"
        "  - id: x\n    skill: once\n    timeout: 0.5\n    retry: {attempts: 2, backoff_s: 0}\n"
        "    on: {timeout: continue}\n"
        "  - id: y\n    skill: idem\n    timeout: 0.5\n    retry: {attempts: 2, backoff_s: 0}\n",
    )
    write_skill(
        skills,
        "careful",
        "description: A step that asks first. Not for anything else.\n"
        "steps:\n  - id: ask\n    skill: one\n  - id: after\n    skill: three\n",
    )
    return project


def outcome_call(match: str, **arguments: Any) -> dict[str, Any]:
    return {
        "match": match,
        "tool_calls": [{"name": "SkillOutcome", "arguments": json.dumps(arguments)}],
    }


def with_body(fake, marker: str) -> list[dict[str, Any]]:
    return [r for r in fake.requests if marker in json.dumps(r["messages"])]


def offered(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or ()]


def session_for(project: Path, fake, events: list, interactive: bool = False):
    settings = load_settings(cwd=project, model=MODEL, api_base=fake.url, trust=True)

    def emit(e: Any) -> None:
        events.append((time.monotonic(), e))

    session = build_session(settings, open_catalog(settings), emit=emit, interactive=interactive)
    session.client.backoff = 0.0
    return session


def steps_of(events: list) -> list[tuple[float, Any]]:
    return [(t, e) for t, e in events if isinstance(e, ev.WorkflowStep)]


def run(session, text: str):
    try:
        return asyncio.run(session.run_turn(text))
    finally:
        if session.transcript is not None:
            session.transcript.close()


def test_second_step_fails_runs_its_fallback_and_not_the_third(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            outcome_call("ONE-BODY", status="success", summary="one done", data={"n": 7}),
            outcome_call("TWO-BODY", status="failed", summary="two broke"),
            outcome_call("RESCUE-BODY", status="success", summary="rescued"),
        ]
    )
    events: list = []
    rec = run(session_for(project, fake_openai, events), "/flow go now")
    assert rec.error is None
    assert not with_body(fake_openai, "THREE-BODY")  # the third step never ran
    assert "The body of a workflow" not in json.dumps(fake_openai.requests)
    (one,) = with_body(fake_openai, "ONE-BODY")
    (two,) = with_body(fake_openai, "TWO-BODY")
    (rescue,) = with_body(fake_openai, "RESCUE-BODY")
    assert "for go now" in json.dumps(one["messages"])  # {{ args }}
    assert "for 7" in json.dumps(two["messages"])  # {{ steps.a.data.n }}
    assert "for after two broke" in json.dumps(rescue["messages"])
    # each step with its own grants, never the workflow's (model, allowed-tools)
    assert all(r["model"] == "test-model" for r in fake_openai.requests)
    assert "Write" in offered(one) and "Write" not in offered(two)
    states = [(e.step, e.state) for _, e in steps_of(events)]
    assert states[:3] == [("a", "waiting"), ("b", "waiting"), ("c", "waiting")]
    assert ("a", "ok") in states and ("b", "failed") in states
    assert ("b", "fallback") in states and ("c", "skipped") in states
    entry = next(s for s in rec.skills if s["name"] == "flow")
    assert entry["mode"] == "workflow" and entry["status"] == "partial"
    steps = entry["data"]["steps"]
    assert steps["b"]["status"] == "failed" and steps["b"]["fallback"]["summary"] == "rescued"
    assert steps["c"] == {"status": "skipped"}
    assert "[workflow flow: partial]" in rec.text and "fallback: success" in rec.text


def test_the_model_runs_a_workflow_through_the_skill_tool(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            {"tool_calls": [{"name": "Skill", "arguments": {"skill": "careful"}}]},
            outcome_call("ONE-BODY", status="success", summary="first fine"),
            outcome_call("THREE-BODY", status="success", summary="second fine"),
            {"text": "all done"},
        ]
    )
    rec = run(session_for(project, fake_openai, []), "be careful")
    assert rec.text == "all done"
    tool = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert tool["content"].startswith("[workflow careful: success]")
    assert "- ask: success — first fine" in tool["content"]


def test_parallel_members_overlap_in_time(fake_openai, project: Path) -> None:
    slow = {"text": "thinking " * 8, "chunks": 8, "chunk_delay": 0.08}
    fake_openai.script(
        [
            {**outcome_call("for left", status="success", summary="L", data=1), **slow},
            {**outcome_call("for right", status="success", summary="R", data=2), **slow},
        ]
    )
    events: list = []
    rec = run(session_for(project, fake_openai, events), "/fan")
    entry = next(s for s in rec.skills if s["name"] == "fan")
    assert entry["status"] == "success"
    assert [m["data"] for m in entry["data"]["steps"]["both"]["data"]] == [1, 2]
    start = {e.step: t for t, e in steps_of(events) if e.state == "running" and e.step != "both"}
    end = {e.step: t for t, e in steps_of(events) if e.state == "ok" and e.step != "both"}
    assert set(start) == set(end) == {"both-1", "both-2"}
    parts = sum(end[k] - start[k] for k in start)
    wall = max(end.values()) - min(start.values())
    assert wall <= 0.6 * parts, (wall, parts)


def test_timeouts_retry_only_the_idempotent_step(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            {"match": "ONCE-BODY", "text": "x", "stall": 5},
            {"match": "IDEM-BODY", "text": "x", "stall": 5},
            outcome_call("IDEM-BODY", status="success", summary="second try"),
        ]
    )
    events: list = []
    rec = run(session_for(project, fake_openai, events), "/retrying")
    assert len(with_body(fake_openai, "ONCE-BODY")) == 1  # not idempotent: never retried
    assert len(with_body(fake_openai, "IDEM-BODY")) == 2  # idempotent: retried once
    steps = next(s for s in rec.skills if s["name"] == "retrying")["data"]["steps"]
    assert steps["x"]["timed_out"] is True and steps["x"]["status"] == "failed"
    assert steps["y"]["status"] == "success" and steps["y"]["tries"] == 2
    assert any(e.detail == "idem: try 2 of 2" for _, e in steps_of(events))
    # `skills stats` counts what ran: two runs of idem, one a retry; one timeout of once
    import contextlib
    import io

    from codebot.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--cwd", str(project), "skills", "stats", "--json"]) == 0
    stats = json.loads(out.getvalue())["outcomes"]
    assert stats["idem"]["calls"] == 2 and stats["idem"]["retries"] == 1
    assert stats["idem"]["timeouts"] == 1
    assert stats["once"]["calls"] == 1 and stats["once"]["retries"] == 0
    assert stats["once"]["timeouts"] == 1
    assert stats["retrying"]["calls"] == 1


def test_needs_confirmation_in_print_mode_exits_3_with_the_question(
    fake_openai, project: Path
) -> None:
    fake_openai.script(
        [outcome_call("ONE-BODY", status="needs_confirmation", summary="delete 3 branches?")]
    )
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust", "-p", "/careful"]
    cmd += ["--output-format", "json", "--api-base", fake_openai.url, "--model", MODEL]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project)
    assert r.returncode == 3, r.stderr
    out = json.loads(r.stdout)
    assert out["needs_confirmation"]["skill"] == "careful"
    assert "delete 3 branches?" in out["needs_confirmation"]["question"]
    assert not with_body(fake_openai, "THREE-BODY")


def test_cancelling_the_turn_cancels_every_running_step(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            {"match": "for left", "text": "x", "stall": 5},
            {"match": "for right", "text": "x", "stall": 5},
        ]
    )
    events: list = []
    session = session_for(project, fake_openai, events)

    async def go() -> None:
        task = asyncio.create_task(session.run_turn("/fan"))
        for _ in range(400):  # both members' sub-agents have asked the model
            if len(fake_openai.requests) >= 2:
                break
            await asyncio.sleep(0.025)
        assert len(fake_openai.requests) == 2
        task.cancel()  # what Esc does to the turn
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(go())
    finally:
        session.transcript.close()
    cancelled = {e.step for _, e in steps_of(events) if e.state == "cancelled"}
    assert cancelled == {"both-1", "both-2"}
    assert any(isinstance(e, ev.TurnEnded) and e.cancelled for _, e in events)


@pytest.mark.parametrize("allow", [True, False])
def test_ask_asks_the_person_in_an_interactive_session(
    fake_openai, project: Path, allow: bool
) -> None:
    from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest

    fake_openai.script(
        [
            outcome_call("ONE-BODY", status="needs_confirmation", summary="drop the cache?"),
            outcome_call("THREE-BODY", status="success", summary="after"),
        ]
    )
    asked: list[ApprovalRequest] = []
    settings = load_settings(cwd=project, model=MODEL, api_base=fake_openai.url, trust=True)

    def emit(e: Any) -> None:
        if isinstance(e, ApprovalRequest):
            asked.append(e)
            e.future.set_result(ApprovalAnswer.ALLOW_ONCE if allow else ApprovalAnswer.DENY)

    session = build_session(settings, open_catalog(settings), emit=emit, interactive=True)
    rec = run(session, "/careful")
    assert len(asked) == 1 and "drop the cache?" in asked[0].reason
    assert bool(with_body(fake_openai, "THREE-BODY")) is allow
    status = next(s for s in rec.skills if s["name"] == "careful")["status"]
    assert status == ("partial" if allow else "failed")


def test_stream_json_carries_the_step_events(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            outcome_call("ONE-BODY", status="success", summary="first"),
            outcome_call("THREE-BODY", status="success", summary="second"),
        ]
    )
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust", "-p", "/careful"]
    cmd += ["--output-format", "stream-json", "--api-base", fake_openai.url, "--model", MODEL]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    steps = [(x["step"], x["state"]) for x in lines if x["type"] == "WorkflowStep"]
    assert steps == [
        ("ask", "waiting"),
        ("after", "waiting"),
        ("ask", "running"),
        ("ask", "ok"),
        ("after", "running"),
        ("after", "ok"),
    ]
