"""Building a sub-agent: a nested `Session` from its parent's parts (same guard, context,
budget and hooks), with the agent type's instructions and tools. Used by `subagent` (Task
calls) and `fork_outcome` (fork skills)."""

from __future__ import annotations

from pathlib import Path

from codebot.agent.session.agents import AgentDef
from codebot.agent.session.loop import Session
from codebot.agent.session.parts import SessionParts
from codebot.agent.session.toolset import Toolset
from codebot.agent.session.turn import render_system
from codebot.agent.tools import TASK

SUBAGENT_STEPS = 25


def child_session(
    parent: Session, agent: AgentDef, chain: tuple[str, ...], model: str | None
) -> Session:
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
    child.skills.transcript = parent.transcript  # its skills' outcomes are the session's
    return child


def plugin_agents(parent: Session) -> dict[str, tuple[Path, ...]]:
    """Each loaded plugin's agent folders, by plugin name (read when a sub-agent starts)."""
    from codebot.workspace import plugins_for

    return {p.name: p.agents for p in plugins_for(parent.settings) if p.loadable}
