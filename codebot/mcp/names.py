"""The names the model sees for MCP tools: `mcp__<server>__<tool>`, within the providers'
rules for tool names (`^[a-zA-Z0-9_-]{1,64}$`, OpenAI's and Anthropic's).

- A character outside the rule becomes `_`; in the server's part a run of `_` becomes one,
  so `__` only ever separates the parts and `mcp__<server>` (a permission rule) names one
  server without doubt.
- A name over 64 characters is cut to 64.
- Two tools whose names come out the same: the first (in the servers' order, then the
  server's own order) keeps it, the next get `_2`, `_3`, ... (cut to fit), so the same
  servers give the same names in every session. `renamed` lists every tool whose name is
  not the plain `mcp__<server>__<tool>` (`codebot mcp list`, `/context`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MAX_NAME", "server_key", "tool_names"]

MAX_NAME = 64
_BAD = re.compile(r"[^A-Za-z0-9_-]")


def server_key(server: str) -> str:
    """`mcp__<server>` as rules and tool names spell it."""
    part = re.sub(r"_{2,}", "_", _BAD.sub("_", server)) or "_"
    return f"mcp__{part}"


def tool_names(tools: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """{(server, tool): the name the model sees}, for (server, tool) pairs in order."""
    taken: set[str] = set()
    out: dict[tuple[str, str], str] = {}
    for server, tool in tools:
        if (server, tool) in out:
            continue
        base = f"{server_key(server)}__{_BAD.sub('_', tool) or '_'}"[:MAX_NAME]
        name, n = base, 1
        while name in taken:
            n += 1
            suffix = f"_{n}"
            name = base[: MAX_NAME - len(suffix)] + suffix
        taken.add(name)
        out[(server, tool)] = name
    return out
