"""Regular expressions compiled once per installed codebot, not once per process.

    from codebot import regex_cache

    WORD = regex_cache.compile(r"[^\\W\\d_]+", re.IGNORECASE)  # a re.Pattern, as re.compile's

Python keeps no compiled regex between processes. The router alone compiles about 820
patterns at import (the small-talk phrases of six languages, the small-edit shapes): 0.3 s
of every start on a slow two-core machine, about a third of all the imports before the
catalog loads, and a twentieth of a cold task. What `re` makes of a pattern, the regex
engine's program, depends only on the pattern, its flags and the interpreter, as a
module's bytecode depends only on its source. So it is kept as bytecode is: in a file
beside this module's .pyc (`importlib.util.cache_from_source`, so PYTHONPYCACHEPREFIX
moves it too), named for the interpreter's cache tag and the engine's `MAGIC`, written at
exit when new patterns were compiled and `sys.dont_write_bytecode` allows it. Loading all
of them takes a few milliseconds.

Used only where it cannot change a result:

- an entry serves only the exact (pattern, flags) it was made for, made by this very
  interpreter (its `hexversion`, the engine's `MAGIC` and code size, the byte order);
- `_sre.compile` validates every program it is given; a program it refuses, a file that
  is short, malformed, of another interpreter, or writable by other users than its owner
  (a shared install with loose permissions), is passed over, and `re` compiles as usual;
- a DEBUG pattern (it prints as it compiles), or an interpreter whose `re` lacks the parts
  used here, goes to `re.compile` and is not kept. Text patterns only: a bytes pattern is
  compiled by `re` where it is written (the few there are cost nothing).

The file is trusted as a .pyc is: whoever can write it can write the modules beside it.
A process that compiled nothing new writes nothing.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import re
import stat
import sys
import threading
from array import array
from pathlib import Path
from types import ModuleType

__all__ = ["Store", "compile", "path", "save"]

_FORMAT = b"codebot-regex-cache 1\n"
#: entries a file keeps: patterns of older codebot versions stay until it holds this many,
#: then only the current process's are written (today's router has about 820)
MAX_ENTRIES = 4000
#: a file larger than this is not read (today's is about 0.7 MB)
MAX_BYTES = 32 << 20

#: compiled by `re` alone: DEBUG prints the program; TEMPLATE (1) warns, and is gone in 3.13
_PLAIN_ONLY = int(re.DEBUG) | 1

_Entry = tuple[int, int, int, int, dict[str, int], tuple[str | None, ...]]
# final flags, start and length in the code array, groups, groupindex, indexgroup


@functools.cache
def _engine() -> tuple[ModuleType, ModuleType, ModuleType] | None:
    """`_sre` and the two parts of `re` the compile goes through (private, so looked up
    here, never assumed); None where one is missing."""
    import importlib

    try:
        sre, compiler, parser = map(importlib.import_module, ("_sre", "re._compiler", "re._parser"))
        ok = callable(compiler._code) and callable(parser.parse) and callable(sre.compile)
    except (ImportError, AttributeError):
        return None
    if not ok or array("I").itemsize != sre.CODESIZE:
        return None
    return sre, compiler, parser


def path() -> Path | None:
    """Where this interpreter's programs are kept; None where bytecode has no place."""
    import importlib.util

    engine = _engine()
    if engine is None:
        return None
    try:
        pyc = importlib.util.cache_from_source(__file__)
    except NotImplementedError:  # no cache tag: this interpreter keeps no bytecode either
        return None
    return Path(pyc).with_suffix(f".re{engine[0].MAGIC}.bin")


def _identity() -> dict[str, object]:
    engine = _engine()
    assert engine is not None
    return {
        "hexversion": sys.hexversion,
        "magic": engine[0].MAGIC,
        "codesize": engine[0].CODESIZE,
        "byteorder": sys.byteorder,
    }


class Store:
    """The programs read from one file (`where`; None: this interpreter's `path()`), and
    those compiled since."""

    def __init__(self, where: Path | None = None) -> None:
        self.where = where
        self.lock = threading.Lock()
        self.loaded = False
        self.entries: dict[tuple[str, int], _Entry] = {}
        self.code = array("I")
        self.used: set[tuple[str, int]] = set()
        self.new = False

    def compile(self, pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
        """`re.compile(pattern, flags)`, from the kept program when there is one."""
        flags = int(flags)
        engine = _engine()
        if engine is None or type(pattern) is not str or flags & _PLAIN_ONLY:
            return re.compile(pattern, flags)
        sre, compiler, parser = engine
        key = (pattern, flags)
        with self.lock:
            if not self.loaded:
                self._load()
            self.used.add(key)
            entry = self.entries.get(key)
        if entry is not None:
            final, start, length, groups, index, names = entry
            try:
                code = self.code[start : start + length].tolist()
                return sre.compile(pattern, final, code, groups, index, names)
            except Exception:  # refused by the engine's own check: compiled afresh below
                pass
        # what re._compiler.compile does, keeping the parts
        parsed = parser.parse(pattern, flags)
        code = [int(c) for c in compiler._code(parsed, flags)]
        index = {str(k): int(v) for k, v in parsed.state.groupdict.items()}
        by_number: list[str | None] = [None] * parsed.state.groups
        for name, i in index.items():
            by_number[i] = name
        names = tuple(by_number)
        final = int(flags | parsed.state.flags)
        groups = parsed.state.groups - 1
        compiled = sre.compile(pattern, final, code, groups, index, names)
        with self.lock:
            self.entries[key] = (final, len(self.code), len(code), groups, index, names)
            self.code.extend(code)
            self.new = True
        return compiled

    def save(self, force: bool = False) -> bool:
        """Write the file when something new was compiled (`force`: even where
        `sys.dont_write_bytecode` says no, as `compileall` writes bytecode). Whether it was
        written; a read-only install is not an error (it compiles at each start, as before)."""
        with self.lock:
            if not self.new or (sys.dont_write_bytecode and not force):
                return False
            where = self.where or path()
            if where is None:
                return False
            keep = self.entries
            if len(keep) > MAX_ENTRIES:
                keep = {k: v for k, v in keep.items() if k in self.used}
            try:
                _write(where, _dump(keep, self.code))
            except OSError:
                return False
            self.new = False
            return True

    def _load(self) -> None:
        self.loaded = True
        where = self.where or path()
        if where is None:
            return
        try:
            data = _read_own(where)
        except OSError:
            return
        got = None if data is None else _parse(data)
        if got is not None:
            self.entries, self.code = got


def _read_own(where: Path) -> bytes | None:
    """The file's bytes, or None when it is not a plain file (a link is not followed, a
    FIFO not waited on), others than its owner may write it, or it is over `MAX_BYTES`."""
    nofollow = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(where, os.O_RDONLY | nofollow)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022 or st.st_size > MAX_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def _parse(data: bytes) -> tuple[dict[tuple[str, int], _Entry], array[int]] | None:
    """The entries and the code array of a file's bytes; None for anything unexpected."""
    if not data.startswith(_FORMAT):
        return None
    at = len(_FORMAT)
    size = int.from_bytes(data[at : at + 4], "little")
    try:
        head = json.loads(data[at + 4 : at + 4 + size])
    except ValueError:
        return None
    if not isinstance(head, dict) or head.get("identity") != _identity():
        return None
    code = array("I")
    blob = data[at + 4 + size :]
    if len(blob) % code.itemsize:
        return None
    code.frombytes(blob)
    entries: dict[tuple[str, int], _Entry] = {}
    try:
        for pattern, flags, final, start, length, groups, index, names in head["entries"]:
            ok = (
                type(pattern) is str
                and all(type(n) is int for n in (flags, final, start, length, groups))
                and 0 <= start <= start + length <= len(code)
                and type(index) is dict
                and all(type(k) is str and type(v) is int for k, v in index.items())
                and type(names) is list
                and all(n is None or type(n) is str for n in names)
            )
            if not ok:
                return None
            entries[pattern, flags] = (final, start, length, groups, index, tuple(names))
    except (KeyError, TypeError, ValueError):
        return None
    return entries, code


def _dump(entries: dict[tuple[str, int], _Entry], code: array[int]) -> bytes:
    out = array("I")
    rows = []
    for (pattern, flags), (final, start, length, groups, index, names) in entries.items():
        rows.append([pattern, flags, final, len(out), length, groups, index, list(names)])
        out.extend(code[start : start + length])
    head = json.dumps({"identity": _identity(), "entries": rows}).encode()
    return _FORMAT + len(head).to_bytes(4, "little") + head + out.tobytes()


def _write(where: Path, data: bytes) -> None:
    """Written whole under another name, then renamed over (`home.atomic_file`): a reader
    sees one file or the other, and of two writers at once, one file stays. Readable by
    all, as bytecode is; no fsync: a file lost in a crash is made again."""
    from codebot.home import atomic_file

    where.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(where, mode=0o644, sync=False, durable=False) as fh:
        fh.write(data)


#: the store of codebot's own module-level patterns, written at exit when it grew
_STORE = Store()
atexit.register(_STORE.save)


def compile(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, from the program kept for it when there is one. For
    codebot's own fixed patterns only: each one is kept."""
    return _STORE.compile(pattern, flags)


def save(force: bool = False) -> bool:
    """Write what this process compiled new now, not at exit (see `Store.save`)."""
    return _STORE.save(force)
