"""The turn loop: user message → model → tools → model … → answer.

One `Session` holds one conversation. `run_turn` sends the user's text (or runs a `/skill`
they typed), streams the model's answer, runs the tools it asks for, applies a skill's
delta for the rest of the turn only, and records everything in the transcript as it
happens. Front ends receive typed events through `emit`; approvals are events carrying a
future the front end resolves.

The session is built from one `SessionParts` and does the loop itself; the rest is its
collaborators', each built here with what it needs: `Toolset` (tools and system prompt),
`Budgeter` (the turn budget), `Approver` (asking the person), `Prompter` (listing and
reminders), `Compactor` (context use and compaction), `SkillRunner` (skills) and
`ToolRunner` (one tool call). What they share and change is one `SessionState`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from codebot.agent.model import Completion, ModelClient, ModelError, ModelRequest, Usage
from codebot.agent.session import events as ev
from codebot.agent.session import hook_calls, images, source_skills
from codebot.agent.session.asking import Approver
from codebot.agent.session.budget import Budgeter, TurnBudget
from codebot.agent.session.compact import Compaction, InForce
from codebot.agent.session.compacting import Compactor
from codebot.agent.session.context import ContextUse
from codebot.agent.session.emit import Emit, no_emit
from codebot.agent.session.fitting import Fitter
from codebot.agent.session.guard import Guard
from codebot.agent.session.parts import SessionParts
from codebot.agent.session.prompting import Prompter
from codebot.agent.session.skill_calls import meta_subjects
from codebot.agent.session.skill_runs import SkillRunner
from codebot.agent.session.state import SessionState
from codebot.agent.session.tool_runs import ToolRunner
from codebot.agent.session.toolset import Toolset
from codebot.agent.session.transcript import clean, clean_text, repair
from codebot.agent.session.turn import TurnRecord, TurnState
from codebot.agent.session.workflow_runs import fork_or_workflow
from codebot.agent.tools import SKILL, SKILL_SEARCH, TASK, ToolContext, ToolResult
from codebot.config import Settings
from codebot.display import visible
from codebot.skills.invoke import Actor, Invocation
from codebot.skills.invoke.invocation import InvocationError

if TYPE_CHECKING:
    from codebot.skills.prompt import Listing


def _new_guard(settings: Settings, session_id: str) -> Guard:
    """The person's session's guard, starting from what earlier sessions left marked."""
    guard = Guard(settings.project_dir, settings.home, session_id)
    guard.load(set())
    return guard


class Session:
    """One conversation: the turn loop itself, the collaborators it hands the rest to,
    and the names front ends read (`history`, `total_usage`, `compact`, …)."""

    def __init__(self, parts: SessionParts) -> None:
        settings, transcript = parts.settings, parts.transcript
        self.catalog = parts.catalog
        self.registry = parts.registry
        self.approvals = parts.approvals
        self.emit: Emit = parts.emit or no_emit
        self.interactive = parts.interactive
        self.transcript = transcript
        self.id = parts.session_id or (transcript.id if transcript else "")
        self.usage_tracker = parts.usage_tracker
        self.tracer = parts.tracer
        self.depth = parts.depth
        self.chain = parts.chain
        self.tool_filter = parts.tool_filter
        self.base_model = parts.base_model
        self.max_steps = parts.max_steps
        self.subagents = parts.subagents
        self.sandbox_state = "off"  # set by setup.apply_sandbox
        self.sandbox_notice = ""  # said once at start when the sandbox is wanted and cannot run
        self.on_client: Callable[[], None] | None = None  # setup: record the new model
        # What runs later: protected writes are asked, and what the agent changes among
        # the protected set is recorded (provenance) and marked in `written`, which holds
        # the real paths the skill system treats as agent-written.
        # A sub-agent shares its parent's guard (and so its `written` set).
        self.guard = parts.guard or _new_guard(settings, self.id)
        self.context = parts.context or ToolContext(project_dir=settings.project_dir)
        self.state = SessionState(
            settings,
            parts.client,
            list(parts.history),
            list(parts.in_force),
            parts.last_compaction,
        )
        if parts.hooks is not None:
            self.state.hooks = parts.hooks
        self._wire(parts)

    def _wire(self, parts: SessionParts) -> None:
        """Build the collaborators, each from what it needs."""
        state, emit = self.state, self.emit
        self.toolset = Toolset(
            registry=self.registry,
            tool_filter=self.tool_filter,
            project_dir=state.settings.project_dir,
            system_prompt=parts.system_prompt,
            instructions=parts.instructions,
            lean=state.settings.requests.lean,
        )
        self.budgeter = Budgeter(state, emit, parts.budget)
        self.approver = Approver(
            state=state,
            approvals=self.approvals,
            context=self.context,
            emit=emit,
            interactive=self.interactive,
            budgeter=self.budgeter,
        )
        self.prompter = Prompter(
            state=state, catalog=self.catalog, usage_tracker=self.usage_tracker
        )
        self.compactor = Compactor(
            state=state,
            toolset=self.toolset,
            prompter=self.prompter,
            emit=emit,
            transcript=self.transcript,
            base_model=self.base_model,
        )
        self.fit = Fitter(state=state, compactor=self.compactor, emit=emit)
        self.skills = SkillRunner(
            state=state,
            catalog=self.catalog,
            context=self.context,
            guard=self.guard,
            approver=self.approver,
            emit=emit,
            transcript=self.transcript,
            tracer=self.tracer,
            usage_tracker=self.usage_tracker,
            session_id=self.id,
            depth=self.depth,
            chain=self.chain,
        )
        self.tools = ToolRunner(
            toolset=self.toolset,
            approvals=self.approvals,
            approver=self.approver,
            guard=self.guard,
            context=self.context,
            budgeter=self.budgeter,
            emit=emit,
            run_meta=self._run_meta,
            interactive=self.interactive,
            depth=self.depth,
            hooks=self.state.hooks,
            catalog=self.catalog,
            vision=lambda turn: images.takes_images(self._model_for(turn)),
        )

    # -- the state front ends read (and the two they swap) ----------------------------

    @property
    def settings(self) -> Settings:
        return self.state.settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self.state.settings = value

    @property
    def client(self) -> ModelClient:
        return self.state.client

    @client.setter
    def client(self, value: ModelClient) -> None:
        self.state.client = value
        if self.on_client is not None:
            self.on_client()

    @property
    def history(self) -> list[dict[str, Any]]:
        return self.state.history

    @property
    def in_force(self) -> list[InForce]:
        return self.state.in_force

    @property
    def last_compaction(self) -> Compaction | None:
        return self.state.last_compaction

    @property
    def last_listing(self) -> str | None:
        return self.state.last_listing

    @property
    def total_usage(self) -> Usage:
        return self.state.total_usage

    @property
    def usage_by_model(self) -> dict[str, Usage]:
        return self.state.usage_by_model

    @property
    def written(self) -> set[str]:
        """Real paths the agent wrote among the protected set (shared with sub-agents)."""
        return self.guard.written

    @property
    def budget(self) -> TurnBudget:
        """The turn's budget; a sub-agent's is its parent's."""
        return self.budgeter.turn

    @budget.setter
    def budget(self, value: TurnBudget) -> None:
        self.budgeter.turn = value

    @property
    def system_prompt(self) -> str:
        return self.toolset.system_prompt

    # -- what front ends ask of the collaborators ---------------------------------------

    def tool_schemas(self, turn: TurnState) -> list[dict[str, Any]]:
        return self.toolset.schemas(turn)

    def context_use(self, turn: TurnState | None = None, *, may_import: bool = True) -> ContextUse:
        return self.compactor.context_use(turn, may_import=may_import)

    async def compact(
        self,
        focus: str = "",
        *,
        reason: str = "manual",
        turn: TurnState | None = None,
        before: ContextUse | None = None,
        shrink: float = 1.0,
    ) -> Compaction | None:
        """Compact now (`Compactor.compact`): the record, or None with nothing to compact."""
        return await self.compactor.compact(
            focus, reason=reason, turn=turn, before=before, shrink=shrink
        )

    def current_listing(self, request: str = "") -> Listing:
        return self.prompter.current_listing(request)

    def active_keys(self) -> frozenset[str]:
        return self.prompter.active_keys()

    def warm(self, listing: bool = True) -> None:
        self.prompter.warm(listing)

    def count_usage(self, model: str, usage: Usage) -> None:
        self.state.count_usage(model, usage)

    # -- history ----------------------------------------------------------------------

    def add(self, message: dict[str, Any]) -> None:
        # Valid UTF-8 for the transcript and the provider (file names, tool output).
        message = clean(message)
        self.history.append(message)
        if self.transcript is not None:
            self.transcript.append(message)

    def clear(self) -> None:
        state = self.state
        state.history.clear()
        state.last_listing = None
        state.in_force.clear()  # /clear forgets everything, the skills in force too
        state.last_compaction = None
        if self.transcript is not None:
            self.transcript.mark("clear")
        self.state.hooks.start_pending = "clear"

    # -- the turn -----------------------------------------------------------------------

    async def run_turn(self, text: str) -> TurnRecord:
        turn, record = TurnState(), TurnRecord()
        text = clean_text(text)  # argv/stdin bytes arrive as surrogates
        self.budgeter.start_turn()  # shared by every sub-agent of this turn
        if self.transcript is not None:
            self.transcript.mark("turn", text=text)  # what was typed, for `codebot sessions`
        try:
            content = await self._user_content(text, turn, record)
            if content is not None:
                self.add({"role": "user", "content": content})
                await self.loop(turn, record)
        except asyncio.CancelledError:
            record.cancelled = True
            self.history[:] = repair(self.history)
            self.emit(ev.TurnEnded(record.usage, cancelled=True, text=record.text))
            raise
        except ModelError as exc:
            record.error, record.error_kind = exc.message, exc.kind
            self.emit(ev.ErrorEvent(exc.message, exc.kind))
        finally:
            self.skills.end_turn(turn, record)  # the inline skills' outcomes (issue 35)
            if self.transcript is not None:
                # fsync can take a while on a busy disk: off the event loop; a cancelled
                # turn does not wait for it, so it ends (and the UI answers) at once.
                synced = asyncio.get_running_loop().run_in_executor(None, self.transcript.sync)
                if not record.cancelled:
                    await asyncio.shield(synced)
        self.budgeter.end_budget(record)
        if not record.cancelled:
            self.emit(ev.TurnEnded(record.usage, error=record.error, text=record.text))
        return record

    async def _user_content(self, text: str, turn: TurnState, record: TurnRecord) -> str | None:
        """The user message to send, or None when a `/skill` was handled without the model."""
        hooks = self.state.hooks
        started = await hook_calls.start_context(hooks)
        submitted = await hook_calls.prompt_submit(hooks, text, turn)
        if submitted.block or submitted.stop:
            why = submitted.reason or submitted.stop_reason
            hooks.start_held = started  # the start's context goes with the next prompt
            record.error, record.error_kind = f"prompt blocked by a hook: {why}", "hook"
            self.emit(ev.Notice(visible(record.error), "warning"))
            return None
        if submitted.context:
            started.append(hook_calls.reminder(submitted.context, "UserPromptSubmit"))
        body = text
        name = text[1:].partition(" ")[0]
        # `/tmp/app.py crashes` is a prompt
        path_like = "/" in name and not await source_skills.known(self.catalog, name)
        from codebot.agent.session import mcp_prompts  # only for `/mcp__server__prompt args`

        prompt = await mcp_prompts.expand(self, text)
        if isinstance(prompt, mcp_prompts.PromptRefused):
            record.error, record.error_kind = prompt.message, "skill"
            self.emit(ev.ErrorEvent(visible(prompt.message), "skill"))
            return None
        if prompt is not None:
            body = prompt
        elif text.startswith("/") and name and not text.startswith("//") and not path_like:
            result = await self.skills.run_stack(text, turn, record)
            if isinstance(result, InvocationError):
                record.error, record.error_kind = result.message, "skill"
                self.emit(ev.ErrorEvent(result.message, "skill"))
                return None
            if result.mode != "inline":  # a fork or a workflow
                answer = await self.fork(result, record)
                self.add({"role": "user", "content": text})
                self.add({"role": "assistant", "content": answer})
                record.text = answer
                self.emit(ev.AssistantText(answer, self.depth))
                return None
            body = result.prompt
        reminders = [*started, *await self.prompter.turn_reminders(turn, text)]
        return "\n".join([*reminders, body]) if reminders else body

    async def loop(self, turn: TurnState, record: TurnRecord) -> None:
        """Model requests and tool calls until the model answers without calling a tool."""
        await self.fit.learn_server()  # once: the server's window, before it is measured
        await self.toolset.ready(
            self.emit
        )  # once: MCP servers still starting, within their timeouts
        if self.depth == 0:
            self.fit.warn_overhead(turn)
        for _ in range(self.max_steps):
            if self.budgeter.stop_for_budget():
                return
            await self.compactor.maybe_compact(turn)
            completion = await self._request(turn)
            cut = self.fit.cut(completion)
            if cut:  # calls cut mid-way are not run: their arguments are incomplete
                completion = dataclasses.replace(completion, tool_calls=())
            self.budget.spend(completion.usage)
            record.usage = record.usage + completion.usage
            self.count_usage(completion.model or self._model_for(turn), completion.usage)
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
            if cut:
                record.stop_reason = "max_tokens"
                self.emit(ev.Notice(cut, "warning"))
                return
            if not completion.tool_calls:
                event = "Stop" if self.depth == 0 else "SubagentStop"
                again = turn.outcome_reminder() or await hook_calls.stop_again(
                    self.state.hooks, event, turn
                )
                if again is None:
                    return
                self.add({"role": "user", "content": again})
                continue
            await self._run_calls(completion, turn, record)
            if self._ends(turn):
                return
        self.emit(ev.Notice(f"stopped after {self.max_steps} model calls in one turn", "warning"))

    def _ends(self, turn: TurnState) -> bool:
        """After a step's tool calls: a hook answered `continue: false`, or a fork's
        sub-agent reported its outcome (its work is done)."""
        if turn.stop_reason:
            self.emit(ev.Notice(visible(f"a hook ended the turn: {turn.stop_reason}"), "warning"))
            return True
        return turn.reported()

    async def _run_calls(self, completion: Completion, turn: TurnState, record: TurnRecord) -> None:
        """The step's tool calls, each result a tool message; then their images, if any,
        in one user message (tool messages take only text)."""
        results = []
        for call in completion.tool_calls:
            result = await self.tools.run(call, turn, record)
            self.add({"role": "tool", "tool_call_id": call.id, "content": result.content})
            results.append((f"{call.name} (call {call.id})", result))
        if (shown := images.image_message(results)) is not None:
            self.add(shown)

    def _model_for(self, turn: TurnState) -> str:
        return turn.model or self.base_model or self.client.model

    async def _request(self, turn: TurnState) -> Completion:
        """One model call with the history as it stands; when the provider says the
        request is over its window, learn the window it names, keep what was streamed,
        compact harder and try once more (`Fitter.recover`)."""
        for retry in (False, True):
            request = ModelRequest(
                messages=[
                    {"role": "system", "content": self.system_prompt},
                    *images.sent(self.history, self._model_for(turn)),
                ],
                tools=self.tool_schemas(turn),
                model=turn.model or self.base_model,
                effort=turn.effort or self.settings.requests.effort,
                max_tokens=self.fit.max_tokens(turn),
            )
            try:
                return await self.fit.complete(request, self.depth)
            except ModelError as exc:
                if (
                    exc.kind != "context"
                    or retry
                    or not await self.fit.recover(exc, turn, self.add)
                ):
                    raise
        raise AssertionError("unreachable")

    # -- meta tools and sub-agents --------------------------------------------------------

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
            result = await self.skills.invoke_skill(
                str(args["skill"]), str(args.get("args") or ""), actor, turn, record
            )
            if isinstance(result, InvocationError):
                return ToolResult(result.message, "error")
            if result.mode != "inline":  # a fork or a workflow
                return self.budgeter.budget_result(await self.fork(result, record))
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
            return self.budgeter.budget_result(await task)
        return ToolResult(f"unknown tool {name}", "error")

    async def fork(self, inv: Invocation, record: TurnRecord) -> str:
        """Run a fork skill's sub-agent, or a workflow's steps; what the caller reads."""
        return await fork_or_workflow(self, inv, record)
