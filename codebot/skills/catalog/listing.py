"""What one folder of a skill root yields: its skill files as candidates, the subfolders the
scan goes on to, and what is wrong with it, from a fresh listing or a kept one.

`discover` walks a root breadth first and decides when to list a folder and when its kept
listing (`folder_cache`) is still good; this module turns either into candidates, queued
subfolders and diagnostics, the same way. It also holds the scan's limits on depth and the
names it never descends into (`SKIP_DIRS`) or never takes for single-file skills.
"""

from __future__ import annotations

import errno
import functools
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

from codebot.skills.catalog.candidate import Candidate, new_candidate
from codebot.skills.catalog.folder_cache import AGENTS, VENV, DirCache, Kept, ScanEntry
from codebot.skills.files import Diagnostic, Root, Severity

__all__ = [
    "MAX_DEPTH",
    "NOT_SKILLS",
    "SKIP_DIRS",
    "Entries",
    "ScanResult",
    "candidate",
    "diag",
    "folder_named_skill",
    "push",
    "read_entries",
    "reuse_listing",
    "single_file",
]

MAX_DEPTH = 6
# Folders that never hold skills and can be huge. Other hidden folders ARE scanned:
# openai/skills keeps real skills under `.curated/`, `.system/` and `.experimental/`.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".cache",
        ".idea",
        ".vscode",
        ".eggs",
        "site-packages",
    }
)
# Markdown files at the top of a root that are documentation, not single-file skills.
NOT_SKILLS = frozenset(
    {
        "readme.md",
        "license.md",
        "changelog.md",
        "contributing.md",
        "agents.md",
        "claude.md",
        "code_of_conduct.md",
        "security.md",
    }
)

#: A subfolder to visit: (path, real path, reached through a link, name).
Sub = tuple[str, str, bool, str]


@dataclass(slots=True)
class ScanResult:
    candidates: list[Candidate] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    listed: int = 0  # folders listed with scandir
    reused: int = 0  # folders whose cached listing was used instead


def diag(path: Path | str, code: str, sev: Severity, msg: str, hint: str = "") -> Diagnostic:
    return Diagnostic(str(path), 0, code, sev, msg, hint)


def single_file(name: str) -> bool:
    low = name.lower()
    return low.endswith(".md") and low != "skill.md" and low not in NOT_SKILLS


def candidate(
    root: Root,
    p: str,
    real_s: str,
    fst: os.stat_result,
    depth: int,
    side: bool,
    cache: DirCache | None,
) -> Candidate:
    if cache is not None:
        prev = cache.prev.get(p)
        if prev is not None:
            pst = prev.stat
            if (
                pst.st_mtime_ns == fst.st_mtime_ns
                and pst.st_ctime_ns == fst.st_ctime_ns
                and pst.st_size == fst.st_size
                and pst.st_ino == fst.st_ino
                and pst.st_dev == fst.st_dev
                and prev.root is root
                and prev.side is side
                and prev.order[0] == depth
                and (prev.real_path is prev.path if real_s == p else str(prev.real_path) == real_s)
            ):
                return prev  # unchanged: no new Path objects
    path = Path(p)
    real = path if real_s == p else Path(real_s)  # share the object when no link is involved
    return new_candidate(path, real, fst, root, (depth, p), side)


def _stat_or_report(
    p: str, stat: Callable[[], os.stat_result], res: ScanResult
) -> os.stat_result | None:
    """The skill file's stat, or None with the reason noted."""
    try:
        return stat()
    except OSError as exc:
        res.diagnostics.append(
            diag(p, "unreadable", Severity.ERROR, f"cannot stat file: {exc.strerror or exc}")
        )
        return None


def _link_resolves(path: str, res: ScanResult) -> bool:
    """Whether a symbolic link can be followed (if not, say why)."""
    try:
        os.stat(path)
    except OSError as exc:
        code = "symlink-loop" if exc.errno == errno.ELOOP else "dangling-symlink"
        res.diagnostics.append(
            diag(
                path,
                code,
                Severity.WARNING,
                f"symbolic link cannot be followed: {exc.strerror or exc}",
                "fix or remove the link",
            )
        )
        return False
    return True


@dataclass(slots=True)
class Entries:
    """What a fresh listing of a folder held, besides the candidates it added."""

    dirs: list[str] = field(default_factory=list)  # every subfolder
    files: list[str] = field(default_factory=list)  # every other entry ending in `.md`
    subdirs: list[Sub] = field(default_factory=list)  # the subfolders to visit
    cacheable: bool = True  # read fully, and no symbolic link in it
    any_link: bool = False


def read_entries(
    root: Root,
    entries: list[os.DirEntry[str]],
    d: str,
    real_d: str,
    depth: int,
    side: bool,
    skill_file: str | None,
    res: ScanResult,
    cache: DirCache | None,
) -> Entries:
    """Go through a folder's entries (in name order): skill files become candidates."""
    out = Entries()
    same = real_d == d  # no link on the way: real paths are the paths
    real_prefix = real_d if real_d.endswith(os.sep) else real_d + os.sep
    deeper = depth + 1 <= MAX_DEPTH
    for e in entries:
        name = e.name
        try:
            is_link = e.is_symlink()
            if is_link:
                out.cacheable = False
                out.any_link = True
                if not _link_resolves(e.path, res):
                    continue
            is_dir = e.is_dir()
        except OSError:
            out.cacheable = False
            continue
        if is_dir:
            out.dirs.append(name)
            if deeper and name not in SKIP_DIRS:
                p = e.path
                real_sub = os.path.realpath(p) if is_link else p if same else real_prefix + name
                out.subdirs.append((p, real_sub, is_link, name))
            continue
        if name[-3:].lower() == ".md":
            out.files.append(name)
        if name == skill_file or (depth == 0 and single_file(name)):
            p = e.path
            fst = _stat_or_report(p, e.stat, res)
            if fst is None:
                out.cacheable = False
                continue
            real_s = os.path.realpath(p) if is_link else p if same else real_prefix + name
            res.candidates.append(candidate(root, p, real_s, fst, depth, side, cache))
    return out


def push(
    subdirs: list[Sub],
    depth: int,
    linked: bool,
    any_link: bool,
    stack: deque[ScanEntry],
    visited: set[str],
    res: ScanResult,
    top: str | None,
) -> None:
    """Queue the subfolders not seen yet, so they are scanned in name order. Below the
    root each keeps the top folder it is in; at the root each is a top folder."""
    # Real folders claim their real path before links to them, so a skill is named after
    # its folder, not after a link that happens to sort later. (`subdirs` is in name order.)
    fresh: list[Sub] = []
    for sub in sorted(subdirs, key=_is_link) if any_link else subdirs:
        if sub[1] in visited:
            res.diagnostics.append(
                diag(
                    sub[0],
                    "folder-seen-twice",
                    Severity.INFO,
                    "folder reached twice (symlink); scanned once",
                )
            )
            continue
        visited.add(sub[1])
        fresh.append(sub)
    if any_link:
        fresh.sort(key=_sub_name)
    depth += 1
    if top is None:
        stack.extend(
            [(p, real_sub, depth, linked or link, p) for p, real_sub, link, _name in fresh]
        )
    else:
        stack.extend(
            [(p, real_sub, depth, linked or link, top) for p, real_sub, link, _name in fresh]
        )


_is_link = itemgetter(2)
_sub_name = itemgetter(3)


def folder_named_skill(
    prefix: str, dirs: list[str], files: list[str] | int, res: ScanResult
) -> None:
    """A folder called SKILL.md is no skill; say so rather than leave the skill missing.
    (The same from a fresh listing and a cached one: both give `dirs` and `files`.)"""
    for name in ("SKILL.md", "skill.md"):
        if name in dirs:
            if name == "skill.md" and isinstance(files, list) and "SKILL.md" in files:
                return  # SKILL.md is the file that counts, and it is a file
            res.diagnostics.append(
                diag(
                    prefix + name,
                    "not-a-file",
                    Severity.ERROR,
                    f"{name} is a directory, not a regular file; it is not read",
                    "replace it with a plain text file, or remove it",
                )
            )
            return


def reuse_listing(
    root: Root,
    d: str,
    real_d: str,
    depth: int,
    old: Kept,
    stack: deque[ScanEntry],
    visited: set[str],
    res: ScanResult,
    cache: DirCache,
    top: str | None,
) -> None:
    """The kept listing of `d` is good: do what a fresh listing would do with it (a kept
    listing has no links in it)."""
    cache.new[d] = old
    res.reused += 1
    flags, dirs, files = old[5], old[6], old[7]
    if flags & VENV:
        return
    sep = os.sep
    prefix = d if d[-1:] == sep else d + sep
    same = real_d == d  # no link on the way: real paths are the paths
    real_prefix = prefix if same else real_d if real_d[-1:] == sep else real_d + sep
    if files:
        _kept_candidates(root, prefix, real_prefix, same, depth, old, res, cache)
    if dirs and ("SKILL.md" in dirs or "skill.md" in dirs):
        folder_named_skill(prefix, dirs, files, res)
    if dirs and depth < MAX_DEPTH:
        if same:
            subdirs = [
                (q, q, False, name)
                for name in dirs
                if name not in SKIP_DIRS
                for q in (prefix + name,)
            ]
        else:
            subdirs = [
                (prefix + name, real_prefix + name, False, name)
                for name in dirs
                if name not in SKIP_DIRS
            ]
        if subdirs:
            push(subdirs, depth, False, False, stack, visited, res, top)


def _kept_candidates(
    root: Root,
    prefix: str,
    real_prefix: str,
    same: bool,
    depth: int,
    old: Kept,
    res: ScanResult,
    cache: DirCache,
) -> None:
    """The skill files a kept listing names, `os.stat`ed again (editing a file does not
    touch its folder)."""
    flags, dirs, files = old[5], old[6], old[7] or []  # called when there are files
    skill_file = (
        "SKILL.md"
        if "SKILL.md" in files or (dirs and "SKILL.md" in dirs)
        else "skill.md"
        if "skill.md" in files or (dirs and "skill.md" in dirs)
        else None
    )
    side = bool(flags & AGENTS)
    cands = res.candidates
    for name in files:
        if name == skill_file or (depth == 0 and single_file(name)):
            p = prefix + name
            fst = _stat_or_report(p, functools.partial(os.stat, p), res)
            if fst is None:
                continue
            real_s = p if same else real_prefix + name
            if cache.prev:
                cands.append(candidate(root, p, real_s, fst, depth, side, cache))
            else:
                path = Path(p)
                cands.append(
                    new_candidate(
                        path, path if real_s == p else Path(real_s), fst, root, (depth, p), side
                    )
                )
