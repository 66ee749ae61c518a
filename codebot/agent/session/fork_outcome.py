"""`run_fork_outcome`: run a `context: fork` skill's sub-agent and return its `Outcome`
(issue 35 §1). The sub-agent is offered the `SkillOutcome` tool and told how to report;
its report (checked against the skill's `outputs:`) is the outcome, and a sub-agent that
stops without one gives `partial` ("no outcome reported") with its final text as summary.

The outcome is recorded (transcript mark, trace, `SkillEnded`) here, so every caller —
the session's `Skill` tool and `/skill`, a workflow step — gets the same record.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import TYPE_CHECKING

from codebot.agent.model import ModelError
from codebot.agent.session.agents import AgentNameError, find_agent
from codebot.agent.session.child import child_session, plugin_agents
from codebot.agent.session.hook_calls import skill_scoped
from codebot.agent.session.outcomes import OutcomeSink
from codebot.agent.session.turn import TurnRecord, TurnState
from codebot.skills.files.outputs import contract_of
from codebot.skills.outcome import Outcome, Status, failed

if TYPE_CHECKING:
    from codebot.agent.session.loop import Session
    from codebot.skills.invoke import Invocation


async def run_fork_outcome(
    parent: Session, inv: Invocation, *, timeout: float | None = None, attempt: int = 1
) -> Outcome:
    """Run `inv` (a fork skill's invocation) in a sub-agent of `parent`; its outcome, with
    `ms` set. `timeout` (seconds): the sub-agent is stopped and the outcome is `failed`
    with `timed_out=True`. A cancel of the caller stops the sub-agent and propagates
    `CancelledError` (the run is recorded as failed first). A model error is `failed`.
    `attempt` > 1: a workflow's retry of this step, recorded as such (`skills stats`)."""
    t0 = time.perf_counter()
    try:
        outcome = await _outcome(parent, inv, timeout)
    except asyncio.CancelledError:
        ms = (time.perf_counter() - t0) * 1000
        parent.skills.ended(inv, "fork", Outcome(Status.FAILED, "cancelled", ms=ms))
        raise
    outcome = dataclasses.replace(outcome, ms=(time.perf_counter() - t0) * 1000)
    if attempt > 1:
        outcome = dataclasses.replace(outcome, extra={**outcome.extra, "attempt": attempt})
    parent.skills.ended(inv, "fork", outcome)
    return outcome


async def _outcome(parent: Session, inv: Invocation, timeout: float | None) -> Outcome:
    try:
        agent = find_agent(
            inv.spec.agent or "general",
            parent.catalog.roots,
            parent.settings.trusted,
            plugin_agents(parent),
        )
    except AgentNameError as exc:
        return failed(f"skill {inv.spec.name!r}: {exc}; no sub-agent ran")
    if agent is None:
        return failed(
            f"skill {inv.spec.name!r} asks for agent {inv.spec.agent!r}, which does not exist; "
            "no sub-agent ran"
        )
    child = child_session(
        parent, agent, (*parent.chain, inv.spec.key), inv.delta.model or agent.model
    )
    contract = contract_of(inv.spec)
    sink = OutcomeSink(inv.spec.name, contract.schema, required=contract.wants_outcome, ends=True)
    turn = TurnState(outcome=sink)
    turn.apply(inv.delta)
    scoped = skill_scoped(
        inv.spec,
        parent.settings.trusted,
        parent.guard.marked_here(inv.spec.path),
        parent.state.hooks,
    )
    turn.hooks.extend(scoped)  # a fork skill's hooks: for its sub-agent's run only
    record = TurnRecord()
    reminders = [*child.prompter.reminders(turn, inv.prompt), sink.instructions()]
    child.add({"role": "user", "content": "\n".join([*reminders, inv.prompt])})
    try:
        async with asyncio.timeout(timeout):
            await child.loop(turn, record)
    except asyncio.CancelledError:
        record.cancelled = True  # the sub-agent's own inline skills end `failed` too
        raise
    except TimeoutError:
        record.error = f"timed out after {timeout:g} s"
        return failed(record.error, timed_out=True)
    except ModelError as exc:
        return failed(f"the sub-agent stopped on a model error: {exc.message}")
    finally:
        for model, usage in child.usage_by_model.items():  # a sub-agent's calls are the session's
            parent.count_usage(model, usage)
        child.skills.end_turn(turn, record)  # skills the sub-agent ran inline
    outcome = sink.final(record.text)
    if sink.tries > 1:  # a report the outputs schema refused first (`skills stats` retries)
        outcome = dataclasses.replace(outcome, extra={**outcome.extra, "tries": sink.tries})
    return outcome
