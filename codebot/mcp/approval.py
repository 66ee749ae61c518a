"""Which MCP servers may start: trust, per-definition approval, and their environment.

- A project's `.mcp.json` servers start only in a trusted project, only when
  `.mcp.json` is not an agent-written file waiting for review (`codebot written`), and
  only after the person approved that exact definition (`codebot mcp approve`).
- The person's own `mcp.servers` are theirs, and `--mcp-config` servers were named by the
  person for this run: both count as approved.
- An approval is kept in `$CODEBOT_HOME/mcp-approvals.json`, keyed by the project's real
  path and the server's name, holding the sha256 `fingerprint` of the definition *after*
  `${VAR}` expansion: what runs is the expanded command, so a variable that now holds
  something else (another program on `${BIN}`, another URL) is a new definition and is
  asked again, as is any change to command, args, env, cwd, url or headers. (A rotated
  token in `${VAR}` asks again too: the safe side.) The store is read like the trust file
  (a regular file of this user, not writable by others, bounded; a damaged one approves
  nothing) and written like it (a `filelock` lock, read again, atomic 0600 replace).
- `server_environment` is what a server process gets: PATH, HOME, LANG and TMPDIR from
  codebot's environment plus the definition's own `env`; never a provider key or any
  other variable codebot holds.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from codebot.mcp.config import PROJECT_FILE, ServerDef

__all__ = [
    "AGENT_WRITTEN",
    "APPROVALS_FILE",
    "APPROVED",
    "BASE_VARIABLES",
    "INVALID",
    "NOT_APPROVED",
    "NOT_TRUSTED",
    "ApprovalError",
    "Approvals",
    "Standing",
    "agent_written",
    "approve",
    "fingerprint",
    "forget",
    "server_environment",
    "standing",
]

APPROVALS_FILE = "mcp-approvals.json"
FORMAT = 1
MAX_BYTES = 1 << 20
LOCK_TIMEOUT = 10.0
#: What a server gets from codebot's own environment; everything else comes from its `env`.
BASE_VARIABLES = ("PATH", "HOME", "LANG", "TMPDIR")

NOT_TRUSTED = "not started: project not trusted"
AGENT_WRITTEN = "not started: .mcp.json was written by codebot's agent and is not accepted"
NOT_APPROVED = "not approved"
APPROVED = "approved"
INVALID = "invalid"


class ApprovalError(Exception):
    """An approval that cannot be stored; the message says why and what to do."""


#: Project files named on a server's command line are hashed up to this size (a larger
#: one is known by its size and modification time).
HASHED_MAX = 32 << 20
#: At most this many words of a command line are looked at as possible project files.
WORDS_MAX = 64


def _file_stamp(path: Path) -> str:
    """What a named file is now: its content's sha256, or why there is none. Opened without
    blocking and checked on the descriptor: a FIFO swapped in after a look never hangs."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "unreadable"
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a file"
        if info.st_size > HASHED_MAX:
            return f"size {info.st_size} mtime {info.st_mtime_ns}"
        try:
            return "sha256:" + hashlib.file_digest(f, "sha256").hexdigest()
        except OSError:
            return "unreadable"


def project_files(d: ServerDef, project: Path) -> dict[str, str]:
    """{word: stamp} for each word of the command line that names a path inside the project
    (relative to its cwd, or absolute), following links to say where it leads.

    Approving `python tools/server.py` approves that script as it is now: the agent (or a
    pull) that later rewrites the script, or points a link elsewhere, makes the definition
    a new one that is asked about again. Code the script imports is not covered."""
    root = Path(os.path.realpath(project))
    cwd = Path(os.path.normpath(root / d.cwd)) if d.cwd else root
    out: dict[str, str] = {}
    for word in [d.command or "", *d.args][:WORDS_MAX]:
        if not word or word.startswith("-") or "\0" in word:
            continue
        lexical = Path(os.path.normpath(cwd / word))
        if lexical != root and root not in lexical.parents:
            continue
        if not (lexical.exists() or lexical.is_symlink()):
            continue  # a word that is no file (yet) is just a word; the text is hashed anyway
        real = Path(os.path.realpath(lexical))
        out[word] = f"{real} {_file_stamp(real)}"
    return out


def fingerprint(d: ServerDef, project: Path | None = None) -> str:
    """sha256 of what the definition runs (expanded): transport, command, args, env, cwd,
    url, headers, and with `project` the files inside it the command line names
    (`project_files`). The name, the source and the timeouts are not part of it."""
    what = {
        "transport": d.transport,
        "command": d.command,
        "args": list(d.args),
        "env": dict(d.env),
        "cwd": d.cwd,
        "url": d.url,
        "headers": dict(d.headers),
    }
    if project is not None and d.command:
        what["files"] = project_files(d, project)
    text = json.dumps(what, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _project_key(project: Path) -> str:
    return os.path.realpath(project)


@dataclass(frozen=True)
class Approvals:
    """The approvals on disk: {project real path: {server name: fingerprint}}."""

    by_project: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    warning: str = ""

    @classmethod
    def load(cls, home: Path) -> Approvals:
        """Never raises: a missing file approves nothing, a damaged one too (with a warning)."""
        path = Path(home) / APPROVALS_FILE
        table, damage = _read(path)
        if damage:
            return cls({}, f"{path} {damage}; no project MCP server is approved until it is fixed")
        return cls({p: {n: e["sha256"] for n, e in s.items()} for p, s in table.items()})

    def fingerprint_of(self, project: Path, name: str) -> str | None:
        return self.by_project.get(_project_key(project), {}).get(name)


#: {project real path: {server name: {"sha256": ..., "at": ...}}}
_Table = dict[str, dict[str, dict[str, str]]]


def _read(path: Path) -> tuple[_Table, str]:
    """(approvals, why the file is unusable or "")."""
    from codebot.trust.store_file import Unusable, read_store

    try:
        data = read_store(path, MAX_BYTES)
    except FileNotFoundError:
        return {}, ""
    except Unusable as exc:
        return {}, str(exc)
    except OSError as exc:
        return {}, f"cannot be read ({exc.strerror or exc})"
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}, "is not valid JSON"
    projects = doc.get("approvals") if isinstance(doc, dict) else None
    if not isinstance(projects, dict):
        return {}, 'does not have the shape {"version": 1, "approvals": {...}}'
    out: _Table = {}
    for project, servers in projects.items():
        if not isinstance(servers, dict):
            continue  # one bad entry approves nothing; the others still count
        out[project] = {
            name: {"sha256": entry["sha256"], "at": str(entry.get("at", ""))}
            for name, entry in servers.items()
            if isinstance(entry, dict) and isinstance(entry.get("sha256"), str)
        }
    return out, ""


def _update(home: Path, change: Callable[[_Table], list[str]]) -> list[str]:
    """Under the lock: read the file again, let `change(table)` edit it and return the
    names it changed, and write it back atomically (0600) when it changed any."""
    import filelock

    from codebot.home import FILE_MODE, private_dir, write_private

    path = Path(home) / APPROVALS_FILE
    try:
        private_dir(home)
        with filelock.FileLock(f"{path}.lock", timeout=LOCK_TIMEOUT, mode=FILE_MODE):
            table, damage = _read(path)
            if damage:  # fail loud: overwriting would drop what is there
                raise ApprovalError(f"{path} {damage}; fix or remove it, then try again")
            changed = change(table)
            if changed:
                doc = {"version": FORMAT, "approvals": {p: s for p, s in table.items() if s}}
                text = json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=True) + "\n"
                write_private(path, text.encode("ascii"))
            return changed
    except filelock.Timeout:
        raise ApprovalError(
            f"another codebot has held {path}.lock for over {LOCK_TIMEOUT:g} s; try again"
        ) from None
    except OSError as exc:
        raise ApprovalError(f"cannot update {path}: {exc.strerror or exc}") from None


def approve(
    home: Path, project: Path, servers: Iterable[ServerDef], *, now: datetime | None = None
) -> list[str]:
    """Record approval of these (valid, project) definitions as they are now; the names
    whose approval is new or changed."""
    key = _project_key(project)
    at = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    chosen = [s for s in servers if not s.error]

    def change(table: _Table) -> list[str]:
        mine = table.setdefault(key, {})
        done = []
        for s in chosen:
            sha = fingerprint(s, project)
            if mine.get(s.name, {}).get("sha256") != sha:
                mine[s.name] = {"sha256": sha, "at": at}
                done.append(s.name)
        return done

    return _update(home, change)


def forget(home: Path, project: Path, names: Iterable[str]) -> list[str]:
    """Drop the approvals of these server names in this project; the names that had one."""
    key, wanted = _project_key(project), set(names)

    def change(table: _Table) -> list[str]:
        mine = table.get(key, {})
        gone = [n for n in list(mine) if n in wanted]
        for n in gone:
            del mine[n]
        return gone

    return _update(home, change)


def agent_written(home: Path, project: Path) -> bool:
    """Whether the project's `.mcp.json` was changed by codebot's agent and not accepted."""
    from codebot.provenance import Provenance

    marked = Provenance(home, project).marked()
    return any(rel.casefold() == PROJECT_FILE for rel in marked)


@dataclass(frozen=True)
class Standing:
    """Whether a server may start (`status`), and more about why not (`reason`)."""

    status: str
    reason: str = ""

    @property
    def may_start(self) -> bool:
        return self.status == APPROVED


def standing(
    d: ServerDef,
    *,
    project: Path,
    trusted: bool,
    approvals: Approvals,
    written_by_agent: bool = False,
) -> Standing:
    """A definition's status: invalid, not started (untrusted / agent-written), not
    approved (never, or the definition changed since), or approved."""
    if d.error:
        return Standing(INVALID, d.error)
    if d.source != "project":
        return Standing(APPROVED)
    if not trusted:
        return Standing(NOT_TRUSTED, "run `codebot trust` to use this project's .mcp.json")
    if written_by_agent:
        return Standing(
            AGENT_WRITTEN, "review it with `codebot written`, then `codebot written --accept`"
        )
    known = approvals.fingerprint_of(project, d.name)
    if known is None:
        return Standing(NOT_APPROVED, f"approve it with `codebot mcp approve {d.name}`")
    if known != fingerprint(d, project):
        return Standing(
            NOT_APPROVED,
            "the definition changed since it was approved (command, args, env, cwd, url, "
            "headers, a variable they read, or a project file its command line names); "
            f"approve it again with `codebot mcp approve "
            f"{d.name}`",
        )
    return Standing(APPROVED)


def server_environment(d: ServerDef, os_environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a server process starts with: PATH, HOME, LANG, TMPDIR from
    codebot's environment, then the definition's `env`. Nothing else passes: no provider
    key, no token, no other secret codebot was started with."""
    env = {k: os_environ[k] for k in BASE_VARIABLES if k in os_environ}
    env.update(d.env)
    return env
