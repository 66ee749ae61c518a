"""The workflow engine: runs a `Workflow`'s steps in order, in code.

Each step's skill runs through an injected `StepRunner` (the agent runs it as a fork
with the step skill's own grants); the engine adds only what the frontmatter says:
`when`, the rendered `args`, the timeout, retries of idempotent skills, `on:` policies
with fallbacks, `parallel` groups (at most `max_parallel` at once), nested workflows
within the depth limit and without cycles. It reports each state change to `on_event`.
Cancelling the task that runs `Engine.run` cancels every running step.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from codebot.skills.outcome import Outcome, Status, worst
from codebot.skills.workflow.model import ASK, CONTINUE, Fallback, Step, Workflow
from codebot.skills.workflow.template import (
    Steps,
    StepView,
    TemplateError,
    condition_off_loop,
    render_off_loop,
)

#: The states a step passes through, as `StepEvent.state`.
WAITING, RUNNING, OK, FAILED, FALLBACK, SKIPPED, CANCELLED = (
    "waiting",
    "running",
    "ok",
    "failed",
    "fallback",
    "skipped",
    "cancelled",
)

#: Seconds the engine waits past a step's timeout before it cancels the runner itself.
GRACE_S = 0.5


class StepRunner(Protocol):
    """Runs one skill as a fork with these arguments; its outcome. The engine enforces
    `timeout` itself too (a runner may use it to stop its sub-agent cleanly); `attempt`
    counts the tries of a retried step (1 for the first)."""

    def __call__(
        self, skill: str, args: str, timeout: float | None, attempt: int = 1
    ) -> Awaitable[Outcome]: ...


@dataclass(frozen=True, slots=True)
class StepSkill:
    """What the engine needs to know of a step's skill (`lookup` gives it)."""

    name: str
    key: str
    idempotent: bool = False
    timeout: float | None = None
    workflow: Workflow | None = None  # the skill is a workflow itself
    problem: str | None = None  # a workflow whose steps have errors: why it cannot run
    refused: str | None = None  # the policy refuses it to this workflow's actor: why

    @property
    def runs_itself(self) -> bool:
        """Whether the runner is called for it (else the engine settles it: a nested
        workflow, a refused one)."""
        return self.refused is None and self.workflow is None and self.problem is None


@dataclass(frozen=True, slots=True)
class StepEvent:
    """A step changed state. `depth` is 0 for the workflow invoked, 1+ for nested ones;
    `elapsed` is seconds since the step started running (0 before)."""

    workflow: str
    step: str
    state: str
    elapsed: float = 0.0
    detail: str = ""
    depth: int = 0


@dataclass(frozen=True, slots=True)
class StepPlace:
    """Which step a runner call is for (`current_step`): the workflow that names it (the
    innermost, for a nested one) and the step's id (`both-1` for a member, `b.fallback`
    for a fallback)."""

    workflow: str
    step: str


#: Set while the engine runs a step's skill, so a runner can tell the step it runs for
#: (each parallel member's task has its own).
current_step: contextvars.ContextVar[StepPlace | None] = contextvars.ContextVar(
    "current_step", default=None
)

Lookup = Callable[[str], StepSkill | None]
#: A step's outcome no runner call gave (`Engine(on_result=...)`): a nested workflow's, an
#: unknown or refused skill's; with the place, the skill named and what lookup said of it.
OnResult = Callable[[StepPlace, str, StepSkill | None, Outcome], None]
Ask = Callable[[str], Awaitable[bool]]


def _failed(summary: str, **extra: object) -> Outcome:
    return Outcome(Status.FAILED, summary, extra=extra)


def _state(outcome: Outcome) -> str:
    return OK if outcome.ok else FAILED if outcome.status is Status.FAILED else outcome.status.value


def _view(sid: str, outcome: Outcome | None, fallback: Outcome | None = None) -> StepView:
    return StepView(
        sid,
        {
            "status": outcome.status.value if outcome else SKIPPED,
            "summary": outcome.summary if outcome else "",
            "data": outcome.data if outcome else None,
            "fallback": fallback.to_json() if fallback else None,
        },
    )


class Engine:
    """Runs workflows. `ask(question)` asks the person (None: nobody can answer, as in
    `-p`, and an `ask` policy ends the workflow as needs_confirmation)."""

    def __init__(
        self,
        runner: StepRunner,
        lookup: Lookup,
        *,
        on_event: Callable[[StepEvent], None] | None = None,
        on_result: OnResult | None = None,
        ask: Ask | None = None,
        default_timeout: float | None = 600.0,
        max_parallel: int = 4,
        max_depth: int = 2,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.runner = runner
        self.lookup = lookup
        self.on_event = on_event
        self.on_result = on_result
        self.ask = ask
        self.default_timeout = default_timeout
        self.max_parallel = max(1, max_parallel)
        self.max_depth = max_depth
        self.sleep = sleep

    def emit_event(
        self, wf: str, depth: int, step: str, state: str, t0: float | None = None, detail: str = ""
    ) -> None:
        if self.on_event is not None:
            elapsed = time.perf_counter() - t0 if t0 is not None else 0.0
            self.on_event(StepEvent(wf, step, state, elapsed, detail, depth))

    async def run(self, wf: Workflow, args: str, chain: tuple[str, ...] = ()) -> Outcome:
        """Run every step of `wf` with the workflow's arguments `args`; the workflow's
        outcome (its data: each step's outcome by id). `chain` holds the keys of the
        workflows above this one."""
        run = _Run(self, wf, args, (*chain, wf.key))
        return await run.go()


class _Run:
    """One run of one workflow: its template context and how far it got."""

    def __init__(self, engine: Engine, wf: Workflow, args: str, chain: tuple[str, ...]) -> None:
        self.e = engine
        self.wf = wf
        self.chain = chain
        self.depth = len(chain) - 1
        self.steps = Steps()
        self.context: dict[str, object] = {"args": args, "steps": self.steps}
        self.results: dict[str, dict[str, object]] = {}
        self.went_on = False  # a fallback ran or a step was continued past

    def emit(self, step: str, state: str, t0: float | None = None, detail: str = "") -> None:
        self.e.emit_event(self.wf.name, self.depth, step, state, t0, detail)

    async def go(self) -> Outcome:
        t0 = time.perf_counter()
        for step in self.wf.steps:
            self.emit(step.id, WAITING)
        end: Outcome | None = None
        for i, step in enumerate(self.wf.steps):
            end = await self._one(step)
            if end is not None:
                for later in self.wf.steps[i + 1 :]:
                    self.emit(later.id, SKIPPED, detail="not run: the workflow stopped")
                break
        if end is None:
            status = Status.PARTIAL if self.went_on else Status.SUCCESS
            end = Outcome(status, self._summary(status))
        data = {"steps": self.results}
        return dataclasses.replace(end, data=data, ms=(time.perf_counter() - t0) * 1000)

    def _summary(self, status: Status) -> str:
        parts = [f"{sid} {r['status']}" for sid, r in self.results.items()]
        return f"workflow {self.wf.name} {status.value}: " + ", ".join(parts)

    def _record(self, sid: str, outcome: Outcome | None, fallback: Outcome | None = None) -> None:
        self.steps[sid] = _view(sid, outcome, fallback)
        entry: dict[str, object] = outcome.to_json() if outcome else {"status": SKIPPED}
        if fallback is not None:
            entry["fallback"] = fallback.to_json()
        self.results[sid] = entry

    def _stop(self, sid: str, status: Status, why: str, **extra: object) -> Outcome:
        return Outcome(status, f"workflow {self.wf.name} stopped at step {sid}: {why}", extra=extra)

    async def _one(self, step: Step) -> Outcome | None:
        """Run one step; None to go on, or the workflow's outcome when it stops here."""
        if step.when is not None:
            try:
                go = await condition_off_loop(step.when, self.context)
            except TemplateError as exc:
                self._record(step.id, _failed(f"when: {exc}"))
                self.emit(step.id, FAILED, detail=f"when: {exc}")
                return self._stop(step.id, Status.FAILED, f"its when: {exc}")
            if not go:
                self._record(step.id, None)
                self.emit(step.id, SKIPPED, detail="when: false")
                return None
        if step.parallel:
            outcome = await self._parallel(step)
        else:
            outcome = await self._single(step, step.id)
        if outcome.ok:
            self._record(step.id, outcome)
            return None
        if outcome.extra.get("template_error"):
            self._record(step.id, outcome)
            return self._stop(step.id, Status.FAILED, outcome.summary)
        kind = "timeout" if outcome.timed_out else outcome.status.value
        return await self._policy(step, outcome, step.action(kind))

    async def _policy(self, step: Step, outcome: Outcome, act: object) -> Outcome | None:
        why = f"{outcome.status.value}: {outcome.summary}".strip()
        if act == ASK:
            if self.e.ask is None:
                self._record(step.id, outcome)
                question = (
                    f"workflow {self.wf.name}: step {step.id} ended {why}. "
                    "Go on with the next step?"
                )
                return self._stop(step.id, Status.NEEDS_CONFIRMATION, why, question=question)
            question = f"Step {step.id} of workflow {self.wf.name} ended {why}. Go on?"
            act = CONTINUE if await self.e.ask(question) else "stop"
        if isinstance(act, Fallback):
            return await self._fallback(step, outcome, act)
        self._record(step.id, outcome)
        if act == CONTINUE:
            self.went_on = True
            return None
        return self._stop(step.id, Status.FAILED, why)

    async def _fallback(self, step: Step, outcome: Outcome, fb: Fallback) -> Outcome | None:
        t0 = time.perf_counter()
        self.emit(step.id, FALLBACK, t0, f"{fb.skill}: running")
        self._record(step.id, outcome)  # the fallback's args may read the failed step
        ran = await self._single(Step(f"{step.id}.fallback", fb.skill, fb.args), None)
        self._record(step.id, outcome, ran)
        self.emit(step.id, FALLBACK, t0, f"{fb.skill}: {ran.status.value}")
        if ran.status in (Status.SUCCESS, Status.PARTIAL):
            self.went_on = True
            return None
        return self._stop(
            step.id,
            Status.FAILED,
            f"{outcome.status.value}, and its fallback {fb.skill} "
            f"{ran.status.value}: {ran.summary}",
        )

    async def _parallel(self, step: Step) -> Outcome:
        gate = asyncio.Semaphore(self.e.max_parallel)

        async def member(m: Step) -> Outcome:
            async with gate:
                return await self._single(m, m.id)

        self.emit(step.id, RUNNING)
        t0 = time.perf_counter()
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(member(m)) for m in step.parallel]
        outs = [t.result() for t in tasks]
        status = worst(outs)
        data = [
            {"id": m.id, "skill": m.skill, **o.to_json()}
            for m, o in zip(step.parallel, outs, strict=True)
        ]
        bad = [
            f"{m.id} {o.status.value}: {o.summary}"
            for m, o in zip(step.parallel, outs, strict=True)
            if not o.ok
        ]
        summary = f"{sum(o.ok for o in outs)} of {len(outs)} succeeded" + (
            "; " + "; ".join(bad) if bad else ""
        )
        failures = [o for o in outs if o.status is Status.FAILED]
        timed_out = bool(failures) and all(o.timed_out for o in failures)
        out = Outcome(status, summary, data, timed_out, (time.perf_counter() - t0) * 1000)
        self.emit(step.id, _state(out), t0, summary)
        return out

    async def _single(self, step: Step, sid: str | None) -> Outcome:
        """One skill run (with its retries); `sid` None: a fallback, whose events the
        caller sends."""
        t0 = time.perf_counter()
        try:
            args = await render_off_loop(step.args, self.context) if step.args else ""
        except TemplateError as exc:
            out = _failed(f"args: {exc}", template_error=True)
            if sid is not None:
                self.emit(sid, FAILED, t0, out.summary)
            return out
        skill = self.e.lookup(step.skill or "")
        if sid is not None:
            self.emit(sid, RUNNING, t0, step.skill or "")
        where = StepPlace(self.wf.name, step.id)
        place = current_step.set(where)
        try:
            if skill is None:
                out = _failed(f"no skill named {step.skill!r}")
            elif skill.refused is not None:
                out = _failed(skill.refused)
            elif skill.workflow is not None or skill.problem is not None:
                out = await self._nested(step, skill, args)
            else:
                out = await self._attempts(step, skill, args, sid, t0)
        except asyncio.CancelledError:
            if sid is not None:
                self.emit(sid, CANCELLED, t0)
            raise
        finally:
            current_step.reset(place)
        out = dataclasses.replace(out, ms=(time.perf_counter() - t0) * 1000)
        if self.e.on_result is not None and (skill is None or not skill.runs_itself):
            self.e.on_result(where, step.skill or "", skill, out)
        if sid is not None:
            self.emit(sid, _state(out), t0, out.summary)
        return out

    async def _nested(self, step: Step, skill: StepSkill, args: str) -> Outcome:
        if skill.key in self.chain:
            path = " → ".join([*self.chain, skill.key])
            return _failed(f"workflow {skill.name!r} is already running above ({path})")
        if len(self.chain) >= self.e.max_depth:
            return _failed(
                f"workflows nest at most {self.e.max_depth} deep; {skill.name!r} was not run"
            )
        if skill.workflow is None:
            return _failed(f"workflow {skill.name!r} cannot run: {skill.problem}")
        run = _Run(self.e, skill.workflow, args, (*self.chain, skill.key))
        if step.timeout is None:
            return await run.go()
        try:
            async with asyncio.timeout(step.timeout):
                return await run.go()
        except TimeoutError:
            return Outcome(Status.FAILED, f"timed out after {step.timeout:g} s", timed_out=True)

    async def _attempts(
        self, step: Step, skill: StepSkill, args: str, sid: str | None, t0: float
    ) -> Outcome:
        timeout = step.timeout or skill.timeout or self.e.default_timeout
        tries = step.retry.attempts if step.retry is not None and skill.idempotent else 1
        out = _failed("not run")
        for n in range(tries):
            if n:
                assert step.retry is not None
                await self.e.sleep(step.retry.backoff_s * 2 ** (n - 1))
                if sid is not None:
                    self.emit(sid, RUNNING, t0, f"{skill.name}: try {n + 1} of {tries}")
            out = await self._attempt(skill, args, timeout, n + 1)
            if out.status is not Status.FAILED:
                break
        if tries > 1:
            out = dataclasses.replace(out, extra={**out.extra, "tries": n + 1})
        return out

    async def _attempt(
        self, skill: StepSkill, args: str, timeout: float | None, attempt: int
    ) -> Outcome:
        try:
            if timeout is None:
                return await self.e.runner(skill.name, args, None, attempt)
            # The runner is told the timeout and stops its sub-agent itself; the engine's own
            # deadline, a little later, is the backstop for a runner that does not.
            async with asyncio.timeout(timeout + GRACE_S):
                return await self.e.runner(skill.name, args, timeout, attempt)
        except TimeoutError:
            return Outcome(Status.FAILED, f"timed out after {timeout:g} s", timed_out=True)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a runner's bug is this step's failure, not the session's
            return _failed(f"{type(exc).__name__}: {exc}")
