"""Cache files read without trusting them: small files and memory-mapped `.npy` arrays.

The router's persisted index is numpy's own `.npy` format (what `bm25s.BM25.save` writes
too), read here rather than with `np.load`: a path is opened with O_NOFOLLOW and
O_NONBLOCK, so a symbolic link or a FIFO planted at it is refused instead of followed or
waited on, and checked with `fstat` on the descriptor. An array is mapped only when its
header names exactly the dtype expected, C order, and a shape whose bytes fill the file
to the end; no pickle is ever read (`allow_pickle` does not arise: the header is parsed
by numpy's `read_array_header_*`, which evaluates literals only). Every failure is an
`UnusableFile` (an OSError) whose message names the file.
"""

from __future__ import annotations

import os
import stat
import zlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_O_READ = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class UnusableFile(OSError):
    """A cache file that is missing, not a regular file, too large or malformed."""


def _open(path: str | os.PathLike[str], limit: int) -> tuple[int, os.stat_result]:
    try:
        fd = os.open(path, _O_READ)
    except OSError as exc:  # ELOOP for a link, ENOENT, EACCES, ...
        raise UnusableFile(f"{os.fspath(path)}: {exc.strerror or exc}") from exc
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
        os.close(fd)
        what = (
            "is not a regular file" if not stat.S_ISREG(st.st_mode) else f"is over {limit:,} bytes"
        )
        raise UnusableFile(f"{os.fspath(path)} {what}")
    return fd, st


def read_small(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes."""
    fd, st = _open(path, limit)
    try:
        chunks, got = [], 0
        while got <= limit:
            data = os.read(fd, max(st.st_size - got, 0) + 1)
            if not data:
                break
            chunks.append(data)
            got += len(data)
    finally:
        os.close(fd)
    if got > limit:
        raise UnusableFile(f"{os.fspath(path)} grew over {limit:,} bytes")
    return b"".join(chunks)


def map_array(path: str | os.PathLike[str], dtype: str, ndim: int, limit: int) -> Any:
    """The array in `path`, memory-mapped read-only, if it is a `.npy` file of `dtype` with
    `ndim` dimensions that ends where its data ends (typed Any: its dtype is the string
    `dtype`, checked here at run time)."""
    import numpy as np
    from numpy.lib import format as npf

    fd, st = _open(path, limit)
    try:
        with os.fdopen(os.dup(fd), "rb") as fh:
            try:
                version = npf.read_magic(fh)
                if version == (1, 0):
                    shape, fortran, dt = npf.read_array_header_1_0(fh)
                elif version == (2, 0):
                    shape, fortran, dt = npf.read_array_header_2_0(fh)
                else:
                    raise ValueError(f"format version {version}")
            except Exception as exc:  # whatever a hostile header makes numpy raise
                raise UnusableFile(f"{os.fspath(path)}: not a usable .npy header ({exc})") from exc
            offset = fh.tell()
        expected = np.dtype(dtype)
        if (
            dt != expected
            or fortran
            or len(shape) != ndim
            or any(not isinstance(d, int) or d < 0 for d in shape)
        ):
            raise UnusableFile(
                f"{os.fspath(path)}: holds {dt}{list(shape)}, expected {expected} with {ndim} "
                "dimensions"
            )
        count = 1
        for d in shape:
            count *= d
        if offset + count * expected.itemsize != st.st_size:
            raise UnusableFile(
                f"{os.fspath(path)}: {st.st_size:,} bytes, not "
                f"{offset + count * expected.itemsize:,}"
            )
        if count == 0:
            return np.zeros(shape, dtype=expected)
        # mmap keeps its own descriptor: closing ours below leaves the mapping valid, and a
        # file replaced or removed later does not change what is mapped.
        with os.fdopen(os.dup(fd), "rb") as fh:
            mapped = np.memmap(fh, dtype=expected, mode="r", offset=offset, shape=tuple(shape))
        return mapped.view(np.ndarray)
    finally:
        os.close(fd)


def checksum(arr: NDArray[np.generic]) -> int:
    """CRC-32 of an array's bytes (a damaged or truncated cache must not route)."""
    import numpy as np

    return zlib.crc32(np.ascontiguousarray(arr).data.cast("B"))


def write_array(folder: str, name: str, arr: NDArray[np.generic]) -> None:
    """`folder/name` as a `.npy` file, private (0600) from its first byte."""
    import numpy as np
    from numpy.lib import format as npf

    from codebot.home import private_open

    with private_open(os.path.join(folder, name), "wb") as fh:
        npf.write_array(fh, np.ascontiguousarray(arr), allow_pickle=False)
