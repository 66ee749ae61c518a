"""Who a workflow's steps run as: the actor follows who started the workflow.

A workflow the person started (`/name`; an application or the eval harness naming it)
runs its steps as that actor, so a step skill only people may run
(`disable-model-invocation: true`, `skills.overrides: user-only`) runs, and its `!`
commands follow the person's rules (`invoke/policy.py`, `invoke/invocation.shell_policy`).
A skill people may not type (`user-invocable: false`) is still a step of their workflow:
it runs as a skill asking for a skill, as the model would run it.

A workflow the model started (its `Skill` tool, a sub-agent's, a skill's) runs every
step as a skill asking for a skill, at every depth: nested workflows, parallel members
and fallbacks included. `refusal` checks all of them before any step runs, so the model
cannot reach a person-only skill by wrapping it in a workflow.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from codebot.skills.files import Spec
from codebot.skills.invoke.policy import Actor, Decision, decide, how_to_run
from codebot.skills.workflow.model import Fallback, Step, Workflow
from codebot.skills.workflow.parse import workflow_of

#: Actors that stand for the person: their workflows' steps run as they would.
PERSON_ACTORS = frozenset({Actor.HUMAN, Actor.APPLICATION, Actor.EVAL})
WHO = {
    Actor.MODEL: "the model",
    Actor.AGENT: "a sub-agent",
    Actor.SKILL: "a skill",
    Actor.HUMAN: "you",
    Actor.APPLICATION: "the application",
    Actor.EVAL: "the evaluation harness",
}

Find = Callable[[str], Spec | None]


def step_actor(
    spec: Spec, started_by: Actor, overrides: Mapping[str, str] | None = None
) -> tuple[Actor, Decision]:
    """The actor a step of a workflow `started_by` runs `spec` as, and that actor's
    decision (which may refuse)."""
    if started_by in PERSON_ACTORS:
        own = decide(spec, started_by, overrides)
        if own.allowed:
            return started_by, own
        as_skill = decide(spec, Actor.SKILL, overrides)
        if as_skill.allowed:  # a model-only skill: a step runs it as a skill would
            return Actor.SKILL, as_skill
        return started_by, own
    return Actor.SKILL, decide(spec, Actor.SKILL, overrides)


def why_refused(spec: Spec, decision: Decision) -> str:
    """The decision's reason without its "what to do instead" (which names the step's
    skill, not the workflow)."""
    return decision.reason.removesuffix(f"; {how_to_run(spec, decision.actor)}")


def nested_workflows(wf: Workflow, find: Find) -> list[Spec]:
    """The skills of every workflow `wf` may run, at any depth (each once, cycles cut)."""
    out: dict[str, Spec] = {}

    def walk(w: Workflow) -> None:
        for step in w.steps:
            for _, name in _places(step):
                spec = find(name)
                if spec is None or spec.key in out or spec.key == wf.key:
                    continue
                inner, _ = workflow_of(spec)
                if inner is not None:
                    out[spec.key] = spec
                    walk(inner)

    walk(wf)
    return list(out.values())


def refusal(
    wf: Workflow,
    started_by: Actor,
    find: Find,
    overrides: Mapping[str, str] | None = None,
    who: str | None = None,
    hint: str | None = None,
) -> str | None:
    """Why a workflow `started_by` may not run, before any step runs: the first step
    (member, fallback, or step of a nested workflow) whose skill that actor may not run.
    None when every skill is allowed (unknown skills are left to the run, which reports
    them as the step's failure). `who` says who started it, when not `started_by`;
    `hint` what to do instead."""
    found = _first_refused(wf, started_by, find, overrides, (wf.key,))
    if found is None:
        return None
    where, spec, decision = found
    return (
        f"workflow {wf.name} was {who or 'started by ' + WHO.get(started_by, started_by.value)} "
        f"and may not run {where}: skill {spec.name!r} is refused "
        f"({why_refused(spec, decision)}); no step ran. "
        + (hint or f"Type /{wf.name} yourself to run it")
    )


Found = tuple[str, Spec, Decision]


def _first_refused(
    wf: Workflow,
    started_by: Actor,
    find: Find,
    overrides: Mapping[str, str] | None,
    chain: tuple[str, ...],
) -> Found | None:
    for step in wf.steps:
        for where, name in _places(step):
            spec = find(name)
            if spec is None:
                continue
            _, decision = step_actor(spec, started_by, overrides)
            if not decision.allowed:
                return f"step {where}", spec, decision
            inner, _ = workflow_of(spec)
            if inner is None or inner.key in chain:  # a cycle: the run refuses it
                continue
            nested = _first_refused(inner, started_by, find, overrides, (*chain, inner.key))
            if nested is not None:
                return f"step {where} → workflow {inner.name}, {nested[0]}", nested[1], nested[2]
    return None


def _places(step: Step) -> list[tuple[str, str]]:
    """(where, skill) for everything a step may run: its skill, its members', its
    fallbacks'."""
    out = [(step.id, step.skill)] if step.skill else []
    out.extend((f"{step.id} (member {m.id})", m.skill) for m in step.parallel if m.skill)
    out.extend(
        (f"{step.id} (fallback on {kind})", action.skill)
        for kind, action in step.on.items()
        if isinstance(action, Fallback)
    )
    return out
