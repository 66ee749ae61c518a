"""Skills from sources (an MCP server's SEP-2640 skills) when they are invoked: the name
typed resolved (`/<name>` reaches `<server>:<name>` when no other skill has that name),
and the body fetched from the source, checked, for `Request(body=...)`. A source's
failure (digest mismatch, frontmatter changed, server gone) is an `InvocationError`
whose message names the server: shown to the person, or the tool result to the model.
Its supporting files are read through the source when Read is given a path under the
skill's `dir` (`read_supporting`).
"""

from __future__ import annotations

from collections.abc import Mapping

from codebot.agent.tools import ToolResult
from codebot.skills.catalog import Catalog
from codebot.skills.files import Source
from codebot.skills.invoke import Actor
from codebot.skills.invoke.invocation import InvocationError

__all__ = ["body_of", "known", "read_supporting", "resolve"]


async def known(catalog: Catalog, name: str) -> bool:
    """Whether `name` is a skill's, once servers still starting have listed theirs (so
    `/srv:acme/refunds` typed at once is not taken for a path)."""
    if catalog.snapshot.get(name) is not None:
        return True
    if catalog.sources is None:
        return False
    await catalog.sources.settle()
    return catalog.snapshot.get(name) is not None


async def resolve(catalog: Catalog, name: str) -> tuple[str, InvocationError | None]:
    """The name to invoke: `name` itself, or the one source skill it is the last part
    of; an error when several servers' skills have it and no other skill does."""
    sources = catalog.sources
    if sources is None:
        return name, None
    bare = name.lstrip("/")
    if catalog.snapshot.get(bare) is None:
        await sources.settle()  # a server still starting may bring it
    spec, several = sources.resolve(bare, catalog.snapshot)
    if spec is not None:
        return spec.name, None
    if several:
        return name, InvocationError(
            "unknown",
            bare,
            f"{bare!r} names skills of several MCP servers ({', '.join(several)}); "
            "invoke one as /<server>:<name>",
            tuple(several),
        )
    return name, None


async def body_of(
    catalog: Catalog, name: str, actor: Actor, overrides: Mapping[str, str]
) -> tuple[str | None, InvocationError | None]:
    """A source skill's checked body (None for a folder's skill, which is read from its
    file), or the error that refuses it. Nothing is fetched for a skill `actor` may not
    run: the invocation then says why."""
    from codebot.skills.catalog import SourceError
    from codebot.skills.invoke import decide

    spec = catalog.snapshot.get(name.lstrip("/"))
    if spec is None or spec.source is not Source.MCP:
        return None, None
    if not decide(spec, actor, overrides).allowed:
        return None, None
    source = catalog.sources.source_of(spec) if catalog.sources is not None else None
    if source is None:
        why = f"skill {spec.name!r} comes from {spec.root.family}, which is not in this session"
        return None, InvocationError("source", spec.name, why, spec=spec)
    try:
        return await source.fetch_body(spec), None
    except SourceError as exc:
        return None, InvocationError(
            "source", spec.name, f"skill {spec.name!r} refused: {exc}", spec=spec
        )


async def read_supporting(catalog: Catalog, args: Mapping[str, object]) -> ToolResult | None:
    """A Read of a path under a source skill's `dir` (`mcp:<server>/<skill>/…`, as its
    `<skill>` wrapper shows it): the file through the source's `read_file`, only at a URI
    the skill lists, checked against its digest. None for any other path (Read reads it)."""
    from codebot.skills.catalog import SourceError

    path = args.get("path")
    if not isinstance(path, str) or catalog.sources is None or not path.startswith("mcp:"):
        return None
    found = [
        s
        for s in catalog.snapshot
        if s.source is Source.MCP and path.startswith(f"{s.dir.as_posix()}/")
    ]
    if not found:
        return None
    spec = max(found, key=lambda s: len(s.dir.as_posix()))  # the deepest skill folder
    source = catalog.sources.source_of(spec)
    read_file = getattr(source, "read_file", None)
    if read_file is None:
        why = f"{path} is a file of skill {spec.name}, whose source is not in this session"
        return ToolResult(why, "error")
    try:
        data = await read_file(spec, path[len(spec.dir.as_posix()) + 1 :])
    except SourceError as exc:
        return ToolResult(str(exc), "error")
    text = bytes(data).decode("utf-8", errors="replace")
    return ToolResult(_numbered(text, args.get("offset"), args.get("limit")))


def _numbered(text: str, offset: object, limit: object) -> str:
    """Lines numbered like Read's (`cat -n`), from `offset`, at most `limit` of them."""
    start = offset if isinstance(offset, int) and offset > 0 else 1
    count = limit if isinstance(limit, int) and limit > 0 else 2000
    lines = text.splitlines()[start - 1 : start - 1 + count]
    return "\n".join(f"{n:>6}\t{line[:2000]}" for n, line in enumerate(lines, start)) or "(empty)"
