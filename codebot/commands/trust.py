"""`codebot trust`: say which project folders codebot may trust.

    codebot trust [PATH]            trust PATH (default: the current project)
    codebot trust --revoke [PATH]   remove PATH's own entry
    codebot trust --list [--json]   the trusted folders

The current project is the git root above the working folder (`--cwd`), else the working
folder. After trusting, the command prints what trust grants in that folder right now:
project config keys, shell commands in project skills, project agents choosing a model.

Exit codes: 0 done; 1 the trust file could not be updated, or a revoked folder is still
trusted through a folder above it; 2 a folder that cannot be trusted (`$HOME`, `/`, a
folder containing `$HOME`, a missing path, a file) or a wrong combination of options.

Kept cheap to import (cli.py imports it to build the parser): the trust store and YAML
load inside `run_trust`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from codebot.commands.args import Subparsers
    from codebot.trust import TrustEntry

HELP = "trust a project folder, revoke trust, or list trusted folders"
DESCRIPTION = (
    "A trusted folder's project config (.codebot/config.yaml), the shell commands in its "
    "skills and its agents' models take effect; in an untrusted folder they do not. "
    "Subfolders of a trusted folder are trusted. $HOME and / are never trusted as a whole."
)
#: Exit code for a request that cannot be granted as asked.
USAGE = 2
#: TrustError kinds that mean "the person asked for something wrong" (exit 2).
REFUSED = frozenset({"home", "root", "contains-home", "missing", "not-a-folder"})
#: Folders whose `agents/` codebot reads (skill folders: `skills.catalog.hosts`).
FAMILIES = (".codebot", ".agents", ".claude")
#: At most this many grant lines are printed; the rest are counted.
MAX_LINES = 40
#: Scanning a project for grants stops after this many skill files, and reads at most
#: this much of each: a hostile or huge tree must not make `codebot trust` slow.
MAX_FILES = 2000
MAX_READ = 256 * 1024
# Same shapes as the skill expander's injections: inline !`cmd` and a ```! fenced block.
_INLINE = re.compile(r"(?<!\S)!`([^`\n]+)`")
_FENCE = re.compile(r"^```!")


def add_parser(
    subparsers: Subparsers, common: Callable[..., None] | None = None
) -> argparse.ArgumentParser:
    """Register `trust` on the top-level subparsers; `common(p, suppress=True)` adds
    the global options (`--cwd` ...) when given."""
    p = subparsers.add_parser("trust", help=HELP, description=DESCRIPTION)
    if common is not None:
        common(p, suppress=True)
    p.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PATH",
        help="the folder (default: the current project: the git root, else the working folder)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--revoke", action="store_true", help="remove the folder's trust entry")
    mode.add_argument("--list", action="store_true", help="list the trusted folders")
    p.add_argument(
        "--json", action="store_true", help='with --list: a JSON list of {"path", "since"}'
    )
    return p


def run(args: argparse.Namespace) -> int:
    """`codebot trust` with the real `$CODEBOT_HOME`, working folder and streams."""
    from codebot.home import codebot_home

    cwd = getattr(args, "cwd", None) or Path.cwd()
    return run_trust(args, codebot_home(), Path(cwd), sys.stdout, sys.stderr)


def run_trust(args: argparse.Namespace, home: Path, cwd: Path, out: TextIO, err: TextIO) -> int:
    """The command itself, with `home` (= `$CODEBOT_HOME`), `cwd` and streams given."""
    from codebot import trust
    from codebot.display import visible

    listing = bool(getattr(args, "list", False))
    revoking = bool(getattr(args, "revoke", False))
    as_json = bool(getattr(args, "json", False))
    given: Path | None = getattr(args, "path", None)
    if as_json and not listing:
        print("codebot trust: --json goes with --list", file=err)
        return USAGE
    if listing and given is not None:
        print("codebot trust: --list takes no PATH", file=err)
        return USAGE

    entries, warnings = trust.load(home)
    for w in warnings:
        print(f"codebot: warning: {visible(w)}", file=err)
    if listing:
        return _list(entries, as_json, out)

    folder = _folder(given, cwd) if given is not None else trust.project_root(cwd)
    shown = visible(os.path.realpath(folder))
    if revoking:
        return _revoke(home, folder, shown, out, err)

    before, why_not = trust.check(home, folder)
    try:
        entry = trust.add(home, folder)
    except trust.TrustError as exc:
        print(f"codebot trust: {visible(str(exc))}", file=err)
        if given is None and exc.kind in ("home", "contains-home"):
            # A dotfiles repository makes $HOME the git root of every folder below it.
            print(
                f"codebot trust: (the current project is the git root above {visible(str(cwd))}; "
                "to trust only the folder you are in, run: codebot trust .)",
                file=err,
            )
        return USAGE if exc.kind in REFUSED else 1
    if before is not None and before.path == entry.path and before.device is None:
        print(
            f"{shown} was already trusted (since {visible(entry.since)}); its identity is recorded "
            "now, "
            "so another folder moved to this path will not be trusted",
            file=out,
        )
    elif before is not None and before.path == entry.path:
        print(f"{shown} was already trusted (since {visible(entry.since)})", file=out)
    elif why_not is not None:
        print(
            f"trusted {shown} and every folder inside it (the folder trusted at this path before "
            "was "
            "another one)",
            file=out,
        )
    elif before is not None:
        print(f"trusted {shown}; it was already trusted through {visible(before.path)}", file=out)
    else:
        print(f"trusted {shown} and every folder inside it", file=out)
    _print_grants(Path(entry.path), out)
    print(f"Revoke with: codebot trust --revoke {shown}", file=out)
    return 0


def _folder(given: Path, cwd: Path) -> Path:
    path = Path(os.path.expanduser(given))
    return path if path.is_absolute() else cwd / path


def _list(entries: list[TrustEntry], as_json: bool, out: TextIO) -> int:
    from codebot.display import visible

    if as_json:
        print(json.dumps([{"path": e.path, "since": e.since} for e in entries], indent=2), file=out)
    elif not entries:
        print("no trusted folders", file=out)
    else:
        for e in entries:
            print(f"{visible(e.path)}  (since {visible(e.since)})", file=out)
    return 0


def _revoke(home: Path, folder: Path, shown: str, out: TextIO, err: TextIO) -> int:
    from codebot import trust
    from codebot.display import visible

    try:
        removed = trust.revoke(home, folder)
    except trust.TrustError as exc:
        print(f"codebot trust: {visible(str(exc))}", file=err)
        return 1
    still = trust.trusted_root(home, folder)
    if still is not None:
        # The person wanted this folder untrusted and it is not: say so, and how.
        what = "revoked its own entry, but " if removed else ""
        print(
            f"codebot trust: {what}{shown} is still trusted through {visible(still.path)}; "
            f"run: codebot trust --revoke {visible(still.path)}",
            file=err,
        )
        return 1
    print(f"revoked trust in {shown}" if removed else f"{shown} was not trusted", file=out)
    return 0


# -- what trust grants ----------------------------------------------------------------------


def describe_grants(root: Path) -> list[str]:
    """One line per thing in `root` that takes effect only because `root` is trusted."""
    return [*_config_grants(root), *_local_grants(root), *_skill_grants(root), *_agent_grants(root)]


def _print_grants(root: Path, out: TextIO) -> None:
    lines = describe_grants(root)
    if not lines:
        print(
            "Nothing in it uses trust yet (no project config, no shell commands in project "
            "skills, no agents choosing a model); files added later are trusted too.",
            file=out,
        )
        return
    print("Trust lets these files change what codebot does:", file=out)
    for line in lines[:MAX_LINES]:
        print(f"  {line}", file=out)
    if len(lines) > MAX_LINES:
        print(f"  ... and {len(lines) - MAX_LINES} more", file=out)


def _read_text(path: Path) -> str | None:
    """At most MAX_READ characters of a regular file, or None. Never blocks on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, MAX_READ).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _yaml(text: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):
        return None


def _config_grants(root: Path) -> list[str]:
    from codebot.display import visible

    rel = Path(".codebot") / "config.yaml"
    text = _read_text(root / rel)
    if text is None:
        return []
    data = _yaml(text)
    if not isinstance(data, dict):
        return [f"{rel}: present but not a mapping of settings (it will be ignored)"]
    lines: list[str] = []
    named = ("model", "api_base", "permissions.allow", "permissions.deny", "skills.dirs")
    # Named first, with their values: these choose the model, the server, what runs
    # without asking and where more skills come from.
    for dotted in named:
        value: Any = data
        for part in dotted.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is not None:
            lines.append(f"{rel}: {dotted} = {visible(repr(value))}")
    others = []
    for key, value in data.items():
        subkeys = (
            value
            if isinstance(value, dict) and any(n.startswith(f"{key}.") for n in named)
            else {None: 0}
        )
        for sub in subkeys:
            dotted = str(key) if sub is None else f"{key}.{sub}"
            if dotted not in named:
                others.append(dotted)
    if others:
        lines.append(f"{rel}: also sets {visible(', '.join(sorted(others)))}")
    return lines


def _local_grants(root: Path) -> list[str]:
    """The skill toggles of `.codebot/config.local.yaml`, which only a trusted project's
    may use to turn on what your own config limits (docs/configuration.md)."""
    from codebot.display import visible

    rel = Path(".codebot") / "config.local.yaml"
    text = _read_text(root / rel)
    data = _yaml(text) if text is not None else None
    skills = data.get("skills") if isinstance(data, dict) else None
    overrides = skills.get("overrides") if isinstance(skills, dict) else None
    if not overrides:
        return []
    return [
        f"{rel}: skills.overrides = {visible(repr(overrides))} (these now win over your own "
        "toggles)"
    ]


def _walk_md(top: Path, depth: int = 4) -> Iterator[Path]:
    """Markdown files under `top`, not following symlinked folders, at most `depth` deep."""
    base = len(top.parts)
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        if len(Path(dirpath).parts) - base >= depth:
            dirnames[:] = []
        dirnames.sort()
        for name in sorted(filenames):
            if name.lower().endswith(".md"):
                yield Path(dirpath) / name


def _skill_grants(root: Path) -> list[str]:
    from codebot.display import visible
    from codebot.skills.catalog.hosts import project_folders

    lines: list[str] = []
    files = 0
    for _family, folder in project_folders():  # every host's skill folder codebot reads
        for path in _walk_md(root / folder):
            files += 1
            if files > MAX_FILES:
                lines.append(f"(stopped after {MAX_FILES} skill files)")
                return lines
            text = _read_text(path)
            if text is None:
                continue
            rel = visible(str(path.relative_to(root)))
            for number, command in _shell_commands(text):
                lines.append(f"{rel}:{number}: runs {visible(command)}")
    return lines


def _shell_commands(text: str) -> Iterator[tuple[int, str]]:
    """(line number, command) for each !`cmd` and each ```! block in a skill body."""
    block: list[str] | None = None
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        if block is not None:
            if line.rstrip() == "```":
                yield start, "; ".join(block)
                block = None
            else:
                block.append(line)
            continue
        if _FENCE.match(line):
            block, start = [], number
            continue
        for m in _INLINE.finditer(line):
            yield number, m.group(1)
    if block:
        yield start, "; ".join(block)


def _agent_grants(root: Path) -> list[str]:
    from codebot.display import visible

    lines: list[str] = []
    for family in FAMILIES:
        folder = root / family / "agents"
        try:
            names = sorted(p for p in folder.iterdir() if p.suffix == ".md")
        except OSError:
            continue
        for path in names[:MAX_FILES]:
            model = _frontmatter_model(_read_text(path) or "")
            if model:
                rel = visible(str(path.relative_to(root)))
                lines.append(f"{rel}: agent uses model {visible(repr(model))}")
    return lines


def _frontmatter_model(text: str) -> str | None:
    """The `model` of an agent file's YAML frontmatter (None, "" and "inherit": none)."""
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    if end < 0:
        return None
    meta = _yaml(text[3:end])
    model = meta.get("model") if isinstance(meta, dict) else None
    if model is None or str(model).strip() in ("", "inherit"):
        return None
    return str(model)
