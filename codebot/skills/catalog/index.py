"""A persistent parse cache, so a warm start does not parse unchanged skill files again.

One file (by default `$CODEBOT_HOME/cache/skill-index.bin`) maps each skill file,
as found under one root, to what `parse_file` made of it. An entry is used only when the
file's `Stamp` (mtime_ns, size, inode) still matches, the beside-it `agents/openai.yaml`
is unchanged too, and the file was written by the same index format, codebot version
and parser and scanner sources. It also keeps the scanner's folder listings
(`folder_cache.DirCache`, under "dirs"), so a warm start does not list unchanged folders
either. The index is a cache and nothing more: a corrupt, unreadable or unwritable file
(or a malformed entry or listing in it) is ignored, and the worst outcome is a parse or
a folder listing that could have been saved.

The file is a magic line, the header as one JSON line (checked before anything else is
decoded), then the entries and listings in Python's `marshal` format: at 10,000 skills it
loads in about a third of the time `json` takes and saves in a fifth (`bench/index_format.py`
measures json, orjson, msgpack and marshal in one run). `marshal` is not meant for data
from others, so the file is decoded only when it is a regular file owned by this user and
writable by nobody else (it is written 0600 in a 0700 folder, and `$CODEBOT_HOME` is masked
from sandboxed commands); any other file, or one that does not decode to the expected
shapes, is ignored like a corrupt one.

The catalog calls `get()`, `put()` and `save_if_dirty()` (see `Catalog._parse_candidates`).
The file is read lazily, on the first `get()`. The first save of a session is written at
once (so a cold start leaves a warm index behind); later saves, which follow edits picked
up by `reload()`, are written by a short-lived background thread a moment later, so a
one-file reload does not pay for rewriting ten thousand entries. Pending writes are
flushed at exit, and an `Index` reading the same path waits for them.
"""

from __future__ import annotations

import atexit
import functools
import gc
import json
import marshal
import os
import stat
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import codebot
from codebot.home import codebot_home, private_dir, write_private
from codebot.skills.catalog.candidate import Candidate
from codebot.skills.catalog.index_codec import decode_row, decode_spec, encode_spec, plain
from codebot.skills.files import Diagnostic, Root, Spec, Stamp

# The row codec lives in index_codec; other code imports it from here too.
__all__ = [
    "FILENAME",
    "FORMAT",
    "MAGIC",
    "SAVE_DELAY",
    "Index",
    "decode_spec",
    "default_path",
    "encode_spec",
    "read_document",
    "write_document",
]

FORMAT = 3  # 2: spec rows instead of objects, folder listings; 3: marshal after a header
#: An entry: [path, mtime_ns, size, inode, openai.yaml stamp or None, blob], the blob being
#: `marshal.dumps([diagnostics or 0, spec row or None, diagnostics are the spec's])`.
ENTRY_FIELDS = 6
FILENAME = "skill-index.bin"
#: The file before format 3, removed when the new one is written.
OLD_FILENAME = "skill-index.json"
MAGIC = b"codebot-skill-index\n"
#: Seconds a background save waits, so a burst of edits is written once.
SAVE_DELAY = 0.5

_SIDE = os.path.join("agents", "openai.yaml")


def default_path(home: Path | None = None) -> Path:
    """`<home>/cache/skill-index.bin`; pass `Settings.home`. Without it, `$CODEBOT_HOME`
    (default `~/.codebot`) as `codebot.home.codebot_home` reads it."""
    if home is None:
        home = codebot_home()
    return Path(home) / "cache" / FILENAME


def _parser_fingerprint() -> str:
    """Changes when the code that turns a file into a Spec (or a folder into a listing,
    or either into JSON) changes: for development trees, where the version number stays
    put while the code does not."""
    from codebot.skills.catalog import (
        candidate,
        discover,
        folder_cache,
        index_codec,
        listing,
        roots,
    )
    from codebot.skills.files import (
        arguments,
        codex_meta,
        coerce,
        collector,
        frontmatter,
        parse,
        safe_read,
        spec,
    )
    from codebot.skills.files.fingerprint import code_fingerprint

    # Every module the parse, the scan or the JSON rows come from (split modules included).
    return code_fingerprint(
        (
            parse,
            arguments,
            codex_meta,
            coerce,
            frontmatter,
            spec,
            safe_read,
            discover,
            listing,
            folder_cache,
            roots,
            candidate,
            collector,
            index_codec,
            sys.modules[__name__],
        )
    )


@functools.cache
def _header() -> dict[str, Any]:
    return {"format": FORMAT, "codebot": codebot.__version__, "parser": _parser_fingerprint()}


_root_suffix: dict[int, tuple[Root, str]] = {}  # by id(root): hashing a Root is slow


def _key(c: Candidate) -> str:
    root = c.root
    known = _root_suffix.get(id(root))
    if known is None or known[0] is not root:
        if len(_root_suffix) > 256:
            _root_suffix.clear()
        known = _root_suffix[id(root)] = (
            root,
            f"\x00{','.join(map(str, root.rank))}\x00{root.plugin or ''}",
        )
    return c.order[1] + known[1]  # the path as a string: str(c.path), without making it


def _side_stamp(c: Candidate) -> list[int] | None:
    """The stamp of the other file `parse_file` reads: agents/openai.yaml beside SKILL.md."""
    if not c.side:
        return None  # the scan saw no `agents` entry in the folder
    p = str(c.path)
    cut = p.rfind(os.sep) + 1
    if p[cut:].lower() != "skill.md":
        return None
    side = p[:cut] + _SIDE
    if not os.access(side, os.F_OK):  # the usual case; cheaper than a failing stat
        return None
    try:
        st = os.stat(side)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


# -- background writes --------------------------------------------------------------------

# Indexes with a write scheduled, by path: flushed at exit, and before another Index
# reads the same file.
_pending: dict[str, Index] = {}
_pending_lock = threading.Lock()


def _flush_pending(path: str | None = None) -> None:
    with _pending_lock:
        waiting = [i for p, i in _pending.items() if path is None or p == path]
    for index in waiting:
        index.flush()


atexit.register(_flush_pending)


class Index:
    """A persistent cache of parsed skills, keyed by file path and root rank."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._lock = threading.Lock()  # guards _entries, _seen, _dirty, _timer
        self._save_lock = threading.Lock()  # one write at a time
        self._entries: dict[str, list[Any]] | None = None  # None: not read yet
        self._dirs: dict[str, Any] = {}  # folder listings (folder_cache.DirCache), by folder
        self._dirs_scope: tuple[str, ...] = ()  # roots whose listings this session put
        self._seen: set[str] = set()  # keys found or written this session
        self._dirty = False
        self._saved_once = False
        self._pruned = False
        self._timer: threading.Timer | None = None
        self.hits = 0
        self.misses = 0

    # -- reading ----------------------------------------------------------------------

    def _ensure_loaded(self) -> dict[str, list[Any]]:
        if self._entries is None:
            self._entries, self._dirs = self._read()
        return self._entries

    def _read(self) -> tuple[dict[str, list[Any]], dict[str, Any]]:
        _flush_pending(str(self.path))
        # JSON makes no reference cycles, and a collection triggered by its ~30 objects per
        # entry would walk the whole heap (often more than the decoding itself).
        paused = gc.isenabled()
        gc.disable()
        try:
            doc = read_document(self.path)
        finally:
            if paused:
                gc.enable()
        if doc is None:
            return {}, {}  # missing, unreadable, foreign, corrupt or of another version
        entries = doc.get("entries")
        dirs = doc.get("dirs")
        # Each folder entry is checked when the scanner first uses it (folder_cache.valid_entry).
        return (entries if isinstance(entries, dict) else {}), (
            dirs if isinstance(dirs, dict) else {}
        )

    def dirs(self) -> dict[str, Any]:
        """The scanner's folder listings as last saved (a copy the caller may change)."""
        self._ensure_loaded()
        return dict(self._dirs)

    def put_dirs(self, dirs: dict[str, Any], scope: Iterable[str]) -> None:
        """Replace the folder listings under the roots in `scope` (folder paths) by `dirs`.

        Listings of other folders stay: one index serves every project (each with its own
        project roots), and a warm start in another project still finds its own. The index
        keeps `dirs`, so pass a copy."""
        self._ensure_loaded()
        roots = tuple(scope)
        inside = tuple(r.rstrip(os.sep) + os.sep for r in roots)
        with self._lock:
            kept = {
                k: v for k, v in self._dirs.items() if k not in roots and not k.startswith(inside)
            }
            kept.update(dirs)
            self._dirs = kept
            self._dirs_scope = tuple(sorted(set(self._dirs_scope) | set(roots)))
            self._dirty = True

    def get(self, c: Candidate, stamp: Stamp) -> tuple[Spec | None, list[Diagnostic]] | None:
        """What parsing `c` gave last time, if the file has not changed since."""
        entries = self._entries if self._entries is not None else self._ensure_loaded()
        key = _key(c)
        e = entries.get(key)
        if e is None:
            self.misses += 1
            return None
        try:
            _, mtime, size, inode, side, blob = e
            if (
                mtime != stamp.mtime_ns
                or size != stamp.size
                or inode != stamp.inode
                or side != (_side_stamp(c) if c.side else None)
            ):
                self.misses += 1
                return None
            d, row, once = marshal.loads(blob)
            diags = [Diagnostic.from_json(x) for x in d] if d else []
            spec = None
            if row is not None:
                path = c.path
                spec = decode_row(
                    row,
                    path,
                    c.real_path,
                    path.parent,
                    c.root,
                    stamp,
                    tuple(diags) if once else None,
                )
        except Exception:
            self.misses += 1
            return None
        self._seen.add(key)
        self.hits += 1
        return spec, diags

    # -- writing ----------------------------------------------------------------------

    def put(
        self, c: Candidate, stamp: Stamp, spec: Spec | None, diagnostics: list[Diagnostic]
    ) -> None:
        entries = self._ensure_loaded()
        row = None
        once = False
        if spec is not None:
            # Diagnostics are usually the spec's own: then they are stored once.
            once = bool(spec.diagnostics) and spec.diagnostics == tuple(diagnostics)
            row = encode_spec(spec, without_diagnostics=once)
        d = [plain(x.to_json()) for x in diagnostics] if diagnostics else 0
        # What is needed only on a hit is one marshalled blob: a start loads 10,000 entries
        # as a few objects each and decodes a blob only for the file it is asked about.
        try:
            blob = marshal.dumps([d, row, once])
        except ValueError:  # a value marshal cannot hold: that file is parsed every start
            return
        entry = [c.order[1], stamp.mtime_ns, stamp.size, stamp.inode, _side_stamp(c), blob]
        key = _key(c)
        with self._lock:
            entries[key] = entry
            self._seen.add(key)
            self._dirty = True

    def save_if_dirty(self) -> None:
        """Write the index if anything changed. Never raises."""
        if self._entries is None:
            return  # never read, so nothing can have changed
        if not self._pruned:
            # Once a session, after the first full load: drop entries whose file is gone.
            self._pruned = True
            unseen = [e for k, e in self._entries.items() if k not in self._seen]
            if any(not _exists(e) for e in unseen):
                self._dirty = True
        if not self._dirty:
            return
        if not self._saved_once:
            self._saved_once = True
            self.save()  # at once: a cold start leaves a warm index behind
        else:
            self._schedule()

    def _schedule(self) -> None:
        with self._lock:
            if self._timer is not None:
                return  # a write is on its way and will carry these changes too
            t = threading.Timer(SAVE_DELAY, self.flush)
            t.daemon = True  # exit does not wait for the delay: atexit flushes instead
            self._timer = t
        with _pending_lock:
            _pending[str(self.path)] = self
        t.start()

    def flush(self) -> None:
        """Write now whatever a scheduled background save would write later."""
        with self._lock:
            t, self._timer = self._timer, None
        if t is not None and t is not threading.current_thread():
            t.cancel()
        with _pending_lock:
            if _pending.get(str(self.path)) is self:
                del _pending[str(self.path)]
        if self._dirty:
            self.save()

    def save(self) -> None:
        """Write every live entry atomically (temp file + rename). Never raises."""
        if self._entries is None:
            return
        with self._save_lock:
            with self._lock:
                self._dirty = False
                entries = dict(self._entries)
                seen = set(self._seen)
                dirs = self._dirs
                scope = self._dirs_scope
            live = {k: e for k, e in entries.items() if k in seen or _exists(e)}
            if len(live) != len(entries):
                with self._lock:
                    for k in entries.keys() - live.keys():
                        self._entries.pop(k, None)
            # Listings put this session are current; others are kept while their folder is.
            inside = tuple(r.rstrip(os.sep) + os.sep for r in scope)
            dirs = {
                k: v
                for k, v in dirs.items()
                if k in scope or k.startswith(inside) or os.path.isdir(k)
            }
            # As lists: the scanner trusts the tuples it made itself and checks everything
            # else (folder_cache.valid_entry), and marshal would give tuples back as tuples.
            dirs = {k: list(v) if type(v) is tuple else v for k, v in dirs.items()}
            _write_atomic(self.path, {"entries": live, "dirs": dirs})

    def __len__(self) -> int:
        return len(self._ensure_loaded())


def _exists(entry: Any) -> bool:
    return (
        isinstance(entry, list)
        and len(entry) == ENTRY_FIELDS
        and isinstance(entry[0], str)
        and os.path.exists(entry[0])
    )


def read_document(path: Path) -> dict[str, Any] | None:
    """The entries and listings of the index file at `path` (`{"entries", "dirs"}`), or
    None when it is missing, not a regular file of this user's that nobody else may
    write, of another header (format, version, code), or does not decode."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
        with os.fdopen(fd, "rb") as fh:
            fd = -1
            if fh.readline() != MAGIC:
                return None
            header = fh.readline()
            if json.loads(header) != _header():
                return None
            doc = marshal.loads(fh.read())  # load(fh) reads object by object: 5× slower
    except (OSError, ValueError, EOFError, TypeError, RecursionError):
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    if not isinstance(doc, dict):
        return None
    entries, dirs = doc.get("entries"), doc.get("dirs")
    return {
        "entries": entries if isinstance(entries, dict) else {},
        "dirs": dirs if isinstance(dirs, dict) else {},
    }


def write_document(path: Path, doc: dict[str, Any]) -> None:
    """Write `doc` (`{"entries", "dirs"}`) as the index file at `path`, privately and
    atomically. Raises OSError or ValueError (an unmarshallable value)."""
    header = json.dumps(_header(), separators=(",", ":")).encode("ascii")
    data = MAGIC + header + b"\n" + marshal.dumps(doc)
    # Private: the index holds every skill's parsed text, project skills included.
    private_dir(path.parent)
    write_private(path, data, sync=False, durable=False)  # a cache: no fsync


def _write_atomic(path: Path, doc: dict[str, Any]) -> None:
    try:
        write_document(path, doc)
    except (OSError, ValueError, TypeError):
        return  # an unwritable cache location only costs the next start some parsing
    if path.name == FILENAME:
        try:  # the file of the format before, 7 MB at 10,000 skills: nothing reads it now
            os.unlink(path.with_name(OLD_FILENAME))
        except OSError:
            pass
