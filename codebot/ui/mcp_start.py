"""The question at an interactive start (issue 34 §2): a trusted project's `.mcp.json`
servers that are not approved — never, or changed since — are shown and offered once.

- `pending(settings)` lists what to ask about: only in a trusted project, only servers of
  `.mcp.json` whose standing is "not approved" (an untrusted project, an agent-written
  `.mcp.json` and an invalid definition are not asked about: nothing of them starts).
- `question(ask)` is what the person reads, the same lines in the TUI and line mode: the
  whole command line (or URL), cwd, env names, header names, the variables it reads; every
  piece through `display.visible` with a newline as `\\n`. Header values are never shown;
  an env value is shown only when neither its name, the variable it reads nor the value
  itself looks secret; a command line or URL filled from a secret-looking variable is
  shown as written.
- `answer(settings, approved)` records the approved ones (`approval.approve`); a skipped
  server is not started this run and is asked about again next run.
- `may_start(settings)` is the set of server names that may start now, for the session
  side (it reads `approval.standing` again, so an answer given a moment ago counts).

Print mode never asks (unapproved servers simply do not start), and neither does an
untrusted project: the trust question comes first.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.display import visible

if TYPE_CHECKING:
    from codebot.config import Settings
    from codebot.mcp.config import McpConfig, ServerDef

__all__ = [
    "CHOICES",
    "Ask",
    "answer",
    "ask_line",
    "looks_secret",
    "may_start",
    "parse_choice",
    "pending",
    "question",
    "summary",
]

#: The answers, in the order offered: approve (remembered) or skip (this run only).
CHOICES = (
    ("a", "approve: start it now and in later runs (a change asks again)"),
    ("s", "skip: do not start it this run (asked again next run)"),
)
HIDDEN = "(value hidden)"
# A value that looks like a token: a known token prefix, or one long word (32+) of token
# characters with letters and digits. Only env, header and query values are ever hidden:
# a command line is always shown whole (what the person approves is what runs).
_TOKENISH = re.compile(r"[A-Za-z0-9_\-.+=~]{32,}\Z")
_PREFIXES = ("sk-", "ghp_", "gho_", "github_pat_", "xox", "AKIA", "glpat-", "Bearer ")


@dataclass(frozen=True)
class Ask:
    """One server to ask about; `changed`: it was approved before, as another definition."""

    server: ServerDef
    changed: bool


def shown(text: object) -> str:
    """One line of terminal-safe text: `visible()` with a newline shown as `\\n`."""
    return visible(str(text)).replace("\n", "\\n")


def looks_secret(value: str) -> bool:
    """Whether a value looks like a credential (shown as hidden, never printed)."""
    if value.startswith(_PREFIXES):
        return True
    return bool(
        _TOKENISH.match(value)
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


def load(settings: Settings, flag_files: Sequence[Path] = ()) -> McpConfig:
    """The definitions in force: the session's `--mcp-config` files (`settings.mcp_configs`)
    unless others are given."""
    from codebot.mcp.config import load_servers

    files = tuple(flag_files) or tuple(getattr(settings, "mcp_configs", ()))
    return load_servers(settings.project_dir, settings.raw, settings.config_path, files)


def _standings(settings: Settings, flag_files: Sequence[Path]) -> dict[str, tuple[str, bool]]:
    """{name: (status, approved before as another definition)}."""
    from codebot.mcp.startable import standings

    found = standings(settings, tuple(flag_files) or None)
    return {
        d.name: (
            st.status,
            found.approvals.fingerprint_of(settings.project_dir, d.name) is not None,
        )
        for d, st in found.rows
    }


def pending(settings: Settings, flag_files: Sequence[Path] = ()) -> list[Ask]:
    """The project's servers to ask about now (none in an untrusted project)."""
    from codebot.mcp.approval import NOT_APPROVED

    if not settings.trusted:
        return []
    cfg = load(settings, flag_files)
    if not any(s.source == "project" for s in cfg.servers):
        return []
    st = _standings(settings, flag_files)
    return [
        Ask(s, st[s.name][1])
        for s in cfg.servers
        if s.source == "project" and st[s.name][0] == NOT_APPROVED
    ]


def may_start(settings: Settings, flag_files: Sequence[Path] = ()) -> frozenset[str]:
    """The names of the servers that may start now (approved, valid, trusted)."""
    from codebot.mcp.approval import APPROVED

    return frozenset(
        n for n, (status, _) in _standings(settings, flag_files).items() if status == APPROVED
    )


def answer(settings: Settings, approved: Iterable[ServerDef]) -> str | None:
    """Record these approvals; None, or why they could not be stored."""
    from codebot.mcp.approval import ApprovalError, approve

    chosen = list(approved)
    if not chosen:
        return None
    try:
        approve(settings.home, settings.project_dir, chosen)
    except ApprovalError as exc:
        return str(exc)
    return None


def parse_choice(text: str) -> str | None:
    """ "a" or "s" for an answer typed in line mode; None when it is neither."""
    word = text.strip().lower()
    if word in ("a", "approve", "y", "yes"):
        return "a"
    if word in ("s", "skip", "n", "no"):
        return "s"
    return None


# -- what the person reads ---------------------------------------------------------------


def title(ask: Ask) -> str:
    d = ask.server
    if ask.changed:
        return (
            f"The MCP server {shown(d.name)} in .mcp.json CHANGED since you approved it: "
            "start it as it is now?"
        )
    return f"This project's .mcp.json defines the MCP server {shown(d.name)}: start it?"


def question(ask: Ask) -> list[str]:
    """Every line shown before the choices (escaped; no secret value)."""
    d = ask.server
    lines = [title(ask), f"  file:      {shown(d.path)}"]
    if ask.changed:
        lines.append(
            "  changed:   its command, args, env, cwd, url, headers, a variable they read, "
            "or a project file its command line names"
        )
    if d.transport == "stdio":
        lines.append(f"  command:   {_command(d)}")
        lines.append(f"  cwd:       {shown(d.cwd) if d.cwd else '(the project root)'}")
        lines += [f"  env:       {shown(k)}={_env_value(d, k, v)}" for k, v in d.env.items()]
    else:
        lines.append(f"  url:       {_url(d)}")
        lines += [f"  header:    {shown(k)}: {HIDDEN}" for k in d.headers]
    if d.variables:
        lines.append(f"  reads:     {', '.join(map(shown, d.variables))} from your environment")
    if d.transport == "stdio":
        lines.append(
            "  It runs as you, with the environment above plus PATH, HOME, LANG and TMPDIR."
        )
    else:
        lines.append("  codebot sends its requests, with the headers above, to this URL.")
    return lines


def _secret_vars(written: object) -> list[str]:
    from codebot.environment import is_secret
    from codebot.mcp.expand import variables_in

    texts = written if isinstance(written, list) else [written]
    return [v for t in texts if isinstance(t, str) for v in variables_in(t) if is_secret(v)]


def _command(d: ServerDef) -> str:
    argv = [d.command, *d.args]
    w = d.written
    written = [w.get("command"), *(w.get("args") or [])]  # type: ignore[misc]
    secret = _secret_vars(written)
    if secret:  # the expansion holds a secret: the line as written, and which variables
        text = shlex.join(str(x) for x in written)
        return f"{shown(text)}  (fills in {', '.join(secret)}: value not shown)"
    return shown(shlex.join(argv))  # whole: what the person approves is what runs


def _env_value(d: ServerDef, key: str, value: str) -> str:
    from codebot.environment import is_secret

    written = d.written.get("env")
    raw = written.get(key) if isinstance(written, dict) else None
    if is_secret(key) or _secret_vars(raw) or looks_secret(value):
        return HIDDEN
    return shown(value)


def _url(d: ServerDef) -> str:
    from urllib.parse import parse_qsl, urlsplit

    from codebot.environment import is_secret

    if _secret_vars(d.written.get("url")):
        return f"{shown(d.written.get('url'))}  (fills in a secret-looking variable: not shown)"
    try:
        parts = urlsplit(d.url)
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return shown(d.url)
    if parts.password is None and not any(is_secret(k) or looks_secret(v) for k, v in query):
        return shown(d.url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = f"{parts.username or ''}:{HIDDEN}@{parts.hostname or ''}"
        netloc += f":{parts.port}" if parts.port else ""
    q = "&".join(f"{k}={HIDDEN if is_secret(k) or looks_secret(v) else v}" for k, v in query)
    rebuilt = f"{parts.scheme}://{netloc}{parts.path}" + (f"?{q}" if q else "")
    return shown(rebuilt + (f"#{parts.fragment}" if parts.fragment else ""))


def summary(approved: Sequence[str], skipped: Sequence[str], problem: str | None) -> str:
    """The line said after the question."""
    parts = []
    if approved and not problem:
        parts.append(f"approved MCP server(s): {', '.join(map(shown, approved))}")
    if problem:
        parts.append(f"could not record the approval: {shown(problem)}; not started")
    if skipped:
        parts.append(
            f"skipped for this run: {', '.join(map(shown, skipped))} (asked again next run; "
            "`codebot mcp approve NAME` approves)"
        )
    return "; ".join(parts)


async def ask_line(
    settings: Settings, ask: Callable[[str], Awaitable[str]], say: Callable[[str], None]
) -> frozenset[str]:
    """Line mode's question: each server's lines, then `[a] … / [s] …: ` until a clear
    answer; end of input skips it and the rest. The servers that may start."""
    import asyncio

    asks = await asyncio.to_thread(pending, settings)
    approved: list[ServerDef] = []
    skipped: list[str] = []
    prompt = "  " + " / ".join(f"[{k}] {label.split(':')[0]}" for k, label in CHOICES) + ": "
    for i, one in enumerate(asks):
        for line in question(one):
            say(line)
        for k, label in CHOICES:
            say(f"  [{k}] {label}")
        choice = None
        while choice is None:
            try:
                choice = parse_choice(await ask(prompt))
            except (EOFError, KeyboardInterrupt):  # end of input, Ctrl+C: skip the rest
                choice = "S"
            if choice is None:
                say("  please answer a (approve) or s (skip)")
        if choice == "S":
            skipped += [a.server.name for a in asks[i:]]
            break
        if choice == "a":
            approved.append(one.server)
        else:
            skipped.append(one.server.name)
    if asks:
        problem = await asyncio.to_thread(answer, settings, approved)
        said = summary([d.name for d in approved], skipped, problem)
        if said:
            say(said)
    return await asyncio.to_thread(may_start, settings)
