"""`Toolset`: the tools one session offers the model (the registry's and the meta tools,
less what its filter hides) and its system prompt, which names them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from codebot.agent.session.instruction_source import InstructionSource
from codebot.agent.session.turn import TurnState, render_system
from codebot.agent.tools import META_TOOLS, ToolRegistry


class Toolset:
    def __init__(
        self,
        *,
        registry: ToolRegistry,
        tool_filter: Callable[[str], bool],
        project_dir: Path,
        system_prompt: str | None = None,
        instructions: InstructionSource | None = None,
    ) -> None:
        self.registry = registry
        self.tool_filter = tool_filter
        self.project_dir = project_dir
        self._system = system_prompt
        # AGENTS.md and the like, re-read when edited (instruction_source.py)
        self.instructions = instructions

    @property
    def system_prompt(self) -> str:
        """The prompt given, else the default one naming this session's tools (made once),
        then the instruction files as they are now."""
        return self.system_parts()[0]

    def system_parts(self) -> tuple[str, str]:
        """(the system prompt, the instruction files' part of it), from one check of the
        files (`/context` counts the two apart)."""
        if self._system is None:
            self._system = render_system(self.project_dir, self.names())
        extra = self.instructions.text if self.instructions is not None else ""
        return (f"{self._system}\n\n{extra}" if extra else self._system), extra

    def names(self, hidden: frozenset[str] | set[str] = frozenset()) -> list[str]:
        names = [*self.registry.names(), *META_TOOLS]
        return [n for n in names if n not in hidden and self.tool_filter(n)]

    def offered(self, name: str, turn: TurnState) -> bool:
        """Whether the model may call `name` in this turn (a skill may hide tools)."""
        return name not in turn.hidden and self.tool_filter(name)

    def schemas(self, turn: TurnState) -> list[dict[str, Any]]:
        hidden = {n for n in (*self.registry.names(), *META_TOOLS) if not self.offered(n, turn)}
        schemas = self.registry.schemas(hidden=hidden)
        schemas += [t for name, t in META_TOOLS.items() if name not in hidden]
        return schemas
