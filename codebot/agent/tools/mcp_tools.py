"""MCP servers' tools as tools of the registry (docs/mcp.md): `McpTool` calls one,
`ToolSearch` gives deferred ones their schemas, `McpTools` keeps the registry in step with
the session's servers.

- Each tool is `mcp__<server>__<tool>` (`codebot.mcp.names`); its description is the
  server's, untrusted: control characters dropped, codebot's tags escaped, at most
  `DESCRIPTION_MAX` characters. Its parameters are the tool's `inputSchema`, which the
  registry checks the arguments against before the call (the errors go back to the model);
  a schema that is not a usable JSON Schema object becomes `{"type": "object"}`.
- The result (`codebot.mcp.results`): text, one line per image or audio, embedded
  resources as text, capped like Bash's output; `isError` is an error result. When the
  model takes images (`ToolContext.images`), the images that pass the checks come back
  in `ToolResult.images` too, and the session sends them (`agent.session.images`).
- `readOnlyHint` is shown in the approval question (`approval_note`), never trusted: an
  MCP tool is asked like any tool that changes things.
- When the definitions would take more than the budget (`mcp.tool_budget_percent` of the
  window, default 10%), every MCP tool is deferred: the model sees its name and one line in
  `ToolSearch`'s description, and `ToolSearch` returns full schemas, which makes them
  callable from the next request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from codebot.agent.tools.base import Tool, ToolContext, ToolRegistry, ToolResult

if TYPE_CHECKING:
    from codebot.mcp.session_servers import RemoteTool, SessionServers

__all__ = ["TOOL_SEARCH", "McpTool", "McpTools", "ToolSearchTool"]

TOOL_SEARCH = "ToolSearch"
DESCRIPTION_MAX = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
ANY_OBJECT: dict[str, Any] = {"type": "object"}


def untrusted(text: str, limit: int = DESCRIPTION_MAX) -> str:
    """A server's text as the model is shown it."""
    from codebot.skills.invoke import escape_tags

    clean = escape_tags(_CONTROL.sub("", text))
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


#: Schemas already checked, by their JSON: a list_changed or a new window re-checks none.
_CHECKED: dict[str, bool] = {}


def usable_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The tool's inputSchema when it is a valid JSON Schema for an object, else any object.

    Checked against its own `$schema`'s meta-schema, else draft 7's: draft 2020-12's costs
    about 1 ms a schema (its dynamic references), draft 7's about a sixth of that, and
    catches what providers refuse (a wrong `type`, `properties` that is not an object)."""
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        return dict(ANY_OBJECT)
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return dict(ANY_OBJECT)
    ok = _CHECKED.get(key)
    if ok is None:
        ok = _CHECKED[key] = _valid(schema)
    return {"type": "object", **dict(schema)} if ok else dict(ANY_OBJECT)


def _valid(schema: Mapping[str, Any]) -> bool:
    import jsonschema
    import jsonschema.validators

    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        return _meta(cls).is_valid(dict(schema))
    except Exception:
        return False


_META: dict[type, Any] = {}


def _meta(cls: Any) -> Any:
    meta = _META.get(cls)
    if meta is None:
        meta = _META[cls] = cls(cls.META_SCHEMA)
    return meta


def one_line(text: str, limit: int = 120) -> str:
    line = untrusted(" ".join(text.split()), limit * 2)
    first = re.split(r"(?<=\.)\s", line, maxsplit=1)[0]
    return first if len(first) <= limit else first[: limit - 1] + "…"


class McpTool(Tool):
    read_only = False

    def __init__(self, name: str, remote: RemoteTool, owner: McpTools) -> None:
        self.name = name
        self.remote = remote
        self.owner = owner
        self.description = untrusted(
            f"{remote.description or remote.name} (MCP server {remote.server}, tool {remote.name})"
        )
        self.parameters = usable_schema(remote.input_schema)

    def approval_note(self) -> str:
        hint = self.remote.read_only_hint
        said = (
            "the server says this tool only reads (readOnlyHint; not verified)"
            if hint
            else "the server does not say this tool only reads"
        )
        return f"MCP server {untrusted(self.remote.server, 64)}: {said}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from codebot.mcp.results import render

        if self.name in self.owner.deferred and self.name not in self.owner.loaded:
            return ToolResult(
                f"{self.name} is deferred: call {TOOL_SEARCH} with its name first to load "
                "its parameters, then call it",
                "error",
            )
        outcome = await self.owner.servers.call(self.remote.server, self.remote.name, args)
        if outcome.error:
            return ToolResult(f"{self.name} failed: {outcome.error}", "error")
        out = render(outcome.result, ctx.output_cap, images=ctx.images)
        return ToolResult(out.text, "error" if out.is_error else "ok", images=out.images)


class ToolSearchTool(Tool):
    name = TOOL_SEARCH
    read_only = True

    def __init__(self, owner: McpTools) -> None:
        self.owner = owner
        self.description = ""
        self.parameters = {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "tool names (space-separated) or words to look for",
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            },
            "required": ["query"],
            "additionalProperties": False,
        }

    def describe(self) -> None:
        lines = [
            f"{n}: {one_line(t.remote.description or t.remote.name)}"
            for n, t in self.owner.tools.items()
            if n in self.owner.deferred
        ]
        self.description = (
            "Load the parameters of deferred MCP tools so that they can be called. Give "
            "their names (or words to search for); their full definitions are returned and "
            "they are callable from then on. Deferred tools:\n" + "\n".join(lines)
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        found = self.owner.search(str(args.get("query", "")), int(args.get("limit") or 10))
        if not found:
            return ToolResult(
                "no deferred MCP tool matches; the list is in this tool's description"
            )
        self.owner.loaded.update(t.name for t in found)
        defs = [t.schema()["function"] for t in found]
        return ToolResult(
            "loaded (callable now):\n" + json.dumps(defs, indent=1, ensure_ascii=False)
        )


class McpTools:
    """The session's MCP tools in its registry, kept in step with its servers."""

    def __init__(
        self,
        servers: SessionServers,
        registry: ToolRegistry,
        *,
        window: Callable[[], int],
        budget_percent: float,
        wait_first: bool = True,
    ) -> None:
        self.servers = servers
        self.registry = registry
        self.window = window
        self.budget_percent = budget_percent
        self.wait_first = wait_first  # the first request waits for the starts (`ready`)
        self.tools: dict[str, McpTool] = {}
        self.deferred: set[str] = set()
        self.loaded: set[str] = set()
        self.renamed: dict[str, str] = {}  # name shown -> "server/tool" when not the plain one
        self.definition_tokens = 0
        self._seen: tuple[int, int] | None = None
        self._search = ToolSearchTool(self)

    def sync(self) -> None:
        """Bring the registry up to date with the servers' tools (cheap when nothing changed)."""
        self._start()  # once: after the first paint, or at the first request
        key = (self.servers.generation, self._window())
        if key == self._seen:
            return
        self._seen = key
        from codebot.mcp.names import server_key, tool_names

        remote = self.servers.tools()
        names = tool_names((t.server, t.name) for t in remote)
        for old in self.tools:
            self.registry.remove(old)
        self.registry.remove(TOOL_SEARCH)
        self.tools, self.renamed = {}, {}
        for t in remote:
            name = names[(t.server, t.name)]
            if name in self.registry:  # a built-in's name: never replaced
                continue
            self.tools[name] = tool = McpTool(name, t, self)
            self.registry.add(tool)
            if name != f"{server_key(t.server)}__{t.name}":
                self.renamed[name] = f"{t.server}/{t.name}"
        self._defer()

    def _start(self) -> None:
        """Start the servers (once), on the loop this runs on: the session's turns'."""
        from codebot.mcp.host import running_loop

        self.servers.start(running_loop())

    def _window(self) -> int:
        try:
            return int(self.window() or 0)
        except Exception:
            return 0

    def _defer(self) -> None:
        from codebot.units import CHARS_PER_TOKEN

        chars = sum(len(json.dumps(t.schema(), ensure_ascii=False)) for t in self.tools.values())
        self.definition_tokens = chars // CHARS_PER_TOKEN
        window = self._window()
        budget = window * self.budget_percent / 100 if window else float("inf")
        self.deferred = set(self.tools) if self.definition_tokens > budget else set()
        self.loaded &= set(self.tools)
        if self.deferred:
            self._search.describe()
            self.registry.add(self._search)

    async def ready(self) -> list[str]:
        """Before the session's first request: wait for the servers still starting (each
        at most its startup_timeout), off the event loop; later requests never wait. A
        line (escaped) for each server that failed to start, said once."""
        if not self.wait_first:
            return []
        self.wait_first = False
        import asyncio
        import time

        from codebot.display import visible

        self._start()
        end = time.monotonic() + self.servers.longest_start()
        while self.servers.starting() and time.monotonic() < end:
            await asyncio.sleep(0.01)  # polled: a cancelled turn stops waiting at once
        rows = self.servers.status()
        failed = [r for r in rows if r["status"] == "failed"]
        return [visible(f"MCP server {r['name']} failed to start: {r['error']}") for r in failed]

    def summary(self) -> list[str]:
        """`/context`'s lines: the servers, the tools, how many are deferred, renames."""
        self.sync()
        rows = self.servers.status()
        states = ", ".join(f"{r['name']} {r['status']}" for r in rows)
        lines = [f"MCP: {len(rows)} servers ({states}); {len(self.tools)} tools"]
        if self.deferred:
            lines.append(
                f"MCP tools deferred: {len(self.deferred - self.loaded)} of {len(self.tools)} "
                f"(their definitions, {self.definition_tokens:,} tokens, are over "
                f"{self.budget_percent:g}% of the window; {TOOL_SEARCH} loads them)"
            )
        lines += [f"MCP tool renamed: {shown} is {orig}" for shown, orig in self.renamed.items()]
        lines += [f"MCP server {r['name']}: {r['error']}" for r in rows if r["error"]]
        return lines

    def hidden(self) -> set[str]:
        """Tools whose definitions are not sent: deferred and not loaded yet."""
        return self.deferred - self.loaded

    def search(self, query: str, limit: int) -> list[McpTool]:
        words = query.split()
        exact = [self.tools[w] for w in words if w in self.deferred]
        if exact:
            return exact[:limit]
        low = [w.casefold() for w in words]
        scored = []
        for name in sorted(self.deferred):
            t = self.tools[name]
            hay = f"{name} {t.remote.description}".casefold()
            score = sum(hay.count(w) for w in low)
            if score:
                scored.append((-score, name))
        return [self.tools[n] for _, n in sorted(scored)[:limit]]
