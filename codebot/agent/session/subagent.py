"""Sub-agents: a fork skill or a Task call runs a nested session with its own history.

The parent conversation is not included; the agent type sets the instructions and the
tools; a fork skill's model and tool grants apply to the sub-agent only. Only the
sub-agent's final answer returns to the caller.

The module itself is the session's `SubAgents` (`turn.SubAgents`): `setup` passes it in,
so the session loop never imports the module that builds sessions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codebot.agent.session.agents import AgentNameError, find_agent
from codebot.agent.session.child import child_session, plugin_agents
from codebot.agent.session.fork_outcome import run_fork_outcome
from codebot.agent.session.loop import Session
from codebot.agent.session.outcomes import render
from codebot.agent.session.turn import TurnRecord, TurnState

if TYPE_CHECKING:
    from codebot.agent.hooks import HookCommand
    from codebot.skills.invoke import Delta, Invocation


async def run_fork(parent: Session, inv: Invocation) -> str:
    """Run a `context: fork` skill: its wrapped body is the sub-agent's whole task; what
    the caller reads of its outcome (`outcomes.render`)."""
    return render(await run_fork_outcome(parent, inv))


async def run_task(parent: Session, prompt: str, agent_name: str, description: str = "") -> str:
    if parent.depth + 1 > parent.settings.fork_depth:
        return (
            f"sub-agents may nest at most {parent.settings.fork_depth} deep; do this task yourself"
        )
    try:
        agent = find_agent(
            agent_name, parent.catalog.roots, parent.settings.trusted, plugin_agents(parent)
        )
    except AgentNameError as exc:
        return f"{exc}; use 'general', 'explore' or a custom agent from agents/<name>.md"
    if agent is None:
        return (
            f"no agent named {agent_name!r}; "
            "use 'general', 'explore', a custom agent from agents/<name>.md or a plugin's "
            "agent as plugin:name"
        )
    child = child_session(parent, agent, parent.chain, agent.model)
    return await _run(parent, child, prompt, None)


async def _run(
    parent: Session,
    child: Session,
    task: str,
    delta: Delta | None,
    scoped: list[HookCommand] | None = None,
) -> str:
    turn = TurnState()
    if delta is not None:
        turn.apply(delta)
    turn.hooks.extend(scoped or ())  # a fork skill's hooks: for its sub-agent's run only
    record = TurnRecord()
    reminders = child.prompter.reminders(turn, task)
    child.add({"role": "user", "content": "\n".join([*reminders, task]) if reminders else task})
    try:
        await child.loop(turn, record)
    finally:
        for model, usage in child.usage_by_model.items():  # a sub-agent's calls are the session's
            parent.count_usage(model, usage)
    return record.text or "(the sub-agent finished without an answer)"
