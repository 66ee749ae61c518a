"""How a session asks the person: approval of a tool call, of a skill's injected command,
and of running a command once outside the sandbox. A mixin for `Session` (it needs its
`approvals`, `context`, `emit` and `interactive`), kept apart so the loop stays one thing."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from codebot.agent.permissions import (
    ApprovalAnswer,
    ApprovalRequest,
    preview_for,
    session_patterns_for,
)
from codebot.agent.session.turn import TurnState


class Asking:
    approvals: Any
    context: Any
    emit: Any
    interactive: bool
    #: Seconds spent waiting for the person's answers, in all: a tool's duration leaves it out.
    waited_s: float = 0.0

    async def _answer(self, future: asyncio.Future[ApprovalAnswer]) -> ApprovalAnswer:
        t0 = time.perf_counter()
        try:
            return await future
        finally:
            self.waited_s += time.perf_counter() - t0

    async def _ask(self, tool: str, args: dict[str, Any], subject: str, reason: str = "") -> bool:
        if not self.interactive:
            return False
        future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
        request = ApprovalRequest(tool, args, subject, preview_for(tool, args, self.context), future, reason=reason)
        self.emit(request)
        answer = await self._answer(future)
        if answer is ApprovalAnswer.ALLOW_SESSION:
            for pattern in session_patterns_for(tool, subject):
                self.approvals.grant_session(pattern)
        return answer in (ApprovalAnswer.ALLOW_ONCE, ApprovalAnswer.ALLOW_SESSION)

    async def _ask_outside(self, args: dict[str, Any], command: str, why: str) -> bool:
        """Offer to run a command that failed in the sandbox once outside it (never in print
        mode, never for the session)."""
        future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
        preview = f"{command}\n\nfailed inside the sandbox: {why}\nrun it once OUTSIDE the sandbox?"
        self.emit(ApprovalRequest("Bash", args, command, preview, future, outside_sandbox=why))
        return await self._answer(future) in (ApprovalAnswer.ALLOW_ONCE, ApprovalAnswer.ALLOW_SESSION)

    async def _approve_injection(self, command: str, turn: TurnState) -> str | None:
        """A skill's `!` command is a command: the same engine as a Bash call decides."""
        verdict = self.approvals.check("Bash", command, turn.grants)
        if verdict.outcome == "deny":
            return f"denied by rule {verdict.rule}"
        if verdict.outcome == "ask" and not await self._ask("Bash", {"command": command}, command, verdict.reason):
            return "not approved" if self.interactive else "not approved (print mode denies; allow it with --allow 'Bash(...)')"
        return None
