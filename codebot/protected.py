"""What codebot, git or the shell will run later: the protected set, in one place.

A command or a write that changes one of these plants instructions for a *later* run,
outside any sandbox and with nobody asked: a `core.fsmonitor` in a git config runs at the
person's next `git status`, a `.codebot/config.yaml` can turn the sandbox off for the next
session, a skill in `.claude/skills/` can shadow the bundled `/commit`. So:

* inside the sandbox these paths are read-only, and the ones that do not exist yet cannot
  be created (`codebot.agent.tools.sandbox`);
* Write and Edit ask before touching one, every time, whatever the rules say
  (`codebot.agent.session.tool_runs`, through `session.guard`);
* whatever codebot's own tools change among them is recorded with its hash, and is
  *agent-written* until the person accepts it (`codebot.provenance`).

Names are compared case-insensitively: on a case-insensitive file system `.Codebot` is
`.codebot`, and a false "protected" costs one question, a missed one a planted program.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

__all__ = [
    "DIR_NAMES",
    "FILE_NAMES",
    "NESTED",
    "PLUGIN_FOLDERS",
    "Extra",
    "fixed_locations",
    "home_like",
    "hooks_path",
    "is_protected_name",
    "note_placeholders",
    "placeholder_paths",
    "plugin_folders",
    "project_extras",
    "protected_reason",
]

#: Folders whose whole contents are read as instructions, wherever they stand in the
#: project (codebot reads skill folders from the working folder up to the git root).
DIR_NAMES: dict[str, str] = {
    ".git": "git's repository: its config and hooks run programs at the next git command",
    ".codebot": "codebot's project settings and skills",
    ".claude": "Claude Code's settings, skills, agents and hooks (codebot reads them)",
    ".agents": "shared agent skills (codebot reads them)",
    ".codex": "Codex CLI's skills and settings",
    ".opencode": "OpenCode's skills and settings",
    ".gemini": "Gemini CLI's skills and settings",
    ".cursor": "Cursor's rules and skills",
    ".claude-plugin": "a Claude Code plugin manifest",
}
#: Two-level names: the parent alone is not instructions (`.github/workflows` is CI's).
NESTED: dict[str, str] = {
    ".github/skills": "GitHub Copilot's skills",
    ".github/agents": "GitHub Copilot's agents",
    ".github/copilot-instructions.md": "GitHub Copilot's project instructions",
}
#: Files read as instructions wherever they are (nested ones apply below their folder).
FILE_NAMES: dict[str, str] = {
    "agents.md": "project instructions (AGENTS.md)",
    "agents.override.md": "project instructions (AGENTS.override.md)",
    "claude.md": "project instructions (CLAUDE.md)",
    "claude.local.md": "project instructions (CLAUDE.local.md)",
    "gemini.md": "project instructions (GEMINI.md)",
    ".mcp.json": "MCP servers codebot and Claude Code start",
}
_DIRS = {k.casefold(): v for k, v in DIR_NAMES.items()}
_NESTED = {tuple(k.casefold().split("/")): v for k, v in NESTED.items()}


#: Project-relative paths protected in one project beyond the fixed names, with why:
#: git's `core.hooksPath` and, in a Claude Code plugin repository, what the plugin runs.
Extra = tuple[tuple[str, str], ...]
#: What the functions below take for them: the hooks path alone (a string), or `Extra`.
Extras = str | Extra | None
HOOKS_REASON = "git's hooks folder (core.hooksPath): its scripts run at git commands"
#: A plugin repository's folders codebot (or Claude Code) loads from it, and the manifest
#: fields that can name more of them.
PLUGIN_FOLDERS: dict[str, str] = {
    "hooks": "this project is a Claude Code plugin: its hooks run commands in later sessions",
    "commands": "this project is a Claude Code plugin: its commands load as skills",
    "agents": "this project is a Claude Code plugin: its agents run as sub-agents",
    "skills": "this project is a Claude Code plugin: its skills load in later sessions",
}
_MANIFEST_BYTES = 1 << 20


def _extras(hooks: Extras) -> Extra:
    if hooks is None:
        return ()
    if isinstance(hooks, str):
        return ((hooks, HOOKS_REASON),)
    return hooks


def project_extras(project: Path) -> Extra:
    """The protected paths of this project beyond the fixed names: `core.hooksPath`, and a
    plugin repository's folders (`plugin_folders`)."""
    hooks = hooks_path(project)
    return (*_extras(hooks), *plugin_folders(project))


def plugin_folders(project: Path) -> Extra:
    """When the project root holds `.claude-plugin/plugin.json`: its `hooks/`, `commands/`,
    `agents/` and `skills/` folders and the paths its manifest names for them (the agent
    writing `hooks/hooks.json` in a plugin repository would plant a command). Read here,
    without the skill system (this module imports nothing of codebot)."""
    path = os.path.join(project, ".claude-plugin", "plugin.json")
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return _plugin_folders(path, (st.st_mtime_ns, st.st_size, st.st_ino))


@lru_cache(maxsize=16)
def _plugin_folders(path: str, _stamp: object) -> Extra:
    import json
    import stat

    out: dict[str, str] = dict(PLUGIN_FOLDERS)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return tuple(out.items())
            data = json.loads(os.read(fd, _MANIFEST_BYTES).decode("utf-8"))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict):
        for field, why in PLUGIN_FOLDERS.items():
            value = data.get(field)
            for item in [value] if isinstance(value, str) else value or []:
                rel = _plain_rel(item)
                if rel:
                    out.setdefault(rel, why)
    return tuple(out.items())


def _plain_rel(item: object) -> str | None:
    """A manifest path as a project-relative posix path; None when it is not one."""
    if not isinstance(item, str) or "\0" in item or os.path.isabs(item):
        return None
    parts = [p for p in item.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def is_protected_name(name: str) -> bool:
    """Whether a single file or folder name is protected wherever it stands."""
    folded = name.casefold()
    return folded in _DIRS or folded in FILE_NAMES


def protected_reason(rel: str, hooks: Extras = None) -> str | None:
    """Why the project-relative posix path `rel` is protected, or None.

    `hooks` is `core.hooksPath` as a project-relative posix path, when it is one, or the
    project's `Extra` paths (`project_extras`).
    A path inside a protected folder is protected (`.git/x/config`, `.claude/skills/a/b`).
    """
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    for where, why in _extras(hooks):
        hparts = [p for p in where.split("/") if p not in ("", ".")]
        if hparts and [p.casefold() for p in parts[: len(hparts)]] == [
            p.casefold() for p in hparts
        ]:
            return f"{where}: {why}"
    folded = [p.casefold() for p in parts]
    for i, name in enumerate(folded):
        if name in _DIRS:
            return f"{'/'.join(parts[: i + 1])}: {_DIRS[name]}"
        if i + 1 < len(folded) and (name, folded[i + 1]) in _NESTED:
            return f"{'/'.join(parts[: i + 2])}: {_NESTED[(name, folded[i + 1])]}"
    if folded and folded[-1] in FILE_NAMES:
        return f"{rel}: {FILE_NAMES[folded[-1]]}"
    return None


def fixed_locations(project: Path, cwd: Path | None = None, hooks: Extras = None) -> list[Path]:
    """Where the protected names stand for this session, existing or not: at the project
    root and at every folder from there down to the working folder (the folders whose
    skills and instructions codebot reads), and the hooks folder. Absolute, not resolved."""
    levels = [project]
    if cwd is not None:
        try:
            rel = Path(os.path.abspath(cwd)).relative_to(os.path.abspath(project))
        except ValueError:
            rel = Path()
        level = project
        for part in rel.parts:
            level = level / part
            levels.append(level)
    names = [*DIR_NAMES, *NESTED, "AGENTS.md", "CLAUDE.md", "GEMINI.md", ".mcp.json"]
    out = [lvl / name for lvl in levels for name in names]
    out += [project / where for where, _ in _extras(hooks)]
    return out


def hooks_path(project: Path) -> str | None:
    """`core.hooksPath` as a project-relative posix path when it points inside the project
    (husky's `.husky`, say), else None. Read with git itself, so includes and the person's
    global config count; cached on the config files' stamps."""
    configs = (
        project / ".git" / "config",
        Path.home() / ".gitconfig",
        Path.home() / ".config/git/config",
        Path("/etc/gitconfig"),
    )
    # Most repositories name no hooks folder anywhere: then no git process at start-up
    # (2-3 ms). An include could name one, so a config that includes runs git too.
    plain = (project / ".git").is_dir() and not any(k.startswith("GIT_CONFIG") for k in os.environ)
    if plain and not any(_mentions(p, (b"hookspath", b"include")) for p in configs):
        return None
    stamps = tuple(_stamp(p) for p in configs)
    return _hooks_path(str(project), stamps)


def _mentions(path: Path, words: tuple[bytes, ...]) -> bool:
    try:
        with open(path, "rb") as fh:
            text = fh.read(1 << 20).lower()
    except OSError:
        return False
    return any(w in text for w in words)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


@lru_cache(maxsize=16)
def _hooks_path(project: str, _stamps: Iterable[object]) -> str | None:
    if not os.path.lexists(os.path.join(project, ".git")):
        return None
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "config", "--get", "core.hooksPath"],
            cwd=project,
            capture_output=True,
            timeout=5,
            check=False,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode != 0 or not value:
        return None
    target = os.path.realpath(os.path.join(project, os.path.expanduser(value)))
    rel = os.path.relpath(target, os.path.realpath(project))
    if rel == "." or rel == ".." or rel.startswith("../") or os.path.isabs(rel):
        return None  # outside the project: read-only in the sandbox already
    return rel.replace(os.sep, "/")


def home_like(folder: Path) -> bool:
    """`$HOME`, `/`, or a folder above `$HOME`: never a writable project, whatever holds a
    `.git` (a dotfiles repository in `$HOME` would otherwise make `~/.bashrc` the project's)."""
    real = os.path.realpath(folder)
    if os.path.dirname(real) == real:
        return True
    try:
        home = os.path.realpath(Path.home())
    except (RuntimeError, KeyError, OSError):
        return False
    return home == real or home.startswith(real.rstrip(os.sep) + os.sep)


# -- the sandbox's placeholders, for the skill watcher ----------------------------------------
#
# While a sandboxed command runs, an empty read-only folder holds each missing protected
# name (`agent/tools/sandbox_protect.py`); it appears and vanishes with every command. The
# skill watcher (which must not import the agent) asks here, so that a placeholder `.codebot`
# does not re-arm the watch and reload the catalog twice per Bash call.

_PLACEHOLDERS: dict[str, float] = {}  # path -> 0.0 while held, the time it was removed
_PLACEHOLDER_LOCK = threading.Lock()
#: How long after its removal a placeholder's events are still its own.
PLACEHOLDER_GRACE_S = 5.0


def note_placeholders(paths: Iterable[str], *, held: bool, removed: Iterable[str] = ()) -> None:
    """Held (`held=True`), or released: `removed` are the ones actually removed (empty);
    one that was not (something was put in it) is forgotten, so its events count."""
    now = time.monotonic()
    gone = set(removed)
    with _PLACEHOLDER_LOCK:
        for p in paths:
            if held:
                _PLACEHOLDERS[p] = 0.0
            elif p in gone:
                _PLACEHOLDERS[p] = now
            else:
                _PLACEHOLDERS.pop(p, None)
        for p, t in list(_PLACEHOLDERS.items()):
            if t and now - t > PLACEHOLDER_GRACE_S:
                del _PLACEHOLDERS[p]


def placeholder_paths(grace: bool = True) -> frozenset[str]:
    """Placeholders that exist now (held, or waiting for removal) and, with `grace`, those
    removed within the grace period, whose events may still be arriving (absolute paths)."""
    now = time.monotonic()
    with _PLACEHOLDER_LOCK:
        return frozenset(
            p
            for p, t in _PLACEHOLDERS.items()
            if not t or (grace and now - t <= PLACEHOLDER_GRACE_S)
        )
