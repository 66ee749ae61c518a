"""What a command changed among the protected set: a before/after comparison.

The sandbox keeps the protected paths it knows of read-only (`sandbox_protect`), but a
protected name can still appear deeper than the working folder (`sub/.claude/skills/x`,
`docs/AGENTS.md`), a protected symlink can be replaced, and a command the person ran
outside the sandbox can change anything. So around every command codebot runs, the
project is compared before and after:

* every folder's modification time (a new, removed or renamed entry changes it), from a
  folder list walked once and then kept up to date: a folder whose time changed is
  listed again, and a new folder is walked whole;
* every file under a protected name (`.claude/…`, `.codebot/…`, `AGENTS.md`, git's config
  and hooks), by (mtime, size, inode, mode), so an edit in place is seen too.

The cost is one `lstat` per folder and per protected file, twice (bench/protected_watch.py).
Big generated folders (`node_modules`, virtualenvs, caches) are not walked: codebot never
reads skills or instructions from inside them unless started there. At most `MAX_DIRS`
folders are kept; `incomplete` says when the walk stopped short.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.protected import (
    NESTED,
    Extras,
    is_protected_name,
    placeholder_paths,
    protected_reason,
)

if TYPE_CHECKING:
    from codebot.inotify import Inotify

#: a file's (mtime_ns, size, inode, mode), and its sha256 (None: unreadable) when it is
#: recent (see `_sig`)
Signature = tuple[int, int, int, int] | tuple[int, int, int, int, str | None]

__all__ = ["MAX_DIRS", "Change", "ProjectWatch", "Snapshot", "file_sha256"]

MAX_DIRS = 20000
#: File times come from a coarse clock (a few ms): two changes within one tick share an
#: mtime, so what changed this recently is compared by names and content instead.
RECENT_NS = 50_000_000
MAX_PROTECTED_FILES = 20000
#: Not walked: generated, large, and never where codebot reads instructions from.
SKIP = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hg",
        ".svn",
    }
)
#: What in a git folder is data, not instructions, and large: left alone at any depth
#: (everything else is watched: config, hooks, commondir, info, and a planted `.git/x/`
#: that a `commondir` points at; submodules' and worktrees' own folders likewise).
GIT_BULK = frozenset(
    {
        "objects",
        "logs",
        "refs",
        "lfs",
        "index",
        "packed-refs",
        "rr-cache",
        "FETCH_HEAD",
        "ORIG_HEAD",
        "COMMIT_EDITMSG",
        "sharedindex",
    }
)
_SECOND_LEVEL = frozenset(n.split("/")[1].casefold() for n in NESTED)


@dataclass(frozen=True)
class Change:
    rel: str  # project-relative posix path
    kind: str  # "created" | "changed" | "removed"
    why: str  # protected_reason


@dataclass
class Snapshot:
    dirs: list[int] = field(default_factory=list)  # each watched folder's mtime_ns (-1: gone)
    files: dict[str, Signature] = field(default_factory=dict)  # rel -> signature
    names: dict[str, frozenset[str]] = field(
        default_factory=dict
    )  # recently changed folders' names
    skip: frozenset[str] = frozenset()  # protected entries not compared (read-only meanwhile)
    events: bool = False  # taken with inotify: `dirs` is empty, the queue says what moved


def _sig(st: os.stat_result, path: str) -> Signature:
    """(mtime, size, inode, mode), and the content's hash for a file changed within the
    clock's granularity of now (a second write in the same tick keeps the mtime)."""
    sig = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)
    if st.st_mtime_ns >= time.time_ns() - RECENT_NS and stat.S_ISREG(st.st_mode):
        return (*sig, file_sha256(Path(path)))
    return sig


def file_sha256(path: Path, cap: int = 64 * 1024 * 1024) -> str | None:
    """The file's sha256, or None when it is not a regular file (or unreadable, or huge)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
            return None
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


class ProjectWatch:
    """Before/after comparisons of one project's protected set (one per session)."""

    def __init__(self, project: Path, hooks: Extras = None, *, events: bool = True) -> None:
        """`events`: use inotify where it works (else, or when False, compare mtimes)."""
        self.project = Path(os.path.realpath(project))
        self._want_events = events
        self._inotify: Inotify | None = None  # while events are in use
        self._wds: dict[int, str] = {}  # watch descriptor -> rel folder
        self._root = str(self.project).rstrip("/") or ""
        self.hooks = hooks
        self.folders: list[str] | None = None  # rel folders, "" is the project
        self._paths: list[str] = []  # the same, absolute (built once: joined per call it costs)
        self._listings: dict[str, tuple[int, list[str]]] = {}  # protected folder -> (mtime, names)
        self._held: frozenset[str] = frozenset()  # the sandbox's placeholders (not the project's)
        self.tops: set[str] = set()  # rel paths of protected entries (trees or files)
        self.incomplete = False

    # -- the folder list ----------------------------------------------------------------

    def _walk(self, start: str, out: list[str]) -> None:
        """Breadth-first from `start` (rel), adding folders to `out` and protected
        entries to `tops`; never follows links; stops at MAX_DIRS."""
        queue = [start]
        while queue:
            rel = queue.pop(0)
            if len(out) >= MAX_DIRS:
                self.incomplete = True
                return
            out.append(rel)
            self._add_watch(rel)
            queue += self._list(rel)

    def _list(self, rel: str) -> list[str]:
        """The subfolders of `rel` to walk; protected entries found go to `tops` (their
        files are compared one by one) and the sandbox's placeholders are passed over."""
        try:
            entries = list(os.scandir(self._abs(rel)))
        except OSError:
            return []
        folders: list[str] = []
        for e in entries:
            child = f"{rel}/{e.name}" if rel else e.name
            if e.path in self._held:
                continue  # the sandbox's empty stand-in, not the project's
            if self._protected(child):
                self.tops.add(child)
            elif e.name not in SKIP and _is_dir(e):
                folders.append(child)
        return folders

    def _protected(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        if is_protected_name(name):
            return True
        if not self.hooks and name.casefold() not in _SECOND_LEVEL:
            return False  # the common case, without splitting the path
        return protected_reason(rel, self.hooks) is not None

    def _abs(self, rel: str) -> str:
        return f"{self._root}/{rel}" if rel else self._root

    def _ensure(self) -> list[str]:
        if self.folders is None:
            if self._want_events:
                self._start_events()
            found: list[str] = []
            self._walk("", found)
            self._set_folders(found)
        assert self.folders is not None
        return self.folders

    # -- inotify ----------------------------------------------------------------------------

    def _start_events(self) -> None:
        from codebot.inotify import Inotify

        try:
            self._inotify = Inotify()
        except OSError:
            self._inotify = None

    def _add_watch(self, rel: str) -> None:
        if self._inotify is None:
            return
        try:
            self._wds[self._inotify.add(self._abs(rel))] = rel
        except OSError:
            self._stop_events()  # out of watches (or the folder vanished): compare mtimes

    def _stop_events(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
        self._inotify, self._wds = None, {}

    @property
    def uses_events(self) -> bool:
        return self._inotify is not None

    def _moved_by_events(self, folders: list[str]) -> tuple[set[str], set[str]] | None:
        """(folders whose entries changed, folders gone or renamed) from the queue, or None
        when the queue overflowed (then every folder is listed again)."""
        from codebot.inotify import (
            IN_DELETE,
            IN_DELETE_SELF,
            IN_IGNORED,
            IN_ISDIR,
            IN_MOVE_SELF,
            IN_MOVED_FROM,
            IN_Q_OVERFLOW,
        )

        inotify = self._inotify
        assert inotify is not None  # called only while `uses_events`
        moved: set[str] = set()
        gone: set[str] = set()
        for wd, mask, name in inotify.read():
            if mask & IN_Q_OVERFLOW:
                return None
            rel = self._wds.get(wd)
            if rel is None:
                continue
            if mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED):
                gone.add(rel)
                continue
            moved.add(rel)
            if mask & IN_ISDIR and mask & (IN_MOVED_FROM | IN_DELETE):
                gone.add(f"{rel}/{name}" if rel else name)
        return moved, gone

    def _set_folders(self, folders: list[str]) -> None:
        self.folders = folders
        self._paths = [self._abs(rel) for rel in folders]

    # -- snapshots --------------------------------------------------------------------------

    def _protected_files(self, top: str, out: dict[str, Signature]) -> None:
        """Every entry under one protected entry, by signature (links as links). A folder
        whose mtime is unchanged is not listed again (its names are kept)."""
        is_git = top.rsplit("/", 1)[-1].casefold() == ".git"
        stack = [top]
        lstat = os.lstat
        while stack and len(out) < MAX_PROTECTED_FILES:
            rel = stack.pop()
            path = self._abs(rel)
            try:
                st = lstat(path)
            except OSError:
                continue
            out[rel] = _sig(st, path)
            if not stat.S_ISDIR(st.st_mode):
                continue
            cached = self._listings.get(rel)
            if cached is not None and cached[0] == st.st_mtime_ns:
                names = cached[1]
            else:
                try:
                    names = os.listdir(path)
                except OSError:
                    continue
                if is_git:
                    names = [n for n in names if n not in GIT_BULK]
                if st.st_mtime_ns < time.time_ns() - RECENT_NS:  # only a settled folder's names
                    self._listings[rel] = (st.st_mtime_ns, names)
            stack += [f"{rel}/{n}" for n in names]

    def _mtimes(self) -> list[int]:
        """Every watched folder's mtime, in `folders` order (-1: gone). One tight loop: this
        is the whole per-command cost on a big project."""
        lstat = os.lstat
        try:
            return [lstat(p).st_mtime_ns for p in self._paths]
        except OSError:
            return [_mtime(p) for p in self._paths]

    def snapshot(self, skip: frozenset[str] = frozenset()) -> Snapshot:
        """`skip`: protected entries that cannot change meanwhile (bound read-only in the
        sandbox): their files are not compared."""
        self._held = placeholder_paths(grace=False)
        self._ensure()
        if self._inotify is not None:
            self._inotify.read()  # what happened before the command is not the command's
            snap = Snapshot(events=True, skip=skip)
            for top in sorted(self.tops - skip):
                self._protected_files(top, snap.files)
            return snap
        snap = Snapshot(dirs=self._mtimes())
        # A folder changed within the clock's granularity of now could change again with
        # the same mtime: its names are kept and compared instead.
        fresh = time.time_ns() - RECENT_NS
        snap.names = {
            rel: _names(p)
            for rel, p, m in zip(self.folders or [], self._paths, snap.dirs, strict=False)
            if m >= fresh
        }
        snap.skip = skip
        for top in sorted(self.tops - skip):
            self._protected_files(top, snap.files)
        return snap

    def changes(self, before: Snapshot) -> list[Change]:
        """What changed since `before` among the protected set (and keep the folder list
        up to date: new folders are walked, removed ones dropped)."""
        self._held = placeholder_paths(grace=False)
        folders = self._ensure()
        moved, gone = self._moved_and_gone(before, folders)
        if gone:
            for wd in [wd for wd, rel in self._wds.items() if rel in gone]:
                del self._wds[wd]  # renamed folders are walked again where they are now
            folders = [rel for rel in folders if rel not in gone]
            self._set_folders(folders)
        if moved:
            self._walk_new(moved, folders)
        after: dict[str, Signature] = {}
        for top in sorted(self.tops - before.skip):
            self._protected_files(top, after)
        self.tops = {
            t for t in self.tops if os.path.lexists(self._abs(t)) and self._abs(t) not in self._held
        }
        return self._file_changes(before, after)

    def _moved_and_gone(self, before: Snapshot, folders: list[str]) -> tuple[list[str], set[str]]:
        """The folders whose entries may have changed since `before`, and those gone."""
        found = (
            self._moved_by_events(folders) if before.events and self._inotify is not None else None
        )
        if found is not None:
            moved = sorted(found[0])
            gone = {
                rel for rel in folders if any(rel == g or rel.startswith(g + "/") for g in found[1])
            }
        elif before.events:
            moved = list(folders)  # the queue overflowed: list every folder again
            gone = {rel for rel in folders if not os.path.isdir(self._abs(rel))}
        else:
            now = self._mtimes()
            moved = [rel for rel, a, b in zip(folders, before.dirs, now, strict=False) if a != b]
            moved += [
                rel
                for rel, names in before.names.items()
                if rel not in moved and _names(self._abs(rel)) != names
            ]
            gone = {rel for rel, m in zip(folders, now, strict=False) if m == -1}
        return moved, gone

    def _walk_new(self, moved: list[str], folders: list[str]) -> None:
        """Walk the new folders inside the moved ones, adding them to `folders`."""
        known = set(folders)
        for rel in moved:
            for child in self._list(rel):
                if child not in known:
                    new: list[str] = []
                    self._walk(child, new)
                    folders += new
                    known.update(new)
        if len(folders) != len(self._paths):
            self._set_folders(folders)  # new folders were walked (gone ones left above)

    def _file_changes(self, before: Snapshot, after: dict[str, Signature]) -> list[Change]:
        """The protected files created, removed or changed between `before` and `after`."""
        out: list[Change] = []
        for rel in sorted(set(before.files) | set(after)):
            old, new = before.files.get(rel), after.get(rel)
            if old is None or new is None:
                kind = "created" if old is None else "removed"
            elif old[:4] == new[:4] and (
                len(old) == 4 or file_sha256(Path(self._abs(rel))) == old[4]
            ):
                continue  # the same, or (changed within one clock tick) the same content
            elif stat.S_ISDIR(old[3]) and stat.S_ISDIR(new[3]):
                continue  # a folder's own time: its entries say what happened
            else:
                kind = "changed"
            out.append(Change(rel, kind, protected_reason(rel, self.hooks) or rel))
        return out


def _names(path: str) -> frozenset[str]:
    try:
        return frozenset(os.listdir(path))
    except OSError:
        return frozenset()


def _mtime(path: str) -> int:
    try:
        return os.lstat(path).st_mtime_ns
    except OSError:
        return -1


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False
