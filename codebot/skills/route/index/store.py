"""The router's index on disk, so that a new process maps it instead of tokenizing every
skill again: `$CODEBOT_HOME/cache/router/`, next to the catalog's `skill-index.bin`.

Layout, one *slot* per catalog (its roots) and index configuration:

    router/<slot>.json            the manifest: header, generation folder, sizes,
                                  lexicon, average field lengths, a CRC-32 per array
    router/<slot>-<token>/*.npy   one generation: the arrays of `Postings` (token rows
                                  and the CSC matrix), numpy's .npy format

A save writes a new generation into a private temporary folder, renames it into place
(a fresh name, so the rename is atomic) and then replaces the manifest (temp file +
`os.replace`): a reader sees the old generation or the new one, whole, and two
processes saving at once cannot mix their files; the last manifest wins. Generations no
manifest names are removed once they are `GRACE` seconds old; a reader that loses a
race with that removal looks at the manifest again once. No lock is needed.

A load trusts nothing: the manifest must carry this codebot's `header` (format,
version, code fingerprint, index settings, stemmer), every array must map with the
dtype and shape the manifest gives and match its CRC, and the arrays must be
consistent (ids in range, offsets ascending, finite tf). Anything else is a miss, never
an error: the index is rebuilt and saved again. Rows are matched to skills by
fingerprint afterwards (`cache`), so a stale row is never used for an edited skill.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import json
import math
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

import codebot
from codebot.home import private_dir, write_private
from codebot.skills.files import Root
from codebot.skills.route.config import RouterConfig
from codebot.skills.route.index.npy import (
    UnusableFile,
    checksum,
    map_array,
    read_small,
    write_array,
)
from codebot.skills.route.index.postings import Postings
from codebot.skills.route.index.rows import FP_BYTES, N_FIELDS, Rows
from codebot.skills.route.index.text import stemmer_name

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: arrays read back from a generation's .npy files, each checked against its `ARRAYS`
#: dtype at run time (the dtype is a string there, so their type is not known statically)
Loaded = dict[str, Any]

FORMAT = 1
FOLDER = "router"
GRACE = 30.0  # seconds an unreferenced generation is kept for readers that just found it
STALE_TMP = 600.0  # a temporary folder this old was left by a writer that died
MAX_SLOTS = 8  # catalogs remembered; the least recently saved beyond this are removed
MAX_MANIFEST = 64 << 20
MAX_ARRAY = 4 << 30
#: the arrays of a generation: name -> (dtype, dimensions)
ARRAYS = {
    "ptr": ("<i8", 2),
    "ids": ("<i4", 1),
    "counts": ("<u2", 1),
    "lengths": ("<i4", 2),
    "neg_ptr": ("<i8", 1),
    "neg_ids": ("<i4", 1),
    "fps": ("|u1", 2),
    "indptr": ("<i8", 1),
    "indices": ("<i4", 1),
    "tf": ("<f4", 1),
}
_GEN = re.compile(r"[0-9a-f]{16}-[0-9a-f]{12}")
#: what a damaged or hostile cache can make reading raise: all of it is a miss
_MISS = (
    OSError,
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    RecursionError,
    MemoryError,
)


def default_folder(home: Path | None = None) -> Path:
    """`<home>/cache/router` (home: `$CODEBOT_HOME` unless given)."""
    from codebot.home import codebot_home

    return Path(home if home is not None else codebot_home()) / "cache" / FOLDER


def any_saved(folder: Path) -> bool:
    """Whether `folder` holds a saved index (a manifest) at all, whatever it was made for:
    a look that needs no settings (see `warmup.prestart_for`). Unreadable: False."""
    try:
        with os.scandir(folder) as it:
            return any(e.name.endswith(".json") for e in it)
    except OSError:
        return False


@functools.cache
def _code_fingerprint() -> str:
    """Changes when the code that makes rows or postings changes (development trees keep
    their version number while the code moves)."""
    from codebot.skills.files.fingerprint import code_fingerprint
    from codebot.skills.route import config, shape
    from codebot.skills.route.index import index, npy, postings, rows, text, tokens, words

    return code_fingerprint(
        (config, index, npy, postings, rows, shape, text, tokens, words, sys.modules[__name__])
    )


def header(cfg: RouterConfig) -> dict[str, object]:
    """What a persisted index must have been made with to be used here."""
    doc = {
        "format": FORMAT,
        "codebot": codebot.__version__,
        "code": _code_fingerprint(),
        "index": cfg.index_key,
        "stemmer": stemmer_name(cfg.stemmer),
    }
    return json.loads(json.dumps(doc))  # tuples as lists: compares equal to a loaded one


def slot(roots: Sequence[Root], head: Mapping[str, object]) -> str:
    """The slot of a catalog with these roots under this header."""
    key = [[str(r.path), r.source.value, r.family, list(r.rank), r.plugin or ""] for r in roots]
    return hashlib.sha1(json.dumps([key, head]).encode(), usedforsecurity=False).hexdigest()[:16]


def _arrays(p: Postings) -> dict[str, NDArray[np.generic]]:
    r = p.rows
    return {
        "ptr": r.ptr,
        "ids": r.ids,
        "counts": r.counts,
        "lengths": r.lengths,
        "neg_ptr": r.neg_ptr,
        "neg_ids": r.neg_ids,
        "fps": r.fps,
        "indptr": p.indptr,
        "indices": p.indices,
        "tf": p.tf,
    }


def _int(v: object) -> bool:
    return type(v) is int and 0 <= v < 1 << 31


def _is_folder(path: Path) -> bool:
    """A real folder, not a link to one (a planted link would send writes elsewhere)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _consistent(a: Loaded, n: int, n_terms: int) -> bool:
    """The invariants routing relies on; O(size) vector checks."""
    import numpy as np

    ptr, ids, nptr, indptr, indices = a["ptr"], a["ids"], a["neg_ptr"], a["indptr"], a["indices"]
    shapes = (
        ptr.shape == (N_FIELDS, n + 1)
        and a["lengths"].shape == (N_FIELDS, n)
        and nptr.shape == (n + 1,)
        and a["fps"].shape == (n, FP_BYTES)
        and indptr.shape == (n_terms + 1,)
        and len(ids) == len(a["counts"])
        and len(indices) == len(a["tf"])
    )
    if not shapes:
        return False
    if ptr[0, 0] != 0 or ptr[-1, -1] != len(ids) or (np.diff(ptr, axis=1) < 0).any():
        return False
    if (ptr[1:, 0] != ptr[:-1, -1]).any() or (a["lengths"] < 0).any():
        return False
    if nptr[0] != 0 or nptr[-1] != len(a["neg_ids"]) or (np.diff(nptr) < 0).any():
        return False
    if indptr[0] != 0 or indptr[-1] != len(indices) or (np.diff(indptr) < 0).any():
        return False
    for terms in (ids, a["neg_ids"]):
        if len(terms) and (terms.min() < 0 or terms.max() >= n_terms):
            return False
    if len(indices):
        if indices.min() < 0 or indices.max() >= n:
            return False
        # skills ascending within each term: scoring adds a term's entries with one
        # fancy-indexed +=, which would count a repeated skill once
        rising = np.diff(indices.astype(np.int64)) > 0
        starts = indptr[1:-1]
        rising[starts[(starts > 0) & (starts < len(indices))] - 1] = True
        if not rising.all():
            return False
    tf = a["tf"]
    return bool(np.isfinite(tf).all() and (tf >= 0).all())


class Manifest(TypedDict):
    """A slot's `<slot>.json` as `_manifest` has checked it."""

    header: dict[str, object]
    dir: str
    n: int
    n_terms: int
    patches: int
    avgs: list[float]
    arrays: dict[str, dict[str, object]]
    terms: list[str]


class IndexStore:
    """Loads and saves `Postings` (with their lexicon) in a folder, by slot."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_folder()
        self.last_error: str | None = None  # why the last load or save did not happen
        self._lock = threading.Lock()  # one save at a time in this process
        # guards _pending and _timer only: a request that schedules a save never waits
        # for one being written
        self._pending_lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._pending: tuple[str, Mapping[str, object], Postings, list[str]] | None = None

    # -- loading ------------------------------------------------------------------------

    def load(self, slot_id: str, head: Mapping[str, object]) -> tuple[Postings, list[str]] | None:
        """The postings saved for `slot_id` and their lexicon, or None (why: `last_error`)."""
        tried = None
        for _ in range(2):  # a save may remove the generation we found: look once more
            try:
                doc = self._manifest(slot_id, head)
                if doc["dir"] == tried:
                    return None
                tried = doc["dir"]
                return self._read(doc)
            except _MISS as exc:
                self.last_error = str(exc)
                if tried is None:
                    return None
        return None

    def saved(self, slot_id: str, head: Mapping[str, object]) -> bool:
        """Whether an index for `slot_id` made under `head` is saved (its manifest only:
        what a process checks before it prepares a build that a load would make moot)."""
        try:
            self._manifest(slot_id, head)
        except _MISS:
            return False
        return True

    def _manifest(self, slot_id: str, head: Mapping[str, object]) -> Manifest:
        if not _is_folder(self.folder):
            raise UnusableFile(f"{self.folder} is not a folder")
        path = self.folder / f"{slot_id}.json"
        doc = json.loads(read_small(path, MAX_MANIFEST))
        if not isinstance(doc, dict) or doc.get("header") != head:
            raise UnusableFile(f"{path}: made by another codebot or with other router settings")
        gen, n, n_terms, terms, avgs, meta = (
            doc.get(k) for k in ("dir", "n", "n_terms", "terms", "avgs", "arrays")
        )
        ok = (
            isinstance(gen, str)
            and _GEN.fullmatch(gen) is not None
            and gen.startswith(f"{slot_id}-")
            and _int(n)
            and _int(n_terms)
            and _int(doc.get("patches"))
            and isinstance(terms, list)
            and len(terms) == n_terms
            and all(type(t) is str for t in terms)
            and len(set(terms)) == n_terms
            and isinstance(avgs, list)
            and len(avgs) == N_FIELDS
            and all(type(x) in (int, float) and math.isfinite(x) and x > 0 for x in avgs)
            and isinstance(meta, dict)
            and all(isinstance(meta.get(k), dict) for k in ARRAYS)
        )
        if not ok:
            raise UnusableFile(f"{path}: damaged manifest")
        return cast("Manifest", doc)  # each field checked above

    def _read(self, doc: Manifest) -> tuple[Postings, list[str]]:
        gen = self.folder / doc["dir"]
        if not _is_folder(gen):
            raise UnusableFile(f"{gen} is not a folder")
        arrays: Loaded = {}
        for name, (dtype, ndim) in ARRAYS.items():
            path = gen / f"{name}.npy"
            arr = map_array(path, dtype, ndim, MAX_ARRAY)
            want = doc["arrays"][name]
            if want.get("shape") != list(arr.shape) or want.get("crc") != checksum(arr):
                raise UnusableFile(f"{path}: damaged (its size or checksum is not the manifest's)")
            arrays[name] = arr
        n, n_terms = doc["n"], doc["n_terms"]
        if not _consistent(arrays, n, n_terms):
            raise UnusableFile(f"{gen}: inconsistent arrays")
        rows = Rows(
            arrays["ptr"],
            arrays["ids"],
            arrays["counts"],
            arrays["lengths"],
            arrays["neg_ptr"],
            arrays["neg_ids"],
            arrays["fps"],
        )
        avgs = tuple(float(x) for x in doc["avgs"])
        postings = Postings(
            rows, arrays["indptr"], arrays["indices"], arrays["tf"], n_terms, avgs, doc["patches"]
        )
        self.last_error = None
        return postings, doc["terms"]

    # -- saving -------------------------------------------------------------------------

    def save(
        self, slot_id: str, head: Mapping[str, object], postings: Postings, terms: Sequence[str]
    ) -> bool:
        """Publish a new generation for `slot_id`. Never raises; False when it could not."""
        with self._lock:
            tmp = None
            try:
                private_dir(self.folder)
                if not _is_folder(self.folder):
                    raise UnusableFile(f"{self.folder} is a link, not a folder: remove it")
                tmp = tempfile.mkdtemp(prefix=f".tmp-{slot_id}-", dir=self.folder)
                os.chmod(tmp, 0o700)  # mkdtemp's 0700 is cut by an odd umask
                meta = {}
                for name, arr in _arrays(postings).items():
                    a = arr.astype(ARRAYS[name][0], copy=False)
                    write_array(tmp, f"{name}.npy", a)
                    meta[name] = {"shape": list(a.shape), "crc": checksum(a)}
                gen = f"{slot_id}-{secrets.token_hex(6)}"
                os.rename(tmp, self.folder / gen)
                tmp = None
                doc = {
                    "header": head,
                    "dir": gen,
                    "n": postings.rows.n,
                    "n_terms": postings.n_terms,
                    "patches": postings.patches,
                    "avgs": list(postings.avgs),
                    "arrays": meta,
                    "terms": list(terms[: postings.n_terms]),
                }
                write_private(
                    self.folder / f"{slot_id}.json", json.dumps(doc).encode(), durable=False
                )
            except (OSError, ValueError, TypeError) as exc:
                self.last_error = f"cannot save the router index in {self.folder}: {exc}"
                return False
            finally:
                if tmp is not None:
                    shutil.rmtree(tmp, ignore_errors=True)
            self._collect(slot_id, gen)
            self.last_error = None
            return True

    def save_later(
        self,
        slot_id: str,
        head: Mapping[str, object],
        postings: Postings,
        terms: Sequence[str],
        delay: float = 0.5,
    ) -> None:
        """Save in a background thread `delay` seconds from now (a burst of edits is saved
        once, the last state); `flush` (also run at exit) saves at once."""
        with self._pending_lock:
            self._pending = (slot_id, head, postings, list(terms[: postings.n_terms]))
            if self._timer is not None:
                return
            self._timer = threading.Timer(delay, self.flush)
            self._timer.daemon = True
            _PENDING.add(self)
            self._timer.start()

    def flush(self) -> None:
        with self._pending_lock:
            pending, self._pending = self._pending, None
            timer, self._timer = self._timer, None
        if timer is not None and timer is not threading.current_thread():
            timer.cancel()
        _PENDING.discard(self)
        if pending is not None:
            self.save(*pending)

    def _collect(self, slot_id: str, keep: str) -> None:
        """Remove generations no manifest names (after GRACE), dead writers' temporary
        folders, and the slots beyond the MAX_SLOTS most recently saved."""
        now = time.time()
        with contextlib.suppress(OSError):
            entries = [(e.name, e.stat(follow_symlinks=False)) for e in os.scandir(self.folder)]
            manifests = sorted(
                (
                    (st.st_mtime, name[:-5])
                    for name, st in entries
                    if name.endswith(".json") and stat.S_ISREG(st.st_mode)
                ),
                reverse=True,
            )
            live = {s for _, s in manifests[:MAX_SLOTS]}
            for _, s in manifests[MAX_SLOTS:]:
                with contextlib.suppress(OSError):
                    os.unlink(self.folder / f"{s}.json")
            for name, st in entries:
                if not stat.S_ISDIR(st.st_mode):
                    continue
                age = now - st.st_mtime
                owner = name.split("-")[0]
                old_tmp = name.startswith(".tmp-") and age > STALE_TMP
                stale = (
                    _GEN.fullmatch(name) is not None
                    and name != keep
                    and age > GRACE
                    and (owner == slot_id or owner not in live)
                )
                if old_tmp or stale:
                    shutil.rmtree(self.folder / name, ignore_errors=True)


_PENDING: set[IndexStore] = set()


def _flush_all() -> None:
    for store in list(_PENDING):
        store.flush()


atexit.register(_flush_all)
