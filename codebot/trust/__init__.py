"""Workspace trust: which project folders the person said codebot may trust.

A project (its git root, else the working folder) is trusted only when the person ran
`codebot trust` for it or for a folder above it. Trust is kept in
`$CODEBOT_HOME/trust.json`:

    {"version": 1, "trusted": [{"path": "/home/me/src/app", "since": "2026-11-30T01:37:37+00:00",
                                "device": 2049, "inode": 1234567, "root_commit": "9fceb02…"}]}

Rules:
- Paths are real paths (`os.path.realpath`): a symlink is trusted only when the folder
  it really points at is inside a trusted folder, and trusting a symlink stores its
  target.
- A trusted folder's subfolders are trusted; the check compares whole path components,
  so `/a/bc` is not inside `/a/b`.
- An entry records the folder's identity (`identity.py`): (device, inode) and, in a git
  repository, its root commit. Another folder at a trusted path is not trusted, and
  `check` says why. Entries without an identity (older files) are trusted by path;
  `codebot trust` on the folder records it.
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
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from codebot.trust import identity
from codebot.trust.store_file import Unusable, read_store


def _filelock():  # imported when a lock is taken, not at start (~8 ms of every run)
    import filelock

    return filelock


FORMAT = 1
FILENAME = "trust.json"
#: A trust file bigger than this is hostile or broken: nobody trusts a megabyte of folders.
MAX_BYTES = 1 << 20
#: Seconds a writer waits for another codebot's lock before giving up.
LOCK_TIMEOUT = 10.0

_T = TypeVar("_T")


@dataclass(frozen=True)
class TrustEntry:
    """One trusted folder: its real path, when it was trusted (ISO 8601, UTC) and what the
    folder was then (`identity.py`; None in entries written before identities were kept)."""

    path: str
    since: str
    device: int | None = None
    inode: int | None = None
    root_commit: str | None = None


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
        data = read_store(path, MAX_BYTES)
    except FileNotFoundError:
        return [], [], None
    except Unusable as exc:
        return [], [], str(exc)
    except OSError as exc:
        return [], [], f"cannot be read ({exc.strerror or exc})"
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # RecursionError: `[[[[...` nested deep enough overflows the JSON parser.
        return (
            [],
            [],
            "is too deeply nested" if isinstance(exc, RecursionError) else "is not valid JSON",
        )
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
    device, inode, commit = item.get("device"), item.get("inode"), item.get("root_commit")
    if device is None and inode is None and commit is None:
        return TrustEntry(p, since), ""  # written before identities were kept: trusted by path
    ints = all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (device, inode))
    if not ints or not (commit is None or identity.valid_commit(commit)):
        return (
            None,
            f"{p}: device, inode and root_commit are malformed; run codebot trust on it again",
        )
    return TrustEntry(p, since, device, inode, commit), ""


# -- checking -------------------------------------------------------------------------------


def _real(folder: Path | str) -> str:
    return os.path.realpath(os.fspath(folder))


def _inside(real: str, root: str) -> bool:
    """Is `real` the folder `root` or below it? Whole components only."""
    if real == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return real.startswith(prefix)


def check(home: Path, folder: Path) -> tuple[TrustEntry | None, str | None]:
    """The entry that makes `folder` trusted (the nearest whose folder is still the one
    trusted), or None and, when a trusted path holds another folder now, why."""
    real = _real(folder)
    entries, _ = load(home)
    covering = sorted(
        (e for e in entries if _inside(real, e.path)), key=lambda e: len(e.path), reverse=True
    )
    if not covering or _refusal(real):
        return None, None  # $HOME and its ancestors stay untrusted whatever the file says
    why_not = None
    for e in covering:
        why = _changed(e)
        if why is None:
            return e, None
        why_not = why_not or (
            f"{real} is not trusted: {e.path} was trusted on {e.since[:10]}, but {why}; "
            f"if you trust what is there now, run: codebot trust {e.path}"
        )
    return None, why_not


def _changed(entry: TrustEntry) -> str | None:
    if entry.device is None or entry.inode is None:
        return None
    return identity.changed(entry.path, entry.device, entry.inode, entry.root_commit)


def trusted_root(home: Path, folder: Path) -> TrustEntry | None:
    """The entry that makes `folder` trusted (the nearest valid one), or None."""
    return check(home, folder)[0]


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
        raise TrustError(
            f"cannot trust {shown}: not a folder; trust the folder of the project", "not-a-folder"
        )
    since = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    try:
        ident = identity.identify(real)
    except OSError as exc:
        raise TrustError(f"cannot trust {shown}: {exc.strerror or exc}", "missing") from None
    new = TrustEntry(real, since, ident.device, ident.inode, ident.root_commit)

    def change(entries: list[TrustEntry]) -> tuple[list[TrustEntry], tuple[TrustEntry, bool]]:
        for i, e in enumerate(entries):
            if e.path == real:
                if e.device is None:  # an older entry: the same trust, now with the identity
                    e = TrustEntry(e.path, e.since, new.device, new.inode, new.root_commit)
                elif _changed(e) is not None:  # another folder there now: trusted afresh
                    e = new
                else:
                    return entries, (e, False)
                return [*entries[:i], e, *entries[i + 1 :]], (e, True)
        return [*entries, new], (new, True)

    return _update(home, change, write_if=lambda result: result[1])[0]


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
        lock = _filelock().FileLock(f"{path}.lock", timeout=LOCK_TIMEOUT)
        with lock:
            entries, _warnings, damage = _load(path)
            if damage:
                # Fail closed and loud: overwriting would silently drop what the person wrote.
                raise TrustError(f"{path} {damage}; fix or remove it, then try again", "damaged")
            new_entries, result = change(entries)
            if write_if(result):
                _write_atomic(path, _encode(new_entries))
            return result
    except _filelock().Timeout:
        raise TrustError(
            f"another codebot has held {path}.lock for over {LOCK_TIMEOUT:g} s; try again", "busy"
        ) from None
    except OSError as exc:
        raise TrustError(f"cannot update {path}: {exc.strerror or exc}", "io") from None


def _encode(entries: list[TrustEntry]) -> bytes:
    def item(e: TrustEntry) -> dict[str, object]:
        if e.device is None:
            return {"path": e.path, "since": e.since}
        return {
            "path": e.path,
            "since": e.since,
            "device": e.device,
            "inode": e.inode,
            "root_commit": e.root_commit,
        }

    doc = {"version": FORMAT, "trusted": [item(e) for e in entries]}
    # ensure_ascii: a path with undecodable bytes (lone surrogates) still round-trips.
    return (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")


def _write_atomic(path: Path, data: bytes) -> None:
    # Same folder, 0600, fsynced, os.replace: a reader sees the old file or the new one,
    # and a trust.json that was a symlink is replaced, its target untouched.
    from codebot.home import write_private

    write_private(path, data)
