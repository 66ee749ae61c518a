"""`/mcp` in the TUI and line mode: the MCP servers, their standing and what a probe found.

- `rows(settings, probes)` reads the definitions and their approval standing
  (`approval.standing`) and lays what a probe found over them (ready/failed, counts,
  error). The session side can build `Row`s from its live connections instead.
- `render(rows, problems)` is a pure function over rows: a table (name, source, status,
  tools, prompts, skills) with each row's error or hint under it; every value from a
  definition through `display.visible` (a newline as `\\n`), clipped to its column.
- `run(settings, args, probes)` is the command: `/mcp` shows the table, `/mcp probe`
  connects to every server that may start (`connect.probe_all`, each within its
  `startup_timeout`), `/mcp reconnect NAME` (or `/mcp probe NAME`) to that one. The
  front ends run it off the event loop (the command is `off_loop`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from codebot.display import visible

if TYPE_CHECKING:
    from codebot.config import Settings
    from codebot.mcp.connect import Probe

__all__ = ["USAGE", "Row", "render", "rows", "run"]

USAGE = "usage: /mcp · /mcp probe · /mcp reconnect NAME"
#: The widest a name or a status is shown in the table (longer is clipped with …).
NAME_WIDTH = 32
STATUS_WIDTH = 40
ERROR_WIDTH = 400


@dataclass(frozen=True)
class Row:
    """One server as `/mcp` shows it; counts are None until it has been connected."""

    name: str
    source: str
    status: str
    transport: str = ""
    tools: int | None = None
    prompts: int | None = None
    skills: int | None = None
    error: str = ""
    hint: str = ""


def _shown(text: object, width: int) -> str:
    s = visible(str(text)).replace("\n", "\\n")
    return s if len(s) <= width else s[: width - 1] + "…"


def _count(n: int | None) -> str:
    return "-" if n is None else str(n)


def render(table: Sequence[Row], problems: Sequence[str] = ()) -> str:
    """The `/mcp` table: one line per server, its error or hint under it, then problems."""
    if not table:
        lines = [
            "no MCP servers (define them in the project's .mcp.json, or `codebot mcp add NAME "
            "-- CMD ARGS...`)"
        ]
    else:
        names = [_shown(r.name, NAME_WIDTH) for r in table]
        states = [_shown(r.status, STATUS_WIDTH) for r in table]
        nw = max(4, *map(len, names))
        sw = max(6, *map(len, states))
        head = f"{'name':<{nw}}  {'source':<7}  {'status':<{sw}}  tools  prompts  skills"
        lines = [head]
        for r, name, state in zip(table, names, states, strict=True):
            lines.append(
                f"{name:<{nw}}  {_shown(r.source, 7):<7}  {state:<{sw}}  "
                f"{_count(r.tools):>5}  {_count(r.prompts):>7}  {_count(r.skills):>6}"
            )
            if r.error:
                lines.append(f"  error: {_shown(r.error, ERROR_WIDTH)}")
            elif r.hint:
                lines.append(f"  {_shown(r.hint, ERROR_WIDTH)}")
    lines += [f"warning: {_shown(p, ERROR_WIDTH)}" for p in problems]
    return "\n".join(lines)


def rows(
    settings: Settings, probes: Mapping[str, Probe] | None = None
) -> tuple[list[Row], list[str]]:
    """Every server in force with its standing, a probe's result over it; and the
    problems with whole files (a bad `.mcp.json`, a damaged approvals file, clashes)."""
    from codebot.mcp.startable import standings

    known = standings(settings)  # the session's --mcp-config files included
    out = []
    for d, st in known.rows:
        row = Row(d.name, d.source, st.status, d.transport, error=d.error, hint=st.reason)
        found = (probes or {}).get(d.name)
        if found is not None and st.may_start:
            row = _probed(row, found)
        out.append(row)
    problems = [*known.config.problems, *known.config.clashes]
    if known.warning:
        problems.append(known.warning)
    return out, problems


def _probed(row: Row, p: Probe) -> Row:
    if p.ready:
        return replace(
            row, status="ready", tools=p.tools, prompts=p.prompts, skills=p.skills, hint=""
        )
    return replace(row, status="failed", error=p.error, hint="")


def run(
    settings: Settings, args: str, probes: Mapping[str, Probe] | None
) -> tuple[str, dict[str, Probe]]:
    """`/mcp [probe [NAME] | reconnect NAME]`: the text to show and the probes now known."""
    import os

    known = dict(probes or {})
    verb, _, rest = args.strip().partition(" ")
    name = rest.strip()
    if verb not in ("", "probe", "reconnect") or (verb == "reconnect" and not name):
        return USAGE, known
    if not verb:
        table, problems = rows(settings, known)
        footer = "" if known else "\n(/mcp probe connects to each approved server and counts)"
        return render(table, problems) + footer, known
    from codebot.mcp.config import load_servers
    from codebot.mcp.connect import probe_all

    table, _ = rows(settings)
    allowed = {r.name for r in table if r.status == "approved"}
    cfg = load_servers(settings.project_dir, settings.raw, settings.config_path)
    if name and cfg.get(name) is None:
        listed = ", ".join(_shown(r.name, NAME_WIDTH) for r in table) or "none"
        return f"/mcp: no MCP server {_shown(name, NAME_WIDTH)} (known: {listed})", known
    if name and name not in allowed:
        return f"/mcp: {_shown(name, NAME_WIDTH)} may not start: see /mcp", known
    chosen = [d for d in cfg.servers if d.name in allowed and (not name or d.name == name)]
    found = probe_all(chosen, home=settings.home, project=settings.project_dir, environ=os.environ)
    known.update(found)
    table, problems = rows(settings, known)
    return render(table, problems), known
