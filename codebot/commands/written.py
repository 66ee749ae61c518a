"""`codebot written`: the files among the protected set that codebot's agent wrote.

Such a file (a skill, an agent, `.codebot/config.yaml`, an instruction file, git's config
or hooks) is *agent-written* until the person accepts it: its commands are asked, its
grants and config keys are dropped, in every session (`codebot.provenance`).

    codebot written [--json]         list them, with the diff since before the change
    codebot written --accept PATH    accept one (or --all): it counts as the person's own
    codebot written --revert PATH    put it back as it was before codebot's agent changed it
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codebot.commands.args import Subparsers

HELP = (
    "files codebot's agent wrote among skills, config, instructions and git's config: review, "
    "accept, revert"
)


def add_parser(
    subparsers: Subparsers, common: Callable[..., None] | None = None
) -> argparse.ArgumentParser:
    p = subparsers.add_parser("written", help=HELP, description=HELP)
    if common is not None:
        common(p, suppress=True)
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--accept", metavar="PATH", nargs="+", help="accept these files (project-relative paths)"
    )
    what.add_argument("--all", action="store_true", help="accept every listed file")
    what.add_argument(
        "--revert",
        metavar="PATH",
        help="restore this file as it was before codebot's agent changed it",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--no-diff", action="store_true", help="list without the diffs")
    return p


def run(args: argparse.Namespace) -> int:
    from codebot.commands.args import settings_from
    from codebot.provenance import Provenance, ProvenanceError, listing, render

    settings = settings_from(args)
    store = Provenance(settings.home, settings.project_dir)
    try:
        if args.accept or args.all:
            chosen = store.accept(None if args.all and not args.accept else list(args.accept))
            if args.accept and not chosen:
                print(
                    f"codebot: none of {', '.join(args.accept)} is marked as written by codebot's "
                    "agent; "
                    "run 'codebot written' to list them",
                    file=sys.stderr,
                )
                return 2
            print(f"accepted {len(chosen)} file(s): {', '.join(chosen) or '-'}")
            return 0
        if args.revert:
            print(store.revert(args.revert))
            return 0
    except ProvenanceError as exc:
        print(f"codebot: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"codebot: {exc}", file=sys.stderr)
        return 1
    rows = listing(store, diffs=not args.no_diff)
    if store.warning:
        print(f"codebot: warning: {store.warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        print(render(rows, str(settings.project_dir)))
    return 0
