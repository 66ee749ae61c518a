"""The scanner's folder cache: listings carried from one scan to the next, and the
checks a listing read back from the index file must pass before the scan trusts it.

The scan that uses it (and decides when a kept listing is still good) is in `discover`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal, cast

if TYPE_CHECKING:
    from codebot.skills.catalog.candidate import Candidate

# A folder's listing only changes when an entry is added, removed or renamed, and each of
# those changes the folder's mtime (and ctime). So a scan keeps, for every folder it lists
# without symbolic links involved, what it needs from the listing:
#
#     (mtime_ns, ctime_ns, st_ino, st_dev, listed_at_ns, flags, dirs, md_files)
#
# `flags` is VENV (a pyvenv.cfg is there) | AGENTS (an `agents` entry is there); `dirs` are
# the names of all subfolders and `md_files` of all other entries ending in `.md`, sorted
# (lists, as the index file gives them back, and nothing changes them; 0 when empty, which
# loads without making an object).
# The next scan `os.stat`s the folder and, when the stamp is the same AND both times are
# more than RACY_NS older than `listed_at_ns`, uses the kept listing instead of listing the
# folder again (a change in the same clock tick as the listing could leave the mtime as it
# was: git's rule for racy entries). Skill files are `os.stat`ed on every scan either way,
# because editing a file does not touch its folder. Folders reached through a symbolic
# link, and folders holding one, are always listed: what a link points at can change
# without any folder on this side noticing. The listing is independent of the root and of
# the depth, so one cache serves every root; the scan limits are applied on each use.

RACY_NS = 2_000_000_000

#: a kept listing: mtime_ns, ctime_ns, st_ino, st_dev, listed_at_ns, flags, dirs, md_files
Kept = tuple[int, int, int, int, int, int, list[str] | Literal[0], list[str] | Literal[0]]
#: a folder the scan queues: its path, real path, depth, reached through a link, top folder
ScanEntry = tuple[str, str, int, bool, str | None]
VENV = 1
AGENTS = 2


class DirCache:
    """Folder listings carried from one scan to the next (see above).

    `old` is looked up; every folder listed or reused is written to `new` (the same dict
    for a partial rescan; a fresh one for a full rescan, so vanished folders drop out).
    `prev` holds the candidates of the previous scan by path: an unchanged file keeps its
    `Candidate` object. `changed` says whether `new` differs from `old` in a way worth
    persisting.
    """

    __slots__ = ("changed", "new", "old", "prev")

    def __init__(
        self,
        old: dict[str, object] | None = None,
        new: dict[str, object] | None = None,
        prev: dict[str, Candidate] | None = None,
    ) -> None:
        # a `Kept` listing, or one read back from the index file and not checked yet
        self.old: dict[str, object] = {} if old is None else old
        self.new: dict[str, object] = self.old if new is None else new
        self.prev: dict[str, Candidate] = prev or {}
        self.changed = False


def valid_entry(e: object) -> Kept | None:
    """A cached listing read back from the index file (lists: the index writes them so),
    as a tuple; None when it is malformed."""
    if type(e) is not list or len(e) != 8:
        return None
    a, b, c, d, listed, flags, dirs, files = e
    if not (type(a) is type(b) is type(c) is type(d) is type(listed) is type(flags) is int):
        return None
    for names in (dirs, files):  # a list, or 0 for none
        if type(names) is not list and (type(names) is not int or names != 0):
            return None
    if (dirs and not _valid_names(dirs)) or (files and not _valid_names(files)):
        return None
    return (a, b, c, d, listed, flags, dirs, files)


_BAD_NAMES = ("", ".", "..")


def _valid_names(names: list[object]) -> bool:
    """Names of folder entries: strings without a separator or NUL, not empty, . or ..
    (a name that could lead the scan out of its folder is refused)."""
    if len(names) == 1:
        n = names[0]
        return (
            type(n) is str
            and n not in _BAD_NAMES
            and "/" not in n
            and "\x00" not in n
            and os.sep not in n
        )
    try:
        joined = "/".join(cast("list[str]", names))  # TypeError unless all are strings
    except TypeError:
        return False
    return not (
        joined.count("/") != len(names) - 1
        or "\x00" in joined
        or (os.sep != "/" and os.sep in joined)
        or "" in names
        or "." in names
        or ".." in names
    )


def forget(cache: DirCache, d: str) -> None:
    """Drop the listing of `d` (gone, unreadable, or holding a link)."""
    if cache.new.pop(d, None) is not None or d in cache.old:
        cache.changed = True
