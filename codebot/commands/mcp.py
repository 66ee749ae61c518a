"""`codebot mcp`: the MCP servers codebot knows, which may start, and editing them.

    codebot mcp list [--json] [--mcp-config FILE]...   every server: source, status, error
    codebot mcp get NAME [--json] [--mcp-config FILE]  one definition, escaped
    codebot mcp add NAME [--scope user|project] [--env K=V]... -- CMD [ARGS...]
    codebot mcp add NAME --transport http URL [--header 'K: V']... [--scope ...]
    codebot mcp remove NAME [--scope user|project]
    codebot mcp approve NAME | --all                   approve this project's servers

Everything shown from a definition goes through `display.visible` (and a newline is shown
as `\\n`): a hostile `.mcp.json` cannot move the cursor, recolour or rewrite the terminal.
`--json` is ASCII-escaped JSON. Exit codes: 0 done; 1 not found, invalid or not written;
2 a wrong command line or an untrusted project for `approve`. See docs/mcp.md.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.display import visible

if TYPE_CHECKING:
    from codebot.commands.args import Subparsers
    from codebot.config import Settings
    from codebot.mcp.approval import Standing
    from codebot.mcp.config import McpConfig, ServerDef

HELP = "MCP servers: list, show, add, remove and approve them"


def add_parser(subparsers: Subparsers, common: Callable[..., None]) -> argparse.ArgumentParser:
    p = subparsers.add_parser("mcp", help=HELP, description=HELP)
    common(p, suppress=True)
    sub = p.add_subparsers(dest="mcp_command", metavar="SUBCOMMAND", title="subcommands")
    sub.required = True
    q = sub.add_parser(
        "list", help="every server with its source and status (connects to approved ones)"
    )
    _with_flags(q, common)
    q.add_argument(
        "--no-connect",
        action="store_true",
        help="do not start approved stdio servers to check them and count their tools",
    )
    q = sub.add_parser("get", help="one server's definition and status")
    _with_flags(q, common)
    q.add_argument("name", metavar="NAME")
    q = sub.add_parser("add", help=ADD_HELP, description=ADD_HELP, usage=ADD_USAGE)
    common(q, suppress=True)
    _add_options(q, defaults=True)
    # NAME, the command or URL and options after NAME: read again by `_add_words`, since
    # argparse cannot mix a variable-length positional with options that follow it.
    q.add_argument("words", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    q = sub.add_parser("remove", help="remove a server from your config or .mcp.json")
    common(q, suppress=True)
    q.add_argument("name", metavar="NAME")
    q.add_argument("--scope", choices=("user", "project"))
    q = sub.add_parser("approve", help="approve this (trusted) project's .mcp.json servers")
    common(q, suppress=True)
    q.add_argument("name", nargs="?", metavar="NAME")
    q.add_argument("--all", action="store_true", help="every server of the project's .mcp.json")
    q = sub.add_parser("serve", help=SERVE_HELP, description=SERVE_HELP)
    common(q, suppress=True)
    q.add_argument(
        "--http", type=int, metavar="PORT", help="Streamable HTTP on 127.0.0.1:PORT/mcp, not stdio"
    )
    q.add_argument(
        "--only-dirs",
        action="store_true",
        help="serve only the --skills-dir folders (no project, user, bundled or plugin skills)",
    )
    return p


SERVE_HELP = "serve the skill catalog over MCP (SEP-2640 skills and a skill_search tool)"


ADD_HELP = "add a server: add NAME -- CMD ARGS..., or add NAME --transport http URL"
ADD_USAGE = (
    "codebot mcp add NAME [--scope user|project] [--env NAME=VALUE]... -- CMD [ARGS...]\n"
    "       codebot mcp add NAME --transport http URL [--header 'NAME: VALUE']... [--scope ...]"
)


def _add_options(q: argparse.ArgumentParser, defaults: bool) -> None:
    d = None if defaults else argparse.SUPPRESS
    q.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user" if defaults else d,
        help="user: your config.yaml (default); project: the project's .mcp.json",
    )
    q.add_argument("--transport", choices=("stdio", "http"), default="stdio" if defaults else d)
    q.add_argument("--env", action="append", default=[] if defaults else d, metavar="NAME=VALUE")
    q.add_argument(
        "--header", action="append", default=[] if defaults else d, metavar="'NAME: VALUE'"
    )


def _add_words(args: argparse.Namespace) -> tuple[str, list[str]]:
    """NAME and the command (or URL) of `mcp add`, with options given after NAME merged
    into `args`; UsageError for a wrong line."""
    from codebot.commands.args import Parser, UsageError

    words = list(args.words)
    p = Parser(prog="codebot mcp add", usage=ADD_USAGE, add_help=False)
    _add_options(p, defaults=False)
    p.add_argument("rest", nargs="*")
    cut = words.index("--") if "--" in words else len(words)
    head = p.parse_intermixed_args(words[:cut])  # a wrong option: argparse's message, exit 2
    for key in ("env", "header"):
        setattr(args, key, [*getattr(args, key), *getattr(head, key, [])])
    for key in ("scope", "transport"):
        if hasattr(head, key):
            setattr(args, key, getattr(head, key))
    positional = [*head.rest, *words[cut + 1 :]]
    if not positional:
        raise UsageError("mcp add needs a NAME: " + ADD_USAGE.replace("\n      ", " or"))
    return positional[0], positional[1:]


def _with_flags(q: argparse.ArgumentParser, common: Callable[..., None]) -> None:
    common(q, suppress=True)
    q.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    from codebot.commands.args import settings_from
    from codebot.commands.mcp_edit import EditError

    settings = settings_from(args)
    handlers = {"list": _list, "get": _get, "add": _add, "remove": _remove, "approve": _approve}
    if args.mcp_command == "serve":
        from codebot.commands.mcp_serve import run_serve

        return run_serve(settings, args)
    try:
        return handlers[args.mcp_command](settings, args)
    except EditError as exc:
        _error(str(exc))
        return 1


# -- shared ----------------------------------------------------------------------------------


def shown(text: object) -> str:
    """One line of terminal-safe text: `visible()` with a newline shown as `\\n`."""
    return visible(str(text)).replace("\n", "\\n")


def _error(message: str) -> None:
    print(f"codebot: error: {shown(message)}", file=sys.stderr)


def load(settings: Settings, flag_files: list[Path] | None = None) -> McpConfig:
    """Every definition in force for these settings (problems and clashes on stderr)."""
    from codebot.mcp.config import load_servers

    cfg = load_servers(settings.project_dir, settings.raw, settings.config_path, flag_files or [])
    for said in (*cfg.problems, *cfg.clashes):
        print(f"codebot: warning: {shown(said)}", file=sys.stderr)
    return cfg


def standings(settings: Settings, cfg: McpConfig) -> dict[str, Standing]:
    from codebot.mcp.approval import Approvals, agent_written, standing

    approvals = Approvals.load(settings.home)
    if approvals.warning:
        print(f"codebot: warning: {shown(approvals.warning)}", file=sys.stderr)
    marked = any(s.source == "project" for s in cfg.servers) and agent_written(
        settings.home, settings.project_dir
    )
    return {
        s.name: standing(
            s,
            project=settings.project_dir,
            trusted=settings.trusted,
            approvals=approvals,
            written_by_agent=marked,
        )
        for s in cfg.servers
    }


def row(d: ServerDef, st: Standing) -> dict[str, object]:
    """A `mcp list --json` row; the counts are null until a server has been connected."""
    return {
        "name": d.name,
        "source": d.source,
        "path": d.path,
        "transport": d.transport if not d.error else None,
        "status": st.status,
        "tools": None,
        "prompts": None,
        "skills": None,
        "server": None,
        "error": d.error or None,
        "hint": (st.reason or None) if not d.error else None,
    }


# -- list / get --------------------------------------------------------------------------------


def _list(settings: Settings, args: argparse.Namespace) -> int:
    cfg = load(settings, list(settings.mcp_configs))
    st = standings(settings, cfg)
    rows = [row(d, st[d.name]) for d in cfg.servers]
    if not args.no_connect:
        _connect(settings, cfg, st, rows)
    if args.json:
        print(json.dumps(rows, ensure_ascii=True, indent=2))
        return 0
    if not rows:
        print(
            "no MCP servers (add one with `codebot mcp add NAME -- CMD ARGS...`, or define "
            "them in the project's .mcp.json)"
        )
    for r in rows:
        counts = f"  {r['tools']} tools, {r['prompts']} prompts" if r["tools"] is not None else ""
        if counts and r["skills"]:
            counts += f", {r['skills']} skills"
        print(f"{shown(r['name'])}  {r['source']}  {r['status']}{counts}")
        for name, tool in dict(r.get("renamed") or {}).items():  # type: ignore[arg-type]
            print(f"  tool {shown(tool)} is {shown(name)}")
        if r["error"]:
            print(f"  error: {shown(r['error'])}")
        elif r["hint"]:
            print(f"  {shown(r['hint'])}")
    return 0


def _connect(
    settings: Settings, cfg: McpConfig, st: dict[str, Standing], rows: list[dict[str, object]]
) -> None:
    """Connect every approved server (in parallel, each within its startup_timeout),
    and put what it answered in its row: "ready" with counts, or "failed" with why."""
    import os

    from codebot.mcp.connect import probe_all

    chosen = [d for d in cfg.servers if st[d.name].may_start]
    if not chosen:
        return
    found = probe_all(chosen, home=settings.home, project=settings.project_dir, environ=os.environ)
    from codebot.mcp.names import server_key, tool_names

    pairs = [(d.name, t) for d in chosen if d.name in found for t in found[d.name].tool_names]
    seen_as = tool_names(pairs)
    for r in rows:
        p = found.get(str(r["name"]))
        if p is None:
            continue
        if p.ready:
            r.update(
                status="ready", tools=p.tools, prompts=p.prompts, skills=p.skills, server=p.server
            )
            key = server_key(p.name)
            # the names the model sees that are not plain `mcp__<server>__<tool>` (clashes)
            r["renamed"] = {
                seen_as[(p.name, t)]: t
                for t in p.tool_names
                if seen_as[(p.name, t)] != f"{key}__{t}"
            }
        else:
            r.update(status="failed", error=p.error)


def _get(settings: Settings, args: argparse.Namespace) -> int:
    cfg = load(settings, list(settings.mcp_configs))
    d = cfg.get(args.name)
    if d is None:
        known = ", ".join(shown(s.name) for s in cfg.servers) or "none"
        _error(f"no MCP server {args.name} (known: {known})")
        return 1
    st = standings(settings, cfg)[d.name]
    if args.json:
        out = row(d, st) | {"definition": dict(d.written)}
        print(json.dumps(out, ensure_ascii=True, indent=2, default=str))
        return 0
    print("\n".join(describe(d, st)))
    return 0


def describe(d: ServerDef, st: Standing) -> list[str]:
    """What the person reads before approving: every field, escaped. A value that reads a
    variable is shown as written, and, for command, args and url, also as it expands unless
    a secret-looking variable fills it (its value is never printed)."""
    lines = [
        f"name:      {shown(d.name)}",
        f"source:    {shown(d.where)}",
        f"status:    {st.status}" + (f" ({shown(st.reason)})" if st.reason and not d.error else ""),
    ]
    if d.error:
        lines.append(f"error:     {shown(d.error)}")
        text = json.dumps(dict(d.written), ensure_ascii=False, default=str)
        return [*lines, f"as written: {shown(text)}"]
    lines.append(f"transport: {d.transport}")
    w = d.written
    if d.transport == "stdio":
        argv = [str(w.get("command")), *map(str, _list_of(w.get("args")))]
        lines += _expanded("command:  ", shlex.join(argv), shlex.join([d.command, *d.args]))
        if d.cwd is not None:
            lines.append(f"cwd:       {shown(d.cwd)}")
        for k, v in _dict_of(w.get("env")).items():
            lines.append(f"env:       {shown(k)}={shown(v)}")
    else:
        lines += _expanded("url:      ", str(w.get("url")), d.url)
        for k, v in _dict_of(w.get("headers")).items():
            lines.append(f"header:    {shown(k)}: {shown(v)}")
    if d.variables:
        from codebot.environment import is_secret

        secret = [v for v in d.variables if is_secret(v)]
        lines.append(f"reads:     {', '.join(d.variables)} from your environment")
        if secret:
            lines.append(
                f"note:      {', '.join(secret)} look(s) secret: the server receives that value"
            )
    return lines


def _expanded(label: str, written: str, expanded: str) -> list[str]:
    from codebot.environment import is_secret
    from codebot.mcp.expand import variables_in

    lines = [f"{label} {shown(written)}"]
    if expanded != written:
        if any(is_secret(v) for v in variables_in(written)):
            lines.append("  (expands with a secret-looking variable; not shown)")
        else:
            lines.append(f"  expands to: {shown(expanded)}")
    return lines


def _list_of(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _dict_of(value: object) -> dict[object, object]:
    return value if isinstance(value, dict) else {}


# -- add / remove ------------------------------------------------------------------------------


def _add(settings: Settings, args: argparse.Namespace) -> int:
    from codebot.commands.mcp_edit import add_server, entry_for

    name, target = _add_words(args)
    entry = entry_for(name, args.transport, target, args.env, args.header)
    path = add_server(args.scope, name, entry, settings.home, settings.project_dir)
    print(f"added MCP server {shown(name)} to {shown(path)} ({args.scope} scope)")
    if args.scope == "project":
        first = "" if settings.trusted else "trust this project (`codebot trust`), then "
        print(f"it starts once you {first}approve it: codebot mcp approve {shown(name)}")
    return 0


def _remove(settings: Settings, args: argparse.Namespace) -> int:
    from codebot.commands.mcp_edit import defined_in, remove_server

    scopes = defined_in(args.name, settings.raw, settings.project_dir)
    scope = args.scope
    if scope is None:
        if not scopes:
            _error(f"no MCP server {args.name} in your config or this project's .mcp.json")
            return 1
        if len(scopes) > 1:
            _error(f"{args.name} is defined in your config and in .mcp.json: add --scope")
            return 2
        scope = scopes[0]
    path = remove_server(scope, args.name, settings.home, settings.project_dir)
    if scope == "project":
        from codebot.mcp.approval import ApprovalError, forget

        try:
            forget(settings.home, settings.project_dir, [args.name])
        except ApprovalError as exc:
            print(f"codebot: warning: {shown(exc)}", file=sys.stderr)
    print(f"removed MCP server {shown(args.name)} from {shown(path)}")
    return 0


# -- approve -----------------------------------------------------------------------------------


def _approve(settings: Settings, args: argparse.Namespace) -> int:
    from codebot.mcp.approval import ApprovalError, agent_written, approve

    if bool(args.name) == bool(args.all):
        _error("give one server NAME, or --all for every server of this project's .mcp.json")
        return 2
    if not settings.trusted:
        _error(
            f"{settings.project_dir} is not trusted, so its .mcp.json starts nothing: run "
            "`codebot trust` first, then approve its servers"
        )
        return 2
    if agent_written(settings.home, settings.project_dir):
        _error(
            ".mcp.json was written by codebot's agent and is not accepted: review it with "
            "`codebot written`, accept it with `codebot written --accept .mcp.json`, then approve"
        )
        return 1
    cfg = load(settings)
    chosen = [s for s in cfg.servers if s.source == "project" and (args.all or s.name == args.name)]
    if args.name and not chosen:
        d = cfg.get(args.name)
        if d is None:
            _error(f"no MCP server {args.name} in this project's .mcp.json")
            return 1
        print(f"{shown(d.name)} is from {shown(d.where)}: your own servers need no approval")
        return 0
    if not chosen:
        print("this project's .mcp.json defines no servers")
        return 0
    status = 0
    good = []
    for d in chosen:
        if d.error:
            _error(f"not approved: {d.error}")
            status = 1
            continue
        good.append(d)
    try:
        approve(settings.home, settings.project_dir, good)
    except ApprovalError as exc:
        _error(str(exc))
        return 1
    st = standings(settings, cfg)
    for d in good:
        print(f"approved {shown(d.name)}; it runs exactly this (a change asks again):")
        print("\n".join("  " + line for line in describe(d, st[d.name])))
    return status
