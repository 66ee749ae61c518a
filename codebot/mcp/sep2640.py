"""SEP-2640 (skills over MCP) on the official SDK, which has no support for it yet: the
request and result types, the method names, the `sha256:` digest, the capability, and the
plumbing that registers the methods on a low-level `Server` and sends them from a
`ClientSession`. Everything SEP-2640-specific that touches the SDK is here, so this one
module is what changes when the SDK ships its own.

The wire, as the SEP specifies it:

- capability: `capabilities.extensions["io.modelcontextprotocol/skills"] =
  {"directoryRead": bool}` (an empty object: the extension without directory reads);
- `skills/list` `{cursor?}` → `{skills: [Entry], nextCursor?}`;
- `skills/get` `{uri}` → `{skill: Entry}` (-32602 for a URI that is not a skill);
- Entry = `{uri, frontmatter, resources: [{uri, digest, size}] | "dynamic"}`, where
  `frontmatter` is the SKILL.md's YAML frontmatter rendered verbatim as JSON and `digest`
  is `sha256:` + 64 lowercase hex digits of the file's raw bytes;
- `resources/directory/read` `{uri, cursor?}` → `{resources: [Resource], nextCursor?}`
  (children of a directory resource, `mimeType: inode/directory` for folders), only where
  `directoryRead` is true.

The SDK is imported lazily by the functions that need it; the models need pydantic and
`mcp_types` (the SDK's type package), imported when this module is.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import mcp_types
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

if TYPE_CHECKING:
    from typing import TypeAlias

    from mcp.client.session import ClientSession
    from mcp.server.context import HandlerResult, ServerRequestContext
    from mcp.server.lowlevel.server import NotificationOptions, Server
    from mcp.server.models import InitializationOptions

    # the SDK's generic over a lifespan value; handlers take their own params type
    Handler: TypeAlias = Callable[[ServerRequestContext[Any], Any], Awaitable[HandlerResult]]
    Capabilities: TypeAlias = dict[str, dict[str, Any]]  # the SDK's own type (parsed JSON)

__all__ = [
    "DIRECTORY_MIME",
    "EXTENSION",
    "GET",
    "LIST",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "READ_DIRECTORY",
    "DirectoryReadParams",
    "DirectoryReadResult",
    "GetSkillParams",
    "GetSkillResult",
    "ListSkillsResult",
    "SkillEntry",
    "SkillFile",
    "declared",
    "digest",
    "frontmatter_json",
    "get_skill",
    "install",
    "invalid_params",
    "list_skills",
    "read_directory",
    "valid_digest",
]

EXTENSION = "io.modelcontextprotocol/skills"
LIST = "skills/list"
GET = "skills/get"
READ_DIRECTORY = "resources/directory/read"
DIRECTORY_MIME = "inode/directory"
#: The SEP's per-skill limits: entries of `resources`, and the sum of their sizes.
MAX_SKILL_FILES = 512
MAX_SKILL_BYTES = 16 * 1024 * 1024
#: A client reads at most this many pages of `skills/list` (a server that never stops).
MAX_PAGES = 1000

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def digest(data: bytes) -> str:
    """The SEP's digest of raw bytes: `sha256:` and 64 lowercase hex digits."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def valid_digest(text: str) -> bool:
    return _DIGEST.fullmatch(text) is not None


# -- types -------------------------------------------------------------------------------------


class _Model(BaseModel):
    """camelCase on the wire, snake_case in Python, as the SDK's own types."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class SkillFile(_Model):
    """One file of a skill: `{uri, digest, size}`."""

    uri: str
    digest: str
    size: int = Field(ge=0)


class SkillEntry(_Model):
    """A skill as `skills/list` and `skills/get` give it."""

    uri: str
    frontmatter: dict[str, Any]  # parsed JSON: a boundary
    resources: list[SkillFile] | Literal["dynamic"]


class ListSkillsResult(mcp_types.PaginatedResult):
    skills: list[SkillEntry]
    result_type: mcp_types.ResultType = "complete"


class _ListPage(mcp_types.PaginatedResult):
    """A page as received: each entry is checked alone, so one bad entry is one problem."""

    skills: list[object]


class GetSkillParams(mcp_types.RequestParams):
    uri: str


class GetSkillResult(mcp_types.Result):
    skill: SkillEntry
    result_type: mcp_types.ResultType = "complete"


class DirectoryReadParams(mcp_types.RequestParams):
    uri: str
    cursor: str | None = None


class DirectoryReadResult(mcp_types.PaginatedResult):
    resources: list[mcp_types.Resource]
    result_type: mcp_types.ResultType = "complete"


class _Request(mcp_types.Request[dict[str, Any] | None, str]):
    """A request of a method the SDK does not know (params as plain JSON)."""


def invalid_params(message: str) -> Exception:
    """The error a handler raises for an unknown skill or resource (-32602)."""
    from mcp.shared.exceptions import MCPError

    return MCPError(code=mcp_types.INVALID_PARAMS, message=message)


# -- frontmatter as JSON -----------------------------------------------------------------------


def _json_value(value: object) -> object:
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def frontmatter_json(data: bytes) -> dict[str, Any] | None:
    """A SKILL.md's frontmatter as the JSON object the SEP lists (YAML as a plain safe
    load reads it, dates as ISO text), or None when it has none or it cannot be read.
    Both ends use this, so what a server lists and what a client compares agree."""
    from codebot.skills.files.frontmatter import FrontmatterError, load, split, unwrap_numbers

    try:
        sp = split(data)
        if sp is None:
            return None
        raw, _ = load(sp)
    except (FrontmatterError, RecursionError, ValueError):
        return None
    value = _json_value(unwrap_numbers(raw))
    # a JSON round trip, so the comparison sees what the wire carries
    out = json.loads(json.dumps(value))
    return out if isinstance(out, dict) else None


# -- the server side ---------------------------------------------------------------------------


def install(
    server: Server[Any],
    *,
    list_skills: Handler,
    get_skill: Handler,
    read_directory: Handler | None,
) -> None:
    """Register `skills/list`, `skills/get` (and `resources/directory/read` when given) on a
    low-level server and declare the extension, with `directoryRead` when it is served."""
    server.add_request_handler(LIST, mcp_types.PaginatedRequestParams, list_skills)
    server.add_request_handler(GET, GetSkillParams, get_skill)
    if read_directory is not None:
        server.add_request_handler(READ_DIRECTORY, DirectoryReadParams, read_directory)
    settings: dict[str, object] = {"directoryRead": True} if read_directory is not None else {}
    server.extensions = {**(server.extensions or {}), EXTENSION: settings}
    # A 2025-11-25 `initialize` result has no `extensions` (the SDK drops it on that wire);
    # there the declaration is mirrored under `experimental`, which `declared` also reads.
    plain = server.create_initialization_options

    def with_mirror(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: Capabilities | None = None,
        extensions: Capabilities | None = None,
    ) -> InitializationOptions:
        mirrored = {EXTENSION: settings, **(experimental_capabilities or {})}
        return plain(notification_options, mirrored, extensions)

    setattr(server, "create_initialization_options", with_mirror)  # noqa: B010


# -- the client side ---------------------------------------------------------------------------


def declared(session: ClientSession) -> Mapping[str, object] | None:
    """The extension's settings the server declared (`capabilities.extensions`, or on a
    2025-11-25 `initialize`, where the SDK keeps no `extensions`, `capabilities.experimental`),
    or None when it did not declare the extension."""
    caps = session.server_capabilities
    if caps is None:
        return None
    for where in (caps.extensions, caps.experimental):  # experimental: a 2025-11-25 wire
        if where and EXTENSION in where:
            settings = where[EXTENSION]
            return settings if isinstance(settings, dict) else {}
    return None


async def list_skills(session: ClientSession) -> tuple[list[SkillEntry], list[str]]:
    """Every entry of `skills/list`, all pages (at most MAX_PAGES; a cursor seen twice ends
    the walk), and what was wrong with the entries that are not an entry (an entry with no
    `resources` is invalid and not loaded, as the SEP says)."""
    from pydantic import ValidationError

    entries: list[SkillEntry] = []
    problems: list[str] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        params = {"cursor": cursor} if cursor else {}
        page = await session.send_request(_Request(method=LIST, params=params), _ListPage)
        for raw in page.skills:
            try:
                entries.append(SkillEntry.model_validate(raw))
            except ValidationError as exc:
                uri = raw.get("uri") if isinstance(raw, dict) else None
                where = f"entry {str(uri)[:200]!r}" if uri else "an entry"
                first = exc.errors()[0]
                field = ".".join(str(x) for x in first["loc"]) or "entry"
                problems.append(f"{where} is not a SEP-2640 entry: {field}: {first['msg']}")
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            break
        seen.add(cursor)
    return entries, problems


async def get_skill(session: ClientSession, uri: str) -> SkillEntry:
    result = await session.send_request(_Request(method=GET, params={"uri": uri}), GetSkillResult)
    return result.skill


async def read_directory(
    session: ClientSession, uri: str, cursor: str | None = None
) -> DirectoryReadResult:
    params: dict[str, object] = {"uri": uri}
    if cursor:
        params["cursor"] = cursor
    request = _Request(method=READ_DIRECTORY, params=params)
    return await session.send_request(request, DirectoryReadResult)
