"""Running a workflow skill (`steps:`) in a session: the glue between the session and
the engine (`skills/workflow/engine.py`).

Each step is invoked as who started the workflow would invoke it (`workflow/actors.py`:
the person's steps as the person's, the model's as a skill asking for a skill; a
model-started workflow with a step only people may run is refused before any step runs)
and run as a fork with that skill's own grants, through `run_fork_outcome` with the
step's timeout; the workflow's own grants apply to nothing. Each step's run gets its own
entry in the turn record (`workflow`, `step`, its outcome) beside the workflow's.
The engine's events become `WorkflowStep` events; an `ask` policy asks the person
(interactive) or ends the workflow as `needs_confirmation` (print mode). What enters the
conversation is a short rendering of each step's outcome.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from codebot.agent.session import events as ev
from codebot.agent.session.outcome_record import entry_update, fill_entry
from codebot.agent.session.turn import TurnRecord, TurnState
from codebot.display import visible
from codebot.skills.files import normalize_name
from codebot.skills.invoke import Actor
from codebot.skills.invoke.invocation import InvocationError, written_by_agent
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
from codebot.skills.workflow.actors import (
    PERSON_ACTORS,
    nested_workflows,
    refusal,
    step_actor,
    why_refused,
)
from codebot.skills.workflow.engine import Lookup, StepPlace, current_step

if TYPE_CHECKING:
    from codebot.agent.session.asking import Approver
    from codebot.agent.session.emit import Emit
    from codebot.agent.session.skill_runs import SkillRunner
    from codebot.agent.session.turn import SubAgents
    from codebot.config import Settings
    from codebot.skills.catalog import Catalog
    from codebot.skills.files import Spec
    from codebot.skills.invoke import Invocation
    from codebot.skills.workflow import Problem, Workflow


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


def _spec(session: Host, name: str) -> Spec | None:
    return session.catalog.snapshot.get(normalize_name(name.lstrip("/")))


def _finder(session: Host) -> Callable[[str], Spec | None]:
    return lambda name: _spec(session, name)


def _lookup(session: Host, who: _Who) -> Lookup:
    overrides = session.settings.overrides

    def lookup(name: str) -> StepSkill | None:
        spec = _spec(session, name)
        if spec is None:
            return None
        wf, problems = workflow_of(spec)
        problem = None
        if wf is None and problems:
            problem = "; ".join(p.message for p in problems if p.error)
        if wf is not None and _written(session, spec):  # written since the run began
            who.demote()
        actor, decision = step_actor(spec, who.actor, overrides)
        refused = None
        if not decision.allowed:  # checked here too: a nested workflow is no Skill call
            refused = (
                f"{actor.value} may not run skill {spec.name!r}: {why_refused(spec, decision)}"
            )
        return StepSkill(
            spec.name,
            spec.key,
            is_idempotent(spec),
            skill_timeout(spec),
            wf,
            problem,
            refused,
        )

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
        who, written = _who(session, inv, wf)
        refused = _refused(session, wf, who.actor, written)
        if refused is not None:
            outcome = failed(refused)
        else:
            outcome = await _engine(session, record, who).run(wf, shlex.join(inv.arguments))
    session.skills.ended(inv, "workflow", outcome)
    entry_update(record, inv.spec.name, _for_record(outcome))
    return render_outcome(inv.spec.name, outcome)


class _Who:
    """Who the steps run as: who started the workflow, or (`demote`) a skill from the
    moment a workflow the agent wrote is reached: its steps are the model's choice."""

    def __init__(self, actor: Actor) -> None:
        self.actor = actor

    def demote(self) -> None:
        if self.actor in PERSON_ACTORS:
            self.actor = Actor.SKILL


def _written(session: Host, spec: Spec) -> bool:
    return written_by_agent(spec, frozenset(session.skills.guard.written))


def _who(session: Host, inv: Invocation, wf: Workflow) -> tuple[_Who, str | None]:
    """The person's workflow runs its steps as the person's, unless the agent wrote it or
    a workflow it runs (this session or an earlier one not yet accepted): then as the
    model's. The second value names that workflow."""
    who = _Who(inv.decision.actor)
    if who.actor not in PERSON_ACTORS:
        return who, None
    for spec in [inv.spec, *nested_workflows(wf, _finder(session))]:
        if _written(session, spec):
            who.demote()
            return who, spec.name
    return who, None


def _refused(session: Host, wf: Workflow, actor: Actor, written: str | None) -> str | None:
    """A workflow the model started may not reach a skill only people may run, at any
    depth: checked for every step before the first runs (the person's workflows are
    checked step by step, where `on:` decides what a refusal does)."""
    if actor in PERSON_ACTORS:
        return None
    who = hint = None
    if written is not None:
        who = f"changed by codebot's agent (workflow {written}), so it runs by the model's rules,"
        hint = "Review it and accept it (`codebot written --accept PATH`) to run it as yours"
    return refusal(wf, actor, _finder(session), session.settings.overrides, who=who, hint=hint)


def _for_record(outcome: Outcome) -> Outcome:
    """The turn record's view: a needs_confirmation outcome's summary is its question
    (print mode puts it in the JSON and exits 3)."""
    question = outcome.extra.get("question")
    if outcome.status is Status.NEEDS_CONFIRMATION and question:
        return dataclasses.replace(outcome, summary=str(question))
    return outcome


def _engine(session: Host, record: TurnRecord, who: _Who) -> Engine:
    settings = session.settings

    async def run_step(skill: str, args: str, timeout: float | None, attempt: int = 1) -> Outcome:
        started_by = who.actor
        spec = _spec(session, skill)
        if spec is not None:
            actor = step_actor(spec, started_by, settings.overrides)[0]
        else:
            actor = started_by if started_by in PERSON_ACTORS else Actor.SKILL
        own = TurnRecord()  # the step's entry alone, then marked and added to the turn's
        result = await session.skills.invoke_skill(skill, args, actor, TurnState(), own, fork=True)
        entry = _step_entry(skill, actor, own)
        record.skills.append(entry)
        if isinstance(result, InvocationError):
            outcome = failed(result.message)
            fill_entry(entry, outcome)
            return outcome
        try:
            outcome = await session.subagents.run_fork_outcome(
                session, result, timeout=timeout, attempt=attempt
            )
        except asyncio.CancelledError:
            fill_entry(entry, failed("cancelled"))
            raise
        except Exception as exc:  # the engine makes it the step's failure
            fill_entry(entry, failed(f"{type(exc).__name__}: {exc}"))
            raise
        fill_entry(entry, outcome)
        return outcome

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

    def on_result(place: StepPlace, name: str, skill: StepSkill | None, outcome: Outcome) -> None:
        mode = "workflow" if skill is not None and skill.workflow is not None else "fork"
        entry: dict[str, object] = {"name": skill.name if skill is not None else name}
        entry.update(workflow=place.workflow, step=place.step, actor=who.actor.value, mode=mode)
        fill_entry(entry, outcome)
        record.skills.append(entry)

    return Engine(
        run_step,
        _lookup(session, who),
        on_event=on_event,
        on_result=on_result,
        ask=ask if session.interactive else None,
        default_timeout=settings.workflow.default_timeout,
        max_parallel=settings.workflow.max_parallel,
        max_depth=max(1, settings.fork_depth - session.depth),
    )


def _step_entry(skill: str, actor: Actor, own: TurnRecord) -> dict[str, object]:
    """A step's entry in the turn record: the invocation's (name, actor, mode), marked with
    the workflow and step it ran for so a reader can tell it from the workflow's own."""
    base: dict[str, object] = dict(own.skills[0]) if own.skills else {}
    place = current_step.get()
    entry: dict[str, object] = {"name": base.pop("name", skill)}
    if place is not None:
        entry.update(workflow=place.workflow, step=place.step)
    entry.update({"actor": actor.value, "mode": "fork", **base})
    return entry
