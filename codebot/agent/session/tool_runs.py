"""`ToolRunner`: one tool call the model asked for, from its JSON arguments to its
result: the budget and the turn's hidden tools first, then the permission rules, the
person's approval, the protected paths and the sandbox's masks, and the events the front
end shows (ToolStarted, ToolOutput, ToolFinished). Meta tools (Skill, SkillSearch, Task)
are the session's: they arrive through `run_meta`."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from codebot.agent.hooks import NO_HOOKS, Hooks, Outcome
from codebot.agent.model import ToolCall
from codebot.agent.permissions import Approvals, Verdict
from codebot.agent.session import events as ev
from codebot.agent.session import source_skills
from codebot.agent.session.asking import Approver
from codebot.agent.session.budget import Budgeter
from codebot.agent.session.emit import Emit
from codebot.agent.session.guard import Guard
from codebot.agent.session.hook_calls import blocked_result, hook_verdict, post_tool, pre_tool
from codebot.agent.session.outcomes import SKILL_OUTCOME, OutcomeSink
from codebot.agent.session.toolset import Toolset
from codebot.agent.session.transcript import clean_text
from codebot.agent.session.turn import TurnRecord, TurnState
from codebot.agent.tools import META_TOOLS, ToolContext, ToolResult, resolve_path
from codebot.agent.tools.sandbox_scan import with_masks
from codebot.skills.catalog import Catalog
from codebot.skills.outcome import Status

WRITING_TOOLS = frozenset({"Write", "Edit"})

#: Runs a meta tool call (name, JSON arguments, the turn, its record).
RunMeta = Callable[[str, dict[str, Any], TurnState, TurnRecord], Awaitable[ToolResult]]


class ToolRunner:
    def __init__(
        self,
        *,
        toolset: Toolset,
        approvals: Approvals,
        approver: Approver,
        guard: Guard,
        context: ToolContext,
        budgeter: Budgeter,
        emit: Emit,
        run_meta: RunMeta,
        interactive: bool = False,
        depth: int = 0,
        hooks: Hooks = NO_HOOKS,
        catalog: Catalog | None = None,
        vision: Callable[[TurnState], bool] | None = None,
    ) -> None:
        self.vision = vision  # whether the turn's model takes images (a tool's images)
        self.catalog = catalog  # its sources' skills' files are read through them
        self.toolset = toolset
        self.approvals = approvals
        self.approver = approver
        self.guard = guard
        self.context = context
        self.budgeter = budgeter
        self.emit = emit
        self.run_meta = run_meta
        self.interactive = interactive
        self.depth = depth
        self.hooks = hooks

    async def run(self, call: ToolCall, turn: TurnState, record: TurnRecord) -> ToolResult:
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            args = None
        shown = args if isinstance(args, dict) else {"_raw": call.arguments}
        self.emit(ev.ToolStarted(call.id, call.name, shown, self.depth))
        t0, waited = time.perf_counter(), self.approver.waited_s
        if (stop := self.budgeter.over_budget()) is not None:
            result = ToolResult(f"{call.name} was not run: {stop}", "error")
        elif not self.toolset.offered(call.name, turn):
            result = ToolResult(f"tool {call.name} is not available in this turn", "error")
        elif not isinstance(args, dict):
            result = ToolResult(
                f"{call.name}: the arguments were not a valid JSON object; send a JSON object",
                "error",
            )
        else:
            result = await self._hooked(call, args, turn, record)
            result = self._nested_note(args, result)
        entry = {"name": call.name, "arguments": shown, "status": result.status}
        if result.status == "denied":
            entry["reason"] = result.content  # why, for `-p --output-format json`
        record.tool_calls.append(entry)
        self.budgeter.turn.count(result.status)
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

    async def _hooked(
        self, call: ToolCall, args: dict[str, Any], turn: TurnState, record: TurnRecord
    ) -> ToolResult:
        """The call between its PreToolUse and PostToolUse hooks (docs/hooks.md)."""
        pre = await pre_tool(self.hooks, call.name, args, turn)
        if pre.stop:
            turn.stop_reason = pre.stop_reason
        if pre.block:
            return blocked_result(call.name, pre)
        if call.name in META_TOOLS:
            result = await self.run_meta(call.name, args, turn, record)
        elif call.name == SKILL_OUTCOME and turn.outcome is not None:
            result = await self.report_outcome(turn.outcome, args)
        elif (
            call.name == "Read"
            and self.catalog is not None
            and (routed := await source_skills.read_supporting(self.catalog, args)) is not None
        ):
            result = routed  # a server's skill's file (`mcp:<server>/…`), read through it
        else:
            result = await self.run_builtin(call.name, args, turn, call.id, pre=pre)
        return await post_tool(self.hooks, call.name, args, result, turn)

    async def report_outcome(self, sink: OutcomeSink, args: Mapping[str, object]) -> ToolResult:
        """A `SkillOutcome` call. An inline skill's question (`needs_confirmation`) is asked
        now, and the answer is the tool's result; a fork's is asked by its caller."""
        content, status = sink.report(args)
        outcome = sink.outcome
        if sink.ends or outcome is None or outcome.status is not Status.NEEDS_CONFIRMATION:
            return ToolResult(content, status)
        answer = await self.approver.confirm(sink.skill, outcome.summary)
        if answer is None:
            return ToolResult(
                f"{content}; the person cannot be asked here: end your answer with the question",
                status,
            )
        sink.outcome, sink.tries = None, 0  # asked and answered: the skill goes on
        return ToolResult(f"{answer}\ncontinue the skill, then call SkillOutcome again", status)

    def _nested_note(self, args: dict[str, Any], result: ToolResult) -> ToolResult:
        """A folder's own AGENTS.md applies once a tool works under it (instruction_source)."""
        source = self.toolset.instructions
        path = args.get("path")
        if source is None or not isinstance(path, str):
            return result
        new = source.touch(resolve_path(self.context, path))
        if not new:
            return result
        names = ", ".join(clean_text(str(p)) for p in new)
        note = f"\n\n[instructions for this folder now apply (see the system prompt): {names}]"
        return dataclasses.replace(result, content=result.content + note)

    def _ran_ms(self, t0: float, waited: float) -> float:
        """Milliseconds since `t0`, less the time the person took to answer approvals."""
        return max(0.0, time.perf_counter() - t0 - (self.approver.waited_s - waited)) * 1000

    async def run_builtin(
        self,
        name: str,
        args: dict[str, Any],
        turn: TurnState,
        call_id: str = "",
        *,
        pre: Outcome | None = None,
    ) -> ToolResult:
        registry = self.toolset.registry
        tool = registry.get(name)
        if tool is None:
            return await registry.call(name, args, self.context)  # the registry explains
        problem = registry.invalid(name, args)
        if problem:
            return ToolResult(problem, "error")
        # Read-only tools are checked too: a deny rule such as `Read(.env)` must hold.
        subject = tool.approval_subject(args, self.context)
        target = (
            resolve_path(self.context, args["path"])
            if name in WRITING_TOOLS and isinstance(args.get("path"), str)
            else None
        )
        protected = self.guard.write_reason(target) if target is not None else None
        verdict = hook_verdict(
            self._verdict(name, subject, turn, target, protected), pre, protected
        )
        if verdict.outcome == "deny":
            return ToolResult(f"denied by rule {verdict.rule}: {verdict.reason}", "denied")
        if verdict.outcome == "ask" and (note := tool.approval_note()):
            verdict = Verdict("ask", verdict.rule, f"{verdict.reason}; {note}")
        base, gap = (
            await asyncio.to_thread(with_masks, self.context)
            if name == "Bash"
            else (self.context, "")
        )
        if gap and not self.interactive:
            # Some denied paths may be unmasked: asked, denied in print mode.
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
            asked := await self.approver.ask(
                name, args, subject, verdict.reason, protected=protected or ""
            )
        ):
            # The person's reason, when they gave one, is what the model is told (asking.py).
            return ToolResult(self.approver.not_approved(name, asked, verdict.reason), "denied")
        # The context of this call: what the tool prints while it runs is shown (ToolOutput).
        ctx = dataclasses.replace(
            base,
            progress=lambda text: self.emit(ev.ToolOutput(call_id, text, self.depth)),
            images=self.vision is not None and self.vision(turn),
        )
        return await self._run_watched(name, args, ctx, subject, target)

    def _verdict(
        self,
        name: str,
        subject: str,
        turn: TurnState,
        target: Path | None,
        protected: str | None,
    ) -> Verdict:
        """What the rules say; a protected path is asked every time, whatever allowed it
        (print mode writes it only with a rule naming the path)."""
        verdict = self.approvals.check(name, subject, turn.grants)
        if (
            protected
            and target is not None
            and verdict.outcome == "allow"
            and (
                self.interactive
                or not self.guard.exact_rule(self.approvals.allow_rules, name, target)
            )
        ):
            return Verdict(
                "ask",
                None,
                f"protected path ({protected}): what is written there runs later, "
                "so codebot asks every time",
            )
        return verdict

    async def _run_watched(
        self,
        name: str,
        args: dict[str, Any],
        ctx: ToolContext,
        subject: str,
        target: Path | None,
    ) -> ToolResult:
        """Run an approved call; a write to a protected path is recorded, and a command
        that failed in the sandbox may be run once outside it if the person says so."""
        befores = self.guard.before_write(target) if target is not None else {}
        result = await self._guarded(name, args, ctx, subject)
        if (
            result.sandbox_failure
            and self.interactive
            and await self.approver.ask_outside(args, subject, result.sandbox_failure)
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
        registry = self.toolset.registry
        if name != "Bash":
            return await registry.call(name, args, ctx)
        with self.guard.command("Bash", subject, ctx.sandbox):
            return await registry.call(name, args, ctx)

    def _say_guard_notices(self) -> None:
        while self.guard.notices:
            self.emit(ev.Notice(self.guard.notices.pop(0), "warning"))
