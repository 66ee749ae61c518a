"""The turn loop with a scripted model: skills, deltas, approvals, forks, cancellation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ModelError, ScriptedModel
from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest
from codebot.agent.session import ResumeChoice, build_session, load_messages
from codebot.agent.session import events as ev
from codebot.config import load_settings
from codebot.workspace import open_catalog


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    skills = proj / ".codebot" / "skills"
    write_skill(
        skills,
        "deploy",
        "description: Deploy the app. Not for local runs.\nmodel: big-model\neffort: high",
        "Deploy steps for $ARGUMENTS.",
    )
    write_skill(
        skills,
        "gitdiff",
        "description: Show the diff. Not for commits.\nallowed-tools: Bash(git status:*)",
        "Run git status.",
    )
    write_skill(
        skills,
        "research",
        "description: Research in a fork. Not for edits.\ncontext: fork\nagent: explore",
        "Find where X is defined.",
    )
    write_skill(
        skills,
        "loop",
        "description: Calls itself. Not for anything.\ncontext: fork",
        "Invoke loop again.",
    )
    write_skill(
        skills,
        "nowrite",
        "description: Read only. Not for edits.\ndisallowed-tools: Write",
        "Look only.",
    )
    (proj / "a.txt").write_text("hello\n")
    return proj


def make(
    project: Path,
    replies: list[Any],
    events: list | None = None,
    interactive: bool = False,
    answer: ApprovalAnswer | None = None,
    **kw: Any,
):
    settings = load_settings(cwd=project, trust=True)
    catalog = open_catalog(settings)
    model = ScriptedModel(replies)
    sink = events if events is not None else []

    def emit(e: Any) -> None:
        sink.append(e)
        if isinstance(e, ApprovalRequest) and answer is not None:
            e.future.set_result(answer)

    session = build_session(
        settings, catalog, client=model, emit=emit, interactive=interactive, **kw
    )
    return session, model, sink


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": args}]}


def user_text(req) -> str:
    return [m for m in req.messages if m["role"] == "user"][-1]["content"]


async def test_listing_arrives_as_reminder_and_system_prompt_is_stable(project: Path) -> None:
    session, model, _ = make(project, ["one", "two"])
    await session.run_turn("hello")
    await session.run_turn("again")
    first, second = model.requests
    assert first.messages[0]["role"] == "system" and "- deploy" not in first.messages[0]["content"]
    assert "Today" not in first.messages[0]["content"]
    assert first.messages[0] == second.messages[0]
    assert "<system-reminder>" in user_text(first) and "- deploy" in user_text(first)
    assert "Skills unchanged since the last listing." in user_text(second)
    assert "Today's date is" in user_text(first)


async def test_model_skill_call_gets_wrapped_body(project: Path) -> None:
    session, model, events = make(project, [call("Skill", skill="deploy", args="prod"), "done"])
    rec = await session.run_turn("ship it")
    tool_msg = next(m for m in model.requests[1].messages if m["role"] == "tool")
    assert tool_msg["content"].startswith('<skill name="deploy" source="project"')
    assert "Deploy steps for prod." in tool_msg["content"]
    assert [{k: e[k] for k in ("name", "actor", "mode", "status")} for e in rec.skills] == [
        {"name": "deploy", "actor": "model", "mode": "inline", "status": "success"}
    ]
    assert any(isinstance(e, ev.SkillActivated) and e.name == "deploy" for e in events)


async def test_skill_model_and_effort_apply_to_rest_of_turn_only(project: Path) -> None:
    session, model, _ = make(project, [call("Skill", skill="deploy"), "done", "next turn"])
    await session.run_turn("deploy please")
    await session.run_turn("something else")
    r1, r2, r3 = model.requests
    assert (r1.model, r1.effort) == (None, None)
    assert (r2.model, r2.effort) == ("big-model", "high")
    assert (r3.model, r3.effort) == (None, None)


async def test_allowed_tools_grant_bash_in_that_turn_only(project: Path) -> None:
    replies = [
        call("Skill", skill="gitdiff"),
        call("Bash", command="git status --short"),
        "ok",
        call("Bash", command="git status --short"),
        "ok",
    ]
    session, model, _ = make(project, replies)
    rec1 = await session.run_turn("show diff")
    rec2 = await session.run_turn("again without skill")
    # It ran (git then fails on the empty .git here: a failed command is status "error").
    assert [c["status"] for c in rec1.tool_calls] == ["ok", "error"]
    assert [c["status"] for c in rec2.tool_calls] == ["denied"]
    denied = [m for m in model.requests[-1].messages if m["role"] == "tool"][-1]["content"]
    assert "did not approve" in denied and "--allow" in denied


async def test_disallowed_tools_are_hidden_for_the_turn(project: Path) -> None:
    session, model, _ = make(
        project, [call("Skill", skill="nowrite"), call("Write", path="x", content="y"), "ok", "ok"]
    )
    rec = await session.run_turn("look")
    names = [t["function"]["name"] for t in model.requests[1].tools]
    assert "Write" not in names and "Read" in names
    assert rec.tool_calls[1]["status"] == "error"
    await session.run_turn("next")
    assert "Write" in [t["function"]["name"] for t in model.requests[3].tools]


async def test_human_slash_skill_sends_wrapped_body_as_user_message(project: Path) -> None:
    session, model, _ = make(project, ["deployed"])
    rec = await session.run_turn("/deploy staging")
    text = user_text(model.requests[0])
    assert '<skill name="deploy"' in text and "Deploy steps for staging." in text
    assert rec.skills[0]["actor"] == "human"
    assert model.requests[0].model == "big-model"


async def test_unknown_slash_skill_is_an_error_without_model_call(project: Path) -> None:
    session, model, events = make(project, [])
    rec = await session.run_turn("/deplyo now")
    assert rec.error and "deploy" in rec.error
    assert model.requests == []
    assert any(isinstance(e, ev.ErrorEvent) for e in events)


async def test_fork_skill_runs_separate_request_and_returns_only_answer(project: Path) -> None:
    replies = ["parent context answer", call("Skill", skill="research"), "FOUND in x.py:3", "final"]
    session, model, _ = make(project, replies)
    await session.run_turn("remember the secret word PARROT")
    rec = await session.run_turn("research X")
    sub = model.requests[2]
    assert "PARROT" not in json.dumps(sub.messages)
    assert "Find where X is defined." in user_text(sub)
    assert "Write" not in [t["function"]["name"] for t in sub.tools]  # explore is read-only
    tool_msg = [m for m in model.requests[3].messages if m["role"] == "tool"][-1]
    assert tool_msg["content"] == "FOUND in x.py:3"
    assert rec.skills[0]["mode"] == "fork"


async def test_fork_cycle_is_refused(project: Path) -> None:
    replies = [call("Skill", skill="loop"), call("Skill", skill="loop"), "gave up", "final"]
    session, model, _ = make(project, replies)
    await session.run_turn("loop")
    inner = [m for m in model.requests[2].messages if m["role"] == "tool"][-1]["content"]
    assert "already running" in inner


async def test_interactive_approval_allow_and_deny(project: Path) -> None:
    events: list = []
    session, _, _ = make(
        project,
        [call("Write", path="new.txt", content="hi"), "ok"],
        events,
        True,
        ApprovalAnswer.ALLOW_ONCE,
    )
    rec = await session.run_turn("write it")
    assert rec.tool_calls[0]["status"] == "ok" and (project / "new.txt").read_text() == "hi"
    req = next(e for e in events if isinstance(e, ApprovalRequest))
    assert "new.txt" in req.preview
    session, _, _ = make(
        project, [call("Write", path="no.txt", content="hi"), "ok"], [], True, ApprovalAnswer.DENY
    )
    rec = await session.run_turn("write it")
    assert rec.tool_calls[0]["status"] == "denied" and not (project / "no.txt").exists()


async def test_tool_duration_leaves_out_the_time_spent_on_the_approval(project: Path) -> None:
    events: list = []
    settings = load_settings(cwd=project, trust=True)

    def emit(e: Any) -> None:
        events.append(e)
        if isinstance(e, ApprovalRequest):  # the person takes 0.6 s to answer
            asyncio.get_running_loop().call_later(
                0.6, e.future.set_result, ApprovalAnswer.ALLOW_ONCE
            )

    session = build_session(
        settings,
        open_catalog(settings),
        client=ScriptedModel([call("Write", path="slow.txt", content="hi"), "ok"]),
        emit=emit,
        interactive=True,
    )
    await session.run_turn("write it")
    done = next(e for e in events if isinstance(e, ev.ToolFinished))
    assert done.status == "ok" and done.ms < 300, done.ms


async def test_allow_for_session_grants_the_same_call_later(project: Path) -> None:
    events: list = []
    replies = [call("Bash", command="echo hi"), "ok", call("Bash", command="echo hi"), "ok"]
    session, _, _ = make(project, replies, events, True, ApprovalAnswer.ALLOW_SESSION)
    await session.run_turn("one")
    await session.run_turn("two")
    assert sum(isinstance(e, ApprovalRequest) for e in events) == 1


async def test_cancel_during_tool_keeps_history_consistent(project: Path) -> None:
    session, _, events = make(
        project,
        [call("Skill", skill="deploy"), call("Bash", command="sleep 30"), "never"],
        allow=["Bash"],
    )
    task = asyncio.create_task(session.run_turn("go"))
    for _ in range(200):
        await asyncio.sleep(0.02)
        if any(isinstance(e, ev.ToolStarted) and e.name == "Bash" for e in events):
            break
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert any(isinstance(e, ev.TurnEnded) and e.cancelled for e in events)
    calls = {
        c["id"]
        for m in session.history
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    }
    results = {m["tool_call_id"] for m in session.history if m["role"] == "tool"}
    assert calls == results
    session.client.add("after")
    await session.run_turn("next")
    assert session.client.requests[-1].model is None  # the delta did not survive cancellation


async def test_provider_error_ends_turn_with_error_and_keeps_history(project: Path) -> None:
    session, _, events = make(project, ["fine", ModelError("auth", "OPENAI_API_KEY was rejected")])
    await session.run_turn("first")
    rec = await session.run_turn("second")
    assert rec.error_kind == "auth"
    assert [m["role"] for m in session.history][:2] == ["user", "assistant"]
    assert any(isinstance(e, ev.ErrorEvent) and "OPENAI_API_KEY" in e.message for e in events)


async def test_transcript_is_written_and_resumable(project: Path) -> None:
    session, _, _ = make(project, [call("Read", path="a.txt"), "read it"])
    await session.run_turn("read a.txt")
    session.transcript.close()
    path = session.transcript.path
    with open(path, "a") as fh:
        fh.write('{"type": "message", "message": {"role": "user", "conte')  # a killed writer
    msgs = load_messages(path)
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "assistant"]
    resumed, model, _ = make(project, ["again"], resume=ResumeChoice(continue_latest=True))
    await resumed.run_turn("continue")
    assert resumed.id == session.id
    assert "read it" in json.dumps(model.requests[0].messages)


async def test_task_tool_runs_explore_subagent_without_write(project: Path) -> None:
    replies = [
        call("Task", description="look around", prompt="list files", agent="explore"),
        call("Write", path="x.txt", content="no"),
        "sub answer",
        "parent done",
    ]
    session, model, _ = make(project, replies)
    await session.run_turn("delegate")
    sub_tools = [t["function"]["name"] for t in model.requests[1].tools]
    assert "Write" not in sub_tools and "Task" not in sub_tools
    assert not (project / "x.txt").exists()
    last_tool = [m for m in model.requests[3].messages if m["role"] == "tool"][-1]["content"]
    assert last_tool == "sub answer"


async def test_invalid_tool_arguments_come_back_as_tool_error(project: Path) -> None:
    session, model, _ = make(project, [call("Read", nope=1), "ok"])
    rec = await session.run_turn("x")
    assert rec.tool_calls[0]["status"] == "error"
    msg = next(m for m in model.requests[1].messages if m["role"] == "tool")["content"]
    assert "path" in msg


async def test_preselect_lists_only_routed_skills(project: Path) -> None:
    (project / ".codebot" / "config.yaml").write_text("skills:\n  preselect: 1\n")
    session, model, _ = make(project, ["ok"])
    await session.run_turn("please deploy the app to production")
    text = user_text(model.requests[0])
    assert "- deploy" in text and "- research" not in text and "- gitdiff" not in text


async def test_task_with_custom_agent_from_claude_agents_folder(project: Path) -> None:
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "auditor.md").write_text(
        "---\nname: auditor\ndescription: Audits.\ntools: Read, Grep\n"
        "model: audit-model\n---\nYou are AUDITOR-PROMPT.\n"
    )
    replies = [
        call("Task", description="audit", prompt="audit the code", agent="auditor"),
        "audited",
        "done",
    ]
    session, model, _ = make(project, replies)
    await session.run_turn("audit please")
    sub = model.requests[1]
    assert "AUDITOR-PROMPT" in sub.messages[0]["content"] and sub.model == "audit-model"
    assert sorted(t["function"]["name"] for t in sub.tools) == ["Grep", "Read"]


async def test_resume_by_id_and_unknown_id(project: Path) -> None:
    from codebot.agent.session import SetupError

    first, _, _ = make(project, ["hello back"])
    await first.run_turn("hello")
    first.transcript.close()
    again, model, _ = make(project, ["again"], resume=ResumeChoice(session_id=first.id))
    await again.run_turn("more")
    assert "hello back" in json.dumps(model.requests[0].messages)
    with pytest.raises(SetupError, match="no session 'nope'"):
        make(project, [], resume=ResumeChoice(session_id="nope"))


async def test_usage_is_counted_per_model_with_a_skill_switching_it(project: Path) -> None:
    from codebot.agent.model import Usage
    from codebot.ui.controller import usage_report

    u = {"prompt_tokens": 100, "completion_tokens": 10}
    session, _, _ = make(project, [{"text": "a", "usage": u}, {"text": "b", "usage": u}])
    await session.run_turn("hello")
    await session.run_turn("/deploy prod")  # model: big-model for this turn
    assert session.usage_by_model == {"scripted": Usage(100, 10), "big-model": Usage(100, 10)}
    text = usage_report(session.total_usage, session.usage_by_model)
    assert "big-model" in text and "scripted" in text and "all models" in text and "200 in" in text
