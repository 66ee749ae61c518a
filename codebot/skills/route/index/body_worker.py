"""The helper process behind `prefetch`: it tokenizes the bodies of the skill files the
catalog's scan found with the router's own `TokenCache`, while the process that started it
parses them on another core.

Bodies are tokenized `FRAME_BODIES` at a time with `TokenCache.bags_many` (see `batch`).
Run only by `prefetch.BodyPrefetch` (``python -P -c ...``), never by a person. Both ways,
frames are a 4-byte big-endian length and a pickle. Input on stdin: ``{"config":
RouterConfig}``, then ``{"files": [(path, real_path, mtime_ns, size, inode), ...]}`` as
the parent's scan finds them (tokenized in that order), then ``{"end": True}``. Output on
stdout: frames of ``{"terms": [new local terms],
"bodies": [(real_path, body_offset, mtime_ns, size, inode, body_chars, ids, counts,
length), ...]}``; ids index this worker's own lexicon (every frame's "terms" in turn),
sorted, as the bytes of ``array("i")``; counts are the bytes of ``array("H")``. The last
frame has ``"done": True``.

The parent trusts nothing here it cannot check: a body is used only for the spec whose
real path, body offset and file stamp are the ones recorded with it, so a file changed, a
file the catalog does not load, or a frame that never comes costs only the time this
process took (the parent tokenizes the rest itself). For that key to mean anything, a
file is read here only when the descriptor opened is the file the scan stamped (`fstat`:
regular, the same mtime, size and inode, before and after the read): a SKILL.md swapped
for a link to another file, or edited, after the scan is left to the parent.
"""

from __future__ import annotations

import os
import pickle
import stat
import struct
import sys
from collections.abc import Mapping
from typing import IO

FRAME_BODIES = 100  # bodies per frame: what the parent may wait on, and what stopping it wastes


MAX_FRAME = 64 << 20  # a frame longer than this is not read (the helper's are ~100 KB)


def write_frame(out: IO[bytes], doc: Mapping[str, object]) -> None:
    """One frame, either way: a 4-byte big-endian length, then the pickle."""
    data = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(struct.pack(">I", len(data)) + data)
    out.flush()


def read_frame(inp: IO[bytes]) -> dict[str, object]:
    """The next frame; EOFError when the other side closed, ValueError when it is too
    long, cut short or not a dict."""
    head = inp.read(4)
    if len(head) < 4:
        raise EOFError("the other side closed the pipe")
    (size,) = struct.unpack(">I", head)
    if size > MAX_FRAME:
        raise ValueError(f"a frame of {size:,} bytes")
    data = inp.read(size)
    if len(data) < size:
        raise ValueError("a frame cut short")
    frame = pickle.loads(data)  # written by this module's other half, our own code
    if not isinstance(frame, dict):
        raise ValueError("a malformed frame")
    return frame


_O_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_stamped(path: str, stamp: tuple[int, int, int], limit: int) -> bytes | None:
    """The bytes of `path` when what opens is a regular file of at most `limit` bytes with
    this (mtime_ns, size, inode) stamp, unchanged while read; else None. Opened
    non-blocking and checked on the descriptor, as `safe_read.read_regular` reads."""
    try:
        fd = os.open(path, _O_READ)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        if (st.st_mtime_ns, st.st_size, st.st_ino) != stamp:
            return None
        parts, got = [], 0
        # one read for a file as stamped (asking one byte more shows one that grew); the
        # fstat after the read catches a change of size or time meanwhile
        while got < st.st_size or not parts:
            data = os.read(fd, st.st_size + 1 - got)
            if not data:
                break
            parts.append(data)
            got += len(data)
        after = os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    if got != st.st_size or (after.st_mtime_ns, after.st_size) != stamp[:2]:
        return None  # written to while read
    return b"".join(parts)


def run(inp: IO[bytes], out: IO[bytes]) -> int:
    """Tokenize the bodies of the files the parent sends, in their order."""
    import numpy  # noqa: F401  (the batch tokenizer's: loaded while the parent still scans)

    from codebot.skills.files import frontmatter
    from codebot.skills.files.safe_read import MAX_FILE_BYTES
    from codebot.skills.route.config import RouterConfig
    from codebot.skills.route.index.tokens import TokenCache

    cfg = read_frame(inp).get("config")
    if not isinstance(cfg, RouterConfig):
        return 1  # not the parent's first frame: nothing to work for
    n = cfg.bm25.body_chars
    parent = os.getppid()
    tokens = TokenCache()
    tokens.tokenizer(cfg)
    sent_terms = 0
    # real path, body offset, mtime_ns, size, inode, chars read, term ids, counts, length
    bodies: list[tuple[str, int, int, int, int, int, bytes, bytes, int]] = []
    # the bodies read and not tokenized yet: (real path, offset, mtime_ns, size, inode), text
    read: list[tuple[tuple[str, int, int, int, int], str]] = []

    def tokenize() -> None:
        bags = tokens.bags_many([text for _, text in read], cfg)
        for ((real, offset, mtime, size, inode), _), bag in zip(read, bags, strict=True):
            ids, counts = bag.ids.tobytes(), bag.counts.tobytes()
            bodies.append((real, offset, mtime, size, inode, n, ids, counts, bag.length))
        read.clear()

    while not (job := read_frame(inp)).get("end"):
        files = job.get("files")
        if not isinstance(files, list):
            return 1  # not a job of the parent's
        for path, real, mtime, size, inode in files:
            # only the file the scan stamped: a FIFO or a device is refused, not waited on,
            # and a link or an edit since the scan is the parent's to read
            data = read_stamped(path, (mtime, size, inode), MAX_FILE_BYTES)
            if data is None:
                continue
            try:
                split = frontmatter.split(data)
            except (frontmatter.FrontmatterError, UnicodeDecodeError):
                continue  # the catalog explains it, or refuses the file; nothing to prefetch
            offset = split.body_offset if split is not None else 0
            # as Spec.read_body()[:n] decodes it: the same bytes from the same offset
            text = data[offset:].decode("utf-8", errors="replace")[:n]
            read.append(((real, offset, mtime, size, inode), text))
            if len(read) >= FRAME_BODIES:
                tokenize()
                if os.getppid() != parent:
                    return 1  # the parent is gone: nobody will read this
                write_frame(out, {"terms": tokens.terms[sent_terms:], "bodies": bodies})
                sent_terms = len(tokens.terms)
                bodies = []
    tokenize()
    write_frame(out, {"terms": tokens.terms[sent_terms:], "bodies": bodies, "done": True})
    return 0


def main() -> int:
    import gc

    gc.disable()  # a short life making millions of objects and no cycles (see cache._derive)
    try:
        return run(sys.stdin.buffer, sys.stdout.buffer)
    except (BrokenPipeError, EOFError, ValueError, KeyboardInterrupt):
        return 1
