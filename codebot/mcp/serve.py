"""`codebot mcp serve`: codebot's skill catalog as an MCP server, on the SDK's low-level
`Server`, over stdio (default) or Streamable HTTP on 127.0.0.1.

It serves SEP-2640 (`skills/list` with true digests, paged; `skills/get`;
`resources/read` of listed files; `resources/directory/read`), `resources/list` of the
skills' SKILL.md files, and one tool, `skill_search` (`{query, limit}` → the router's
ranked skills with its `why`). It is read-only: it never runs a skill's `` !`cmd` `` line
or any tool, and it reads only the files `serve_files.SkillTree` lists (inside each
skill's folder, regular files, no link out).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types

from codebot.mcp import sep2640
from codebot.mcp.serve_files import SkillTree, TreeError, mime_of

if TYPE_CHECKING:
    from typing import TypeAlias

    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel.server import Server

    # the SDK's generic over a lifespan value this server does not use
    Ctx: TypeAlias = ServerRequestContext[Any]
    LowServer: TypeAlias = Server[Any]

    from codebot.config import Settings
    from codebot.skills.catalog import Snapshot
    from codebot.skills.route import Router

__all__ = ["PAGE", "SEARCH_TOOL", "Served", "build_server", "page_start", "serve"]

#: Entries per page of skills/list, resources/list and resources/directory/read.
PAGE = 50
SEARCH_TOOL = "skill_search"
MAX_LIMIT = 50
INSTRUCTIONS = (
    "codebot's skill catalog. Use skill_search to find the skill for a task, then read its "
    "SKILL.md (resources/read of the uri) and the files it lists."
)
_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "the task, as a person would say it"},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 5},
    },
    "required": ["query"],
    "additionalProperties": False,
}


class Served:
    """The catalog being served and the router that searches it."""

    def __init__(self, snap: Snapshot, settings: Settings, router: Router | None = None) -> None:
        self.snap = snap
        self.settings = settings
        self.tree = SkillTree(snap)
        self._router = router

    @property
    def router(self) -> Router:
        if self._router is None:
            from codebot.skills.route import router_from_settings

            self._router = router_from_settings(self.settings, [])
        return self._router

    def entries(self, cursor: str | None) -> sep2640.ListSkillsResult:
        skills = list(self.tree.skills.values())
        start = page_start(cursor, len(skills))
        out = []
        for skill in skills[start : start + PAGE]:
            try:
                out.append(self.tree.entry(skill))
            except TreeError as exc:
                print(f"codebot mcp serve: {exc}", file=sys.stderr)
        more = start + PAGE < len(skills)
        return sep2640.ListSkillsResult(skills=out, next_cursor=str(start + PAGE) if more else None)

    def search(self, arguments: Mapping[str, object] | None) -> mcp_types.CallToolResult:
        from codebot.skills.catalog import active_keys
        from codebot.skills.invoke import Actor, Adapter

        args = arguments or {}
        query, limit = args.get("query"), args.get("limit", 5)
        if not isinstance(query, str) or not query.strip():
            return _tool_error("query must be a non-empty string")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            return _tool_error(f"limit must be an integer from 1 to {MAX_LIMIT}")
        r = self.router.route(
            query[:2000],
            self.snap,
            Actor.MODEL,
            self.settings.overrides,
            Adapter.EXTENSION,
            top=limit,
            active=active_keys(self.snap, self.settings.project_dir),
        )
        found = []
        for c in r.candidates:
            skill = self.tree.by_key.get(c.spec.key)
            found.append(
                {
                    "name": c.spec.name,
                    "uri": skill.uri if skill is not None else None,
                    "description": c.spec.description,
                    "score": round(c.score, 3),
                    "why": c.why,
                }
            )
        data = {"decision": r.decision, "reason": r.reason, "skills": found}
        text = json.dumps(data, ensure_ascii=False, indent=1)
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(text=text)], structured_content=data
        )


def page_start(cursor: str | None, total: int) -> int:
    """Where a page starts: the cursor this server gave (an offset), else -32602."""
    if not cursor:
        return 0
    if len(cursor) > 12 or not (cursor.isascii() and cursor.isdigit()) or int(cursor) > total:
        raise sep2640.invalid_params(f"cursor {cursor[:40]!r} is not one this server gave")
    return int(cursor)


def _tool_error(message: str) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=message)], is_error=True)


def _contents(
    uri: str, data: bytes
) -> mcp_types.TextResourceContents | mcp_types.BlobResourceContents:
    mime = mime_of(uri)
    try:
        return mcp_types.TextResourceContents(uri=uri, mime_type=mime, text=data.decode("utf-8"))
    except UnicodeDecodeError:
        import base64

        blob = base64.b64encode(data).decode("ascii")
        return mcp_types.BlobResourceContents(uri=uri, mime_type=mime, blob=blob)


def build_server(served: Served) -> LowServer:
    """The low-level server with every handler registered."""
    from mcp.server.lowlevel.server import Server

    from codebot import __version__

    tree = served.tree

    async def list_tools(ctx: Ctx, params: object) -> mcp_types.ListToolsResult:
        tool = mcp_types.Tool(
            name=SEARCH_TOOL,
            description="Find the skills for a task in codebot's catalog, best first, with "
            "why each matched (codebot's router).",
            input_schema=_SCHEMA,
            annotations=mcp_types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        )
        return mcp_types.ListToolsResult(tools=[tool])

    async def call_tool(
        ctx: Ctx, params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        if params.name != SEARCH_TOOL:
            return _tool_error(f"no tool {params.name[:80]!r}; this server has {SEARCH_TOOL}")
        return served.search(params.arguments)

    async def list_resources(
        ctx: Ctx, params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        skills = list(tree.skills.values())
        start = page_start(params.cursor if params else None, len(skills))
        rows = [
            mcp_types.Resource(
                uri=s.uri,
                name=s.spec.name,
                description=s.spec.description,
                mime_type="text/markdown",
            )
            for s in skills[start : start + PAGE]
        ]
        more = start + PAGE < len(skills)
        return mcp_types.ListResourcesResult(
            resources=rows, next_cursor=str(start + PAGE) if more else None
        )

    async def read_resource(
        ctx: Ctx, params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        try:
            data = tree.read(str(params.uri))
        except TreeError as exc:
            raise sep2640.invalid_params(str(exc)) from None
        return mcp_types.ReadResourceResult(contents=[_contents(str(params.uri), data)])

    async def list_skills(
        ctx: Ctx, params: mcp_types.PaginatedRequestParams
    ) -> sep2640.ListSkillsResult:
        return served.entries(params.cursor)

    async def get_skill(ctx: Ctx, params: sep2640.GetSkillParams) -> sep2640.GetSkillResult:
        try:
            return sep2640.GetSkillResult(skill=tree.entry(tree.get(params.uri)))
        except TreeError as exc:
            raise sep2640.invalid_params(str(exc)) from None

    async def read_directory(
        ctx: Ctx, params: sep2640.DirectoryReadParams
    ) -> sep2640.DirectoryReadResult:
        try:
            children = tree.children(params.uri)
        except TreeError as exc:
            raise sep2640.invalid_params(str(exc)) from None
        start = page_start(params.cursor, len(children))
        rows = [
            mcp_types.Resource(
                uri=uri, name=name, mime_type=sep2640.DIRECTORY_MIME if is_dir else mime_of(name)
            )
            for uri, name, is_dir in children[start : start + PAGE]
        ]
        more = start + PAGE < len(children)
        return sep2640.DirectoryReadResult(
            resources=rows, next_cursor=str(start + PAGE) if more else None
        )

    server: LowServer = Server(
        "codebot",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )
    sep2640.install(
        server, list_skills=list_skills, get_skill=get_skill, read_directory=read_directory
    )
    return server


def serve(served: Served, http_port: int | None = None) -> None:
    """Run until stdin closes (stdio) or the process is stopped (HTTP)."""
    import anyio

    server = build_server(served)
    anyio.run(_stdio if http_port is None else _http, server, http_port)


async def _stdio(server: LowServer, _port: int | None) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def _http(server: LowServer, port: int | None) -> None:
    import uvicorn

    app = server.streamable_http_app()
    config = uvicorn.Config(app, host="127.0.0.1", port=port or 0, log_level="warning")
    print(f"codebot mcp serve: http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    await uvicorn.Server(config).serve()
