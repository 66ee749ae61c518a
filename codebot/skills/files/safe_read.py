"""Read a file only when it is a regular file, with a size limit.

A FIFO named `SKILL.md`, or a link to `/dev/tty` (both travel in a git checkout), makes a
plain `open()` + `read()` wait forever: opening a FIFO blocks until a writer appears, and a
terminal read blocks until a line is typed. So every file codebot reads from a skill root
is opened with O_NONBLOCK (an open that cannot block; it changes nothing for a regular
file's reads) and checked with `fstat` on the opened descriptor, not on the path, so a
file swapped between a check and the open is still caught.

Used by the skill parser, `Spec.read_body`, Codex's agents/openai.yaml, plugin manifests
and sub-agent files; `read_regular(path, limit)` is the whole interface.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import IO

MAX_FILE_BYTES = 1024 * 1024  # the largest skill file (or body) codebot reads

_O_READ = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class NotRegularFile(OSError):
    """The path is a FIFO, a device, a socket or a folder: it is not read. `mode` is its
    `st_mode` (see `kind_of`)."""

    mode: int = 0


class TooLarge(OSError):
    """The file holds more than the limit."""


def kind_of(mode: int) -> str:
    """What a file of this mode is, for a message: 'a FIFO', 'a character device', ..."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def not_regular(path: object, mode: int) -> NotRegularFile:
    kind = kind_of(mode)
    what = kind if kind.startswith("not ") else f"is {kind}, not a regular file"
    exc = NotRegularFile(f"{os.fspath(path)} {what}")  # type: ignore[arg-type]
    exc.mode = mode
    return exc


def _read_upto(fd: int, n: int) -> bytes:
    """Up to `n` bytes from `fd`: less only at the end of the file."""
    data = os.read(fd, n)
    while len(data) < n:
        more = os.read(fd, n - len(data))
        if not more:
            break
        data += more
    return data


def read_regular(
    path: str | os.PathLike[str], limit: int, *, size_hint: int | None = None, offset: int = 0
) -> bytes:
    """The bytes of `path` (from `offset`), when it is a regular file of at most `limit`
    bytes. Raises NotRegularFile or TooLarge (both OSError, with a message naming the file)
    and any OSError of opening or reading (FileNotFoundError, PermissionError, ...).

    `size_hint` (the size a stat just gave) saves allocating a `limit`-sized buffer for
    every small file: the read asks for the hinted size + 1 first, to notice growth.
    """
    fd = os.open(path, _O_READ)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path, st.st_mode)
        if st.st_size - offset > limit:
            raise TooLarge(f"{os.fspath(path)} is {st.st_size:,} bytes (limit {limit:,})")
        if offset:
            os.lseek(fd, offset, os.SEEK_SET)
        # The size fstat gave (+1 to notice growth) is asked for first, not `limit` + 1.
        size = st.st_size if size_hint is None else size_hint
        want = max(min(size - offset, limit), 0) + 1
        data = _read_upto(fd, want)
        if len(data) == want <= limit:  # it grew: read on, up to one byte over the limit
            data += _read_upto(fd, limit + 1 - want)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise TooLarge(f"{os.fspath(path)} is over {limit:,} bytes")
    return data


def open_own(path: str | os.PathLike[str]) -> IO[str]:
    """A log of codebot's own (a transcript, a trace) opened as text, only when it is a
    regular file of this user's and not a symbolic link: a FIFO planted among them would
    block `open()` for ever, a link to `/dev/zero` would be one endless line, another
    user's file is not ours to read. Else OSError naming the file (callers skip it)."""
    fd = os.open(path, _O_READ | getattr(os, "O_NOFOLLOW", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path, st.st_mode)
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise PermissionError(f"{os.fspath(path)} belongs to another user")
        return open(fd, encoding="utf-8", errors="replace", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def bounded_lines(fh: IO[str], limit: int) -> Iterator[str | None]:
    """The lines of `fh`, each None when longer than `limit` characters: an over-long
    line is read through (a line of gigabytes costs its reading, never its size in
    memory) and never kept."""
    while line := fh.readline(limit):
        if line.endswith("\n") or len(line) < limit:
            yield line
            continue
        rest = line
        while rest and not rest.endswith("\n"):
            rest = fh.readline(limit)
        yield None


def read_json_object(path: str | os.PathLike[str], limit: int) -> dict[str, object]:
    """The JSON object in `path` (a regular file of at most `limit` bytes, as
    `read_regular` reads it). Raises FileNotFoundError when it is missing, OSError when it
    cannot be read, and ValueError when it is not UTF-8 JSON or not an object: somebody
    else's manifest or settings file, so each caller says which and what it does then."""
    import json

    data = json.loads(read_regular(path, limit).decode("utf-8"))  # UnicodeDecodeError: ValueError
    if not isinstance(data, dict):
        raise ValueError(f"it is a JSON {type(data).__name__}, not an object")
    return data
