"""What skill files a root holds: a bounded, loop-safe, breadth-first scan.

This module owns the walk: the order folders are visited in, the budgets that stop a scan
of a huge tree, and when a folder is listed again or its kept listing (`folder_cache`) is
used. What one folder yields (candidates, subfolders, diagnostics) is `listing`; the roots
themselves (where skills live, and their precedence) are `roots`.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from operator import attrgetter
from pathlib import Path
from stat import S_ISDIR
from typing import cast

# RACY_NS is read as this module's global, so a test can patch discover.RACY_NS for the scan.
from codebot.skills.catalog.candidate import Candidate
from codebot.skills.catalog.folder_cache import (
    AGENTS,
    RACY_NS,
    VENV,
    DirCache,
    Kept,
    ScanEntry,
    forget,
    valid_entry,
)
from codebot.skills.catalog.listing import (
    ScanResult,
    diag,
    folder_named_skill,
    push,
    read_entries,
    reuse_listing,
)
from codebot.skills.catalog.roots import plugin_roots
from codebot.skills.files import Root, Severity

# Tests and benchmarks reach these through this module (`discover.plugin_roots`).
__all__ = [
    "DIRS_PER_SKILL",
    "FOUND_BATCH",
    "MAX_DIRS",
    "RACY_NS",
    "ScanResult",
    "plugin_roots",
    "scan_all",
    "scan_root",
]

MAX_DIRS = 2000  # folders that hold no skill, per root and per folder at its top
DIRS_PER_SKILL = 4  # extra folders allowed for every skill found

#: candidates per call of `scan_root`'s `found` (the router's helper starts on the first ones)
FOUND_BATCH = 500

#: A folder to visit: (path, real path, depth, reached through a link, top folder).
_Entry = ScanEntry


def _root_folder(root: Root, res: ScanResult) -> bool:
    """Whether the root is a folder that can be opened (if not, say why)."""
    base = root.path
    try:
        st = os.stat(base)
    except FileNotFoundError:
        if root.explicit:
            res.diagnostics.append(
                diag(
                    base,
                    "root-missing",
                    Severity.WARNING,
                    "skills folder does not exist",
                    "check the --skills-dir path",
                )
            )
        return False
    except OSError as exc:
        res.diagnostics.append(
            diag(
                base,
                "root-unreadable",
                Severity.WARNING,
                f"cannot open skills folder: {exc.strerror or exc}",
            )
        )
        return False
    if not S_ISDIR(st.st_mode):
        res.diagnostics.append(
            diag(
                base,
                "root-not-a-folder",
                Severity.WARNING,
                "skills root is a file, not a folder",
                "point the skills folder setting at a directory",
            )
        )
        return False
    return True


def _first_entry(root: Root, start: Path | None, cache: DirCache | None) -> _Entry:
    """Where the walk starts: the root, or `start` (a folder inside it)."""
    base = root.path
    # Strings, not Paths, from here on: building a Path costs microseconds and a big root
    # has tens of thousands of entries. Only candidates become Paths.
    begin = str(start or base)
    real_begin = os.path.realpath(begin)
    if start is None:
        return begin, real_begin, 0, False, None
    rel_parts = start.relative_to(base).parts
    linked = False
    if cache is not None:
        # A start folder reached through a link below the root is not cached either.
        rel = os.path.relpath(begin, str(base))
        linked = real_begin != os.path.normpath(os.path.join(os.path.realpath(base), rel))
    # `top` is the folder at the top of the root the entry is inside (None for the root).
    top = None if not rel_parts else os.path.join(str(base), rel_parts[0])
    return begin, real_begin, len(rel_parts), linked, top


class _TopBudgets:
    """Folders and skills per top folder: each has its own budget, so a skill holding
    thousands of asset folders hides only what is inside it."""

    def __init__(self, res: ScanResult) -> None:
        self.res = res
        self.per_top: dict[str, list[int]] = {}
        self.full: set[str] = set()
        self.last: list[int] | None = None
        self.last_n = 0

    def admit(self, top: str | None) -> bool:
        """Whether a folder inside `top` may be scanned (counting it if so)."""
        cands = self.res.candidates
        if self.last is not None:  # credit the skills the previous folder held to its top
            self.last[1] += len(cands) - self.last_n
            self.last = None
        if top is None:
            return True
        last = self.per_top.get(top)
        if last is None:
            last = self.per_top[top] = [0, 0]
        if last[0] >= MAX_DIRS + DIRS_PER_SKILL * last[1]:
            if top not in self.full:
                self.full.add(top)
                self.res.diagnostics.append(
                    diag(
                        top,
                        "scan-limit",
                        Severity.WARNING,
                        f"stopped scanning {os.path.basename(top)!r} after {last[0]} folders; "
                        "skills inside it may be missing",
                        "move bulky assets or caches out of the skills folder",
                    )
                )
            return False
        last[0] += 1
        self.last, self.last_n = last, len(cands)
        return True


def _stopped(
    res: ScanResult, base: Path, stack: deque[_Entry], d: str, top: str | None, seen: int
) -> None:
    """Say where the scan stopped, naming the top folders left unscanned."""
    left = sorted({os.path.basename(e[4] or d) for e in stack} | {os.path.basename(top or d)})
    more = f" and {len(left) - 3} more" if len(left) > 3 else ""
    res.diagnostics.append(
        diag(
            base,
            "scan-limit",
            Severity.WARNING,
            f"stopped after {seen - 1} folders; skills may be missing in "
            f"{', '.join(map(repr, left[:3]))}{more}",
            "point codebot at a smaller folder",
        )
    )


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
    if not _root_folder(root, res):
        return res
    first = _first_entry(root, start, cache)
    # Loops can only come through symbolic links, whose targets are resolved; so the set
    # of real paths seen is enough to visit every folder once, without an extra stat.
    visited: set[str] = {first[1]}
    # Breadth first, so the skills near the top of a root are found before any deep tree
    # is walked.
    stack: deque[_Entry] = deque([first])
    pop = stack.popleft
    now = time.time_ns() if cache is not None else 0
    dirs_seen = 0
    cands = res.candidates
    budgets = _TopBudgets(res)
    sent = 0
    while stack:
        d, real_d, depth, linked, top = pop()
        if found is not None and len(cands) - sent >= FOUND_BATCH:
            found(cands[sent:])
            sent = len(cands)
        if not budgets.admit(top):
            continue
        dirs_seen += 1
        # The limit guards against pointing codebot at a huge tree (a home folder). A
        # root that really holds skills earns room for each one and its scripts/,
        # references/ and assets/ folders, so 10,000 skills in one root still load.
        if dirs_seen > MAX_DIRS + DIRS_PER_SKILL * len(cands):
            _stopped(res, root.path, stack, d, top, dirs_seen)
            break
        if cache is None or linked:
            _scan_dir(root, d, real_d, depth, linked, stack, visited, res, None, cache, top)
        else:
            _cached_dir(root, d, real_d, depth, stack, visited, res, cache, now, top)
    return res


def _cached_dir(
    root: Root,
    d: str,
    real_d: str,
    depth: int,
    stack: deque[ScanEntry],
    visited: set[str],
    res: ScanResult,
    cache: DirCache,
    now: int,
    top: str | None,
) -> None:
    """Scan `d` with a cache: reuse its kept listing if the folder has not changed since,
    else list it again (and keep that)."""
    try:
        st = os.stat(d)
    except OSError:
        forget(cache, d)
        _scan_dir(root, d, real_d, depth, False, stack, visited, res, None, cache, top)
        return
    old = cache.old.get(d)
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
        _relist(root, d, real_d, depth, st, old, stack, visited, res, cache, now, top)
        return
    reuse_listing(root, d, real_d, depth, old, stack, visited, res, cache, top)


def _relist(
    root: Root,
    d: str,
    real_d: str,
    depth: int,
    st: os.stat_result,
    old: Kept | None,
    stack: deque[ScanEntry],
    visited: set[str],
    res: ScanResult,
    cache: DirCache,
    now: int,
    top: str | None = None,
) -> None:
    """List `d` again and keep the listing, stamped with `st` (taken before listing)."""
    listing: list[int | list[str]] = []
    if (
        _scan_dir(root, d, real_d, depth, False, stack, visited, res, listing, cache, top)
        and listing
    ):
        mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
        flags, dirs, files = listing
        new = cast("Kept", (mtime, ctime, st.st_ino, st.st_dev, now, flags, dirs, files))
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


def _scan_dir(
    root: Root,
    d: str,
    real_d: str,
    depth: int,
    linked: bool,
    stack: deque[ScanEntry],
    visited: set[str],
    res: ScanResult,
    listing: list[int | list[str]] | None,
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
            diag(
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
    got = read_entries(root, entries, d, real_d, depth, side, skill_file, res, cache)
    dirs, files = got.dirs, got.files
    if dirs and ("SKILL.md" in dirs or "skill.md" in dirs):
        folder_named_skill(d if d.endswith(os.sep) else d + os.sep, dirs, files, res)
    if got.subdirs:
        push(got.subdirs, depth, linked, got.any_link, stack, visited, res, top)
    if listing is not None:
        listing[:] = [flags, dirs or 0, files or 0]
    return got.cacheable


def scan_all(roots: Iterable[Root]) -> ScanResult:
    total = ScanResult()
    for root in roots:
        r = scan_root(root)
        total.candidates.extend(r.candidates)
        total.diagnostics.extend(r.diagnostics)
    return total
