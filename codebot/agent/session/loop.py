"""The turn loop: user message → model → tools → model … → answer.

One `Session` holds one conversation. `run_turn` sends the user's text (or runs a `/skill`
they typed), streams the model's answer, runs the tools it asks for, applies a skill's
delta for the rest of the turn only, and records everything in the transcript as it
happens. Front ends receive typed events through `emit`; approvals are events carrying a
future the front end resolves.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable
from typing import Any

from codebot.agent.model import (
    Completion,
    ModelClient,
    ModelError,
    ModelRequest,
    TextDelta,
    ToolCall,
    Usage,
)
from codebot.agent.permissions import ApprovalRequest, Approvals, Verdict
from codebot.agent.session import events as ev
from codebot.agent.session.asking import Asking
from codebot.agent.session.budget import Budgeting, TurnBudget
from codebot.agent.session.compact import Compaction, InForce
from codebot.agent.session.compacting import Compacting
from codebot.agent.session.guard import Guard
from codebot.agent.session.prompting import Prompting
from codebot.agent.session.skill_calls import meta_subjects
from codebot.agent.session.skill_runs import SkillRuns
from codebot.agent.session.transcript import Transcript, clean, clean_text, repair
from codebot.agent.session.turn import NO_SUBAGENTS, SubAgents, TurnRecord, TurnState, render_system
from codebot.agent.tools import (
    META_TOOLS,
    SKILL,
    SKILL_SEARCH,
    TASK,
    ToolContext,
    ToolRegistry,
    ToolResult,
    resolve_path,
)
from codebot.agent.tools.sandbox_scan import with_masks
from codebot.config import Settings
from codebot.skills.catalog import Catalog
from codebot.skills.invoke import Actor

Emit = Callable[[ev.Event | ApprovalRequest], None]
WRITING_TOOLS = frozenset({"Write", "Edit"})
MAX_STEPS = 50


def request_model(turn: TurnState, session: Session) -> str:
    return turn.model or session.base_model or session.client.model


class Session(Asking, SkillRuns, Compacting, Prompting, Budgeting):
    def __init__(
        self,
        settings: Settings,
        catalog: Catalog,
        client: ModelClient,
        *,
        registry: ToolRegistry,
        approvals: Approvals,
        emit: Emit | None = None,
        interactive: bool = False,
        transcript: Transcript | None = None,
        session_id: str = "",
        history: list[dict[str, Any]] | None = None,
        usage_tracker=None,
        tracer=None,
        depth: int = 0,
        chain: tuple[str, ...] = (),
        system_prompt: str | None = None,
        tool_filter: Callable[[str], bool] | None = None,
        base_model: str | None = None,
        max_steps: int = MAX_STEPS,
        subagents: SubAgents = NO_SUBAGENTS,
        in_force: list[InForce] | None = None,
        last_compaction: Compaction | None = None,
        guard: Guard | None = None,
    ) -> None:
        self.settings = settings
        self.catalog = catalog
        self.client = client
        self.registry = registry
        self.approvals = approvals
        self.emit: Emit = emit or (lambda _e: None)
        self.interactive = interactive
        self.transcript = transcript
        self.id = session_id or (transcript.id if transcript else "")
        self.history: list[dict[str, Any]] = list(history or [])
        self.usage_tracker = usage_tracker
        self.tracer = tracer
        self.depth = depth
        self.chain = chain
        self.tool_filter = tool_filter or (lambda _n: True)
        self.base_model = base_model
        self.max_steps = max_steps
        # How forks and Task calls run (`subagent`, passed in by `setup`): the sub-agent
        # module builds Sessions, so this module must not import it.
        self.subagents = subagents
        self.sandbox_state = "off"  # set by setup.apply_sandbox
        self.sandbox_notice = ""  # said once at start when the sandbox is wanted and cannot run
        # What runs later: protected writes are asked, and what the agent changes among
        # the protected set is recorded (provenance) and marked in `written`, which holds
        # the real paths the skill system treats as agent-written.
        # A sub-agent shares its parent's guard (and so its `written` set).
        self.guard = (
            guard if guard is not None else Guard(settings.project_dir, settings.home, self.id)
        )
        self.written: set[str] = self.guard.written if guard is not None else self.guard.load(set())
        self.total_usage = Usage()
        #: Usage by the model that answered (a skill may switch it for a turn), for /usage.
        self.usage_by_model: dict[str, Usage] = {}
        self.last_listing: str | None = None
        #: Each inline skill invocation of this session, oldest first (compaction
        #: re-attaches them); restored with the history on --continue.
        self.in_force: list[InForce] = list(in_force or [])
        self.last_compaction: Compaction | None = last_compaction
        self.context = ToolContext(project_dir=settings.project_dir)
        self._system = system_prompt
        self._active_cache: tuple[int, float, frozenset[str]] | None = None

    # -- prompts ----------------------------------------------------------------------

    @property
    def system_prompt(self) -> str:
        if self._system is None:
            self._system = render_system(self.settings.project_dir, self._tool_names(set()))
        return self._system

    def _tool_names(self, hidden: set[str]) -> list[str]:
        names = [*self.registry.names(), *META_TOOLS]
        return [n for n in names if n not in hidden and self.tool_filter(n)]

    def tool_schemas(self, turn: TurnState) -> list[dict[str, Any]]:
        hidden = {
            n
            for n in (*self.registry.names(), *META_TOOLS)
            if n in turn.hidden or not self.tool_filter(n)
        }
        schemas = self.registry.schemas(hidden=hidden)
        schemas += [t for name, t in META_TOOLS.items() if name not in hidden]
        return schemas

    # -- history ----------------------------------------------------------------------

    def add(self, message: dict[str, Any]) -> None:
        message = clean(
            message
        )  # valid UTF-8 for the transcript and the provider (file names, tool output)
        self.history.append(message)
        if self.transcript is not None:
            self.transcript.append(message)

    def clear(self) -> None:
        self.history.clear()
        self.last_listing = None
        self.in_force.clear()  # /clear forgets everything, the skills in force too
        self.last_compaction = None
        if self.transcript is not None:
            self.transcript.mark("clear")

    # -- the turn -----------------------------------------------------------------------

    async def run_turn(self, text: str) -> TurnRecord:
        turn, record, text = (
            TurnState(),
            TurnRecord(),
            clean_text(text),
        )  # argv/stdin bytes arrive as surrogates
        self.budget = TurnBudget(self.settings.limits)  # shared by every sub-agent of this turn
        if self.transcript is not None:
            self.transcript.mark("turn", text=text)  # what was typed, for `codebot sessions`
        try:
            content = await self._user_content(text, turn, record)
            if content is not None:
                self.add({"role": "user", "content": content})
                await self._loop(turn, record)
        except asyncio.CancelledError:
            record.cancelled = True
            self.history[:] = repair(self.history)
            self.emit(ev.TurnEnded(record.usage, cancelled=True, text=record.text))
            raise
        except ModelError as exc:
            record.error, record.error_kind = exc.message, exc.kind
            self.emit(ev.ErrorEvent(exc.message, exc.kind))
        finally:
            if self.transcript is not None:
                # fsync can take a while on a busy disk: off the event loop; a cancelled
                # turn does not wait for it, so it ends (and the UI answers) at once.
                synced = asyncio.get_running_loop().run_in_executor(None, self.transcript.sync)
                if not record.cancelled:
                    await asyncio.shield(synced)
        self.end_budget(record)
        if not record.cancelled:
            self.emit(ev.TurnEnded(record.usage, error=record.error, text=record.text))
        return record

    async def _user_content(self, text: str, turn: TurnState, record: TurnRecord) -> str | None:
        """The user message to send, or None when a `/skill` was handled without the model."""
        body = text
        name = text[1:].partition(" ")[0]
        path_like = (
            "/" in name and self.catalog.snapshot.get(name) is None
        )  # `/tmp/app.py crashes` is a prompt
        if text.startswith("/") and name and not text.startswith("//") and not path_like:
            result = await self.run_stack(text, turn, record)
            if not result.ok:
                record.error, record.error_kind = result.message, "skill"
                self.emit(ev.ErrorEvent(result.message, "skill"))
                return None
            if result.mode == "fork":
                answer = await self.fork(result, record)
                self.add({"role": "user", "content": text})
                self.add({"role": "assistant", "content": answer})
                record.text = answer
                self.emit(ev.AssistantText(answer, self.depth))
                return None
            body = result.prompt
        reminders = await self.turn_reminders(turn, text)
        return "\n".join([*reminders, body]) if reminders else body

    async def _loop(self, turn: TurnState, record: TurnRecord) -> None:
        for _ in range(self.max_steps):
            if self.stop_for_budget():
                return
            await self.maybe_compact(turn)
            completion = await self._request(turn)
            self.budget.spend(completion.usage)
            record.usage = record.usage + completion.usage
            self.count_usage(completion.model or request_model(turn, self), completion.usage)
            message: dict[str, Any] = {"role": "assistant", "content": completion.text or None}
            if completion.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for c in completion.tool_calls
                ]
            self.add(message)
            if completion.text:
                record.text = completion.text
                self.emit(ev.AssistantText(completion.text, self.depth))
            if not completion.tool_calls:
                return
            for call in completion.tool_calls:
                result = await self._run_tool(call, turn, record)
                self.add({"role": "tool", "tool_call_id": call.id, "content": result.content})
        self.emit(ev.Notice(f"stopped after {self.max_steps} model calls in one turn", "warning"))

    async def _request(self, turn: TurnState) -> Completion:
        """One model call with the history as it stands; when the provider says the
        request is over its window (our count was low), compact harder and try once more."""
        for retry in (False, True):
            request = ModelRequest(
                messages=[{"role": "system", "content": self.system_prompt}, *self.history],
                tools=self.tool_schemas(turn),
                model=turn.model or self.base_model,
                effort=turn.effort,
            )
            try:
                return await self._complete(request)
            except ModelError as exc:
                if (
                    exc.kind != "context"
                    or retry
                    or len(self.history) < 2
                    or not self.settings.compaction.auto
                ):
                    raise
                if await self.compact(reason="overflow", turn=turn, shrink=0.6) is None:
                    raise
        raise AssertionError("unreachable")

    async def _complete(self, request: ModelRequest) -> Completion:
        if hasattr(self.client, "on_retry"):
            self.client.on_retry = self._say_retry
        completion: Completion | None = None
        async for item in self.client.stream(request):
            if isinstance(item, TextDelta):
                self.emit(ev.TextDelta(item.text, self.depth))
            else:
                completion = item
        if completion is None:
            raise ModelError("unknown", "the model's stream ended without a result")
        return completion

    # -- tools --------------------------------------------------------------------------

    async def _run_tool(self, call: ToolCall, turn: TurnState, record: TurnRecord) -> ToolResult:
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            args = None
        shown = args if isinstance(args, dict) else {"_raw": call.arguments}
        self.emit(ev.ToolStarted(call.id, call.name, shown, self.depth))
        t0, waited = time.perf_counter(), self.waited_s
        if (stop := self.over_budget()) is not None:
            result = ToolResult(f"{call.name} was not run: {stop}", "error")
        elif call.name in turn.hidden or not self.tool_filter(call.name):
            result = ToolResult(f"tool {call.name} is not available in this turn", "error")
        elif not isinstance(args, dict):
            result = ToolResult(
                f"{call.name}: the arguments were not a valid JSON object; send a JSON object",
                "error",
            )
        elif call.name in META_TOOLS:
            result = await self._run_meta(call.name, args, turn, record)
        else:
            result = await self._run_builtin(call.name, args, turn, call.id)
        entry = {"name": call.name, "arguments": shown, "status": result.status}
        if result.status == "denied":
            entry["reason"] = result.content  # why, for `-p --output-format json`
        record.tool_calls.append(entry)
        self.budget.count(result.status)
        self.emit(
            ev.ToolFinished(
                call.id,
                call.name,
                result.status,
                clean_text(result.content),
                self._ran_ms(t0, waited),
                self.depth,
            )
        )
        return result

    def _say_retry(self, attempt: int, of: int, delay: float, why: str) -> None:
        first = why.splitlines()[0] if why else "a passing error"
        self.emit(
            ev.Notice(f"retrying in {delay:.0f} s (attempt {attempt} of {of}): {first}", "warning")
        )

    def count_usage(self, model: str, usage: Usage) -> None:
        self.total_usage = self.total_usage + usage
        self.usage_by_model[model] = self.usage_by_model.get(model, Usage()) + usage

    def _ran_ms(self, t0: float, waited: float) -> float:
        """Milliseconds since `t0`, less the time the person took to answer approvals."""
        return max(0.0, time.perf_counter() - t0 - (self.waited_s - waited)) * 1000

    async def _run_builtin(
        self, name: str, args: dict[str, Any], turn: TurnState, call_id: str = ""
    ) -> ToolResult:
        tool = self.registry.get(name)
        if tool is None:
            return await self.registry.call(name, args, self.context)  # the registry explains
        problem = self.registry.invalid(name, args)
        if problem:
            return ToolResult(problem, "error")
        # Read-only tools are checked too: a deny rule such as `Read(.env)` must hold.
        subject = tool.approval_subject(args, self.context)
        verdict = self.approvals.check(name, subject, turn.grants)
        target = (
            resolve_path(self.context, args["path"])
            if name in WRITING_TOOLS and isinstance(args.get("path"), str)
            else None
        )
        protected = self.guard.write_reason(target) if target is not None else None
        if (
            protected
            and verdict.outcome == "allow"
            and (
                self.interactive
                or not self.guard.exact_rule(self.approvals.allow_rules, name, target)
            )
        ):
            # Asked every time, whatever allowed it; print mode only with a rule naming the path.
            verdict = Verdict(
                "ask",
                None,
                f"protected path ({protected}): what is written there runs later, "
                "so codebot asks every time",
            )
        if verdict.outcome == "deny":
            return ToolResult(f"denied by rule {verdict.rule}: {verdict.reason}", "denied")
        base, gap = (
            await asyncio.to_thread(with_masks, self.context)
            if name == "Bash"
            else (self.context, "")
        )
        if (
            gap and not self.interactive
        ):  # some denied paths may be unmasked: asked, denied in print mode
            return ToolResult(
                f"not run: {gap} (print mode does not run a command with an incomplete mask)",
                "denied",
            )
        if gap:
            verdict = Verdict(
                "ask",
                None,
                f"{verdict.reason}; {gap}; run it anyway?"
                if verdict.outcome == "ask"
                else f"{gap}; run it anyway?",
            )
        if verdict.outcome == "ask" and not (
            asked := await self._ask(name, args, subject, verdict.reason, protected=protected or "")
        ):
            # The person's reason, when they gave one, is what the model is told (asking.py).
            return ToolResult(self.not_approved(name, asked, verdict.reason), "denied")
        # The context of this call: what the tool prints while it runs is shown (ToolOutput).
        ctx = dataclasses.replace(
            base, progress=lambda text: self.emit(ev.ToolOutput(call_id, text, self.depth))
        )
        befores = self.guard.before_write(target) if target is not None else {}
        result = await self._guarded(name, args, ctx, subject)
        if (
            result.sandbox_failure
            and self.interactive
            and await self._ask_outside(args, subject, result.sandbox_failure)
        ):
            result = await self._guarded(
                name, args, dataclasses.replace(ctx, sandbox=None), subject
            )
        if target is not None and result.status == "ok":
            # Remembered so that a skill file written now cannot run commands unasked.
            self.guard.wrote(name, target, befores, subject)
        self._say_guard_notices()
        return result

    async def _guarded(
        self, name: str, args: dict[str, Any], ctx: ToolContext, subject: str
    ) -> ToolResult:
        """Run one tool call; a command is compared before and after (`Guard.command`)."""
        if name != "Bash":
            return await self.registry.call(name, args, ctx)
        with self.guard.command("Bash", subject, ctx.sandbox):
            return await self.registry.call(name, args, ctx)

    def _say_guard_notices(self) -> None:
        while self.guard.notices:
            self.emit(ev.Notice(self.guard.notices.pop(0), "warning"))

    async def _run_meta(
        self, name: str, args: dict[str, Any], turn: TurnState, record: TurnRecord
    ) -> ToolResult:
        from codebot.agent.tools import validate_meta

        problem = validate_meta(name, args)
        if problem:
            return ToolResult(problem, "error")
        # Deny rules hold for the meta tools too: `Skill`, `Skill(name-glob)`, `Task`,
        # `Task(agent)`, `SkillSearch`. A skill is checked under the name the model asked
        # for and under the name it resolves to, so `Review` or `/REVIEW` cannot slip by.
        verdict = self.approvals.denied(
            name, meta_subjects(self.catalog.snapshot.skills, name, args)
        )
        if verdict is not None:
            return ToolResult(f"denied by rule {verdict.rule}: {verdict.reason}", "denied")
        if name == SKILL:
            actor = Actor.MODEL if self.depth == 0 else (Actor.SKILL if self.chain else Actor.AGENT)
            result = await self.invoke_skill(
                str(args["skill"]), str(args.get("args") or ""), actor, turn, record
            )
            if not result.ok:
                return ToolResult(result.message, "error")
            if result.mode == "fork":
                return self.budget_result(await self.fork(result, record))
            return ToolResult(result.prompt)
        if name == SKILL_SEARCH:
            from codebot.agent.tools import skill_search

            return ToolResult(skill_search(self, str(args["query"]), int(args.get("limit") or 5)))
        if name == TASK:
            task = self.subagents.run_task(
                self,
                str(args["prompt"]),
                str(args.get("agent") or "general"),
                description=str(args.get("description", "")),
            )
            return self.budget_result(await task)
        return ToolResult(f"unknown tool {name}", "error")
