"""`Toolset`: the tools one session offers the model (the registry's and the meta tools,
less what its filter hides) and its system prompt, which names them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codebot.agent.session import events as ev
from codebot.agent.session.emit import Emit
from codebot.agent.session.instruction_source import InstructionSource
from codebot.agent.session.outcomes import OUTCOME_TOOL, SKILL_OUTCOME
from codebot.agent.session.turn import TurnState, render_system
from codebot.agent.tools import META_TOOLS, McpTools, ToolRegistry

#: The tools lean mode offers (`--lean`, config `lean: true`): enough to read, change and
#: test code and to use a skill, in about 450 tokens of definitions instead of about 1,550.
LEAN_TOOLS = frozenset({"Read", "Write", "Edit", "Bash", "Skill"})
LEAN_SYSTEM = (
    "You are codebot, a coding agent in the project at {project} ({platform}). Tools: "
    "{tools}; paths are relative to the project, and a denied call must not be retried "
    "unchanged. Look at code before changing it, make small changes, run the tests, say "
    "plainly what you did. A <system-reminder> lists skills: when one matches the request, "
    "invoke it with the Skill tool and follow what it returns."
)


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool definition with its description cut to the first sentence and no
    descriptions on its parameters (the tool still checks its arguments in full)."""
    fn = dict(schema.get("function") or {})
    text = str(fn.get("description") or "")
    fn["description"] = re.split(r"(?<=\.)\s", text, maxsplit=1)[0][:160]
    params = dict(fn.get("parameters") or {})
    props = params.get("properties")
    if isinstance(props, dict):
        params["properties"] = {
            k: {a: b for a, b in v.items() if a != "description"} if isinstance(v, dict) else v
            for k, v in props.items()
        }
    fn["parameters"] = params
    return {**schema, "function": fn}


class Toolset:
    def __init__(
        self,
        *,
        registry: ToolRegistry,
        tool_filter: Callable[[str], bool],
        project_dir: Path,
        system_prompt: str | None = None,
        instructions: InstructionSource | None = None,
        lean: bool = False,
    ) -> None:
        self.registry = registry
        self.lean = lean
        self.tool_filter = (lambda n: n in LEAN_TOOLS and tool_filter(n)) if lean else tool_filter
        self.project_dir = project_dir
        self._system = system_prompt
        # AGENTS.md and the like, re-read when edited (instruction_source.py)
        self.instructions = instructions
        # The session's MCP servers' tools (agent/tools/mcp_tools.py), synced per request.
        self.mcp: McpTools | None = None

    @property
    def system_prompt(self) -> str:
        """The prompt given, else the default one naming this session's tools (made once),
        then the instruction files as they are now."""
        return self.system_parts()[0]

    def system_parts(self) -> tuple[str, str]:
        """(the system prompt, the instruction files' part of it), from one check of the
        files (`/context` counts the two apart)."""
        if self._system is None and self.lean:
            import platform

            self._system = LEAN_SYSTEM.format(
                project=self.project_dir, platform=platform.system(), tools=", ".join(self.names())
            )
        if self._system is None:
            self._system = render_system(self.project_dir, self.names())
        extra = self.instructions.text if self.instructions is not None else ""
        return (f"{self._system}\n\n{extra}" if extra else self._system), extra

    def names(self, hidden: frozenset[str] | set[str] = frozenset()) -> list[str]:
        """The built-in and meta tools (MCP tools come and go: the system prompt, made
        once, does not name them)."""
        mcp = set(self.mcp.tools) if self.mcp is not None else set()
        names = [n for n in self.registry.names() if n not in mcp and n != "ToolSearch"]
        names += META_TOOLS
        return [n for n in names if n not in hidden and self.tool_filter(n)]

    async def ready(self, emit: Emit) -> None:
        """Before the session's first request: MCP servers still starting (mcp_tools.py);
        a warning for each that failed to start."""
        if self.mcp is not None:
            for failed in await self.mcp.ready():
                emit(ev.Notice(failed, "warning"))

    def offered(self, name: str, turn: TurnState) -> bool:
        """Whether the model may call `name` in this turn (a skill may hide tools);
        SkillOutcome only while a skill run waits for its outcome."""
        if name == SKILL_OUTCOME:
            return turn.outcome is not None
        return name not in turn.hidden and self.tool_filter(name)

    def schemas(self, turn: TurnState) -> list[dict[str, Any]]:
        if self.mcp is not None:
            self.mcp.sync()
        hidden = {n for n in (*self.registry.names(), *META_TOOLS) if not self.offered(n, turn)}
        if self.mcp is not None:
            hidden |= self.mcp.hidden()
        schemas = self.registry.schemas(hidden=hidden)
        schemas += [t for name, t in META_TOOLS.items() if name not in hidden]
        if turn.outcome is not None:
            schemas.append(OUTCOME_TOOL)
        return [lean_schema(t) for t in schemas] if self.lean else schemas
