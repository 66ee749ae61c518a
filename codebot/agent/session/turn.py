"""What one turn carries: the skill delta in force (TurnState), what the turn did
(TurnRecord), and the session's stable system prompt."""

from __future__ import annotations

import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from codebot.agent.model import Usage
from codebot.skills.invoke import Delta

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from codebot.agent.hooks import HookCommand
    from codebot.agent.session.outcomes import OutcomeSink
    from codebot.skills.invoke import Invocation
    from codebot.skills.outcome import Outcome


class SubAgents(Protocol):
    """How a session runs a fork skill or a Task call (the `subagent` module is one)."""

    def run_fork(self, parent: Any, inv: Invocation) -> Awaitable[str]: ...

    def run_fork_outcome(
        self, parent: Any, inv: Invocation, *, timeout: float | None = None
    ) -> Awaitable[Outcome]: ...

    def run_task(
        self, parent: Any, prompt: str, agent_name: str, description: str = ""
    ) -> Awaitable[str]: ...


class _NoSubAgents:
    """For a session built without `setup`: forks and tasks say they cannot run."""

    async def run_fork(self, parent: Any, inv: Invocation) -> str:
        return "sub-agents are not available in this session; no sub-agent ran"

    async def run_fork_outcome(
        self, parent: Any, inv: Invocation, *, timeout: float | None = None
    ) -> Outcome:
        from codebot.skills.outcome import failed

        return failed("sub-agents are not available in this session; no sub-agent ran")

    async def run_task(
        self, parent: Any, prompt: str, agent_name: str, description: str = ""
    ) -> str:
        return "sub-agents are not available in this session; do this task yourself"


NO_SUBAGENTS: SubAgents = _NoSubAgents()


@dataclass
class TurnState:
    """What a skill changed for this turn. A new one per turn: nothing leaks into the next."""

    model: str | None = None
    effort: str | None = None
    grants: list[str] = field(default_factory=list)
    hidden: set[str] = field(default_factory=set)
    path_hints: list[str] = field(default_factory=list)
    #: Hooks of the skills in force this turn (frontmatter `hooks:`): gone with the turn.
    hooks: list[HookCommand] = field(default_factory=list)
    #: Stop hooks that made the model go on this turn (capped: `loop.MAX_STOP_CONTINUES`).
    stop_continues: int = 0
    #: Set when a hook answered `continue: false`: the turn ends after this step.
    stop_reason: str = ""
    #: Where `SkillOutcome` reports (a fork's sub-agent; an inline skill that asks for it).
    outcome: OutcomeSink | None = None
    #: The inline skills run this turn, with when they started (their outcomes at its end).
    runs: list[tuple[Invocation, float]] = field(default_factory=list)

    def outcome_reminder(self) -> str | None:
        """Once, when the model would stop without the outcome its skill must report."""
        return self.outcome.reminder() if self.outcome is not None else None

    def reported(self) -> bool:
        """Whether a fork's sub-agent has reported its outcome (its work is done)."""
        return self.outcome is not None and self.outcome.ends and self.outcome.outcome is not None

    def apply(self, delta: Delta) -> None:
        if delta.model:
            self.model = delta.model
        if delta.effort:
            self.effort = delta.effort
        self.grants.extend(delta.allowed_tools)
        self.hidden.update(t.split("(", 1)[0] for t in delta.disallowed_tools)
        self.path_hints.extend(delta.paths)


@dataclass
class TurnRecord:
    """What a turn did, for print mode's JSON and for tests."""

    text: str = ""
    skills: list[dict[str, Any]] = field(default_factory=list)  # JSON: names and flags
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    error_kind: str | None = None
    cancelled: bool = False
    #: "end_turn", or "max_tokens" when the last answer was cut at its limit (`-p` JSON).
    stop_reason: str = "end_turn"
    # Calls of the whole turn, its sub-agents' included, that were denied or failed
    # (`-p --fail-on-denial`); set when the turn ends (`Budgeter.end_budget`).
    denied_calls: int = 0
    failed_calls: int = 0


def render_system(project_dir: Path, tools: list[str], agent_prompt: str = "") -> str:
    from codebot.templates import render

    return render(
        "system.j2",
        project_dir=str(project_dir),
        platform=platform.system(),
        tools=tools,
        agent_prompt=agent_prompt,
    )
