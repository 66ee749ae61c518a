"""One turn has one budget across all its sub-agents: model requests, tokens, wall time.

The attack: a model that answers every request with four `Task` calls fans out without
end (211 requests in 25 s before the budget). With `limits.turn_requests: 20` the turn
stops at 20 requests, at once, with a warning, error results for what was asked, and
error kind "budget"."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from codebot.agent.model import ScriptedModel
from codebot.agent.session import build_session
from codebot.agent.session import events as ev
from codebot.config import load_settings
from codebot.workspace import open_catalog


def tasks(n: int = 4) -> dict[str, Any]:
    return {
        "text": "",
        "tool_calls": [
            {"name": "Task", "arguments": {"description": f"part {i}", "prompt": "do it"}}
            for i in range(n)
        ],
    }


class Forever(list):
    """A script that never runs out: every request gets `reply`, up to a ceiling far
    above any budget here (without a budget the test then fails instead of hanging: the
    scripted model never yields to the event loop, so no timeout could fire)."""

    CEILING = 300

    def __init__(self, reply: Any) -> None:
        super().__init__([reply])
        self.taken = 0

    def pop(self, index: int = -1) -> Any:
        self.taken += 1
        if self.taken > self.CEILING:
            return AssertionError(f"no budget stopped the turn: {self.CEILING} requests")
        return self[0]


def configure(isolated_home: Path, text: str) -> None:
    (isolated_home / ".codebot" / "config.yaml").write_text(text)


def make(project: Path, replies: Any) -> tuple[Any, ScriptedModel, list]:
    settings = load_settings(cwd=project, trust=True)
    model = ScriptedModel()
    model.replies = replies
    events: list = []
    session = build_session(settings, open_catalog(settings), client=model, emit=events.append)
    return session, model, events


def notices(events: list) -> list[str]:
    return [e.text for e in events if isinstance(e, ev.Notice) and "turn budget" in e.text]


def answered_every_call(history: list[dict[str, Any]]) -> bool:
    asked = {
        c["id"] for m in history if m["role"] == "assistant" for c in m.get("tool_calls") or ()
    }
    return asked == {m["tool_call_id"] for m in history if m["role"] == "tool"}


async def test_task_fan_out_stops_at_the_request_budget(project: Path, isolated_home: Path) -> None:
    configure(isolated_home, "limits: {turn_requests: 20}\n")
    session, model, events = make(project, Forever(tasks()))
    t0 = time.monotonic()
    record = await asyncio.wait_for(session.run_turn("split the work"), 60)
    assert time.monotonic() - t0 < 15
    assert len(model.requests) == 20
    assert record.error_kind == "budget" and "limits.turn_requests: 20" in record.error
    (said,) = notices(events)  # said once, however many sub-agents were stopped
    assert "20 model requests" in said and "sub-agents" in said
    task_results = [
        e for e in events if isinstance(e, ev.ToolFinished) and e.name == "Task" and e.depth == 0
    ]
    assert task_results and all(e.status == "error" for e in task_results[-4:])
    assert any("was not run: turn budget reached" in e.content for e in task_results)
    assert answered_every_call(session.history)  # the conversation stays valid for the next turn


async def test_the_next_turn_has_a_fresh_budget(project: Path, isolated_home: Path) -> None:
    configure(isolated_home, "limits: {turn_requests: 3}\n")
    session, model, _ = make(
        project,
        [{"text": "", "tool_calls": [{"name": "Glob", "arguments": {"pattern": "*"}}]}] * 5
        + ["done"],
    )
    first = await session.run_turn("look")
    assert first.error_kind == "budget" and len(model.requests) == 3
    second = await session.run_turn("go on")
    assert second.error is None and second.text == "done" and len(model.requests) == 6


async def test_token_budget(project: Path, isolated_home: Path) -> None:
    configure(isolated_home, "limits: {turn_tokens: 1000}\n")
    reply = {**tasks(1), "usage": {"prompt_tokens": 400, "completion_tokens": 100}}
    session, model, events = make(project, Forever(reply))
    record = await asyncio.wait_for(session.run_turn("go"), 30)
    assert len(model.requests) == 2 and record.error_kind == "budget"
    assert "limits.turn_tokens: 1,000" in notices(events)[0]


async def test_wall_time_budget(project: Path, isolated_home: Path) -> None:
    configure(isolated_home, "limits: {turn_seconds: 0.5}\n")

    def slow(_request: Any) -> dict[str, Any]:
        time.sleep(0.2)
        return tasks(1)

    session, model, events = make(project, Forever(slow))
    t0 = time.monotonic()
    record = await asyncio.wait_for(session.run_turn("go"), 30)
    assert time.monotonic() - t0 < 3 and record.error_kind == "budget"
    assert 2 <= len(model.requests) <= 4 and "limits.turn_seconds" in notices(events)[0]


# -- controls --------------------------------------------------------------------------------


async def test_a_turn_under_the_budget_is_untouched(project: Path) -> None:
    replies = [tasks(2), "part one", "part two", "all done"]
    session, model, events = make(project, replies)
    record = await session.run_turn("split the work")
    assert model.remaining == 0
    assert record.error is None and record.text == "all done" and not notices(events)
    assert [c["status"] for c in record.tool_calls] == ["ok", "ok"]
    assert session.budget.requests == 4


def test_the_defaults_are_documented_ones(project: Path) -> None:
    limits = load_settings(cwd=project).limits
    assert (limits.turn_requests, limits.turn_tokens, limits.turn_seconds) == (
        200,
        4_000_000,
        3600.0,
    )
