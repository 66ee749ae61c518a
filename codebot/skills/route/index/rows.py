"""Token rows: what tokenizing a skill gives, one row per skill, held column by column.

A skill's row is four bags of words (name, description, when_to_use, body excerpt: sorted
term ids, counts, length) plus the terms it mentions only in a negative clause ("Not for
X"), and the `fingerprint` of the spec it was made from. `Rows` keeps the rows of a whole
catalog in a few flat numpy arrays, so that

- the BM25 postings are assembled from them with vector operations (`postings`),
- a catalog reload keeps the rows of unchanged skills as slices (`assemble` takes runs
  of an old `Rows` and the bags of the few re-tokenized skills),
- they are persisted and memory-mapped as they are (`store`).

A row is reused only when its spec's fingerprint is unchanged: name, description,
when_to_use, the file the body is read from, where the body starts, and the file's stamp
(mtime_ns, size, inode), the same evidence the catalog's own index trusts.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from codebot.skills.files import Spec
from codebot.skills.route.config import FIELDS

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    _S = TypeVar("_S", bound=np.generic)

N_FIELDS = len(FIELDS)
FP_BYTES = 16  # blake2b digest of a row's inputs


@dataclass(frozen=True, slots=True)
class Bag:
    """Bag of words of one field of one skill: sorted term ids, counts, length."""

    ids: array  # array("i"), sorted, unique
    counts: array  # array("H")
    length: int
    neg: tuple[int, ...] = ()  # term ids found only in the negative clause


class RowBags(NamedTuple):
    """One freshly tokenized skill: its fingerprint, a bag per field, its negative-only terms."""

    fp: bytes
    bags: tuple[Bag, ...]  # in FIELDS order
    neg: tuple[int, ...]  # sorted, unique


class Run(NamedTuple):
    """Rows `start` to `stop` (exclusive) of an existing `Rows`, kept as they are."""

    rows: Rows
    start: int
    stop: int


def fingerprint(spec: Spec) -> bytes:
    """What a skill's row was made from, hashed: when it is unchanged, so is the row.

    The body is identified by its file and stamp, not read: reading ten thousand bodies
    to check them would cost what tokenizing them does. The router settings a row depends
    on (weights, body_chars, stemmer) are in the header of the whole index instead.
    """
    import hashlib

    st = spec.stamp
    text = (
        f"{spec.name}\0{spec.description}\0{spec.when_to_use or ''}\0{spec.real_path}\0"
        f"{spec.body_offset}\0{st.mtime_ns}\0{st.size}\0{st.inode}"
    )
    # surrogatepass: a YAML "\ud800" escape can leave a lone surrogate in a description
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=FP_BYTES).digest()


@dataclass(frozen=True, slots=True, eq=False)
class Rows:
    """The rows of n skills. Field f of row i holds term ids `ids[ptr[f, i]:ptr[f, i + 1]]`
    with counts `counts[...]` (one flat array, field by field), and `lengths[f, i]` words;
    its negative-only terms are `neg_ids[neg_ptr[i]:neg_ptr[i + 1]]`."""

    ptr: NDArray[np.int64]  # (N_FIELDS, n + 1)
    ids: NDArray[np.int32]
    counts: NDArray[np.uint16]
    lengths: NDArray[np.int32]  # (N_FIELDS, n)
    neg_ptr: NDArray[np.int64]  # (n + 1)
    neg_ids: NDArray[np.int32]
    fps: NDArray[np.uint8]  # (n, FP_BYTES)

    @property
    def n(self) -> int:
        return int(self.lengths.shape[1])

    def field_ids(self, f: int, i: int) -> NDArray[np.int32]:
        return self.ids[self.ptr[f, i] : self.ptr[f, i + 1]]

    def fp_rows(self) -> dict[bytes, int]:
        """Fingerprint -> row (the first row, should two share one)."""
        raw = self.fps.tobytes()
        out: dict[bytes, int] = {}
        for i in range(self.n):
            out.setdefault(raw[i * FP_BYTES : (i + 1) * FP_BYTES], i)
        return out

    def nbytes(self) -> int:
        return sum(
            int(a.nbytes)
            for a in (
                self.ptr,
                self.ids,
                self.counts,
                self.lengths,
                self.neg_ptr,
                self.neg_ids,
                self.fps,
            )
        )


def empty_rows() -> Rows:
    import numpy as np

    return Rows(
        np.zeros((N_FIELDS, 1), np.int64),
        np.zeros(0, np.int32),
        np.zeros(0, np.uint16),
        np.zeros((N_FIELDS, 0), np.int32),
        np.zeros(1, np.int64),
        np.zeros(0, np.int32),
        np.zeros((0, FP_BYTES), np.uint8),
    )


def _offsets(sizes: NDArray[np.int64], start: int = 0) -> NDArray[np.int64]:
    import numpy as np

    out = np.empty(len(sizes) + 1, dtype=np.int64)
    out[0] = start
    np.cumsum(sizes, out=out[1:])
    out[1:] += start
    return out


def assemble(pieces: Sequence[Run | Sequence[RowBags]]) -> Rows:
    """The rows of `pieces` in order: runs of an existing `Rows` are sliced, never copied
    row by row; a sequence of `RowBags` is packed with one join per field."""
    import numpy as np

    ids: list[list[NDArray[np.int32]]] = [[] for _ in FIELDS]
    counts: list[list[NDArray[np.uint16]]] = [[] for _ in FIELDS]
    sizes: list[list[NDArray[np.int64]]] = [[] for _ in FIELDS]
    lengths: list[list[NDArray[np.int32]]] = [[] for _ in FIELDS]
    neg_ids: list[NDArray[np.int32]] = []
    neg_sizes: list[NDArray[np.int64]] = []
    fps: list[NDArray[np.uint8]] = []
    for piece in pieces:
        if isinstance(piece, Run):
            r, a, b = piece
            if b <= a:
                continue
            for f in range(N_FIELDS):
                lo, hi = int(r.ptr[f, a]), int(r.ptr[f, b])
                ids[f].append(r.ids[lo:hi])
                counts[f].append(r.counts[lo:hi])
                sizes[f].append(np.diff(r.ptr[f, a : b + 1]))
                lengths[f].append(r.lengths[f, a:b])
            neg_ids.append(r.neg_ids[int(r.neg_ptr[a]) : int(r.neg_ptr[b])])
            neg_sizes.append(np.diff(r.neg_ptr[a : b + 1]))
            fps.append(r.fps[a:b])
            continue
        if not piece:
            continue
        m = len(piece)
        for f in range(N_FIELDS):
            bags = [rb.bags[f] for rb in piece]
            ids[f].append(np.frombuffer(b"".join(bg.ids for bg in bags), dtype=np.int32))
            counts[f].append(np.frombuffer(b"".join(bg.counts for bg in bags), dtype=np.uint16))
            sizes[f].append(np.fromiter((len(bg.ids) for bg in bags), dtype=np.int64, count=m))
            lengths[f].append(np.fromiter((bg.length for bg in bags), dtype=np.int32, count=m))
        neg_ids.append(np.fromiter((t for rb in piece for t in rb.neg), dtype=np.int32))
        neg_sizes.append(np.fromiter((len(rb.neg) for rb in piece), dtype=np.int64, count=m))
        fps.append(
            np.frombuffer(b"".join(rb.fp for rb in piece), dtype=np.uint8).reshape(m, FP_BYTES)
        )
    if not fps:
        return empty_rows()

    def cat(parts: Sequence[NDArray[_S]], dtype: type[_S]) -> NDArray[_S]:
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)

    flat_ids = [cat(x, np.int32) for x in ids]
    n = sum(len(x) for x in fps)
    ptr = np.empty((N_FIELDS, n + 1), dtype=np.int64)
    start = 0
    for f in range(N_FIELDS):
        ptr[f] = _offsets(cat(sizes[f], np.int64), start)
        start += len(flat_ids[f])
    return Rows(
        ptr,
        np.concatenate(flat_ids),
        np.concatenate([cat(x, np.uint16) for x in counts]),
        np.stack([cat(x, np.int32) for x in lengths]),
        _offsets(cat(neg_sizes, np.int64)),
        cat(neg_ids, np.int32),
        np.concatenate(fps),
    )


def pieces_for(
    old_rows: NDArray[np.int64], base: Rows | None, fresh: Mapping[int, RowBags]
) -> list[Run | list[RowBags]]:
    """The pieces that make the new rows: new row i is row `old_rows[i]` of `base` when
    that is >= 0, else `fresh[i]`. Consecutive old rows become one `Run`."""
    import numpy as np

    n = len(old_rows)
    if n == 0:
        return []
    reuse = old_rows >= 0
    cut = np.ones(n, dtype=bool)  # where a piece starts
    cut[1:] = (reuse[1:] != reuse[:-1]) | (reuse[1:] & (old_rows[1:] != old_rows[:-1] + 1))
    starts = [*np.nonzero(cut)[0].tolist(), n]
    out: list[Run | list[RowBags]] = []
    for a, b in pairwise(starts):
        if reuse[a] and base is not None:
            r = int(old_rows[a])
            out.append(Run(base, r, r + b - a))
        else:
            out.append([fresh[k] for k in range(a, b)])
    return out
