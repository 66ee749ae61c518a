"""MCP servers' SEP-2640 skills in `codebot skills list|route|show`, outside a session.

The same servers a session would start (`mcp.startable`: your own config's and
`--mcp-config` servers, a trusted project's approved ones; nothing is ever asked) are
started the way a session starts them (`mcp.session_skills.SkillServers`: in parallel,
each within its `startup_timeout`, its own process group), their skills join the catalog
as source `mcp:<server>` (`source_set`, as a session's catalog), and the servers are
closed when the command is done. A server that is not started or fails is one line on
stderr; its skills are simply not there. Nothing is loaded when no server is defined.
`skills show <server>:<name>` fetches and checks the body as an invocation in a session
does (`ServerSource.fetch_body`: `skills/get`, `resources/read`, digest and frontmatter).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from codebot.config import Settings

if TYPE_CHECKING:
    from codebot.mcp.session_skills import SkillServers
    from codebot.skills.catalog import Catalog, Snapshot
    from codebot.skills.files import Spec

__all__ = ["body_of", "catalog_with_servers", "resolve", "snapshot_with_servers"]

#: Longest a server's error is shown (like `/mcp`).
ERROR_MAX = 400


def _warn(text: str) -> None:
    from codebot.display import visible

    line = visible(" ".join(text.split()))
    if len(line) > ERROR_MAX:
        line = line[: ERROR_MAX - 1] + "…"
    print(f"codebot: {line}", file=sys.stderr)


def _start(settings: Settings) -> SkillServers | None:
    """The servers that may start, started and settled (each within its
    startup_timeout); None when there are none. Lines on stderr for the others."""
    from codebot.agent.session.mcp_setup import any_servers

    if not any_servers(settings):
        return None  # nothing defined anywhere: not even the MCP modules are loaded
    from codebot.mcp.startable import startable

    chosen, notices = startable(settings)  # never asks: unapproved servers do not start
    for notice in notices:
        _warn(notice)
    if not chosen:
        return None
    from codebot.agent.tools.shell import install_handlers, track_group, untrack_group
    from codebot.mcp.session_skills import SkillServers

    install_handlers()  # a SIGTERM or SIGHUP while they start ends their groups too
    servers = SkillServers(
        chosen,
        home=settings.home,
        project=settings.project_dir,
        environ=os.environ,
        track=track_group,
        untrack=untrack_group,
    )
    try:
        servers.wait_started()
    except BaseException:  # Ctrl+C while they start: none is left running
        servers.close()
        raise
    for row in servers.status():
        if row["status"] != "ready":
            # still starting: on a loaded machine the SDK's import alone may outlast the wait
            still = "still starting when its startup_timeout had passed"
            why = row["error"] or (still if row["status"] == "starting" else row["status"])
            _warn(f"MCP server {row['name']} failed to start: {why}; its skills are not listed")
    return servers


@contextlib.contextmanager
def catalog_with_servers(settings: Settings) -> Iterator[Catalog]:
    """The catalog of `settings` with the skills of its MCP servers, which are closed
    (their process groups killed) when the block ends."""
    from codebot.workspace import open_catalog

    catalog = open_catalog(settings)
    servers = _start(settings)
    if servers is None:
        yield catalog
        return
    from codebot.mcp.session_skills import source_set

    try:
        catalog.sources = source_set(servers)
        yield catalog
    finally:
        servers.close()


def snapshot_with_servers(settings: Settings) -> Snapshot:
    """The catalog's snapshot with its servers' skills (the servers are closed again)."""
    with catalog_with_servers(settings) as catalog:
        return catalog.snapshot


def resolve(catalog: Catalog, name: str) -> Spec | None:
    """`name`'s skill, or the one server skill `<server>:<name>` a plain name reaches."""
    snap = catalog.snapshot
    spec = snap.get(name)
    if spec is None and catalog.sources is not None:
        spec, _ = catalog.sources.resolve(name, snap)
    return spec


def body_of(catalog: Catalog, spec: Spec) -> tuple[str | None, str]:
    """(the checked body of a server's skill, "") or (None, why it was refused)."""
    import asyncio

    from codebot.skills.catalog import SourceError

    source = catalog.sources.source_of(spec) if catalog.sources is not None else None
    if source is None:
        return None, f"skill {spec.name!r} comes from {spec.root.family}, which is not connected"
    try:
        return asyncio.run(source.fetch_body(spec)), ""
    except SourceError as exc:
        return None, f"skill {spec.name!r} refused: {exc}"
