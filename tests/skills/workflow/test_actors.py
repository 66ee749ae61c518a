"""Who a workflow's steps run as (`workflow/actors.py`): the person's workflow may run
person-only steps; one the model started may not reach them, at any depth, through a
member, a fallback or a nested workflow; the engine refuses a refused step itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source, Spec
from codebot.skills.invoke import Actor
from codebot.skills.outcome import Outcome, Status
from codebot.skills.workflow import Engine, StepSkill, workflow_of
from codebot.skills.workflow.actors import refusal, step_actor
from codebot.skills.workflow.parse import parse_steps


def specs_in(root: Path) -> dict[str, Spec]:
    return {s.key: s for s in Catalog([Root(root, Source.PROJECT, "extra", (0,))]).load()}


@pytest.fixture
def root(tmp_path: Path, write_skill) -> Path:
    def skill(name: str, extra: str = "") -> None:
        write_skill(tmp_path, name, f"description: {name} here. Not for X.\n{extra}", "Body.")

    skill("plain")
    skill("private", "disable-model-invocation: true\n")
    skill("hidden", "user-invocable: false\n")
    skill("nobody", "user-invocable: false\ndisable-model-invocation: true\n")
    skill("direct", "steps:\n  - {id: a, skill: plain}\n  - {id: b, skill: private}\n")
    skill("outer", "steps:\n  - {id: x, skill: plain}\n  - {id: y, skill: direct}\n")
    skill(
        "member",
        "steps:\n  - id: g\n    parallel:\n      - {skill: plain}\n      - {skill: private}\n",
    )
    skill("fallback", "steps:\n  - id: a\n    skill: plain\n    on: {failed: {skill: private}}\n")
    skill("shut", "disable-model-invocation: true\nsteps:\n  - {id: a, skill: plain}\n")
    skill("wrap", "steps:\n  - {id: w, skill: shut}\n")
    skill("loop-a", "steps:\n  - {id: a, skill: loop-b}\n")
    skill("loop-b", "steps:\n  - {id: b, skill: loop-a}\n  - {id: c, skill: plain}\n")
    skill("ghost", "steps:\n  - {id: a, skill: not-there}\n")
    return tmp_path


def test_the_person_runs_person_only_steps_and_the_model_does_not(root: Path) -> None:
    specs = specs_in(root)
    actor, d = step_actor(specs["private"], Actor.HUMAN)
    assert (actor, d.allowed) == (Actor.HUMAN, True)
    for started_by in (Actor.MODEL, Actor.AGENT, Actor.SKILL):
        actor, d = step_actor(specs["private"], started_by)
        assert (actor, d.allowed) == (Actor.SKILL, False)
        assert d.decided_by == "disable-model-invocation"
    # a skill people may not type is still a step of their workflow, run as a skill would
    actor, d = step_actor(specs["hidden"], Actor.HUMAN)
    assert (actor, d.allowed) == (Actor.SKILL, True)
    # nobody may run it; turned off in config is off for everyone
    assert not step_actor(specs["nobody"], Actor.HUMAN)[1].allowed
    assert not step_actor(specs["plain"], Actor.HUMAN, {"plain": "off"})[1].allowed
    assert step_actor(specs["plain"], Actor.HUMAN, {"plain": "user-only"})[1].allowed
    assert not step_actor(specs["plain"], Actor.MODEL, {"plain": "user-only"})[1].allowed


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("direct", "step b: skill 'private'"),
        ("outer", "step y → workflow direct, step b: skill 'private'"),
        ("member", "step g (member g-2): skill 'private'"),
        ("fallback", "step a (fallback on failed): skill 'private'"),
        ("wrap", "step w: skill 'shut'"),
    ],
)
def test_a_model_started_workflow_cannot_reach_a_person_only_skill(
    root: Path, name: str, where: str
) -> None:
    specs = specs_in(root)
    wf, _ = workflow_of(specs[name])
    assert wf is not None
    why = refusal(wf, Actor.MODEL, specs.get)
    assert why is not None and where in why, why
    assert "disable-model-invocation: true" in why and "no step ran" in why
    assert f"Type /{name} yourself" in why
    assert refusal(wf, Actor.HUMAN, specs.get) is None


def test_cycles_and_unknown_skills_end_the_check(root: Path) -> None:
    specs = specs_in(root)
    for name in ("loop-a", "ghost"):
        wf, _ = workflow_of(specs[name])
        assert wf is not None
        assert refusal(wf, Actor.MODEL, specs.get) is None  # the run reports these itself


def test_the_engine_refuses_a_refused_step_without_running_it() -> None:
    inner, _ = parse_steps("inner", "inner", [{"id": "s", "skill": "plain"}])
    outer, _ = parse_steps(
        "outer",
        "outer",
        [{"id": "x", "skill": "inner", "on": {"failed": "continue"}}, {"id": "y", "skill": "p"}],
    )
    assert inner is not None and outer is not None
    calls: list[str] = []

    async def runner(skill: str, args: str, timeout: float | None, attempt: int = 1) -> Outcome:
        calls.append(skill)
        return Outcome(Status.SUCCESS, "ran")

    def lookup(name: str) -> StepSkill | None:
        if name == "inner":  # a nested workflow is no runner call: the lookup's word counts
            return StepSkill("inner", "inner", workflow=inner, refused="skill may not run it")
        return StepSkill(name, name, refused="skill may not run it" if name == "p" else None)

    results: list[tuple[str, str, str]] = []

    def on_result(place, name: str, skill, outcome: Outcome) -> None:
        results.append((place.workflow, place.step, outcome.status.value))

    out = asyncio.run(Engine(runner, lookup, on_result=on_result).run(outer, ""))
    assert calls == []
    assert results == [("outer", "x", "failed"), ("outer", "y", "failed")]  # no runner call
    assert out.status is Status.FAILED
    assert out.data["steps"]["x"]["summary"] == "skill may not run it"
    assert "stopped at step y" in out.summary
