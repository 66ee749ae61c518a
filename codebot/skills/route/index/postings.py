"""BM25 postings from token rows: built whole, or patched when a few skills changed.

The postings are a CSC matrix, term by term, of each skill's field-weighted BM25
term-frequency part (bm25s' Lucene formulas): a word found in several fields counts as
its best field plus `field_mix` of the others. The idf is *not* multiplied in: it is
applied when scoring (one multiply per request word), so adding or removing a skill,
which changes every word's idf, changes no stored entry.

- `build(rows, ...)` assembles the matrix with vector operations: per field, entries in
  (skill, term) order; merged (one sorted run per field) and reduced; then reordered term
  by term with a stable radix sort.
- `patch(base, rows, ...)` drops the entries of removed and changed skills, renumbers the
  others and inserts the entries of the fresh rows: O(entries) copies, no sort of the
  whole matrix. It keeps `base.avgs`, the average field lengths the entries were computed
  with, so the result is exactly what `build` gives with those averages (a test checks
  it). The averages drift as skills change; `drift()` says by how much, and the index
  cache rebuilds in the background past `MAX_DRIFT`.

numpy is imported inside the functions that need them; bm25s' term-frequency formula is
restated (`tf_part`), so a cold build does not import bm25s (20 to 50 ms with tqdm).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, TypeVar

from codebot.skills.route.config import FIELDS, RouterConfig
from codebot.skills.route.index.rows import N_FIELDS, Rows

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    _S = TypeVar("_S", bound=np.generic)

_CHUNK = 8192  # skills per step of a build (bounds its temporary memory)
#: relative drift of an average field length after which patched postings are rebuilt
#: (0.2%: scores move by about as much, well inside every margin of the decision)
MAX_DRIFT = 0.002
#: new entries up to which `patch` places each with its own binary search (beyond: one
#: searchsorted over every kept entry, which costs a pass over all of them)
LOOP_INSERTS = 4096
#: edited skills up to which `patch` finds their old entries one word at a time instead of
#: renumbering every entry (edits that add or remove a skill always renumber)
IN_PLACE_MAX = 32


@dataclass(frozen=True, slots=True, eq=False)
class Postings:
    """Everything an index is made of that is worth persisting."""

    rows: Rows
    indptr: NDArray[np.int64]  # n_terms + 1
    indices: NDArray[np.int32]  # skills (rows), ascending within a term
    tf: NDArray[np.float32]  # field-weighted BM25 tf part, without idf
    n_terms: int
    avgs: tuple[float, ...]  # per field: the average length the tf parts were computed with
    patches: int = 0  # patches since the last build

    def drift(self) -> float:
        """How far the averages used are from the rows' own (relative, worst field)."""
        now = average_lengths(self.rows)
        return max(
            (abs(a - b) / b for a, b in zip(now, self.avgs, strict=True) if b > 0), default=0.0
        )

    def nbytes(self) -> int:
        return int(self.indptr.nbytes + self.indices.nbytes + self.tf.nbytes) + self.rows.nbytes()


def average_lengths(rows: Rows) -> tuple[float, ...]:
    """Per field, the average number of words (1.0 when there are none, as bm25s does)."""
    n = rows.n
    return tuple((float(rows.lengths[f].sum()) / n if n else 0.0) or 1.0 for f in range(N_FIELDS))


def _weighted(cfg: RouterConfig) -> list[tuple[int, float]]:
    return [
        (f, float(cfg.weights.get(name, 0.0)))
        for f, name in enumerate(FIELDS)
        if float(cfg.weights.get(name, 0.0)) > 0
    ]


def _ranges(starts: NDArray[np.int64], sizes: NDArray[np.int64]) -> NDArray[np.int64]:
    """Indices start[0] .. start[0] + sizes[0] - 1, then the next range, ... as one array."""
    import numpy as np

    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    before = np.cumsum(sizes) - sizes
    return np.repeat(starts - before, sizes) + np.arange(total, dtype=np.int64)


def tf_part(
    tf: NDArray[np.float32], lens: NDArray[np.float32], avg: float, k1: float, b: float
) -> NDArray[np.floating]:
    """bm25s' Lucene term-frequency part (`scoring._score_tfc_lucene`, which is its
    Robertson formula), the very same expression in the same order, so the floats are
    the same bits; tests/skills/route/test_route_cold.py checks it against bm25s'."""
    return tf / (k1 * ((1 - b) + b * lens / avg) + tf)


def tf_entries(
    rows: Rows,
    which: NDArray[np.integer],
    avgs: Sequence[float],
    cfg: RouterConfig,
    n_terms: int,
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float32]]:
    """(skills, terms, tf parts) of the rows `which` (sorted row numbers), in (skill, term)
    order, the fields combined."""
    import numpy as np

    keys, vals = [], []
    for f, w in _weighted(cfg):
        starts, stops = rows.ptr[f, which], rows.ptr[f, which + 1]
        sizes = stops - starts
        at = _ranges(starts, sizes)
        docs = np.repeat(which.astype(np.int64), sizes)
        tf = rows.counts[at].astype(np.float32)
        lens = rows.lengths[f][docs].astype(np.float32)
        vals.append(
            tf_part(tf, lens, avgs[f], cfg.bm25.k1, cfg.bm25.b).astype(np.float32) * np.float32(w)
        )
        keys.append(docs * n_terms + rows.ids[at])
    if not keys or not sum(len(k) for k in keys):
        return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.float32)
    key = np.concatenate(keys)
    val = np.concatenate(vals)
    order = np.argsort(key, kind="stable")  # one sorted run per field: a merge
    key, val = key[order], val[order]
    first = np.concatenate(([0], np.nonzero(np.diff(key))[0] + 1))
    total = np.add.reduceat(val, first)
    best = np.maximum.reduceat(val, first)
    key = key[first]
    combined = (best + np.float32(cfg.bm25.field_mix) * (total - best)).astype(np.float32)
    return (key // n_terms).astype(np.int32), (key % n_terms).astype(np.int32), combined


def _by_term(terms: NDArray[np.int32], n_terms: int) -> NDArray[np.intp]:
    """A stable order of `terms` (radix sort: numpy sorts 16-bit keys in linear time)."""
    import numpy as np

    if n_terms <= 1 << 16:
        return np.argsort(terms.astype(np.uint16), kind="stable")
    low = np.argsort((terms & 0xFFFF).astype(np.uint16), kind="stable")
    high = np.argsort((terms[low] >> 16).astype(np.uint16), kind="stable")
    return low[high]


def _offsets(counts: NDArray[np.int64]) -> NDArray[np.int64]:
    import numpy as np

    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def build(
    rows: Rows, n_terms: int, cfg: RouterConfig, avgs: Sequence[float] | None = None
) -> Postings:
    """The postings of `rows` (averages from the rows unless given)."""
    import numpy as np

    avgs = tuple(avgs) if avgs is not None else average_lengths(rows)
    parts = [
        tf_entries(rows, np.arange(lo, min(rows.n, lo + _CHUNK)), avgs, cfg, n_terms)
        for lo in range(0, rows.n, _CHUNK)
    ]
    df = np.zeros(n_terms, dtype=np.int64)
    for _, terms, _ in parts:
        df += np.bincount(terms, minlength=n_terms)
    indptr = _offsets(df)
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    tf = np.empty(int(indptr[-1]), dtype=np.float32)
    # Filled chunk by chunk, each freed once placed (the peak memory of a build at 80,000
    # skills is the chunks plus the matrix, not twice the entries). Chunks come in skill
    # order, so skills stay ascending within each term.
    cursor = indptr[:-1].copy()
    parts.reverse()
    while parts:
        docs, terms, vals = parts.pop()
        order = _by_term(terms, n_terms)
        terms = terms[order]
        count = np.bincount(terms, minlength=n_terms)
        first = np.cumsum(count) - count
        at = cursor[terms] + (np.arange(len(terms)) - first[terms])
        indices[at], tf[at] = docs[order], vals[order]
        cursor += count
        del docs, terms, vals, order, count, first, at
    return Postings(rows, indptr, indices, tf, n_terms, avgs, 0)


def _entries_of(base: Postings, which: NDArray[np.integer], cfg: RouterConfig) -> NDArray[np.int64]:
    """The positions (ascending) of the entries of rows `which` in `base`'s postings: for
    each word of their weighted fields, a binary search in that word's entries."""
    import numpy as np

    at: list[int] = []
    indptr, indices = base.indptr, base.indices
    for r in which.tolist():
        words = np.unique(
            np.concatenate(
                [base.rows.field_ids(f, r) for f, _ in _weighted(cfg)] or [np.zeros(0, np.int32)]
            )
        )
        for t in words.tolist():
            lo = int(indptr[t])
            at.append(lo + int(np.searchsorted(indices[lo : int(indptr[t + 1])], r)))
    return np.asarray(sorted(at), dtype=np.int64)


def _without(arr: NDArray[_S], drop: NDArray[np.int64]) -> NDArray[_S]:
    """`arr` without the (sorted) positions `drop`: one copy, slice by slice (np.delete
    builds a mask as long as the array; this is a handful of memcpys)."""
    import numpy as np

    if not len(drop):
        return arr
    bounds = [-1, *drop.tolist(), len(arr)]
    return np.concatenate([arr[a + 1 : b] for a, b in pairwise(bounds)])


def _with(arr: NDArray[_S], at: NDArray[np.intp], values: NDArray[_S]) -> NDArray[_S]:
    """`values` inserted into `arr` before the (non-decreasing) positions `at`, in order."""
    import numpy as np

    if not len(at):
        return arr
    pieces, prev = [], 0
    groups = [0, *(np.flatnonzero(np.diff(at)) + 1).tolist(), len(at)]
    for g0, g1 in pairwise(groups):
        p = int(at[g0])
        pieces += [arr[prev:p], values[g0:g1]]
        prev = p
    pieces.append(arr[prev:])
    return np.concatenate(pieces)


def _insertion_points(
    kd: NDArray[np.int32],
    kept_ptr: NDArray[np.int64],
    ft: NDArray[np.int32],
    fd: NDArray[np.int32],
    n: int,
) -> NDArray[np.intp]:
    """Where each new (term, skill) entry goes among the kept ones (by term, then skill)."""
    import numpy as np

    n_old = len(kept_ptr) - 1
    if len(ft) <= LOOP_INSERTS:  # an edit or a few: a binary search in each term's own entries
        at = np.empty(len(ft), dtype=np.int64)
        for j, (t, d) in enumerate(zip(ft.tolist(), fd.tolist(), strict=True)):
            if t >= n_old:
                at[j] = len(kd)  # a word new to the lexicon: after every kept entry
            else:
                lo = int(kept_ptr[t])
                at[j] = lo + int(np.searchsorted(kd[lo : int(kept_ptr[t + 1])], d))
        return at
    key = np.repeat(np.arange(n_old, dtype=np.int64) * max(n, 1), np.diff(kept_ptr)) + kd
    return np.searchsorted(key, ft.astype(np.int64) * max(n, 1) + fd)


def patch(
    base: Postings,
    rows: Rows,
    old_to_new: NDArray[np.int32],
    fresh: NDArray[np.integer],
    n_terms: int,
    cfg: RouterConfig,
) -> Postings:
    """`base` moved onto `rows`: old row r is new row `old_to_new[r]` (-1: gone), which
    must be increasing over the rows kept; the new rows `fresh` get entries made now."""
    import numpy as np

    gone = np.nonzero(old_to_new < 0)[0]
    in_place = (
        rows.n == base.rows.n
        and len(gone) <= IN_PLACE_MAX
        and np.array_equal(gone, fresh)
        and ((old_to_new == np.arange(len(old_to_new))) | (old_to_new < 0)).all()
    )
    if in_place:  # edits only: every other row keeps its number, so only their entries move
        drop = _entries_of(base, gone, cfg)
        kd, kv = _without(base.indices, drop), _without(base.tf, drop)
        kept_ptr = base.indptr - np.searchsorted(drop, base.indptr)
    else:
        new_doc = old_to_new[base.indices]
        keep = new_doc >= 0
        kd, kv = new_doc[keep].astype(np.int32), base.tf[keep]
        kept_ptr = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))[base.indptr]
    kept_df = np.diff(kept_ptr)
    fd, ft, fv = tf_entries(rows, fresh, base.avgs, cfg, n_terms)
    if len(ft):
        o = np.lexsort((fd, ft))  # term by term, skills ascending: the kept entries' order
        fd, ft, fv = fd[o], ft[o], fv[o]
        at = _insertion_points(kd, kept_ptr, ft, fd, rows.n)
        kd, kv = _with(kd, at, fd), _with(kv, at, fv)
    df = np.zeros(n_terms, dtype=np.int64)
    df[: len(kept_df)] = kept_df
    df += np.bincount(ft, minlength=n_terms)
    return Postings(rows, _offsets(df), kd, kv, n_terms, base.avgs, base.patches + 1)
