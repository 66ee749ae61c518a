"""Sub-agents: a fork skill or a Task call runs a nested session with its own history.

The parent conversation is not included; the agent type sets the instructions and the
tools; a fork skill's model and tool grants apply to the sub-agent only. Only the
sub-agent's final answer returns to the caller.

The module itself is the session's `SubAgents` (`turn.SubAgents`): `setup` passes it in,
so the session loop never imports the module that builds sessions.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from codebot.agent.session.agents import AgentDef, AgentNameError, find_agent
from codebot.agent.session.hook_calls import skill_scoped
from codebot.agent.session.loop import Session
from codebot.agent.session.parts import SessionParts
from codebot.agent.session.toolset import Toolset
from codebot.agent.session.turn import TurnRecord, TurnState, render_system
from codebot.agent.tools import TASK

if TYPE_CHECKING:
    from codebot.agent.hooks import HookCommand
    from codebot.skills.invoke import Delta, Invocation

SUBAGENT_STEPS = 25


def _child(parent: Session, agent: AgentDef, chain: tuple[str, ...], model: str | None) -> Session:
    if agent.path is not None and parent.guard.marked_here(agent.path) and model == agent.model:
        model = None  # an agent file codebot's agent wrote (not yet accepted) sets no model
    allowed = set(agent.tools) if agent.tools is not None else None

    def tool_filter(name: str) -> bool:
        if allowed is not None and name not in allowed:
            return False
        # A sub-agent may start another only while the fork depth allows it.
        return not (name == TASK and parent.depth + 1 >= parent.settings.fork_depth)

    project_dir = parent.settings.project_dir
    tools = Toolset(
        registry=parent.registry,
        tool_filter=tool_filter,
        project_dir=project_dir,
        instructions=parent.toolset.instructions,  # a sub-agent follows the same files
    )
    child = Session(
        SessionParts(
            settings=parent.settings,
            catalog=parent.catalog,
            client=parent.client,
            registry=parent.registry,
            approvals=parent.approvals,
            emit=parent.emit,
            interactive=parent.interactive,
            session_id=parent.id,
            usage_tracker=parent.usage_tracker,
            tracer=parent.tracer,
            depth=parent.depth + 1,
            chain=chain,
            system_prompt=render_system(project_dir, tools.names(), agent.prompt),
            instructions=parent.toolset.instructions,
            tool_filter=tool_filter,
            base_model=model or parent.base_model,
            max_steps=SUBAGENT_STEPS,
            subagents=parent.subagents,
            # One session: what a sub-agent writes is recorded and marked as the parent's.
            guard=parent.guard,
            context=parent.context,  # the same folders, sandbox and path denies
            budget=parent.budget,  # one turn: the sub-agents spend from the same budget
            hooks=parent.state.hooks,  # SubagentStop, and the tool hooks inside it
        )
    )
    child.toolset.mcp = parent.toolset.mcp  # the same servers, the same deferred tools
    return child


def _plugin_agents(parent: Session) -> dict[str, tuple[Path, ...]]:
    """Each loaded plugin's agent folders, by plugin name (read when a sub-agent starts)."""
    from codebot.workspace import plugins_for

    return {p.name: p.agents for p in plugins_for(parent.settings) if p.loadable}


async def run_fork(parent: Session, inv: Invocation) -> str:
    """Run a `context: fork` skill: its wrapped body is the sub-agent's whole task."""
    try:
        agent = find_agent(
            inv.spec.agent or "general",
            parent.catalog.roots,
            parent.settings.trusted,
            _plugin_agents(parent),
        )
    except AgentNameError as exc:
        return f"skill {inv.spec.name!r}: {exc}; no sub-agent ran"
    if agent is None:
        return (
            f"skill {inv.spec.name!r} asks for agent {inv.spec.agent!r}, which does not exist; "
            "no sub-agent ran"
        )
    child = _child(parent, agent, (*parent.chain, inv.spec.key), inv.delta.model or agent.model)
    scoped = skill_scoped(
        inv.spec,
        parent.settings.trusted,
        parent.guard.marked_here(inv.spec.path),
        parent.state.hooks,
    )
    return await _run(parent, child, inv.prompt, inv.delta, scoped)


async def run_task(parent: Session, prompt: str, agent_name: str, description: str = "") -> str:
    if parent.depth + 1 > parent.settings.fork_depth:
        return (
            f"sub-agents may nest at most {parent.settings.fork_depth} deep; do this task yourself"
        )
    try:
        agent = find_agent(
            agent_name, parent.catalog.roots, parent.settings.trusted, _plugin_agents(parent)
        )
    except AgentNameError as exc:
        return f"{exc}; use 'general', 'explore' or a custom agent from agents/<name>.md"
    if agent is None:
        return (
            f"no agent named {agent_name!r}; "
            "use 'general', 'explore', a custom agent from agents/<name>.md or a plugin's "
            "agent as plugin:name"
        )
    child = _child(parent, agent, parent.chain, agent.model)
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
