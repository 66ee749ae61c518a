"""`run_fork_outcome` (issue 35 §1) with a scripted model: the outcome a fork's sub-agent
reports, a timeout, a cancel, a model error, inline outcomes, and what is recorded."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ModelError, ModelRequest, ScriptedModel
from codebot.agent.session import build_session
from codebot.agent.session import events as ev
from codebot.agent.session.fork_outcome import run_fork_outcome
from codebot.agent.session.turn import TurnRecord, TurnState
from codebot.config import load_settings
from codebot.skills.invoke import Actor, Invocation
from codebot.skills.outcome import Status
from codebot.workspace import open_catalog


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    skills = project / ".codebot" / "skills"
    write_skill(
        skills,
        "counter",
        "description: Count widgets in a fork. Not for edits.\ncontext: fork\n"
        "outputs:\n  type: object\n  required: [count]\n",
        "COUNT-BODY",
    )
    write_skill(skills, "note", "description: Take a note inline. Not for code.", "NOTE-BODY")
    return project


class Hanging(ScriptedModel):
    """A model whose answer never comes (until cancelled)."""

    def __init__(self) -> None:
        super().__init__([])
        self.started = asyncio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:  # type: ignore[override]
        self.requests.append(request)
        self.started.set()
        await asyncio.Event().wait()
        yield  # pragma: no cover


def make(project: Path, model: ScriptedModel, events: list[Any]):
    settings = load_settings(cwd=project, trust=True)
    return build_session(settings, open_catalog(settings), client=model, emit=events.append)


async def invocation(session: Any, name: str, args: str = "") -> Invocation:
    inv = await session.skills.invoke_skill(name, args, Actor.MODEL, TurnState(), TurnRecord())
    assert isinstance(inv, Invocation), inv
    return inv


def marks(session: Any) -> list[dict[str, Any]]:
    session.transcript.sync()
    lines = session.transcript.path.read_text().splitlines()
    return [r for r in map(json.loads, lines) if r.get("type") == "skill_outcome"]


def outcome_call(**args: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": "SkillOutcome", "arguments": args}]}


async def test_the_reported_outcome_is_returned_and_recorded(project: Path) -> None:
    events: list[Any] = []
    model = ScriptedModel([outcome_call(status="success", summary="3", data={"count": 3})])
    session = make(project, model, events)
    outcome = await run_fork_outcome(session, await invocation(session, "counter", "shed a\x1b"))
    assert outcome.status is Status.SUCCESS and outcome.data == {"count": 3} and outcome.ms > 0
    (mark,) = marks(session)
    assert mark["name"] == "counter" and mark["actor"] == "model" and mark["status"] == "success"
    assert mark["args"] == "shed a\x1b" and mark["data"] == {"count": 3}
    (ended,) = [e for e in events if isinstance(e, ev.SkillEnded)]
    assert ended.status == "success" and ended.mode == "fork"
    trace = session.tracer.path.read_text().splitlines()
    (traced,) = [r for r in map(json.loads, trace) if r["event"] == "outcome"]
    assert traced["skill"] == "counter" and traced["reason"] == "success"
    assert "shed" not in json.dumps(traced)  # the trace never holds arguments


async def test_a_timeout_is_a_failed_outcome_marked_timed_out(project: Path) -> None:
    events: list[Any] = []
    session = make(project, Hanging(), events)
    outcome = await run_fork_outcome(session, await invocation(session, "counter"), timeout=0.2)
    assert outcome.status is Status.FAILED and outcome.timed_out
    assert marks(session)[0]["timed_out"] is True


async def test_a_cancel_propagates_after_the_run_is_recorded(project: Path) -> None:
    events: list[Any] = []
    model = Hanging()
    session = make(project, model, events)
    task = asyncio.create_task(run_fork_outcome(session, await invocation(session, "counter")))
    await asyncio.wait_for(model.started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [m["status"] for m in marks(session)] == ["failed"]
    assert [e.summary for e in events if isinstance(e, ev.SkillEnded)] == ["cancelled"]


async def test_a_model_error_is_a_failed_outcome(project: Path) -> None:
    model = ScriptedModel([ModelError("server", "the provider fell over")])
    session = make(project, model, [])
    outcome = await run_fork_outcome(session, await invocation(session, "counter"))
    assert outcome.status is Status.FAILED and "fell over" in outcome.summary


async def test_inline_skills_succeed_when_the_turn_ends_and_fail_on_error(project: Path) -> None:
    model = ScriptedModel(["noted", ModelError("server", "boom")])
    session = make(project, model, [])
    ok = await session.run_turn("/note x")
    assert ok.skills[0]["status"] == "success" and ok.skills[0]["summary"] == "noted"
    bad = await session.run_turn("/note y")
    assert bad.skills[0]["status"] == "failed" and "boom" in bad.skills[0]["summary"]
    assert [m["status"] for m in marks(session)] == ["success", "failed"]


async def test_skill_outcome_is_offered_only_while_a_run_waits_for_one(project: Path) -> None:
    model = ScriptedModel(["plain answer"])
    session = make(project, model, [])
    await session.run_turn("/note")
    names = [t["function"]["name"] for t in model.requests[0].tools]
    assert "SkillOutcome" not in names


async def test_an_inline_question_is_asked_and_the_answer_is_the_tools_result(
    project: Path, write_skill
) -> None:
    write_skill(
        project / ".codebot" / "skills",
        "prune",
        "description: Prune old notes inline. Not for code.\noutcome: required",
        "PRUNE-BODY",
    )
    from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest

    asked: list[ApprovalRequest] = []

    def emit(e: Any) -> None:
        if isinstance(e, ApprovalRequest):
            asked.append(e)
            e.denial = "keep the 2024 ones"
            assert e.future is not None
            e.future.set_result(ApprovalAnswer.DENY)

    model = ScriptedModel(
        [
            outcome_call(status="needs_confirmation", summary="Prune 12 notes?"),
            outcome_call(status="success", summary="pruned 10"),
            "done",
        ]
    )
    settings = load_settings(cwd=project, trust=True)
    session = build_session(
        settings, open_catalog(settings), client=model, emit=emit, interactive=True
    )
    record = await session.run_turn("/prune")
    (request,) = asked
    assert request.tool == "SkillOutcome" and request.arguments["question"] == "Prune 12 notes?"
    assert request.always == ()  # a question is never answered for the session or always
    answer = [m for m in model.requests[1].messages if m["role"] == "tool"][-1]["content"]
    assert "answered: no: keep the 2024 ones" in answer
    assert record.skills[0]["status"] == "success" and record.skills[0]["summary"] == "pruned 10"


async def test_an_already_loaded_skill_is_still_told_to_report(project: Path, write_skill) -> None:
    write_skill(
        project / ".codebot" / "skills",
        "sweep",
        "description: Sweep the notes inline. Not for code.\noutcome: required",
        "SWEEP-BODY",
    )
    replies = [outcome_call(status="success", summary=s) for s in ("one", "two")]
    model = ScriptedModel([replies[0], "done", replies[1], "done"])
    session = make(project, model, [])
    await session.run_turn("/sweep")
    record = await session.run_turn("/sweep")
    second = str(model.requests[2].messages[-1]["content"])
    assert "already loaded" in second and "call the SkillOutcome tool" in second
    assert record.skills[0]["status"] == "success" and record.skills[0]["summary"] == "two"
