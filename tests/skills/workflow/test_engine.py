"""The workflow engine with a step runner in the test: order, `when`, `on:` policies and
fallbacks, retries only of idempotent skills, timeouts, parallel groups, nesting and
cycles, cancellation, templates."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from codebot.skills.outcome import Outcome, Status
from codebot.skills.workflow import Engine, StepEvent, StepSkill
from codebot.skills.workflow.parse import parse_steps

Behaviour = Callable[[str], Outcome] | Outcome


class Runner:
    """Answers each skill as told; records (skill, args) of every call, in order."""

    def __init__(self, **answers: Behaviour) -> None:
        self.answers = answers
        self.calls: list[tuple[str, str]] = []
        self.delay: dict[str, float] = {}
        self.running = 0
        self.most = 0

    async def __call__(
        self, skill: str, args: str, timeout: float | None, attempt: int = 1
    ) -> Outcome:
        self.calls.append((skill, args))
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            if skill in self.delay:
                await asyncio.sleep(self.delay[skill])
            answer = self.answers.get(
                skill.replace("-", "_"), Outcome(Status.SUCCESS, f"{skill} ok")
            )
            return answer(args) if callable(answer) else answer
        finally:
            self.running -= 1


def lookup_of(
    idempotent: set[str] = frozenset(),
    timeouts: dict[str, float] | None = None,
    workflows: dict | None = None,
):
    workflows = workflows or {}

    def lookup(name: str) -> StepSkill | None:
        if name == "missing":
            return None
        wf = workflows.get(name)
        return StepSkill(name, name, name in idempotent, (timeouts or {}).get(name), wf)

    return lookup


def wf(steps: list, name: str = "flow"):
    workflow, problems = parse_steps(name, name, steps)
    assert workflow is not None, problems
    return workflow


async def no_sleep(_: float) -> None:
    return None


def engine(runner: Runner, events: list | None = None, **kw) -> Engine:
    kw.setdefault("lookup", lookup_of())
    kw.setdefault("sleep", no_sleep)
    return Engine(runner, on_event=(events.append if events is not None else None), **kw)


THREE = [
    {"id": "a", "skill": "one", "args": "{{ args }}"},
    {
        "id": "b",
        "skill": "two",
        "args": "{{ steps.a.summary }}",
        "on": {"failed": {"skill": "rescue", "args": "{{ steps.b.summary }}"}},
    },
    {"id": "c", "skill": "three", "when": "{{ steps.b.status == 'success' }}"},
]


async def test_steps_run_in_order_with_rendered_args() -> None:
    runner = Runner()
    out = await engine(runner).run(wf(THREE), "hello")
    assert runner.calls == [("one", "hello"), ("two", "one ok"), ("three", "")]
    assert out.status is Status.SUCCESS
    assert set(out.data["steps"]) == {"a", "b", "c"}


async def test_failed_step_runs_its_fallback_and_the_when_skips_the_third() -> None:
    runner = Runner(two=Outcome(Status.FAILED, "boom"))
    events: list[StepEvent] = []
    out = await engine(runner, events).run(wf(THREE), "x")
    assert [c[0] for c in runner.calls] == ["one", "two", "rescue"]
    assert runner.calls[2] == ("rescue", "boom")  # the fallback reads the failed step
    assert out.status is Status.PARTIAL  # a fallback ran
    b = out.data["steps"]["b"]
    assert b["status"] == "failed" and b["fallback"]["status"] == "success"
    assert out.data["steps"]["c"] == {"status": "skipped"}
    states = [(e.step, e.state) for e in events]
    assert ("b", "fallback") in states and ("c", "skipped") in states


async def test_failed_step_without_on_stops_the_workflow() -> None:
    runner = Runner(one=Outcome(Status.FAILED, "no"))
    out = await engine(runner).run(wf(THREE), "x")
    assert runner.calls == [("one", "x")]
    assert out.status is Status.FAILED and "stopped at step a" in out.summary


async def test_a_failing_fallback_stops_the_workflow() -> None:
    runner = Runner(two=Outcome(Status.FAILED, "boom"), rescue=Outcome(Status.FAILED, "also"))
    out = await engine(runner).run(wf(THREE), "x")
    assert [c[0] for c in runner.calls] == ["one", "two", "rescue"]
    assert out.status is Status.FAILED


async def test_partial_continues_by_default_and_makes_the_workflow_partial() -> None:
    runner = Runner(one=Outcome(Status.PARTIAL, "half"))
    out = await engine(runner).run(wf([*THREE[:1], {"id": "z", "skill": "two"}]), "x")
    assert [c[0] for c in runner.calls] == ["one", "two"]
    assert out.status is Status.PARTIAL


async def test_needs_confirmation_without_a_person_stops_with_the_question() -> None:
    runner = Runner(one=Outcome(Status.NEEDS_CONFIRMATION, "delete 3 files?"))
    out = await engine(runner).run(wf(THREE), "x")
    assert runner.calls == [("one", "x")]
    assert out.status is Status.NEEDS_CONFIRMATION
    assert "delete 3 files?" in out.extra["question"]


@pytest.mark.parametrize("answer", [True, False])
async def test_ask_asks_the_person(answer: bool) -> None:
    asked: list[str] = []

    async def ask(q: str) -> bool:
        asked.append(q)
        return answer

    runner = Runner(one=Outcome(Status.NEEDS_CONFIRMATION, "sure?"))
    out = await engine(runner, ask=ask).run(wf([THREE[0], {"id": "z", "skill": "two"}]), "x")
    assert len(asked) == 1 and "sure?" in asked[0]
    assert [c[0] for c in runner.calls] == (["one", "two"] if answer else ["one"])
    assert out.status is (Status.PARTIAL if answer else Status.FAILED)


async def test_timeout_of_a_non_idempotent_step_is_not_retried() -> None:
    runner = Runner()
    runner.delay["slow"] = 5
    steps = [
        {"id": "s", "skill": "slow", "timeout": 0.05, "retry": {"attempts": 3, "backoff_s": 0}}
    ]
    out = await engine(runner).run(wf(steps), "")
    assert runner.calls == [("slow", "")]
    assert out.status is Status.FAILED
    assert out.data["steps"]["s"]["timed_out"] is True


async def test_timeout_of_an_idempotent_step_is_retried_with_backoff() -> None:
    runner = Runner()
    runner.delay["slow"] = 5
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    steps = [
        {"id": "s", "skill": "slow", "timeout": 0.05, "retry": {"attempts": 3, "backoff_s": 2}}
    ]
    out = await engine(runner, lookup=lookup_of({"slow"}), sleep=sleep).run(wf(steps), "")
    assert runner.calls == [("slow", "")] * 3
    assert slept == [2, 4]
    assert out.data["steps"]["s"]["tries"] == 3


async def test_retry_stops_at_the_first_success() -> None:
    answers = iter([Outcome(Status.FAILED, "flaky"), Outcome(Status.SUCCESS, "fine")])
    runner = Runner(flaky=lambda _a: next(answers))
    steps = [{"id": "s", "skill": "flaky", "retry": {"attempts": 5, "backoff_s": 0}}]
    out = await engine(runner, lookup=lookup_of({"flaky"})).run(wf(steps), "")
    assert len(runner.calls) == 2 and out.status is Status.SUCCESS


async def test_timeout_comes_from_the_skill_then_the_default() -> None:
    runner = Runner()
    runner.delay["slow"] = 5
    steps = [{"id": "s", "skill": "slow"}]
    out = await engine(runner, lookup=lookup_of(timeouts={"slow": 0.05})).run(wf(steps), "")
    assert out.data["steps"]["s"]["timed_out"] is True
    out = await engine(runner, default_timeout=0.05).run(wf(steps), "")
    assert "timed out after 0.05 s" in out.data["steps"]["s"]["summary"]


async def test_on_timeout_falls_back_to_on_failed() -> None:
    runner = Runner()
    runner.delay["slow"] = 5
    steps = [
        {"id": "s", "skill": "slow", "timeout": 0.05, "on": {"failed": "continue"}},
        {"id": "t", "skill": "two"},
    ]
    out = await engine(runner).run(wf(steps), "")
    assert [c[0] for c in runner.calls] == ["slow", "two"] and out.status is Status.PARTIAL


async def test_parallel_members_overlap_and_are_capped() -> None:
    runner = Runner(m=lambda a: Outcome(Status.SUCCESS, a, {"arg": a}))
    runner.delay["m"] = 0.05
    steps = [{"id": "g", "parallel": [{"skill": "m", "args": str(i)} for i in range(6)]}]
    out = await engine(runner, max_parallel=3).run(wf(steps), "")
    assert runner.most == 3
    g = out.data["steps"]["g"]
    assert g["status"] == "success" and [m["data"]["arg"] for m in g["data"]] == list("012345")


async def test_parallel_outcome_is_the_worst() -> None:
    runner = Runner(bad=Outcome(Status.PARTIAL, "meh"))
    steps = [{"id": "g", "parallel": [{"skill": "good"}, {"skill": "bad"}]}]
    out = await engine(runner).run(wf(steps), "")
    assert out.data["steps"]["g"]["status"] == "partial"


async def test_cancelling_the_run_cancels_every_running_step() -> None:
    cancelled: list[str] = []
    started = asyncio.Event()

    async def hang(skill: str, args: str, timeout: float | None, attempt: int = 1) -> Outcome:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(args)
            raise
        return Outcome(Status.SUCCESS)

    events: list[StepEvent] = []
    eng = Engine(hang, lookup_of(), on_event=events.append)
    steps = [{"id": "g", "parallel": [{"skill": "m", "args": "1"}, {"skill": "m", "args": "2"}]}]
    task = asyncio.create_task(eng.run(wf(steps), ""))
    await started.wait()
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(cancelled) == ["1", "2"]
    assert {e.step for e in events if e.state == "cancelled"} == {"g-1", "g-2"}


async def test_nested_workflow_runs_and_a_cycle_is_refused() -> None:
    inner = wf([{"id": "i", "skill": "two"}], "inner")
    loop = wf([{"id": "l", "skill": "loop"}], "loop")
    lookup = lookup_of(workflows={"inner": inner, "loop": loop})
    runner = Runner()
    out = await engine(runner, lookup=lookup).run(wf([{"id": "n", "skill": "inner"}]), "")
    assert runner.calls == [("two", "")] and out.status is Status.SUCCESS
    assert out.data["steps"]["n"]["data"]["steps"]["i"]["status"] == "success"
    out = await engine(runner, lookup=lookup).run(loop, "")
    assert out.status is Status.FAILED and "already running" in out.data["steps"]["l"]["summary"]


async def test_nesting_is_limited_by_depth() -> None:
    c = wf([{"id": "x", "skill": "two"}], "c")
    b = wf([{"id": "x", "skill": "c"}], "b")
    lookup = lookup_of(workflows={"b": b, "c": c})
    runner = Runner()
    out = await engine(runner, lookup=lookup, max_depth=2).run(
        wf([{"id": "x", "skill": "b"}], "a"), ""
    )
    assert runner.calls == [] and "nest at most 2" in str(out.data)


async def test_unknown_skill_fails_the_step() -> None:
    out = await engine(Runner()).run(wf([{"id": "x", "skill": "missing"}]), "")
    assert (
        out.status is Status.FAILED
        and "no skill named 'missing'" in out.data["steps"]["x"]["summary"]
    )


async def test_template_error_names_the_variable_and_stops() -> None:
    runner = Runner()
    steps = [
        {"id": "a", "skill": "one", "args": "{{ steps.nope.data }}", "on": {"failed": "continue"}},
        {"id": "b", "skill": "two"},
    ]
    out = await engine(runner).run(wf(steps), "")
    assert runner.calls == []  # even `on: failed: continue` does not run past a template bug
    assert out.status is Status.FAILED and "steps.nope" in out.summary


async def test_templates_cannot_leave_the_sandbox() -> None:
    runner = Runner()
    for evil in (
        "{{ ''.__class__ }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ 'x' * 100000000 }}",
    ):
        out = await engine(runner).run(wf([{"id": "a", "skill": "one", "args": evil}]), "")
        assert out.status is Status.FAILED and ("unsafe" in out.summary or "refused" in out.summary)
    assert runner.calls == []


async def test_a_runner_that_raises_fails_only_its_step() -> None:
    async def broken(skill: str, args: str, timeout: float | None, attempt: int = 1) -> Outcome:
        raise RuntimeError("kaput")

    out = await Engine(broken, lookup_of()).run(
        wf([{"id": "a", "skill": "one", "on": {"failed": "continue"}}]), ""
    )
    assert out.status is Status.PARTIAL and "kaput" in out.data["steps"]["a"]["summary"]


async def test_values_are_never_rendered_again() -> None:
    """What a person or a sub-agent wrote (`args`, a summary) is inserted as text: a
    template inside it is not evaluated."""
    runner = Runner(one=Outcome(Status.SUCCESS, "{{ ''.__class__ }} {{ 7 * 7 }}"))
    steps = [
        {"id": "a", "skill": "one", "args": "{{ args }}"},
        {"id": "b", "skill": "two", "args": "{{ steps.a.summary }}"},
    ]
    out = await engine(runner).run(wf(steps), "{{ 6 * 7 }}")
    assert out.status is Status.SUCCESS
    assert runner.calls == [("one", "{{ 6 * 7 }}"), ("two", "{{ ''.__class__ }} {{ 7 * 7 }}")]
