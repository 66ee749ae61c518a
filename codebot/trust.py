"""Workspace trust: which project folders the person said codebot may trust.

A project (its git root, else the working folder) is trusted only when the person ran
`codebot trust` for it or for a folder above it. Trust is kept in
`$CODEBOT_HOME/trust.json`:

    {"version": 1, "trusted": [{"path": "/home/me/src/app", "since": "2026-11-30T01:37:37+00:00"}]}

Rules:
- Paths are real paths (`os.path.realpath`): a symlink is trusted only when the folder
  it really points at is inside a trusted folder, and trusting a symlink stores its
  target.
- A trusted folder's subfolders are trusted; the check compares whole path components,
  so `/a/bc` is not inside `/a/b`.
- `$HOME`, `/` and every folder that contains `$HOME` are never trusted as a whole:
  `add()` refuses them and `load()` ignores them in a hand-edited file.
- The file fails closed. A file that is not JSON, has the wrong shape, is too big, is
  not a regular file (a FIFO, a device), is a symlink, is not owned by this user, or is
  writable by others trusts nothing; `load()` returns a warning and never raises or
  blocks. A single bad entry is skipped (with a warning) and the others still count.
- Writers take a `filelock` lock on `trust.json.lock`, read the file again, and replace
  it atomically (temp file in the same folder, fsync, `os.replace`, mode 0600), so two
  processes trusting folders at once both keep their entry.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import filelock

FORMAT = 1
FILENAME = "trust.json"
#: A trust file bigger than this is hostile or broken: nobody trusts a megabyte of folders.
MAX_BYTES = 1 << 20
#: Seconds a writer waits for another codebot's lock before giving up.
LOCK_TIMEOUT = 10.0

_T = TypeVar("_T")


@dataclass(frozen=True)
class TrustEntry:
    """One trusted folder: its real path and when it was trusted (ISO 8601, UTC)."""

    path: str
    since: str


class TrustError(ValueError):
    """A trust change that cannot be made; the message says what and what to do.

    `kind` lets a caller pick an exit code: "home", "root", "contains-home",
    "missing", "not-a-folder" (the person asked for something wrong), or "damaged",
    "busy", "io" (the trust file could not be updated).
    """

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def trust_file(home: Path) -> Path:
    """`<CODEBOT_HOME>/trust.json`."""
    return Path(home) / FILENAME


# -- reading --------------------------------------------------------------------------------


def load(home: Path) -> tuple[list[TrustEntry], list[str]]:
    """The trusted folders and any warnings about the file. Never raises, never blocks.

    A missing file is simply "nothing trusted" with no warning.
    """
    path = trust_file(home)
    entries, warnings, damage = _load(path)
    if damage:
        warnings = [f"{path} {damage}; nothing is trusted until it is fixed or removed"]
    return entries, warnings


def _load(path: Path) -> tuple[list[TrustEntry], list[str], str | None]:
    """(entries, warnings about single entries, why the whole file is unusable or None)."""
    try:
        data = _read_bytes(path)
    except FileNotFoundError:
        return [], [], None
    except _Unusable as exc:
        return [], [], str(exc)
    except OSError as exc:
        return [], [], f"cannot be read ({exc.strerror or exc})"
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # RecursionError: `[[[[...` nested deep enough overflows the JSON parser.
        return [], [], "is too deeply nested" if isinstance(exc, RecursionError) else "is not valid JSON"
    items = doc.get("trusted") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        return [], [], 'does not have the shape {"version": 1, "trusted": [...]}'
    entries: list[TrustEntry] = []
    warnings: list[str] = []
    seen: set[str] = set()
    forbidden = _forbidden()
    for i, item in enumerate(items):
        entry, problem = _entry(item, forbidden)
        if problem:
            warnings.append(f"{path}: entry {i + 1} ignored: {problem}")
        elif entry is not None and entry.path not in seen:
            seen.add(entry.path)
            entries.append(entry)
    return entries, warnings, None


class _Unusable(Exception):
    """The trust file exists but must not be read (wrong kind of file, owner, size)."""


def _read_bytes(path: Path) -> bytes:
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    # O_NOFOLLOW: a trust.json that is a symlink could point anywhere (another user's file).
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.EMLINK and path.is_symlink()):
            raise _Unusable("is a symlink, not a regular file") from None
        raise
    try:
        # Check the descriptor, not the name: the name may be swapped after the check.
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Unusable("is not a regular file")
        geteuid = getattr(os, "geteuid", None)
        if geteuid is not None and st.st_uid not in (geteuid(), 0):
            raise _Unusable(f"is owned by another user (uid {st.st_uid})")
        if st.st_mode & 0o022:
            raise _Unusable(f"is writable by other users (mode {stat.S_IMODE(st.st_mode):o}); run chmod 600 on it")
        if st.st_size > MAX_BYTES:
            raise _Unusable(f"is {st.st_size} bytes, more than the {MAX_BYTES} a trust file may have")
        chunks: list[bytes] = []
        total = 0
        while total <= MAX_BYTES:  # the size may have grown since fstat
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_BYTES:
            raise _Unusable(f"is more than the {MAX_BYTES} bytes a trust file may have")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _entry(item: object, forbidden: _Forbidden) -> tuple[TrustEntry | None, str]:
    """One entry from the file, or why it is ignored."""
    if not isinstance(item, dict):
        return None, "not an object with path and since"
    p, since = item.get("path"), item.get("since")
    if not isinstance(p, str) or not isinstance(since, str):
        return None, "path and since must both be strings"
    if not os.path.isabs(p) or "\x00" in p:
        return None, f"{p!r} is not an absolute path"
    if os.path.normpath(p) != p:
        return None, f"{p!r} is not a normalized path; run codebot trust on it again"
    refusal = _refusal(p, forbidden)
    if refusal:
        return None, f"{p}: {refusal[0]}"
    return TrustEntry(p, since), ""


# -- checking -------------------------------------------------------------------------------


def _real(folder: Path | str) -> str:
    return os.path.realpath(os.fspath(folder))


def _inside(real: str, root: str) -> bool:
    """Is `real` the folder `root` or below it? Whole components only."""
    if real == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return real.startswith(prefix)


def trusted_root(home: Path, folder: Path) -> TrustEntry | None:
    """The entry that makes `folder` trusted (the nearest one), or None."""
    real = _real(folder)
    entries, _ = load(home)
    covering = [e for e in entries if _inside(real, e.path)]
    if not covering or _refusal(real):
        return None  # $HOME and its ancestors stay untrusted whatever the file says
    return max(covering, key=lambda e: len(e.path))


def is_trusted(home: Path, folder: Path) -> bool:
    """True when `folder`'s real path is a trusted folder or inside one."""
    return trusted_root(home, folder) is not None


def project_root(cwd: Path) -> Path:
    """The project `cwd` belongs to, by the same rule as `Settings.project_dir` (one rule,
    so trust is never checked on another folder than the one whose config is read)."""
    from codebot.skills.catalog import project_root as root_of

    return root_of(Path(_real(cwd)))


@dataclass(frozen=True)
class _Forbidden:
    """The folders never trusted as a whole: `/`, `$HOME` and every folder above it.

    Kept by path and by (device, inode), so another spelling of the same folder (a
    case-insensitive file system, a bind mount) is refused too.
    """

    home: str | None
    paths: frozenset[str]
    inodes: frozenset[tuple[int, int]]


def _forbidden() -> _Forbidden:
    try:
        home: str | None = _real(Path.home())
    except (RuntimeError, KeyError, OSError):
        home = None  # no home to protect: only / is refused
    paths = {os.sep} if home is None else {home, *map(str, Path(home).parents)}
    inodes: set[tuple[int, int]] = set()
    for p in paths:
        with contextlib.suppress(OSError):
            st = os.stat(p)
            inodes.add((st.st_dev, st.st_ino))
    return _Forbidden(home, frozenset(paths), frozenset(inodes))


def _refusal(real: str, forbidden: _Forbidden | None = None) -> tuple[str, str] | None:
    """(reason, kind) when `real` may never be trusted as a whole, else None."""
    f = forbidden or _forbidden()
    if real not in f.paths:
        try:
            st = os.stat(real)
        except OSError:
            return None
        if (st.st_dev, st.st_ino) not in f.inodes:
            return None
    if os.path.dirname(real) == real or _same_inode(real, os.sep):
        return "it is the whole file system; trust a project folder instead", "root"
    if f.home is not None and (real == f.home or _same_inode(real, f.home)):
        return (
            "it is your home folder, and trusting it would trust every project under it; "
            "trust one project instead, e.g. codebot trust ~/src/myproject",
            "home",
        )
    return (
        f"it contains your home folder {f.home}, so trusting it would trust every project "
        "under it; trust one project instead",
        "contains-home",
    )


def _same_inode(a: str, b: str) -> bool:
    try:
        return os.path.samestat(os.stat(a), os.stat(b))
    except OSError:
        return False


# -- writing --------------------------------------------------------------------------------


def add(home: Path, folder: Path, *, now: datetime | None = None) -> TrustEntry:
    """Trust `folder` (stored by real path) and return its entry.

    Trusting a folder that already has its own entry keeps the older entry. Raises
    `TrustError` for `$HOME`, `/`, a folder containing `$HOME`, a missing path, a path
    that is not a folder, a damaged trust file, or a lock held too long.
    """
    real = _real(folder)
    shown = os.fspath(folder) if os.fspath(folder) == real else f"{os.fspath(folder)} ({real})"
    refusal = _refusal(real)
    if refusal:
        raise TrustError(f"refusing to trust {real}: {refusal[0]}", refusal[1])
    if not os.path.exists(real):
        raise TrustError(f"cannot trust {shown}: no such folder", "missing")
    if not os.path.isdir(real):
        raise TrustError(f"cannot trust {shown}: not a folder; trust the folder of the project", "not-a-folder")
    since = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    new = TrustEntry(real, since)

    def change(entries: list[TrustEntry]) -> tuple[list[TrustEntry], TrustEntry]:
        for e in entries:
            if e.path == real:
                return entries, e
        return [*entries, new], new

    return _update(home, change, write_if=lambda entry: entry is new)


def revoke(home: Path, folder: Path) -> bool:
    """Remove the entry for exactly `folder`'s real path; True when there was one.

    A folder trusted only through a folder above it stays trusted: revoke that one.
    The folder need not exist any more.
    """
    real = _real(folder)
    given = os.path.abspath(os.fspath(folder))

    def change(entries: list[TrustEntry]) -> tuple[list[TrustEntry], bool]:
        kept = [e for e in entries if e.path not in (real, given)]
        return kept, len(kept) != len(entries)

    return _update(home, change, write_if=lambda removed: removed)


def _update(
    home: Path,
    change: Callable[[list[TrustEntry]], tuple[list[TrustEntry], _T]],
    write_if: Callable[[_T], bool] = lambda _result: True,
) -> _T:
    """Under the lock: read the file again, apply `change(entries) -> (entries, result)`,
    write the entries back atomically (when `write_if(result)`), return the result."""
    path = trust_file(home)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = filelock.FileLock(f"{path}.lock", timeout=LOCK_TIMEOUT)
        with lock:
            entries, _warnings, damage = _load(path)
            if damage:
                # Fail closed and loud: overwriting would silently drop what the person wrote.
                raise TrustError(f"{path} {damage}; fix or remove it, then try again", "damaged")
            new_entries, result = change(entries)
            if write_if(result):
                _write_atomic(path, _encode(new_entries))
            return result
    except filelock.Timeout:
        raise TrustError(
            f"another codebot has held {path}.lock for over {LOCK_TIMEOUT:g} s; try again", "busy"
        ) from None
    except OSError as exc:
        raise TrustError(f"cannot update {path}: {exc.strerror or exc}", "io") from None


def _encode(entries: list[TrustEntry]) -> bytes:
    doc = {"version": FORMAT, "trusted": [{"path": e.path, "since": e.since} for e in entries]}
    # ensure_ascii: a path with undecodable bytes (lone surrogates) still round-trips.
    return (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")


def _write_atomic(path: Path, data: bytes) -> None:
    # Same folder, 0600, fsynced, os.replace: a reader sees the old file or the new one,
    # and a trust.json that was a symlink is replaced, its target untouched.
    from codebot.home import write_private

    write_private(path, data)

