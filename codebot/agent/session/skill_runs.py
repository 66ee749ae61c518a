"""`SkillRunner`: running skills for a session: one invocation, a stack of them
(`/a /b args`), the skills in force, and "already loaded" instead of sending an unchanged
body again. A fork skill's sub-agent is the session's to start (`Session.fork`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from codebot.agent.model import message_text
from codebot.agent.session import events as ev
from codebot.agent.session import source_skills
from codebot.agent.session.asking import Approver
from codebot.agent.session.compact import InForce
from codebot.agent.session.emit import Emit
from codebot.agent.session.guard import Guard
from codebot.agent.session.hook_calls import skill_scoped
from codebot.agent.session.outcome_record import entry_update, mark_fields, turn_outcome
from codebot.agent.session.outcomes import OutcomeSink, render
from codebot.agent.session.skill_calls import trace_invocation
from codebot.agent.session.state import SessionState
from codebot.agent.session.transcript import Transcript
from codebot.agent.session.turn import TurnRecord, TurnState
from codebot.agent.tools import ToolContext
from codebot.skills.catalog import Catalog
from codebot.skills.files import Spec, normalize_name
from codebot.skills.files.outputs import contract_of
from codebot.skills.invoke import Actor, Invocation, Request, may_grant, process_invocation
from codebot.skills.invoke.invocation import InvocationError
from codebot.skills.outcome import Outcome, Status
from codebot.skills.workflow import has_steps

if TYPE_CHECKING:
    from codebot.skills.prompt import UsageTracker
    from codebot.skills.trace import Tracer

Result = Invocation | InvocationError
Wrap = Callable[[list[str]], list[str]]

APPROVAL_WAIT_S = 3600.0  # a skill's command waits this long for the person's answer
MAX_STACK = 5


def stack_of(text: str, known: Callable[[str], bool]) -> tuple[list[str], str]:
    """`/a /b rest` → (["a", "b"], "rest"): the leading `/name` words that name skills
    (`known(name)` says which), after the first, which is always taken as a skill. A word
    with another `/` in it (`/tmp/x`) or that names no skill begins the arguments."""
    words = text[1:].split(" ")
    names = [words[0]]
    i = 1
    while i < len(words) and words[i].startswith("/") and len(words[i]) > 1:
        name = words[i][1:]
        if "/" in name or not known(name):
            break
        names.append(name)
        i += 1
    return names, " ".join(words[i:]).strip()


def stack_problem(specs: Sequence[Spec], trusted: bool) -> str | None:
    """Why these skills cannot run together, or None: forks run alone, and two skills may
    not each switch the model (or the effort) to something different."""
    if len(specs) > MAX_STACK:
        return f"at most {MAX_STACK} skills can be stacked in one message; {len(specs)} were given"
    for spec in specs:
        if has_steps(spec):
            return (
                f"skill {spec.name!r} is a workflow (steps:) and cannot be stacked with others; "
                f"send /{spec.name} on its own"
            )
        if spec.context == "fork":
            return (
                f"skill {spec.name!r} runs as a sub-agent (context: fork) and cannot be stacked "
                f"with others: forks run alone; send /{spec.name} on its own"
            )
    for field in ("model", "effort"):
        setters = [
            (s.name, getattr(s, field))
            for s in specs
            if getattr(s, field) and may_grant(s, trusted)
        ]
        if len({v for _, v in setters}) > 1:
            (a, va), (b, vb) = setters[0], next(x for x in setters if x[1] != setters[0][1])
            return (
                f"skills {a!r} ({field} {va}) and {b!r} ({field} {vb}) each switch the {field}; "
                f"stack at most one skill that changes the {field}"
            )
    return None


def already_loaded_note(name: str) -> str:
    return (
        f'[skill "{name}" is already loaded in this conversation with exactly this text '
        "(same file, same arguments); it was not sent again: follow it as loaded above]"
    )


class SkillRunner:
    """Runs a session's skill invocations: their `!` commands are approved by `approver`
    and watched by `guard`; inline skills are remembered in `state.in_force` (and the
    transcript) by the person's session (depth 0) only."""

    def __init__(
        self,
        *,
        state: SessionState,
        catalog: Catalog,
        context: ToolContext,
        guard: Guard,
        approver: Approver,
        emit: Emit,
        transcript: Transcript | None = None,
        tracer: Tracer | None = None,
        usage_tracker: UsageTracker | None = None,
        session_id: str = "",
        depth: int = 0,
        chain: tuple[str, ...] = (),
    ) -> None:
        self.state = state
        self.catalog = catalog
        self.context = context
        self.guard = guard  # skill commands are compared before and after, like Bash calls
        self.approver = approver
        self.emit = emit
        self.transcript = transcript
        self.tracer = tracer
        self.usage_tracker = usage_tracker
        self.session_id = session_id
        self.depth = depth
        self.chain = chain

    def loaded_in_view(self, text: str) -> bool:
        """Whether `text` (an expanded skill) is in the conversation the model is sent."""
        return any(text in message_text(m) for m in self.state.history)

    async def run_stack(self, text: str, turn: TurnState, record: TurnRecord) -> Result:
        """A `/name …` the person typed: one skill, or a stack of up to five. The
        Invocation (its prompt joins the stack's), or an InvocationError saying why not."""
        names, args = stack_of(
            text, lambda n: self.catalog.snapshot.get(normalize_name(n)) is not None
        )
        if len(names) == 1:
            return await self.invoke_skill(names[0], args, Actor.HUMAN, turn, record)
        snapshot = self.catalog.snapshot
        specs = [snapshot.get(normalize_name(n)) for n in names]
        problem = stack_problem([s for s in specs if s is not None], self.state.settings.trusted)
        if problem:
            return InvocationError("stack", names[0], problem)
        results: list[Invocation] = []
        for name in names:
            result = await self.invoke_skill(name, args, Actor.HUMAN, turn, record)
            if isinstance(result, InvocationError):
                return result
            results.append(result)
        first = results[0]
        return Invocation(
            first.spec,
            "inline",
            "\n\n".join(r.prompt for r in results),
            first.delta,
            first.decision,
            first.arguments,
        )

    async def invoke_skill(
        self,
        name: str,
        args: str,
        actor: Actor,
        turn: TurnState,
        record: TurnRecord,
        *,
        fork: bool = False,
    ) -> Result:
        """Invoke a skill. Its mode: "workflow" when it has `steps:` (codebot runs them),
        "fork" when it says so or `fork` is set (a workflow's step), else "inline"."""
        loop = asyncio.get_running_loop()
        settings = self.state.settings
        # A server's skill: its plain name resolved, its body fetched and checked.
        name, refused = await source_skills.resolve(self.catalog, name)
        body = None
        if refused is None:
            body, refused = await source_skills.body_of(
                self.catalog, name, actor, settings.overrides
            )
        if refused is not None:
            if self.tracer is not None:
                trace_invocation(self.tracer, refused, actor, name, 0.0)
            return refused

        def approve(command: str) -> str | None:
            # Called from the worker thread the invocation runs in: ask on the event loop.
            future = asyncio.run_coroutine_threadsafe(
                self.approver.approve_injection(command, turn), loop
            )
            try:
                return future.result(timeout=APPROVAL_WAIT_S)
            except Exception as exc:  # timed out or cancelled: the command does not run
                future.cancel()
                return f"no answer ({type(exc).__name__})"

        req = Request(
            skill=name,
            args=args,
            actor=actor,
            session_id=self.session_id,
            project_dir=settings.project_dir,
            chain=self.chain,
            overrides=settings.overrides,
            shell="run",
            shell_timeout=settings.shell_timeout,
            max_depth=settings.fork_depth,
            trusted_project=settings.trusted,
            approve=approve,
            written=frozenset(self.guard.written),
            wrap=self._sandbox_wrapper(),
            env=self.context.env,
            body=body,
        )
        t0 = time.perf_counter()
        # Shell injections block; run them off the event loop so the UI stays live.
        # Its injected commands are commands: what they change among the protected set is
        # recorded like a Bash call's.
        with self.guard.command(f"skill {name}", f"/{name} {args}".strip(), self.context.sandbox):
            result = await asyncio.to_thread(process_invocation, req, self.catalog.snapshot.skills)
        ms = (time.perf_counter() - t0) * 1000
        if self.tracer is not None:
            trace_invocation(self.tracer, result, actor, name, ms)
        if isinstance(result, InvocationError):
            return result
        mode = "workflow" if has_steps(result.spec) else "fork" if fork else result.mode
        if mode != result.mode:  # a workflow's own grants apply to nothing: its steps have theirs
            result = dataclasses.replace(result, mode=mode)
        return await self._activated(result, actor, turn, record)

    async def _activated(
        self, result: Invocation, actor: Actor, turn: TurnState, record: TurnRecord
    ) -> Invocation:
        """A skill that ran: its delta applies to the turn, it is recorded and announced;
        an inline body already in view is replaced by a short note."""
        if self.usage_tracker is not None:
            await asyncio.to_thread(self.usage_tracker.record, result.spec.key)
        loaded = False
        if result.mode == "inline":
            turn.apply(result.delta)
            turn.hooks.extend(
                skill_scoped(
                    result.spec,
                    self.state.settings.trusted,
                    self.guard.marked_here(result.spec.path),
                    self.state.hooks,
                )
            )
            loaded = self.depth == 0 and self.loaded_in_view(result.prompt)
            self._in_force(result)
            turn.runs.append((result, time.perf_counter()))
            if loaded:
                result = Invocation(
                    result.spec,
                    result.mode,
                    already_loaded_note(result.spec.name),
                    result.delta,
                    result.decision,
                    result.arguments,
                    result.shell,
                    result.notes,
                )
            result = self._outcome_note(result, turn)
        entry: dict[str, Any] = {
            "name": result.spec.name,
            "actor": actor.value,
            "mode": result.mode,
        }
        if loaded:
            entry["already_loaded"] = True
        record.skills.append(entry)
        self.emit(
            ev.SkillActivated(
                result.spec.name,
                actor.value,
                result.mode,
                result.spec.source.value,
                result.delta.to_json() if result.delta else {},
                self.depth,
            )
        )
        if loaded:
            self.emit(
                ev.Notice(
                    f"skill {result.spec.name}: already loaded with the same text; not sent again"
                )
            )
        for note in result.notes:
            self.emit(ev.Notice(f"skill {result.spec.name}: {note}", "warning"))
        return result

    # -- outcomes (issue 35) --------------------------------------------------------------

    def ended(self, inv: Invocation, mode: str, outcome: Outcome) -> None:
        """Record how a run ended: a transcript mark (`codebot skills runs` reads it), a
        trace event and `SkillEnded` for the front ends."""
        actor = inv.decision.actor.value
        if self.transcript is not None:
            self.transcript.mark("skill_outcome", **mark_fields(inv, mode, outcome, self.depth))
        if self.tracer is not None:
            self.tracer.emit(
                "outcome",
                actor=actor,
                skill=inv.spec.name,
                source=inv.spec.source,
                mode=mode,
                duration_ms=outcome.ms,
                reason=outcome.status.value,
                timed_out=outcome.timed_out,
            )
        self.emit(
            ev.SkillEnded(
                inv.spec.name,
                outcome.status.value,
                outcome.summary,
                outcome.ms,
                mode,
                actor,
                outcome.timed_out,
                self.depth,
            )
        )

    def end_turn(self, turn: TurnState, record: TurnRecord) -> None:
        """The outcomes of the inline skills run this turn, as the turn ended."""
        runs, turn.runs = turn.runs, []
        now = time.perf_counter()
        for inv, t0 in runs:
            sink = turn.outcome if turn.outcome and turn.outcome.skill == inv.spec.name else None
            outcome = dataclasses.replace(turn_outcome(sink, record), ms=(now - t0) * 1000)
            self.ended(inv, "inline", outcome)
            entry_update(record, inv.spec.name, outcome)

    async def settle(self, inv: Invocation, outcome: Outcome, record: TurnRecord) -> str:
        """A fork's outcome in the turn's record; its question asked when it has one; what
        the caller reads (the rendered outcome, and the person's answer)."""
        entry_update(record, inv.spec.name, outcome)
        text = render(outcome)
        if outcome.status is Status.NEEDS_CONFIRMATION:
            answer = await self.approver.confirm(inv.spec.name, outcome.summary)
            if answer is not None:
                text += f"\n{answer}"
        return text

    @staticmethod
    def _outcome_note(result: Invocation, turn: TurnState) -> Invocation:
        """An inline skill that must report its outcome: the turn offers SkillOutcome and
        its text ends with how to report (also when the body itself was already loaded)."""
        contract = contract_of(result.spec)
        if not contract.wants_outcome or turn.outcome is not None:
            return result
        turn.outcome = OutcomeSink(result.spec.name, contract.schema, required=True)
        note = turn.outcome.instructions()
        return dataclasses.replace(result, prompt=f"{result.prompt}\n{note}")

    def _in_force(self, result: Invocation) -> None:
        """Remember an inline invocation's text: compaction re-attaches it as it was."""
        if self.depth != 0:
            return  # a sub-agent's skills end with the sub-agent
        item = InForce(result.spec.key, result.spec.name, result.prompt, time.time())
        self.state.in_force.append(item)
        if self.transcript is not None:
            self.transcript.mark("skill", **item.to_json())

    def _sandbox_wrapper(self) -> Wrap | None:
        """Skill commands run in the same sandbox as Bash calls, when there is one."""
        policy = self.context.sandbox
        if policy is None:
            return None
        if isinstance(policy, str):  # required but unavailable: refuse to run bare

            def refuse(argv: list[str]) -> list[str]:
                return [
                    "/bin/sh",
                    "-c",
                    "echo 'the sandbox is required but cannot run here' >&2; exit 126",
                ]

            return refuse
        from codebot.agent.tools.shell import sandboxed

        project_dir = self.state.settings.project_dir
        return lambda argv: sandboxed(argv, self.context, project_dir)[0]
