"""Running a workflow skill (`steps:`) in a session: the glue between the session and
the engine (`skills/workflow/engine.py`).

Each step is invoked like a skill another skill asked for (`Actor.SKILL`: its policy, its
`!` commands approved) and run as a fork with that skill's own grants, through
`run_fork_outcome` with the step's timeout; the workflow's own grants apply to nothing.
The engine's events become `WorkflowStep` events; an `ask` policy asks the person
(interactive) or ends the workflow as `needs_confirmation` (print mode). What enters the
conversation is a short rendering of each step's outcome.
"""

from __future__ import annotations

import dataclasses
import shlex
from typing import TYPE_CHECKING, Protocol

from codebot.agent.session import events as ev
from codebot.agent.session.outcome_record import entry_update
from codebot.agent.session.turn import TurnRecord, TurnState
from codebot.display import visible
from codebot.skills.files import normalize_name
from codebot.skills.invoke import Actor
from codebot.skills.invoke.invocation import InvocationError
from codebot.skills.outcome import Outcome, Status, failed
from codebot.skills.workflow import (
    Engine,
    StepEvent,
    StepSkill,
    is_idempotent,
    render_outcome,
    skill_timeout,
    workflow_of,
)
from codebot.skills.workflow.engine import Lookup

if TYPE_CHECKING:
    from codebot.agent.session.asking import Approver
    from codebot.agent.session.emit import Emit
    from codebot.agent.session.skill_runs import SkillRunner
    from codebot.agent.session.turn import SubAgents
    from codebot.config import Settings
    from codebot.skills.catalog import Catalog
    from codebot.skills.invoke import Invocation
    from codebot.skills.workflow import Problem


class Host(Protocol):
    """What a workflow uses of the session (`loop.Session`, which imports this module)."""

    catalog: Catalog
    skills: SkillRunner
    subagents: SubAgents
    emit: Emit
    approver: Approver
    interactive: bool

    @property
    def settings(self) -> Settings: ...

    @property
    def depth(self) -> int: ...


def _lookup(session: Host) -> Lookup:
    def lookup(name: str) -> StepSkill | None:
        spec = session.catalog.snapshot.get(normalize_name(name.lstrip("/")))
        if spec is None:
            return None
        wf, problems = workflow_of(spec)
        problem = None
        if wf is None and problems:
            problem = "; ".join(p.message for p in problems if p.error)
        return StepSkill(spec.name, spec.key, is_idempotent(spec), skill_timeout(spec), wf, problem)

    return lookup


def _why_not(problems: list[Problem]) -> str:
    return "; ".join(visible(p.message) for p in problems if p.error)


async def fork_or_workflow(session: Host, inv: Invocation, record: TurnRecord) -> str:
    """`Session.fork`: a fork skill's sub-agent (its outcome settled: recorded, its question
    asked), or a workflow (mode "workflow": a skill with `steps:`)."""
    if inv.mode == "workflow":
        return await run_workflow(session, inv, record)
    outcome = await session.subagents.run_fork_outcome(session, inv)
    return await session.skills.settle(inv, outcome, record)


async def run_workflow(session: Host, inv: Invocation, record: TurnRecord) -> str:
    """Run the workflow `inv` names; its outcome is recorded like a fork's and the text
    returned is what the caller (the person's turn or the model's Skill call) reads."""
    wf, problems = workflow_of(inv.spec)
    settings = session.settings
    if wf is None:
        outcome = failed(
            f"workflow {inv.spec.name} cannot run: {_why_not(problems)}; "
            f"see `codebot skills validate {inv.spec.path}`"
        )
    elif session.depth + 1 > settings.fork_depth:
        outcome = failed(
            f"workflow {inv.spec.name}: its steps would run deeper than fork_depth "
            f"{settings.fork_depth}; no step ran"
        )
    else:
        outcome = await _engine(session, record).run(wf, shlex.join(inv.arguments))
    session.skills.ended(inv, "workflow", outcome)
    entry_update(record, inv.spec.name, _for_record(outcome))
    return render_outcome(inv.spec.name, outcome)


def _for_record(outcome: Outcome) -> Outcome:
    """The turn record's view: a needs_confirmation outcome's summary is its question
    (print mode puts it in the JSON and exits 3)."""
    question = outcome.extra.get("question")
    if outcome.status is Status.NEEDS_CONFIRMATION and question:
        return dataclasses.replace(outcome, summary=str(question))
    return outcome


def _engine(session: Host, record: TurnRecord) -> Engine:
    settings = session.settings

    async def run_step(skill: str, args: str, timeout: float | None, attempt: int = 1) -> Outcome:
        result = await session.skills.invoke_skill(
            skill, args, Actor.SKILL, TurnState(), record, fork=True
        )
        if isinstance(result, InvocationError):
            return failed(result.message)
        return await session.subagents.run_fork_outcome(
            session, result, timeout=timeout, attempt=attempt
        )

    def on_event(e: StepEvent) -> None:
        session.emit(
            ev.WorkflowStep(
                e.workflow, e.step, e.state, e.elapsed, e.detail, e.depth, session.depth
            )
        )

    async def ask(question: str) -> bool:
        asked = await session.approver.ask(
            "SkillOutcome",
            {"skill": "workflow", "question": question},
            "workflow",
            question,
            protected="a workflow's question is asked every time",
        )
        return bool(asked)

    return Engine(
        run_step,
        _lookup(session),
        on_event=on_event,
        ask=ask if session.interactive else None,
        default_timeout=settings.workflow.default_timeout,
        max_parallel=settings.workflow.max_parallel,
        max_depth=max(1, settings.fork_depth - session.depth),
    )
