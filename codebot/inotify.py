"""A minimal inotify binding (Linux), for the protected-set watch.

The kernel queues an inotify event inside the system call that causes it, so once a
command has exited every change it made is already in the queue: reading the queue after
the command is exact, with no waiting. `Inotify()` raises OSError where inotify is not
available (not Linux, no libc symbol, out of instances); `add` raises OSError when the
watch limit is reached. Callers fall back to comparing stat results.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
import sys

__all__ = ["IN_ISDIR", "IN_Q_OVERFLOW", "Event", "Inotify"]

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x1000000
IN_DONT_FOLLOW = 0x2000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

#: What changes a folder's entries (the watch compares protected files by stat itself).
FOLDER_EVENTS = (
    IN_CREATE
    | IN_DELETE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ATTRIB
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len

Event = tuple[int, int, str]  # (watch descriptor, mask, name)


def _libc() -> ctypes.CDLL:
    if not sys.platform.startswith("linux"):
        raise OSError("inotify is Linux only")
    lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    for name in ("inotify_init1", "inotify_add_watch", "inotify_rm_watch"):
        if not hasattr(lib, name):
            raise OSError(f"libc has no {name}")
    lib.inotify_add_watch.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)
    return lib


class Inotify:
    def __init__(self) -> None:
        self._lib = _libc()
        fd = self._lib.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        self.fd = fd

    def add(self, path: str, mask: int = FOLDER_EVENTS) -> int:
        wd = self._lib.inotify_add_watch(self.fd, os.fsencode(path), mask)
        if wd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), path)
        return wd

    def read(self) -> list[Event]:
        """Every queued event, without blocking (empty when there is none)."""
        out: list[Event] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            if not data:
                return out
            i = 0
            while i + _HEADER.size <= len(data):
                wd, mask, _cookie, size = _HEADER.unpack_from(data, i)
                raw = data[i + _HEADER.size : i + _HEADER.size + size]
                out.append((wd, mask, os.fsdecode(raw.rstrip(b"\0"))))
                i += _HEADER.size + size

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __del__(self) -> None:
        try:
            self.close()
        except (OSError, AttributeError):
            pass
