"""The turn budget: what one turn may spend, the session and every sub-agent it starts
together (config `limits:`; docs/security.md, "Bounds").

One `TurnBudget` is made per user turn (`Session.run_turn`) and shared by every fork and
Task sub-agent of that turn (`subagent._child`). Before each model request the loop asks
`stop_for_budget`; before each tool call, `over_budget`. Once a limit is passed, nothing
more starts: the first refusal says why in a warning Notice, every tool call still asked
for gets an error result naming the limit, a Task or fork whose sub-agent was stopped
returns an error result, and the turn ends with error kind "budget". A model request or a
command already running is not interrupted: the limits are checked between steps.

The budget also counts the calls of the whole turn that were denied or failed, sub-agents
included, for `-p --fail-on-denial`.

`TurnBudget` is the count; `Budgeter` is the session's collaborator that holds the turn's
budget and says when it is spent.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from codebot.agent.model import Usage
from codebot.agent.session import events as ev
from codebot.agent.session.emit import Emit
from codebot.agent.session.state import SessionState
from codebot.agent.session.turn import TurnRecord
from codebot.agent.tools import ToolResult
from codebot.config import TurnLimits


@dataclass
class TurnBudget:
    limits: TurnLimits = field(default_factory=TurnLimits)
    started: float = field(default_factory=time.monotonic)
    requests: int = 0
    tokens: int = 0
    waited: float = 0.0  # seconds spent waiting for the person's answers: not the turn's time
    denied: int = 0
    failed: int = 0
    #: Why the turn was stopped, once something was refused.
    spent: str | None = None

    def over(self) -> str | None:
        """Why nothing more may start in this turn, or None."""
        lim = self.limits
        if self.requests >= lim.turn_requests:
            return self._why(f"{self.requests} model requests", "turn_requests", lim.turn_requests)
        if self.tokens >= lim.turn_tokens:
            return self._why(f"{self.tokens:,} tokens", "turn_tokens", lim.turn_tokens)
        seconds = time.monotonic() - self.started - self.waited
        if seconds >= lim.turn_seconds:
            return self._why(f"{seconds:.0f} s", "turn_seconds", lim.turn_seconds)
        return None

    @staticmethod
    def _why(used: str, key: str, limit: float) -> str:
        return (
            f"turn budget reached: {used} in this turn and its sub-agents "
            f"(limits.{key}: {limit:,.0f}); the turn stops here "
            f"(ask again to go on, or raise limits.{key} in your own config)"
        )

    def spend(self, usage: Usage) -> None:
        self.tokens += usage.prompt_tokens + usage.completion_tokens

    def count(self, status: str) -> None:
        if status == "denied":
            self.denied += 1
        elif status != "ok":
            self.failed += 1


class Budgeter:
    """The turn budget a session spends from (`turn`: a new one each user turn, the same
    object for every sub-agent of that turn) and what the session says when it is spent."""

    def __init__(self, state: SessionState, emit: Emit, turn: TurnBudget | None = None) -> None:
        self.state = state  # its settings give the limits of each new turn
        self.emit = emit
        self._turn = turn

    @property
    def turn(self) -> TurnBudget:
        if self._turn is None:
            self._turn = TurnBudget(self.state.settings.limits)
        return self._turn

    @turn.setter
    def turn(self, value: TurnBudget) -> None:
        self._turn = value

    def start_turn(self) -> TurnBudget:
        """A new budget for a user turn, with the limits in force now."""
        self._turn = TurnBudget(self.state.settings.limits)
        return self._turn

    def over_budget(self) -> str | None:
        """Why nothing more may start now (None: go on); the first time, a warning says so."""
        budget = self.turn
        if budget.spent is None:
            why = budget.over()
            if why is None:
                return None
            budget.spent = why
            self.emit(ev.Notice(why, "warning"))
        return budget.spent

    def stop_for_budget(self) -> bool:
        """Before a model request: True when the turn must stop instead; else it is counted."""
        if self.over_budget() is not None:
            return True
        self.turn.requests += 1
        return False

    def budget_result(self, answer: str) -> ToolResult:
        """A Task's or fork's answer: an error when the budget stopped its sub-agent."""
        if self.turn.spent is None:
            return ToolResult(answer)
        return ToolResult(f"the sub-agent was stopped: {self.turn.spent}", "error")

    def end_budget(self, record: TurnRecord) -> None:
        """At the end of a turn: what the whole turn's calls came to, and why it stopped."""
        budget = self.turn
        record.denied_calls, record.failed_calls = budget.denied, budget.failed
        if budget.spent is not None and record.error is None:
            record.error, record.error_kind = budget.spent, "budget"
