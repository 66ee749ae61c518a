"""The index for one list of skills: BM25 postings (`postings`), the idf and per-word
worth derived from them, the negative-only words of each skill and cached eligibility.

An `Index` is immutable once made. Everything but the postings is derived here in O(terms
+ skills) vector work, so making an index from loaded or patched postings is cheap; a
patched index also carries over the eligibility of the skills it kept.

numpy and bm25s are imported inside the functions that need them, so importing this
module stays cheap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING

from codebot.skills.files import Spec
from codebot.skills.invoke import Actor, Adapter, Decision, decide
from codebot.skills.route.config import FIELDS, RouterConfig
from codebot.skills.route.index.postings import Postings

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np
    from numpy.typing import ArrayLike, NDArray

    _EligKey = tuple[Actor, Adapter, tuple[tuple[str, str], ...]]  # actor, adapter, overrides

_KEY, _PATHS = attrgetter("key"), attrgetter("paths")  # C-level loops over ten thousand specs


def idf_lucene(df: ArrayLike, n_docs: float) -> NDArray[np.float32]:
    """bm25s' Lucene idf (`scoring._score_idf_lucene`), vectorised: log(1 + (N - df + .5) /
    (df + .5)); 0 for words no skill uses. Restated so that loading an index does not
    import bm25s (120 ms); tests/skills/route/test_route_persist.py checks it equals bm25s'."""
    import numpy as np

    df = np.asarray(df, dtype=np.float64)
    out = np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    return np.where(df > 0, out, 0.0).astype(np.float32)


class Index:
    """Weighted BM25 postings for one list of specs, and what routing derives from them.

    `carry`: the index this one was made from and, for each of its rows, the row here
    that holds the very same Spec object (-1: none). What was computed for those specs
    there (eligibility masks; the lookup tables, when every row stayed in place) is
    reused instead of computed again for ten thousand specs.
    """

    def __init__(
        self,
        specs: Sequence[Spec],
        postings: Postings,
        lexicon: Mapping[str, int],
        config: RouterConfig,
        carry: tuple[Index, NDArray[np.signedinteger]] | None = None,
    ) -> None:
        import numpy as np

        t0 = time.perf_counter()
        self.specs = tuple(specs)
        self.n = len(self.specs)
        if postings.rows.n != self.n:
            raise ValueError(f"{postings.rows.n} token rows for {self.n} skills")
        self.config = config
        self.postings = postings
        self.rows = postings.rows
        self.lexicon = lexicon  # shared, grows; ids < n_terms are covered here
        self.n_terms = postings.n_terms
        self.indptr, self.indices, self.tf = postings.indptr, postings.indices, postings.tf
        self._folder_rows: tuple[NDArray[np.int64], NDArray[np.intp]] | None = None  # folders
        self._key_rows: tuple[Sequence[str], NDArray[np.int64]] | None = None  # rows_of
        if not (carry is not None and self._lookups_from(*carry)):
            self.pos = dict(zip(map(id, self.specs), range(self.n), strict=True))
            self.by_key = dict(zip(map(_KEY, self.specs), range(self.n), strict=True))
            self.conditional = np.flatnonzero(
                np.fromiter(map(bool, map(_PATHS, self.specs)), dtype=bool, count=self.n)
            )
        # One idf for all fields (as in BM25F), from how many skills use the word anywhere:
        # a word that is rare among names but common in descriptions (e.g. a one-word name
        # like `review`) is not strong evidence.
        df = np.diff(self.indptr)
        n = max(self.n, 1)
        self.idf = idf_lucene(df, n)
        # What one request word is worth "normally": a match in a description of average
        # length. A word no skill uses is worth `oov_weight` times the rarest word.
        self.max_idf = float(np.float32(math.log(1 + (n - 1 + 0.5) / (1 + 0.5))))
        w_desc = float(config.weights.get("description", 1.0)) or 1.0
        self.unit_scale = w_desc / (1.0 + config.bm25.k1)
        self.unit = np.where(df > 0, self.idf, self.max_idf).astype(np.float32) * self.unit_scale
        self.reach = self._reach(config)
        self.neg = self._negatives()
        self._eligibility: dict[_EligKey, tuple[NDArray[np.bool_], dict[int, Decision]]] = {}
        if carry is not None:
            self._carry(*carry)
        self.build_ms = (time.perf_counter() - t0) * 1000

    def _reach(self, config: RouterConfig) -> NDArray[np.float32]:
        """Per word, the weight of the best field any skill holds it in: 1 for a word of some
        name, description or `when_to_use`, `body_weight` for a word only bodies hold. No
        skill can earn more for it, so what a request's words are worth (the score's
        divisor) counts it at that: a detailed request's words that only bodies mention
        ("tonight", "pager") do not dilute the skill it asks for as if a description could
        have held them."""
        import numpy as np

        reach = np.zeros(self.n_terms, dtype=np.float32)
        rows = self.rows
        weights = [float(config.weights.get(name, 0.0)) for name in FIELDS]
        least = min(weights)  # the body's: not walked (it holds most ids), see below
        for f, w in enumerate(weights):
            if w <= least or rows.n == 0:
                continue
            ids = rows.ids[int(rows.ptr[f, 0]) : int(rows.ptr[f, rows.n])]
            held = np.zeros(self.n_terms, dtype=bool)
            held[ids] = True
            reach[held] = np.maximum(reach[held], np.float32(w))
        # a word some skill uses (df > 0) that no other field holds is in the least one
        in_use = np.diff(self.indptr) > 0
        reach[in_use & (reach == 0)] = np.float32(max(least, 0.0))
        # a word a description rules out ("not for X") is a description's word: it counts
        # against that skill (`scores`) as much as a match would have earned it
        if len(rows.neg_ids):
            desc = np.float32(weights[FIELDS.index("description")])
            reach[rows.neg_ids] = np.maximum(reach[rows.neg_ids], desc)
        return reach

    def _negatives(self) -> dict[int, NDArray[np.int32]]:
        """term id -> the rows (ascending) whose description or when_to_use rules it out."""
        import numpy as np

        r = self.rows
        if not len(r.neg_ids):
            return {}
        owner = np.repeat(np.arange(self.n, dtype=np.int32), np.diff(r.neg_ptr))
        order = np.argsort(r.neg_ids, kind="stable")
        terms, owner = r.neg_ids[order], owner[order]
        cut = np.nonzero(np.diff(terms))[0] + 1
        return {
            int(t[0]): docs
            for t, docs in zip(np.split(terms, cut), np.split(owner, cut), strict=True)
        }

    def _lookups_from(self, old: Index, same: NDArray[np.signedinteger]) -> bool:
        """`pos`, `by_key` and `conditional` from `old`'s when every row kept its place
        (an edit): a copy of each, and the rows that changed set right."""
        import numpy as np

        if old.n != self.n or not ((same == np.arange(self.n)) | (same < 0)).all():
            return False
        changed = np.nonzero(same < 0)[0].tolist()
        # .copy(), not dict(): after an edit's pop the table has a hole, and dict() of such a
        # dict inserts key by key (3 ms at 10,000) where .copy() clones it
        pos, by_key = old.pos.copy(), old.by_key.copy()
        for i in changed:
            was, now = old.specs[i], self.specs[i]
            pos.pop(id(was), None)
            if by_key.get(was.key) == i:
                del by_key[was.key]
        for i in changed:
            now = self.specs[i]
            pos[id(now)] = i
            by_key[now.key] = i
        cond = set(old.conditional.tolist()).difference(changed)
        cond.update(i for i in changed if self.specs[i].paths)
        self.pos, self.by_key = pos, by_key
        if old._folder_rows is not None and all(
            self.specs[i].root.path == old.specs[i].root.path for i in changed
        ):
            self._folder_rows = old._folder_rows  # an edit leaves every skill in its folder
        self.conditional = np.asarray(sorted(cond), dtype=np.int64)
        return True

    def _carry(self, old: Index, same: NDArray[np.signedinteger]) -> None:
        """Eligibility masks of `old`, for the specs both hold; `decide` for the others."""
        import numpy as np

        olds = np.nonzero(same >= 0)[0]
        news = same[olds].astype(np.int64)
        kept = np.zeros(self.n, dtype=bool)
        kept[news] = True
        fresh = np.nonzero(~kept)[0].tolist()
        for key, (mask, denied) in list(old._eligibility.items()):
            actor, adapter, items = key
            overrides = dict(items)
            new_mask = np.ones(self.n, dtype=bool)
            new_mask[news] = mask[olds]
            new_denied = {int(same[o]): d for o, d in denied.items() if same[o] >= 0}
            for i in fresh:
                d = decide(self.specs[i], actor, overrides, adapter)
                new_mask[i] = d.allowed
                if not d.allowed:
                    new_denied[i] = d
            self._eligibility[key] = (new_mask, new_denied)

    def nbytes(self) -> int:
        return int(self.postings.nbytes() + self.idf.nbytes + self.unit.nbytes)

    def eligibility(
        self, actor: Actor, overrides: Mapping[str, str], adapter: Adapter
    ) -> tuple[NDArray[np.bool_], dict[int, Decision]]:
        import numpy as np

        key = (actor, adapter, tuple(sorted(overrides.items())))
        hit = self._eligibility.get(key)
        if hit is None:
            mask = np.ones(self.n, dtype=bool)
            denied: dict[int, Decision] = {}
            for i, s in enumerate(self.specs):
                d = decide(s, actor, overrides, adapter)
                if not d.allowed:
                    mask[i] = False
                    denied[i] = d
            hit = (mask, denied)
            if len(self._eligibility) > 16:
                self._eligibility.clear()
            self._eligibility[key] = hit
        return hit

    def scores(
        self,
        term_ids: Sequence[int],
        neg_ids: Sequence[int],
        penalty: float,
        weight: Mapping[int, float] | None = None,
    ) -> NDArray[np.float32]:
        """BM25 scores of every skill for these terms (`weight`: term id -> multiplier)."""
        import numpy as np

        s = np.zeros(self.n, dtype=np.float32)
        for t in term_ids:
            a, b = self.indptr[t], self.indptr[t + 1]
            if b > a:
                w = weight.get(t, 1.0) if weight else 1.0
                s[self.indices[a:b]] += self.tf[a:b] * np.float32(float(self.idf[t]) * w)
        if penalty > 0:
            for t in neg_ids:
                docs = self.neg.get(t)
                if docs is not None:
                    s[docs] -= penalty * float(self.unit[t])
        return s

    def matches(self, term_ids: Sequence[int], rows: ArrayLike) -> NDArray[np.float64]:
        """The BM25 term frequency (fields combined) of each word in each of `rows`: a row
        per entry of `rows`, a column per word, 0 where it does not match. A binary search
        per word in its postings (ascending rows), so a few rows cost little even when a
        word is in most skills."""
        import numpy as np

        want = np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(want), len(term_ids)), dtype=np.float64)
        for j, t in enumerate(term_ids):
            a, b = self.indptr[t], self.indptr[t + 1]
            if b > a:
                docs = self.indices[a:b]
                at = np.searchsorted(docs, want).clip(0, b - a - 1)
                out[:, j] = np.where(docs[at] == want, self.tf[a:b][at], 0.0)
        return out

    def folder_idf(self, term_ids: Sequence[int], cap: int) -> NDArray[np.float64]:
        """Each word's idf with every folder of skills counted as at most `cap` skills (or
        as many as the smallest folder holds, when that is more): its skills count for
        cap / size each. So one folder of thousands of like skills does not make its
        vocabulary common for the whole catalog and every other word rare; a catalog of
        one folder, or of folders within the cap, gets the plain idf. O(postings) per word."""
        import numpy as np

        plain = self.idf[np.asarray(term_ids, dtype=np.int64)].astype(np.float64)
        if cap <= 0:
            return plain
        owner, sizes = self.folders()
        share = np.minimum(
            1.0, max(cap, int(sizes.min()) if len(sizes) else 0) / np.maximum(sizes, 1)
        )
        if bool((share >= 1.0).all()):
            return plain
        df = np.asarray(
            [
                float(
                    np.bincount(
                        owner[self.indices[self.indptr[t] : self.indptr[t + 1]]],
                        minlength=len(sizes),
                    )
                    @ share
                )
                for t in term_ids
            ]
        )
        return np.where(plain > 0, idf_lucene(df, float(sizes @ share)), 0.0).astype(np.float64)

    def folders(self) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
        """Each row's folder (numbered here) and each folder's number of skills; made the
        first time it is asked for (5 ms at 10,000 skills; `warmup.warm` asks), then kept:
        an Index does not change, and one patched for an edit takes its parent's."""
        import numpy as np

        if self._folder_rows is None:
            seen: dict[Path, int] = {}
            owner = np.fromiter(
                (seen.setdefault(s.root.path, len(seen)) for s in self.specs),
                dtype=np.int64,
                count=self.n,
            )
            self._folder_rows = (owner, np.bincount(owner, minlength=len(seen)))
        return self._folder_rows

    def rows_of(self, keys: Sequence[str]) -> NDArray[np.int64]:
        """Each key's row, -1 for a key not here. Kept for the last list asked about (the
        same list object: a scorer's keys for the same skills, request after request), so
        a route among 10,000 skills does not look up 10,000 keys."""
        import numpy as np

        got = self._key_rows
        if got is None or got[0] is not keys:
            by_key = self.by_key
            rows = np.fromiter((by_key.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
            got = self._key_rows = (keys, rows)
        return got[1]

    def field_matches(self, i: int, term_ids: Sequence[int]) -> dict[str, set[int]]:
        q = set(term_ids)
        out: dict[str, set[int]] = {}
        for f, name in enumerate(FIELDS):
            if float(self.config.weights.get(name, 0.0)) <= 0:
                continue
            hit = q.intersection(self.rows.field_ids(f, i).tolist())
            if hit:
                out[name] = hit
        return out
