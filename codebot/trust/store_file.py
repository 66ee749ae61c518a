"""Reading the trust file, failing closed: not a symlink, a regular file (a FIFO is never
waited on), owned by this user (or root), not writable by others, and not too big."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class Unusable(Exception):
    """The trust file exists but must not be read (wrong kind of file, owner, size)."""


def read_store(path: Path, max_bytes: int) -> bytes:
    """The trust file's bytes; `Unusable` when it must not be read. Never blocks."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    # O_NOFOLLOW: a trust.json that is a symlink could point anywhere (another user's file).
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.EMLINK and path.is_symlink()):
            raise Unusable("is a symlink, not a regular file") from None
        raise
    try:
        # Check the descriptor, not the name: the name may be swapped after the check.
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unusable("is not a regular file")
        geteuid = getattr(os, "geteuid", None)
        if geteuid is not None and st.st_uid not in (geteuid(), 0):
            raise Unusable(f"is owned by another user (uid {st.st_uid})")
        if st.st_mode & 0o022:
            raise Unusable(
                f"is writable by other users (mode {stat.S_IMODE(st.st_mode):o}); run chmod 600 on "
                "it"
            )
        if st.st_size > max_bytes:
            raise Unusable(
                f"is {st.st_size} bytes, more than the {max_bytes} a trust file may have"
            )
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:  # the size may have grown since fstat
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise Unusable(f"is more than the {max_bytes} bytes a trust file may have")
        return b"".join(chunks)
    finally:
        os.close(fd)
