"""Which protected paths the sandbox keeps read-only, and the placeholders for the missing ones.

The protected set (`codebot.protected`) is what runs later, outside the sandbox. Inside a
writable folder an existing protected path is bound read-only onto itself: writing in it
fails with EROFS, and renaming or removing it fails with EBUSY (it is a mount point), so
`mv .git .g` cannot swap the repository. A protected name that does not exist yet would
otherwise be free to create, so an empty read-only folder is mounted there for the
command's lifetime: `.codebot/config.yaml` cannot be written under it, and an `AGENTS.md`
cannot be created where a folder stands. bwrap creates that mount point in the real
project folder; `protected_run` removes it (and any parent bwrap had to create) once no
running command needs it. Empty folders are what git ignores, so `git status` inside
shows nothing new.

What this cannot hold: a protected name that is a *symlink* (its target is protected,
the link itself can be replaced), and protected names deeper than the working folder
that do not exist yet. Both are caught after the command by the provenance watch
(`codebot.provenance`), which records what changed as agent-written.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import os
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol

from codebot.protected import FILE_NAMES, fixed_locations, note_placeholders

__all__ = ["flush_placeholders", "placeholders_pending", "protected_run", "protected_targets"]

_EMPTY: list[Path] = []
_LOCK = threading.RLock()  # reentrant: protected_run holds it around protected_targets
_USERS: Counter[str] = Counter()  # placeholder -> running commands that hold it
_FILE_NAMES = frozenset({*FILE_NAMES, "copilot-instructions.md"})


class Policy(Protocol):
    """What these functions read of `sandbox.SandboxPolicy` (sandbox.py imports this module,
    so the class is not imported here)."""

    @property
    def project(self) -> Path: ...

    @property
    def extra_writable(self) -> tuple[Path, ...]: ...

    @property
    def project_writable(self) -> bool: ...

    @property
    def hooks(self) -> str | tuple[tuple[str, str], ...] | None: ...

    @property
    def cwd(self) -> Path | None: ...


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def empty_dir() -> Path:
    """An empty folder outside every project, the source of each placeholder mount."""
    with _LOCK:
        if not _EMPTY or not _EMPTY[0].is_dir():
            folder = Path(tempfile.mkdtemp(prefix="codebot-empty-"))
            folder.chmod(0o500)
            _EMPTY[:] = [folder]
        return _EMPTY[0]


def _locations(policy: Policy, roots: Sequence[Path]) -> list[Path]:
    """Each writable folder's protected names, at every level down to the session's
    working folder (`policy.cwd`) where it is inside that folder."""
    project = _real(policy.project)
    here = _real(policy.cwd) if policy.cwd is not None else None
    out: list[Path] = []
    for r in roots:
        if r == project and not policy.project_writable:
            continue  # bound read-only as a whole
        out += fixed_locations(
            r,
            here if here is not None and _under(here, r) else None,
            policy.hooks if r == project else None,
        )
    return out


def _gitdirs(dotgit: str) -> list[str]:
    """A `.git` *file* (worktree, submodule) names the real repository folder, and that
    folder's `commondir` the shared one: both hold config and hooks."""
    try:
        with open(dotgit, encoding="utf-8", errors="replace") as fh:
            text = fh.read(4096)
    except OSError:
        return []
    found: list[str] = []
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            gitdir = os.path.realpath(os.path.join(os.path.dirname(dotgit), line[7:].strip()))
            found.append(gitdir)
            with (
                contextlib.suppress(OSError),
                open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh,
            ):
                common = fh.read(4096).strip()
                if common:
                    found.append(os.path.realpath(os.path.join(gitdir, common)))
    return found


_TARGETS: contextvars.ContextVar[
    tuple[tuple[Policy, tuple[Path, ...]], tuple[list[Path], list[Path]]] | None
] = contextvars.ContextVar("codebot_protected_targets", default=None)


def protected_targets(policy: Policy, roots: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """(existing real paths to bind read-only, missing paths to hold with a placeholder),
    each inside a writable folder and holding none (a hostile `.codebot -> /` must not
    turn a protection into a read-only root). Inside `protected_run` for the same policy
    the answer it found is reused: the two must agree on which placeholders exist."""
    key = (policy, tuple(roots))
    held = _TARGETS.get()
    if held is not None and held[0] == key:
        return held[1]
    with _LOCK:  # the remover must not take a placeholder away between the checks below
        return _targets(policy, roots)


def _targets(policy: Policy, roots: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    rs = [str(r) for r in roots]
    prefixes = [r.rstrip(os.sep) + os.sep for r in rs]

    def under(q: str) -> bool:
        return any(q == r or q.startswith(p) for r, p in zip(rs, prefixes, strict=True))

    def inside(q: str) -> bool:
        return under(q) and not any(r == q or r.startswith(q.rstrip(os.sep) + os.sep) for r in rs)

    keep: list[str] = []
    hold: list[str] = []
    parents: dict[str, str] = {}
    for loc in _locations(policy, roots):
        p = str(loc)
        if p in _OURS or _leftover(p, loc.name):
            hold.append(p)  # one of ours, still there: held again, never bound as it is
            continue
        if os.path.lexists(p):
            targets = [os.path.realpath(p)]
            if loc.name == ".git" and os.path.isfile(p):
                targets += _gitdirs(p)
            keep += [q for q in targets if q not in keep and os.path.exists(q) and inside(q)]
            continue
        head, name = os.path.split(p)
        parent = parents.get(head)
        if parent is None:
            parent = parents[head] = os.path.realpath(head)
        if not under(parent):
            continue  # the parent leads outside: read-only there already
        q = os.path.join(parent, name)
        if q not in hold and not os.path.lexists(q):
            hold.append(q)
    return [Path(q) for q in keep], [Path(q) for q in hold]


def _leftover(path: str, name: str) -> bool:
    """An empty folder named like a protected *file* (`AGENTS.md/`) is a placeholder an
    earlier codebot could not remove (it was killed): taken back, and removed after."""
    if name.casefold() not in _FILE_NAMES:
        return False
    try:
        return os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path)
    except OSError:
        return False


def _created(hold: Sequence[Path]) -> list[Path]:
    """The placeholders and the parents bwrap will create for them (or created for an
    earlier command and not yet removed), deepest first."""
    out: list[Path] = []
    for p in hold:
        chain = [p]
        parent = p.parent
        while (str(parent) in _OURS or not os.path.lexists(parent)) and parent != parent.parent:
            chain.append(parent)
            parent = parent.parent
        out += [c for c in chain if c not in out]
    return sorted(out, key=lambda c: len(c.parts), reverse=True)


@contextlib.contextmanager
def protected_run(policy: Policy | str | None) -> Iterator[list[Path]]:
    """Around one sandboxed command: hold the placeholder folders bwrap makes for it, and
    afterwards hand them to the remover once no other running command holds them (a
    placeholder removed under a running command would detach its mount there). Yields the
    real paths that are bound read-only."""
    if policy is None or isinstance(policy, str):
        yield []
        return
    project = _real(policy.project)
    roots = [project, *(_real(p) for p in policy.extra_writable if _real(p).is_dir())]
    with _LOCK:
        found = protected_targets(policy, roots)
        mine = [str(p) for p in _created(found[1])]
        _USERS.update(mine)
        _OURS.update(mine)
    note_placeholders(mine, held=True)
    token = _TARGETS.set(((policy, tuple(roots)), found))
    try:
        yield found[0]
    finally:
        _TARGETS.reset(token)
        with _LOCK:
            _USERS.subtract(mine)
            for p in mine:
                if _USERS[p] <= 0:
                    del _USERS[p]
            _WAKE.notify()
        _start_remover()


# -- removing placeholders, off the command's path ----------------------------------------
#
# An rmdir costs 60-100 us on a journaled file system, and a command holds about a dozen
# placeholders: removing them in a thread keeps that off every Bash call. A placeholder
# that still exists is still "ours" (`_OURS`): the next command holds it again rather than
# binding it as an existing protected path, and the remover takes the lock for each rmdir,
# so it never removes one a command has just taken.

_OURS: set[str] = set()  # placeholders that exist (held or waiting for removal)
_WAKE = threading.Condition(_LOCK)
_REMOVER: list[threading.Thread] = []


def _remove_free() -> bool:
    """Remove every placeholder nobody holds (deepest first); called with `_LOCK` held.
    True when some are left that are still held."""
    free = sorted((p for p in _OURS if _USERS[p] <= 0), key=lambda p: p.count(os.sep), reverse=True)
    removed: list[str] = []
    for p in free:
        _USERS.pop(p, None)
        _OURS.discard(p)
        with contextlib.suppress(OSError):
            os.rmdir(p)  # fails on anything not empty, or not a folder: then it is not ours
            removed.append(p)
    if free:
        note_placeholders(free, held=False, removed=removed)
    return bool(_OURS)


def _remover() -> None:
    with _LOCK:
        while True:
            _remove_free()
            _WAKE.wait()


def _start_remover() -> None:
    with _LOCK:
        if _REMOVER and _REMOVER[0].is_alive():
            return
        thread = threading.Thread(target=_remover, name="codebot-placeholders", daemon=True)
        _REMOVER[:] = [thread]
    thread.start()


def placeholders_pending() -> int:
    """How many placeholders exist that no command holds (the remover's work left)."""
    with _LOCK:
        return sum(1 for p in _OURS if _USERS[p] <= 0)


def flush_placeholders() -> None:
    """Remove every free placeholder now (at exit, and for tests that look at the folder)."""
    with _LOCK:
        _remove_free()


atexit.register(flush_placeholders)
