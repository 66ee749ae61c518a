"""What skill files a root holds: a bounded, loop-safe, breadth-first scan.

The roots themselves (where skills live, and their precedence) are in `roots`; the folder
cache a scan can reuse listings from is `folder_cache.DirCache`. Both are re-exported here.
"""

from __future__ import annotations

import errno
import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from pathlib import Path
from stat import S_ISDIR
from typing import Any

# Module globals here, so the scan loop reads them as fast as before (and a test can patch
# discover.RACY_NS for the scan).
from codebot.skills.catalog.candidate import Candidate, new_candidate
from codebot.skills.catalog.folder_cache import AGENTS, RACY_NS, VENV, DirCache, forget, valid_entry
from codebot.skills.catalog.roots import (
    FAMILIES,
    bundled_dir,
    default_roots,
    plugin_roots,
    project_root,
)
from codebot.skills.files import Diagnostic, Root, Severity

# Other code imports these from here (they lived in this module before it was split).
__all__ = [
    "AGENTS",
    "DIRS_PER_SKILL",
    "FAMILIES",
    "MAX_DEPTH",
    "MAX_DIRS",
    "NOT_SKILLS",
    "RACY_NS",
    "SKIP_DIRS",
    "VENV",
    "Candidate",
    "DirCache",
    "ScanResult",
    "bundled_dir",
    "default_roots",
    "new_candidate",
    "plugin_roots",
    "project_root",
    "scan_all",
    "scan_root",
]

MAX_DEPTH = 6
MAX_DIRS = 2000  # folders that hold no skill, per root and per folder at its top
DIRS_PER_SKILL = 4  # extra folders allowed for every skill found
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


#: candidates per call of `scan_root`'s `found` (the router's helper starts on the first ones)
FOUND_BATCH = 500


@dataclass(slots=True)
class ScanResult:
    candidates: list[Candidate] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    listed: int = 0  # folders listed with scandir
    reused: int = 0  # folders whose cached listing was used instead


def _diag(path: Path | str, code: str, sev: Severity, msg: str, hint: str = "") -> Diagnostic:
    return Diagnostic(str(path), 0, code, sev, msg, hint)


def scan_root(
    root: Root,
    start: Path | None = None,
    cache: DirCache | None = None,
    found: Callable[[list[Candidate]], None] | None = None,
) -> ScanResult:
    """Every skill file below `root.path` (or below `start`, a folder inside it).

    With a `cache`, folders that have not changed since the last scan are not listed again.
    `found`, if given, is called with each `FOUND_BATCH` new candidates as the scan goes
    (the last few only come with the result).
    """
    res = ScanResult()
    base = root.path
    try:
        st = os.stat(base)
    except FileNotFoundError:
        if root.explicit:
            res.diagnostics.append(
                _diag(
                    base,
                    "root-missing",
                    Severity.WARNING,
                    "skills folder does not exist",
                    "check the --skills-dir path",
                )
            )
        return res
    except OSError as exc:
        res.diagnostics.append(
            _diag(
                base,
                "root-unreadable",
                Severity.WARNING,
                f"cannot open skills folder: {exc.strerror or exc}",
            )
        )
        return res
    if not S_ISDIR(st.st_mode):
        res.diagnostics.append(
            _diag(
                base,
                "root-not-a-folder",
                Severity.WARNING,
                "skills root is a file, not a folder",
                "point the skills folder setting at a directory",
            )
        )
        return res
    # Strings, not Paths, from here on: building a Path costs microseconds and a big root
    # has tens of thousands of entries. Only candidates become Paths.
    begin = str(start or base)
    depth0 = len(start.relative_to(base).parts) if start else 0
    real_begin = os.path.realpath(begin)
    linked = False
    if start is not None and cache is not None:
        # A start folder reached through a link below the root is not cached either.
        rel = os.path.relpath(begin, str(base))
        linked = real_begin != os.path.normpath(os.path.join(os.path.realpath(base), rel))
    # Loops can only come through symbolic links, whose targets are resolved; so the set
    # of real paths seen is enough to visit every folder once, without an extra stat.
    visited: set[str] = {real_begin}
    # Breadth first, so the skills near the top of a root are found before any deep tree
    # is walked. Each entry is (path, real path, depth, reached through a link, top): `top`
    # is the folder at the top of the root the entry is inside (None for the root itself).
    top0 = None if depth0 == 0 else os.path.join(str(base), start.relative_to(base).parts[0])  # type: ignore[union-attr]
    stack: deque[tuple[str, str, int, bool, str | None]] = deque(
        [(begin, real_begin, depth0, linked, top0)]
    )
    pop = stack.popleft
    now = time.time_ns() if cache is not None else 0
    dirs_seen = 0
    cands = res.candidates
    # Folders and skills per top folder: each has its own budget, so a skill holding
    # thousands of asset folders hides only what is inside it.
    per_top: dict[str, list[int]] = {}
    full: set[str] = set()
    last: list[int] | None = None
    last_n = 0
    old_get = cache.old.get if cache is not None else None
    keep = cache.new if cache is not None else {}
    prev = cache.prev if cache is not None else {}
    sep = os.sep
    sent = 0
    while stack:
        d, real_d, depth, linked, top = pop()
        if found is not None and len(cands) - sent >= FOUND_BATCH:
            found(cands[sent:])
            sent = len(cands)
        if last is not None:  # credit the skills the previous folder held to its top folder
            last[1] += len(cands) - last_n
            last = None
        if top is not None:
            last = per_top.get(top)
            if last is None:
                last = per_top[top] = [0, 0]
            if last[0] >= MAX_DIRS + DIRS_PER_SKILL * last[1]:
                if top not in full:
                    full.add(top)
                    res.diagnostics.append(
                        _diag(
                            top,
                            "scan-limit",
                            Severity.WARNING,
                            f"stopped scanning {os.path.basename(top)!r} after {last[0]} folders; "
                            "skills inside it may be missing",
                            "move bulky assets or caches out of the skills folder",
                        )
                    )
                last = None
                continue
            last[0] += 1
            last_n = len(cands)
        dirs_seen += 1
        # The limit guards against pointing codebot at a huge tree (a home folder). A
        # root that really holds skills earns room for each one and its scripts/,
        # references/ and assets/ folders, so 10,000 skills in one root still load.
        if dirs_seen > MAX_DIRS + DIRS_PER_SKILL * len(cands):
            left = sorted(
                {os.path.basename(e[4] or d) for e in stack} | {os.path.basename(top or d)}
            )
            more = f" and {len(left) - 3} more" if len(left) > 3 else ""
            res.diagnostics.append(
                _diag(
                    base,
                    "scan-limit",
                    Severity.WARNING,
                    f"stopped after {dirs_seen - 1} folders; skills may be missing in "
                    f"{', '.join(map(repr, left[:3]))}{more}",
                    "point codebot at a smaller folder",
                )
            )
            break
        if old_get is None or linked:
            _scan_dir(root, d, real_d, depth, linked, stack, visited, res, None, cache, top)
            continue
        # With a cache (inlined: this loop runs once per folder of every root).
        try:
            st = os.stat(d)
        except OSError:
            forget(cache, d)  # type: ignore[arg-type]
            _scan_dir(root, d, real_d, depth, False, stack, visited, res, None, cache, top)
            continue
        old = old_get(d)
        if old is not None and type(old) is not tuple:
            old = valid_entry(old)  # read from the index file
        if old is None or not (
            old[0] == st.st_mtime_ns
            and old[1] == st.st_ctime_ns
            and old[2] == st.st_ino
            and old[3] == st.st_dev
            and old[0] < old[4] - RACY_NS
            and old[1] < old[4] - RACY_NS
        ):
            _relist(root, d, real_d, depth, st, old, stack, visited, res, cache, now, top)  # type: ignore[arg-type]
            continue
        # The kept listing is good: do what _scan_dir would do with it (no links in it).
        keep[d] = old
        res.reused += 1
        flags, dirs, files = old[5], old[6], old[7]
        if flags & VENV:
            continue
        prefix = d if d[-1:] == sep else d + sep
        same = real_d == d  # no link on the way: real paths are the paths
        real_prefix = prefix if same else real_d if real_d[-1:] == sep else real_d + sep
        if files:
            skill_file = (
                "SKILL.md"
                if "SKILL.md" in files or (dirs and "SKILL.md" in dirs)
                else "skill.md"
                if "skill.md" in files or (dirs and "skill.md" in dirs)
                else None
            )
            side = bool(flags & AGENTS)
            for name in files:
                if name == skill_file or (depth == 0 and _single_file(name)):
                    p = prefix + name
                    try:
                        fst = os.stat(p)
                    except OSError as exc:
                        res.diagnostics.append(
                            _diag(
                                p,
                                "unreadable",
                                Severity.ERROR,
                                f"cannot stat file: {exc.strerror or exc}",
                            )
                        )
                        continue
                    real_s = p if same else real_prefix + name
                    if prev:
                        cands.append(_candidate(root, p, real_s, fst, depth, side, cache))
                    else:
                        path = Path(p)
                        cands.append(
                            new_candidate(
                                path,
                                path if real_s == p else Path(real_s),
                                fst,
                                root,
                                (depth, p),
                                side,
                            )
                        )
        if dirs and ("SKILL.md" in dirs or "skill.md" in dirs):
            _folder_named_skill(prefix, dirs, files, res)
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
                _push(subdirs, depth, False, False, stack, visited, res, top)
    return res


def _relist(
    root: Root,
    d: str,
    real_d: str,
    depth: int,
    st: os.stat_result,
    old: tuple[Any, ...] | None,
    stack: deque[Any],
    visited: set[str],
    res: ScanResult,
    cache: DirCache,
    now: int,
    top: str | None = None,
) -> None:
    """List `d` again and keep the listing, stamped with `st` (taken before listing)."""
    listing: list[Any] = []
    if (
        _scan_dir(root, d, real_d, depth, False, stack, visited, res, listing, cache, top)
        and listing
    ):
        mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
        flags, dirs, files = listing
        new = (mtime, ctime, st.st_ino, st.st_dev, now, flags, dirs, files)
        cache.new[d] = new
        # Worth persisting unless only the listing time moved and the folder is still racy.
        if (
            old is None
            or old[:4] != new[:4]
            or old[5:] != new[5:]
            or (mtime < now - RACY_NS and ctime < now - RACY_NS)
        ):
            cache.changed = True
    else:
        forget(cache, d)


_by_name = attrgetter("name")


def _candidate(
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


def _scan_dir(
    root: Root,
    d: str,
    real_d: str,
    depth: int,
    linked: bool,
    stack: deque[Any],
    visited: set[str],
    res: ScanResult,
    listing: list[Any] | None,
    cache: DirCache | None = None,
    top: str | None = None,
) -> bool:
    """List `d`. With `listing`, also fill it with (flags, dirs, md_files) and return
    whether the folder can be cached (it was read and holds no symbolic link)."""
    res.listed += 1
    try:
        with os.scandir(d) as it:
            entries = sorted(it, key=_by_name)
    except OSError as exc:
        res.diagnostics.append(
            _diag(
                d,
                "folder-unreadable",
                Severity.WARNING,
                f"cannot list folder: {exc.strerror or exc}",
                "fix its permissions or remove it",
            )
        )
        return False
    names = {e.name for e in entries}
    side = "agents" in names
    flags = AGENTS if side else 0
    if "pyvenv.cfg" in names:
        if listing is not None:
            listing[:] = [flags | VENV, 0, 0]
        return True  # a virtualenv: thousands of folders, no skills
    skill_file = (
        "SKILL.md" if "SKILL.md" in names else ("skill.md" if "skill.md" in names else None)
    )
    same = real_d == d  # no link on the way: real paths are the paths
    real_prefix = real_d if real_d.endswith(os.sep) else real_d + os.sep
    deeper = depth + 1 <= MAX_DEPTH
    subdirs: list[tuple[str, str, bool, str]] = []
    dirs: list[str] = []
    files: list[str] = []
    cacheable = True
    any_link = False
    for e in entries:
        name = e.name
        try:
            is_link = e.is_symlink()
            if is_link:
                cacheable = False
                any_link = True
                try:
                    os.stat(e.path)
                except OSError as exc:
                    code = "symlink-loop" if exc.errno == errno.ELOOP else "dangling-symlink"
                    res.diagnostics.append(
                        _diag(
                            e.path,
                            code,
                            Severity.WARNING,
                            f"symbolic link cannot be followed: {exc.strerror or exc}",
                            "fix or remove the link",
                        )
                    )
                    continue
            is_dir = e.is_dir()
        except OSError:
            cacheable = False
            continue
        if is_dir:
            dirs.append(name)
            if deeper and name not in SKIP_DIRS:
                p = e.path
                real_sub = os.path.realpath(p) if is_link else p if same else real_prefix + name
                subdirs.append((p, real_sub, is_link, name))
        else:
            if name[-3:].lower() == ".md":
                files.append(name)
            if name == skill_file or (depth == 0 and _single_file(name)):
                p = e.path
                try:
                    fst = e.stat()
                except OSError as exc:
                    cacheable = False
                    res.diagnostics.append(
                        _diag(
                            p,
                            "unreadable",
                            Severity.ERROR,
                            f"cannot stat file: {exc.strerror or exc}",
                        )
                    )
                    continue
                real_s = os.path.realpath(p) if is_link else p if same else real_prefix + name
                res.candidates.append(_candidate(root, p, real_s, fst, depth, side, cache))
    if dirs and ("SKILL.md" in dirs or "skill.md" in dirs):
        _folder_named_skill(d if d.endswith(os.sep) else d + os.sep, dirs, files, res)
    if subdirs:
        _push(subdirs, depth, linked, any_link, stack, visited, res, top)
    if listing is not None:
        listing[:] = [flags, dirs or 0, files or 0]
    return cacheable


def _push(
    subdirs: list[tuple[str, str, bool, str]],
    depth: int,
    linked: bool,
    any_link: bool,
    stack: deque[Any],
    visited: set[str],
    res: ScanResult,
    top: str | None,
) -> None:
    """Queue the subfolders not seen yet, so they are scanned in name order. Below the
    root each keeps the top folder it is in; at the root each is a top folder."""
    # Real folders claim their real path before links to them, so a skill is named after
    # its folder, not after a link that happens to sort later. (`subdirs` is in name order.)
    fresh: list[tuple[str, str, bool, str]] = []
    for sub in sorted(subdirs, key=_is_link) if any_link else subdirs:
        if sub[1] in visited:
            res.diagnostics.append(
                _diag(
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


def _folder_named_skill(
    prefix: str, dirs: list[str], files: list[str] | int, res: ScanResult
) -> None:
    """A folder called SKILL.md is no skill; say so rather than leave the skill missing.
    (The same from a fresh listing and a cached one: both give `dirs` and `files`.)"""
    for name in ("SKILL.md", "skill.md"):
        if name in dirs:
            if name == "skill.md" and files and "SKILL.md" in files:
                return  # SKILL.md is the file that counts, and it is a file
            res.diagnostics.append(
                _diag(
                    prefix + name,
                    "not-a-file",
                    Severity.ERROR,
                    f"{name} is a directory, not a regular file; it is not read",
                    "replace it with a plain text file, or remove it",
                )
            )
            return


def _single_file(name: str) -> bool:
    low = name.lower()
    return low.endswith(".md") and low != "skill.md" and low not in NOT_SKILLS


def scan_all(roots: Iterable[Root]) -> ScanResult:
    total = ScanResult()
    for root in roots:
        r = scan_root(root)
        total.candidates.extend(r.candidates)
        total.diagnostics.extend(r.diagnostics)
    return total
