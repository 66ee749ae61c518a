"""MCP (the Model Context Protocol): the servers codebot may start, and which of them it
may start now (docs/mcp.md).

`config` reads the definitions (a project's `.mcp.json`, `mcp.servers` in the person's
config, `--mcp-config` files; `expand` does `${VAR}`); `approval` decides what may start
(trust, a per-definition approval, an agent-written `.mcp.json`) and what environment a
server gets.

Beside the agent: may import `codebot.workspace`, `codebot.config`, `codebot.trust`,
`codebot.skills`, `codebot.shell` and the base modules; never `agent`, `ui` or `commands`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.mcp.approval import (
        Approvals,
        Standing,
        approve,
        fingerprint,
        server_environment,
        standing,
    )
    from codebot.mcp.config import McpConfig, ServerDef, load_servers


_EXPORTS = {
    "Approvals": "approval",
    "McpConfig": "config",
    "ServerDef": "config",
    "Standing": "approval",
    "approve": "approval",
    "fingerprint": "approval",
    "load_servers": "config",
    "server_environment": "approval",
    "standing": "approval",
}
__all__ = [
    "Approvals",
    "McpConfig",
    "ServerDef",
    "Standing",
    "approve",
    "fingerprint",
    "load_servers",
    "server_environment",
    "standing",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
