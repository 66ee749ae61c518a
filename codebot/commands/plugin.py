"""`codebot plugin`: the Claude Code plugins codebot loads, and installing local ones.

    codebot plugin list [--json]          every plugin found: name, version, folder, where
                                          from, counts of skills/commands/agents/hooks,
                                          problems
    codebot plugin install PATH [--force] copy a plugin folder into $CODEBOT_HOME/plugins
    codebot plugin remove NAME            remove an installed plugin

See docs/compatibility.md ("Plugins") for what a plugin brings and how it is trusted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codebot.display import visible

if TYPE_CHECKING:
    from codebot.config import Settings
    from codebot.skills.catalog.plugins import Plugin

HELP = "Claude Code plugins: list the ones found, install a local one, remove one"
ORIGINS = {
    "project": "this project",
    "dir": "--plugin-dir",
    "home": "installed",
}


def add_parser(subparsers: Any, common: Callable[..., None]) -> argparse.ArgumentParser:
    p = subparsers.add_parser("plugin", help=HELP, description=HELP)
    common(p, suppress=True)
    sub = p.add_subparsers(dest="plugin_command", metavar="SUBCOMMAND", title="subcommands")
    sub.required = True
    q = sub.add_parser("list", help="every plugin found, with counts and problems")
    common(q, suppress=True)
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q = sub.add_parser("install", help="copy a local plugin folder into $CODEBOT_HOME/plugins")
    common(q, suppress=True)
    q.add_argument("path", type=Path, metavar="PATH")
    q.add_argument("--force", action="store_true", help="replace an installed plugin of that name")
    q = sub.add_parser("remove", help="remove an installed plugin")
    common(q, suppress=True)
    q.add_argument("name", metavar="NAME")
    return p


def run(args: argparse.Namespace) -> int:
    from codebot.commands.args import settings_from
    from codebot.commands.plugin_install import InstallError, install, remove

    settings = settings_from(args)
    try:
        if args.plugin_command == "install":
            plugin, dest = install(settings.home, args.path, force=args.force)
            counts = _counts(plugin)
            print(f"installed {plugin.name} in {visible(str(dest))} ({_said(counts)})")
            return 0
        if args.plugin_command == "remove":
            gone = remove(settings.home, args.name)
            print(f"removed {visible(str(gone))}")
            return 0
    except InstallError as exc:
        print(f"codebot: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"codebot: error: {visible(str(exc))}", file=sys.stderr)
        return 1
    rows = rows_of(settings)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("no plugins (install one with `codebot plugin install PATH`, or --plugin-dir DIR)")
    for row in rows:
        head = f"{row['name']}" + (f" {row['version']}" if row["version"] else "")
        state = "loaded" if row["loaded"] else "not loaded"
        print(f"{head}  ({ORIGINS[row['origin']]}, {state})  {visible(row['root'])}")
        print(f"  {_said(row['counts'])}")
        if row["description"]:
            print(f"  {row['description']}")
        for problem in row["problems"]:
            print(f"  problem: {visible(problem)}")
    return 0


def rows_of(settings: Settings) -> list[dict[str, Any]]:
    """Every plugin of this session, and the project's own even when it does not load."""
    from codebot.skills.catalog.plugins import read_plugin
    from codebot.workspace import plugins_for

    found = plugins_for(settings)
    own = None if settings.project_plugin else read_plugin(settings.project_dir, "project")
    if own is not None and not any(p.root == own.root for p in found):
        found.insert(0, own)
    rows = []
    for p in found:
        problems = list(p.problems)
        if p.origin == "project" and not settings.project_plugin:
            problems.append(
                "the project's plugin is not loaded: answer yes at the interactive start, "
                "trust the folder (`codebot trust`), or pass --plugin-dir ."
            )
        rows.append(
            {
                "name": p.name,
                "version": p.version,
                "description": p.description,
                "root": str(p.root),
                "origin": p.origin,
                "loaded": p.loadable and (p.origin != "project" or settings.project_plugin),
                "counts": _counts(p),
                "problems": problems,
            }
        )
    return rows


def _counts(plugin: Plugin) -> dict[str, int]:
    """Skills, commands, agents and hook commands of a plugin (as its files say)."""
    from codebot.agent.hooks import load_hooks_file
    from codebot.skills.catalog import Catalog
    from codebot.skills.catalog.roots import plugin_skill_roots

    catalog = Catalog(plugin_skill_roots([plugin]) if plugin.loadable else [])
    catalog.load()
    specs = list(catalog.snapshot.skills.values())
    commands = sum(1 for s in specs if s.root.family == "commands")
    agents = 0
    for d in plugin.agents:
        try:
            agents += sum(1 for e in os.scandir(d) if e.name.endswith(".md") and e.is_file())
        except OSError:
            pass
    hooks = sum(len(load_hooks_file(f, f"plugin:{plugin.name}", plugin.root)) for f in plugin.hooks)
    return {
        "skills": len(specs) - commands,
        "commands": commands,
        "agents": agents,
        "hooks": hooks,
    }


def _said(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {k if n != 1 else k[:-1]}" for k, n in counts.items())
