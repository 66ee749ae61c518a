"""`codebot mcp serve [--skills-dir DIR]... [--http PORT]`: the catalog `codebot skills list`
shows (with the given folders) served over MCP; see codebot/mcp/serve.py and docs/mcp.md.

Nothing but the protocol goes to stdout: warnings go to stderr."""

from __future__ import annotations

import argparse
import sys

from codebot.config import Settings
from codebot.display import visible


def run_serve(settings: Settings, args: argparse.Namespace) -> int:
    port = args.http
    if port is not None and not 1 <= port <= 65535:
        print(f"codebot: error: --http {port}: a port is 1 to 65535", file=sys.stderr)
        return 2
    from codebot.mcp.serve import Served, serve
    from codebot.workspace import open_catalog

    for w in settings.warnings:
        print(f"codebot: warning: {visible(str(w))}", file=sys.stderr)
    snap = open_catalog(settings).snapshot
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
