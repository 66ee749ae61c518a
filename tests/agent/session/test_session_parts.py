"""The session's collaborators built alone, without a `Session`: each takes what it needs
in its constructor and the shared `SessionState`, so it can be tried with a scripted
client, real rules and an `emit` that answers like a front end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel, Usage
from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest, Approvals
from codebot.agent.session import events as ev
from codebot.agent.session.asking import Approver
from codebot.agent.session.budget import Budgeter
from codebot.agent.session.compact import is_preamble
from codebot.agent.session.compacting import Compactor
from codebot.agent.session.prompting import Prompter
from codebot.agent.session.state import SessionState
from codebot.agent.session.toolset import Toolset
from codebot.agent.session.turn import TurnRecord, TurnState
from codebot.agent.tools import META_TOOLS, ToolContext, ToolRegistry
from codebot.config import Settings, TurnLimits, load_settings
from codebot.workspace import open_catalog

SUMMARY = "SUMMARY: the person asked about the parser; nothing was changed yet"


@pytest.fixture
def settings(project: Path) -> Settings:
    return load_settings(cwd=project, trust=True)


class Front:
    """An `emit` that keeps every event and answers approval requests as told."""

    def __init__(self, answer: ApprovalAnswer = ApprovalAnswer.ALLOW_ONCE, denial: str = ""):
        self.answer, self.denial = answer, denial
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        if isinstance(event, ApprovalRequest) and event.future is not None:
            event.denial = self.denial
            event.future.set_result(self.answer)

    def notices(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, ev.Notice)]


def conversation(turns: int) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = []
    for i in range(turns):
        history.append({"role": "user", "content": f"question {i} about the parser"})
        history.append({"role": "assistant", "content": f"answer {i}: " + "words " * 40})
    return history


# -- Compactor --------------------------------------------------------------------------


def compactor_for(settings: Settings, client: ScriptedModel, front: Front) -> Compactor:
    state = SessionState(settings, client, history=conversation(6))
    toolset = Toolset(
        registry=ToolRegistry([]), tool_filter=lambda _n: True, project_dir=settings.project_dir
    )
    prompter = Prompter(state=state, catalog=open_catalog(settings), usage_tracker=None)
    return Compactor(state=state, toolset=toolset, prompter=prompter, emit=front)


def test_the_compactor_swaps_the_history_for_the_scripted_summary(settings: Settings) -> None:
    client = ScriptedModel(
        [{"text": SUMMARY, "usage": {"prompt_tokens": 50, "completion_tokens": 9}}]
    )
    front = Front()
    compactor = compactor_for(settings, client, front)
    state = compactor.state
    before = list(state.history)

    record = asyncio.run(compactor.compact("the parser"))

    assert record is not None and record.reason == "manual" and record.focus == "the parser"
    assert record.failed is None and record.summarized + record.kept == len(before)
    (request,) = client.requests
    assert request.tools == () and request.messages[0]["content"] == compactor.toolset.system_prompt
    assert is_preamble(state.history[0]) and SUMMARY in state.history[0]["content"]
    assert state.history[1:] == before[-record.kept :]
    assert state.last_compaction is record and state.last_listing is not None
    assert state.usage_by_model == {"scripted": Usage(50, 9)}  # the summary request counts
    assert any(n.startswith("compacted: ") for n in front.notices())


def test_a_failed_summary_request_still_compacts_and_says_why(settings: Settings) -> None:
    client = ScriptedModel([{"text": "   "}])
    front = Front()
    compactor = compactor_for(settings, client, front)

    record = asyncio.run(compactor.compact())

    assert (
        record is not None
        and record.failed == "the model answered the summary request with nothing"
    )
    assert any(n.startswith("compacted without a summary: ") for n in front.notices())


def test_nothing_to_compact_leaves_the_state_alone(settings: Settings) -> None:
    client = ScriptedModel([])
    compactor = compactor_for(settings, client, Front())
    compactor.state.history[:] = conversation(1)[:1]

    assert asyncio.run(compactor.compact()) is None
    assert client.requests == [] and compactor.state.last_compaction is None


# -- Approver ---------------------------------------------------------------------------


def approver_for(
    settings: Settings, front: Front, approvals: Approvals, *, interactive: bool = True
) -> Approver:
    state = SessionState(settings, ScriptedModel([]))
    return Approver(
        state=state,
        approvals=approvals,
        context=ToolContext(project_dir=settings.project_dir),
        emit=front,
        interactive=interactive,
        budgeter=Budgeter(state, front),
    )


def test_allow_for_the_session_grants_the_narrow_rule_and_counts_the_wait(
    settings: Settings,
) -> None:
    approvals = Approvals()
    approver = approver_for(settings, Front(ApprovalAnswer.ALLOW_SESSION), approvals)

    asked = asyncio.run(approver.ask("Bash", {"command": "echo hi"}, "echo hi", "needs approval"))

    assert asked and asked.reason == ""
    assert [r.text for r in approvals.session_rules] == ["Bash(echo hi)"]
    assert approver.waited_s > 0 and approver.budgeter.turn.waited == approver.waited_s


def test_a_protected_path_is_allowed_once_only(settings: Settings) -> None:
    approvals = Approvals()
    front = Front(ApprovalAnswer.ALLOW_SESSION)
    approver = approver_for(settings, front, approvals)
    args = {"path": "CLAUDE.md", "content": "x"}

    asked = asyncio.run(approver.ask("Write", args, "CLAUDE.md", protected="instructions"))

    (request,) = [e for e in front.events if isinstance(e, ApprovalRequest)]
    assert asked and request.always == () and "protected path" in request.always_unavailable
    assert approvals.session_rules == []  # "for the session" became "once"


def test_a_denial_with_a_reason_is_what_the_model_is_told(settings: Settings) -> None:
    front = Front(ApprovalAnswer.DENY, denial="not \x1b[31mnow\x1b[0m")
    approver = approver_for(settings, front, Approvals())

    asked = asyncio.run(approver.ask("Bash", {"command": "make"}, "make"))

    assert not asked and asked.reason == "not now"
    assert approver.not_approved("Bash", asked, "why") == "the person denied this call: not now"


def test_print_mode_asks_nothing_and_names_the_flag(settings: Settings) -> None:
    front = Front()
    approver = approver_for(settings, front, Approvals(), interactive=False)

    asked = asyncio.run(approver.ask("Bash", {"command": "make"}, "make"))

    assert not asked and front.events == []
    assert "--allow 'Bash(...)'" in approver.not_approved("Bash", asked, "needs approval")
    assert "print mode denies" in str(asyncio.run(approver.approve_injection("make", TurnState())))


def test_a_skill_command_meets_the_same_rules(settings: Settings) -> None:
    front = Front()
    approver = approver_for(settings, front, Approvals(deny=["Bash(rm *)"]))

    said = asyncio.run(approver.approve_injection("rm -rf build", TurnState()))

    assert said is not None and said.startswith("denied by rule Bash(rm *)") and front.events == []
    assert asyncio.run(approver.approve_injection("make", TurnState())) is None  # asked, allowed


# -- Budgeter and Toolset ---------------------------------------------------------------


def test_the_budgeter_stops_a_turn_once_and_says_why(settings: Settings) -> None:
    limited = Settings(
        home=settings.home,
        cwd=settings.cwd,
        project_dir=settings.project_dir,
        limits=TurnLimits(turn_requests=2),
    )
    front = Front()
    budgeter = Budgeter(SessionState(limited, ScriptedModel([])), front)
    budgeter.start_turn()

    assert [budgeter.stop_for_budget() for _ in range(4)] == [False, False, True, True]
    record = TurnRecord()
    budgeter.end_budget(record)

    assert record.error_kind == "budget" and "limits.turn_requests" in str(record.error)
    assert len(front.notices()) == 1  # the first refusal says why, once
    assert budgeter.budget_result("done").status == "error"


def test_the_toolset_offers_only_what_its_filter_and_the_turn_allow(project: Path) -> None:
    from codebot.agent.tools import builtin_tools

    toolset = Toolset(
        registry=ToolRegistry(builtin_tools()),
        tool_filter=lambda name: name != "Bash",
        project_dir=project,
    )
    turn = TurnState(hidden={"Write"})
    offered = {s["function"]["name"] for s in toolset.schemas(turn)}

    assert "Bash" not in offered and "Write" not in offered and "Read" in offered
    assert set(META_TOOLS) <= offered
    assert "Bash" not in toolset.names() and "Write" in toolset.names()
    assert "Read" in toolset.system_prompt
