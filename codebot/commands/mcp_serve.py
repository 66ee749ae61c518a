"""`codebot mcp serve [--skills-dir DIR]... [--only-dirs] [--http PORT]`: the catalog
`codebot skills list` shows (with the given folders; with `--only-dirs`, those folders
alone) served over MCP; see codebot/mcp/serve.py and docs/mcp.md.

Nothing but the protocol goes to stdout: warnings go to stderr."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from codebot.config import Settings
from codebot.display import visible

if TYPE_CHECKING:
    from codebot.skills.catalog import Snapshot


def run_serve(settings: Settings, args: argparse.Namespace) -> int:
    port = args.http
    if port is not None and not 1 <= port <= 65535:
        print(f"codebot: error: --http {port}: a port is 1 to 65535", file=sys.stderr)
        return 2
    if args.only_dirs and not settings.skills_dirs:
        print("codebot: error: --only-dirs needs at least one --skills-dir DIR", file=sys.stderr)
        return 2
    from codebot.mcp.serve import Served, serve

    for w in settings.warnings:
        print(f"codebot: warning: {visible(str(w))}", file=sys.stderr)
    snap = _snapshot(settings, args.only_dirs)
    served = Served(snap, settings)
    for note in served.tree.skipped:
        print(f"codebot mcp serve: not served: {visible(note)}", file=sys.stderr)
    try:
        serve(served, port)
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # the port is taken, ...
        print(f"codebot: error: cannot serve: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


def _snapshot(settings: Settings, only_dirs: bool) -> Snapshot:
    if only_dirs:  # as `skills eval --only-dirs` reads them
        from codebot.skills.catalog import Catalog
        from codebot.skills.files import Root, Source

        roots = [
            Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True)
            for i, d in enumerate(settings.skills_dirs)
        ]
        return Catalog(roots).load()
    from codebot.workspace import open_catalog

    return open_catalog(settings).snapshot
