"""`SessionParts`: everything a `Session` is built from, with the defaults a session
built without `setup` gets. `setup.build_session` fills one for the person's session and
`subagent` one for each sub-agent; `Session` wires its collaborators from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codebot.agent.hooks import Hooks
from codebot.agent.model import ModelClient
from codebot.agent.permissions import Approvals
from codebot.agent.session.budget import TurnBudget
from codebot.agent.session.compact import Compaction, InForce
from codebot.agent.session.emit import Emit
from codebot.agent.session.guard import Guard
from codebot.agent.session.instruction_source import InstructionSource
from codebot.agent.session.transcript import Transcript
from codebot.agent.session.turn import NO_SUBAGENTS, SubAgents
from codebot.agent.tools import ToolContext, ToolRegistry
from codebot.config import Settings
from codebot.skills.catalog import Catalog

if TYPE_CHECKING:
    from codebot.skills.prompt import UsageTracker
    from codebot.skills.trace import Tracer

MAX_STEPS = 50


def _every_tool(_name: str) -> bool:
    return True


@dataclass(kw_only=True)
class SessionParts:
    settings: Settings
    catalog: Catalog
    client: ModelClient
    registry: ToolRegistry
    approvals: Approvals
    #: None: events go nowhere.
    emit: Emit | None = None
    interactive: bool = False
    transcript: Transcript | None = None
    #: Defaults to the transcript's id.
    session_id: str = ""
    history: list[dict[str, Any]] = field(default_factory=list)
    in_force: list[InForce] = field(default_factory=list)
    last_compaction: Compaction | None = None
    usage_tracker: UsageTracker | None = None
    tracer: Tracer | None = None
    #: 0 for the person's session; a sub-agent is one deeper than its parent.
    depth: int = 0
    #: The fork skills that led to this sub-agent, outermost first.
    chain: tuple[str, ...] = ()
    #: None: rendered from the tools on first use.
    system_prompt: str | None = None
    #: AGENTS.md and the like (None: none, as for tests and sub-agents built by hand)
    instructions: InstructionSource | None = None
    tool_filter: Callable[[str], bool] = _every_tool
    base_model: str | None = None
    max_steps: int = MAX_STEPS
    #: How forks and Task calls run (the `subagent` module, passed in by `setup`): it
    #: builds Sessions, so the loop must not import it.
    subagents: SubAgents = NO_SUBAGENTS
    #: A sub-agent shares its parent's guard (and so its `written` set); None: a new one.
    guard: Guard | None = None
    #: A sub-agent shares its parent's folders, sandbox and path denies; None: a new one.
    context: ToolContext | None = None
    #: A sub-agent spends from its parent's turn budget; None: the session's own.
    budget: TurnBudget | None = None
    #: The hooks to fire (`setup` collects them; a sub-agent shares its parent's); None: none.
    hooks: Hooks | None = None
