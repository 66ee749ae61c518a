"""Where everything codebot writes lives: `$CODEBOT_HOME`, default `~/.codebot`.

Its own module, below every layer, because the skill system (its caches) and the config
both need it and the skill system must not import the config.

What codebot keeps there (transcripts, traces, caches, usage counts, prompt history,
config) holds file contents and prompts, so it is private: folders 0700 and files 0600,
whatever the umask. Every writer goes through `private_dir` and `private_fd` /
`private_open` / `private_temp` below; a whole-file replace goes through `write_private`
(or `atomic_file`, its streaming form), not a hand-written temp file and rename.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

DIR_MODE = 0o700
FILE_MODE = 0o600
#: The folders of `$CODEBOT_HOME` an older codebot (or a loose umask) may have left
#: group/world readable; `private_dir` tightens them when a writer passes through.
PRIVATE_FOLDERS = ("sessions", "traces", "cache")
APPEND = os.O_WRONLY | os.O_APPEND


def codebot_home(env: Mapping[str, str] | None = None) -> Path:
    """`$CODEBOT_HOME`, default `~/.codebot`."""
    env = os.environ if env is None else env
    value = env.get("CODEBOT_HOME")
    return Path(value).expanduser() if value else Path.home() / ".codebot"


def private_dir(path: str | os.PathLike[str], home: Path | None = None) -> Path:
    """Create folder `path` like `mkdir -p` and return it; raises OSError like mkdir.

    The folders this creates are 0700, except those above `home` (default
    `codebot_home()`): those belong to the person's own tree, like any `mkdir -p`.
    An existing `home`, `home/sessions`, `home/traces` or `home/cache` on the way to
    `path` loses its group and other bits; no other existing folder is touched (the
    person's home or a project folder is not ours to chmod).
    """
    path = Path(path)
    target = _absolute(path)
    root = _absolute(codebot_home() if home is None else home)
    missing = []
    p = target
    while not p.exists() and p.parent != p:
        missing.append(p)
        p = p.parent
    # Top down, one level at a time (not mkdir(parents=True), whose parents get the umask's
    # mode even below the home, and a umask without u+w would then block the next level).
    for d in reversed(missing):
        ours = d not in root.parents
        try:
            os.mkdir(d, DIR_MODE if ours else 0o777)
        except FileExistsError:
            continue  # another process was quicker; the checks below still apply
        if ours:  # chmod as well: mkdir's mode is cut by the umask
            with contextlib.suppress(OSError):
                os.chmod(d, DIR_MODE)
    path.mkdir(parents=True, exist_ok=True)  # raises as mkdir would if `path` is a file
    for d in (root, *(root / name for name in PRIVATE_FOLDERS)):
        if d == target or d in target.parents:
            _tighten_dir(d)
    return path


def private_fd(path: str | os.PathLike[str], flags: int = APPEND) -> int:
    """`os.open(path, flags | O_CREAT, 0o600)`: a new file is never readable by others,
    not even for a moment; an existing looser one is tightened to 0600."""
    fd = os.open(path, flags | os.O_CREAT, FILE_MODE)
    _fix_file(fd)
    return fd


def private_open(path: str | os.PathLike[str], mode: str = "a", **kw: Any) -> IO[Any]:
    """`open()` for a private file: `mode` is "a", "ab", "w" or "wb"."""
    flags = APPEND if mode.startswith("a") else os.O_WRONLY | os.O_TRUNC
    fd = private_fd(path, flags)
    try:
        return os.fdopen(fd, mode, **kw)
    except BaseException:
        os.close(fd)
        raise


def private_temp(folder: str | os.PathLike[str], prefix: str, suffix: str) -> tuple[int, str]:
    """`tempfile.mkstemp` made exactly 0600 (mkstemp's 0600 is still cut by an odd
    umask); `os.replace` keeps the mode, so the final file is 0600 too."""
    fd, name = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=suffix)
    _fix_file(fd)
    return fd, name


def _absolute(path: str | os.PathLike[str]) -> Path:
    # Lexical (no symlink resolution): a writer's path and the home compare as spelled.
    return Path(os.path.abspath(os.path.expanduser(path)))


def _fix_file(fd: int) -> None:
    # Best effort: not ours (fchmod fails) or no fchmod (Windows) leaves the mode alone.
    with contextlib.suppress(OSError, AttributeError):
        if stat.S_IMODE(os.fstat(fd).st_mode) != FILE_MODE:
            os.fchmod(fd, FILE_MODE)


def _tighten_dir(d: Path) -> None:
    with contextlib.suppress(OSError):
        st = os.stat(d)
        mode = stat.S_IMODE(st.st_mode)
        mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
        if stat.S_ISDIR(st.st_mode) and mine and mode & 0o077:
            os.chmod(d, mode & DIR_MODE)


@contextlib.contextmanager
def atomic_file(
    path: str | os.PathLike[str], *, mode: int = FILE_MODE, sync: bool = True, durable: bool = True
) -> Iterator[IO[bytes]]:
    """Replace `path` atomically with what is written to the yielded binary file.

    A temporary file in the same folder, 0600 from the first byte (given `mode` just before
    the rename when that is not 0600: the Write tool keeps a project file's mode), fsynced
    (`sync`), then `os.replace`: a reader sees the old file or the new one, never half of
    one, and a symlink at `path` is replaced, its target untouched. `durable` also fsyncs
    the folder so the rename survives a crash (best effort); a cache skips both. Raises
    OSError (or what the body raises); the temporary file never stays behind.
    """
    target = Path(path)
    fd, tmp = private_temp(target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        if mode != FILE_MODE:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        with contextlib.suppress(OSError, AttributeError):
            dfd = os.open(target.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)


def write_private(
    path: str | os.PathLike[str], data: bytes, *, durable: bool = True, sync: bool = True
) -> None:
    """Replace `path` with `data` atomically, 0600 from the first byte (`atomic_file`):
    the one private write of codebot. `sync=False, durable=False` for a cache."""
    with atomic_file(path, sync=sync, durable=durable) as fh:
        fh.write(data)
