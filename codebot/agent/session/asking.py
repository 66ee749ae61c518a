"""`Approver`: how a session asks the person: approval of a tool call, of a skill's
injected command, and of running a command once outside the sandbox.

Answers: allow once; allow for the session (`session_patterns_for`); always allow, which
grants the same narrow rules for the session and saves them to the project's
`.codebot/config.yaml` (`permissions.allow`, only in a trusted project; a notice says
where, or why it could not be saved); deny, optionally with a reason the model is told
(`the person denied this call: <reason>`, cleaned by `clean_reason`)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codebot.agent.hooks import Outcome

from codebot.agent.permissions import (
    ApprovalAnswer,
    ApprovalRequest,
    Approvals,
    always_offer,
    clean_reason,
    parse_pattern,
    preview_for,
    session_patterns_for,
)
from codebot.agent.session import events as ev
from codebot.agent.session.budget import Budgeter
from codebot.agent.session.emit import Emit
from codebot.agent.session.state import SessionState
from codebot.agent.session.turn import TurnState
from codebot.agent.tools import ToolContext

ALLOWED = (ApprovalAnswer.ALLOW_ONCE, ApprovalAnswer.ALLOW_SESSION, ApprovalAnswer.ALLOW_ALWAYS)


@dataclass(frozen=True)
class Asked:
    """The person's answer: true when allowed; `reason` is what they said when denying."""

    allowed: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.allowed


class Approver:
    """Asks the person through `emit` (only when `interactive`), grants what they allow
    for the session in `approvals`, and counts the time they took."""

    def __init__(
        self,
        *,
        state: SessionState,
        approvals: Approvals,
        context: ToolContext,
        emit: Emit,
        interactive: bool,
        budgeter: Budgeter,
    ) -> None:
        self.state = state  # its settings: trust, the project and the user config to save to
        self.approvals = approvals
        self.context = context
        self.emit = emit
        self.interactive = interactive
        self.budgeter = budgeter
        #: Seconds spent waiting for the person's answers, in all: a tool's duration leaves it out.
        self.waited_s = 0.0
        self._notifying: set[asyncio.Task[Outcome]] = set()  # Notification hooks still running

    async def _answer(self, future: asyncio.Future[ApprovalAnswer]) -> ApprovalAnswer:
        t0 = time.perf_counter()
        try:
            return await future
        finally:
            self.waited_s += (waited := time.perf_counter() - t0)
            self.budgeter.turn.waited += waited  # the person's time is not the turn's (budget.py)

    async def confirm(self, skill: str, question: str) -> str | None:
        """A skill's `needs_confirmation` question, asked as an approval the person allows
        (yes) or denies, with what they say; what they answered, in words for the model,
        or None when no one can be asked (print mode)."""
        if not self.interactive:
            return None
        asked = await self.ask(
            "SkillOutcome",
            {"skill": skill, "question": question},
            skill,
            f"the skill {skill} asks: {question}",
            protected="a skill's question is asked every time",
        )
        if asked:
            return f"the person was asked {question!r} and answered: yes, go ahead"
        said = f": {asked.reason}" if asked.reason else ""
        return f"the person was asked {question!r} and answered: no{said}"

    async def ask(
        self, tool: str, args: dict[str, Any], subject: str, reason: str = "", protected: str = ""
    ) -> Asked:
        """`protected`: why the path is protected (then nothing is granted beyond this call)."""
        if not self.interactive:
            return Asked(False)
        future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
        request = ApprovalRequest(
            tool, args, subject, preview_for(tool, args, self.context), future, reason=reason
        )
        settings = self.state.settings
        offer = always_offer(
            tool,
            subject,
            self.approvals,
            trusted=settings.trusted,
            project_dir=settings.project_dir,
            user_config=settings.config_path,
        )
        request.always, request.always_path, request.always_unavailable = (
            offer.rules,
            offer.path,
            offer.why_not,
        )
        if protected:
            request.always, request.always_unavailable = (
                (),
                f"a protected path is asked every time ({protected})",
            )
        self.emit(request)
        self._notify(f"codebot needs your permission to use {tool}")
        answer = await self._answer(future)
        if protected and answer is ApprovalAnswer.ALLOW_SESSION:
            answer = ApprovalAnswer.ALLOW_ONCE  # a protected path is asked every time
        if answer is ApprovalAnswer.ALLOW_ALWAYS and not request.always:
            answer = ApprovalAnswer.ALLOW_ONCE  # not offered: the least that was asked for
        if answer is ApprovalAnswer.ALLOW_SESSION:
            for pattern in session_patterns_for(tool, subject):
                self.approvals.grant_session(pattern)
        elif answer is ApprovalAnswer.ALLOW_ALWAYS:
            await self._save_always(request)
        if answer in ALLOWED:
            return Asked(True)
        return Asked(False, clean_reason(request.denial) if request.takes_reason else "")

    def _notify(self, message: str) -> None:
        """Notification hooks, beside the question (they never delay it)."""
        hooks = self.state.hooks
        if not hooks.wanted("Notification"):
            return
        task = asyncio.get_running_loop().create_task(
            hooks.fire(
                "Notification", {"message": message, "notification_type": "permission_prompt"}
            )
        )
        self._notifying.add(task)
        task.add_done_callback(self._notifying.discard)

    async def _save_always(self, request: ApprovalRequest) -> None:
        """Grant the offered rules for the session, as they read back, and save them."""
        from codebot.agent.permissions import RuleSaveError, save_allow_rules

        for text in request.always:
            self.approvals.grant_session(parse_pattern(text))
        shown = ", ".join(request.always)
        try:
            saved = await asyncio.to_thread(
                save_allow_rules, request.always_path, list(request.always)
            )
        except (RuleSaveError, OSError) as exc:
            self.emit(
                ev.Notice(
                    f"always allow: could not save {shown} ({exc}); allowed for this session only",
                    "warning",
                )
            )
            return
        if not saved.added:
            self.emit(
                ev.Notice(f"always allow: {shown} is already in {saved.path} (permissions.allow)")
            )
            return
        lost = "; its comments were not kept" if saved.comments_lost else ""
        self.emit(
            ev.Notice(
                f"always allow: saved {', '.join(saved.added)} to {saved.path} "
                f"(permissions.allow{lost})"
            )
        )

    def not_approved(self, tool: str, asked: Asked, why: str) -> str:
        """The tool result when the person did not approve a call (`why`: the verdict's reason)."""
        if asked.reason:
            return f"the person denied this call: {asked.reason}"
        how = "" if self.interactive else f" (non-interactive: allow it with --allow '{tool}(...)')"
        return f"the person did not approve this {tool} call{how}. {why}"

    async def ask_outside(self, args: dict[str, Any], command: str, why: str) -> bool:
        """Offer to run a command that failed in the sandbox once outside it (never in print
        mode, never for the session). `why` holds only checked facts (`sandbox_failure`);
        its network part stands only when the parsed command runs a program that uses the
        network, and nothing is offered when nothing is left. The command is shown whole,
        as the first question showed it (`command_lines`), with its counts."""
        from codebot.agent.tools.sandbox_failure import offer_reason
        from codebot.display import command_lines
        from codebot.shell import parsed

        why = offer_reason(why, (c.words for c in parsed(command).commands))
        if not why:
            return False
        future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
        shown = command_lines(command)
        question = shown.question("Run it once OUTSIDE the sandbox?")
        preview = f"{shown.text}\n\nfailed inside the sandbox: {why}\n{question}"
        self.emit(
            ApprovalRequest(
                "Bash",
                args,
                command,
                preview,
                future,
                outside_sandbox=why,
                always_unavailable="running outside the sandbox is allowed once only",
            )
        )
        self._notify("codebot needs your permission to run a command outside the sandbox")
        return await self._answer(future) in ALLOWED

    async def approve_injection(self, command: str, turn: TurnState) -> str | None:
        """A skill's `!` command is a command: the same engine as a Bash call decides."""
        verdict = self.approvals.check("Bash", command, turn.grants)
        if verdict.outcome == "deny":
            return f"denied by rule {verdict.rule}"
        if verdict.outcome == "ask" and not (
            asked := await self.ask("Bash", {"command": command}, command, verdict.reason)
        ):
            if asked.reason:
                return f"not approved: the person denied this call: {asked.reason}"
            return (
                "not approved"
                if self.interactive
                else "not approved (print mode denies; allow it with --allow 'Bash(...)')"
            )
        return None
