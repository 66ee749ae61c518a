"""The index for one list of skills: field-weighted BM25 postings (bm25s' formulas, built
with numpy), the negative-only words of each skill and cached eligibility masks.

numpy and bm25s are imported inside the functions that need them, so importing this
module stays cheap.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codebot.skills.files import Spec
from codebot.skills.invoke import Actor, Adapter, Decision, decide
from codebot.skills.route.config import FIELDS, RouterConfig

_CHUNK = 8192  # skills per step of the index build (bounds its temporary memory)


@dataclass(frozen=True, slots=True)
class Bag:
    """Bag of words of one field of one skill: sorted term ids, counts, length."""

    ids: array  # array("i"), sorted, unique
    counts: array  # array("H")
    length: int
    neg: tuple[int, ...] = ()  # term ids found only in the negative clause


class _FieldBM25:
    """BM25 term-frequency part for one field, vectorised over bags (bm25s' own formula)."""

    @staticmethod
    def average_length(bags: Sequence[Bag]) -> float:
        return (sum(bg.length for bg in bags) / len(bags) if bags else 0.0) or 1.0

    @staticmethod
    def build(bags: Sequence[Bag], start: int, k1: float, b: float, avg: float) -> tuple[Any, Any, Any]:
        """(doc, term, tf component) triples for `bags`, the docs numbered from `start`."""
        import numpy as np
        from bm25s.scoring import _score_tfc_lucene

        lens = np.fromiter((bg.length for bg in bags), dtype=np.float32, count=len(bags))
        sizes = np.fromiter((len(bg.ids) for bg in bags), dtype=np.int64, count=len(bags))
        if len(bags) == 0 or sizes.sum() == 0:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float32)
        terms = np.frombuffer(b"".join(bg.ids for bg in bags), dtype=np.int32)
        tf = np.frombuffer(b"".join(bg.counts for bg in bags), dtype=np.uint16).astype(np.float32)
        local = np.repeat(np.arange(len(bags), dtype=np.int32), sizes)
        return local + start, terms, _score_tfc_lucene(tf, lens[local], avg, k1, b).astype(np.float32)


def _idf(df: Any, n_docs: int) -> Any:
    """bm25s' Lucene idf, vectorised."""
    import numpy as np
    from bm25s.scoring import _score_idf_lucene

    out = np.zeros(len(df), dtype=np.float32)
    present = np.nonzero(df)[0]
    values = {int(d): _score_idf_lucene(int(d), n_docs) for d in np.unique(df[present]).tolist()}
    out[present] = [values[int(d)] for d in df[present].tolist()]
    return out


class Index:
    """Combined, weighted BM25 postings for one list of specs."""

    def __init__(self, specs: Sequence[Spec], bags: Mapping[str, Sequence[Bag]], n_terms: int,
                 config: RouterConfig, lexicon: Mapping[str, int]) -> None:  # fmt: skip
        import numpy as np

        t0 = time.perf_counter()
        self.specs = tuple(specs)
        self.n = len(self.specs)
        self.config = config
        self.lexicon = lexicon  # shared, grows; ids < n_terms are covered here
        self.n_terms = n_terms
        self.bags = bags
        self.pos = {id(s): i for i, s in enumerate(self.specs)}
        self.by_key = {s.key: i for i, s in enumerate(self.specs)}
        # Per field: BM25's tf part. One idf for all fields (as in BM25F), from how many
        # skills use the word anywhere: a word that is rare among names but common in
        # descriptions (e.g. a one-word name like `review`) is not strong evidence.
        # A word found in several fields counts as its best field plus `field_mix` of the
        # others, so a word in the name, the description and the body does not outweigh
        # three different words. Built in chunks of skills to bound the memory it takes.
        fields = [(f, float(config.weights.get(f, 0.0))) for f in FIELDS if float(config.weights.get(f, 0.0)) > 0]
        avgs = {f: _FieldBM25.average_length(bags[f]) for f, _ in fields}
        chunks = []
        df = np.zeros(n_terms, dtype=np.int64)
        for start in range(0, self.n, _CHUNK):
            end = min(self.n, start + _CHUNK)
            parts = [_FieldBM25.build(bags[f][start:end], start, config.k1, config.b, avgs[f]) for f, _ in fields]
            docs = np.concatenate([p[0] for p in parts]) - start
            key = np.concatenate([p[1] for p in parts]).astype(np.int64) * _CHUNK + docs
            vals = np.concatenate([p[2] * w for p, (_, w) in zip(parts, fields, strict=True)])
            del parts, docs
            order = np.argsort(key, kind="stable")
            key, vals = key[order], vals[order]
            del order
            if len(key):
                first = np.concatenate(([0], np.nonzero(np.diff(key))[0] + 1))
                total = np.add.reduceat(vals, first)
                best = np.maximum.reduceat(vals, first)
                vals = best + config.field_mix * (total - best)
                key = key[first]
            terms = (key // _CHUNK).astype(np.int32)
            chunks.append((terms, (key % _CHUNK + start).astype(np.int32), vals.astype(np.float32)))
            df += np.bincount(terms, minlength=n_terms)
        self.idf = _idf(df, max(self.n, 1))
        # CSC layout (postings by term, docs ascending), filled chunk by chunk
        self.indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(df, out=self.indptr[1:])
        self.data = np.empty(int(self.indptr[-1]), dtype=np.float32)
        self.indices = np.empty(int(self.indptr[-1]), dtype=np.int32)
        cursor = self.indptr[:-1].copy()
        while chunks:
            terms, docs, vals = chunks.pop(0)
            count = np.bincount(terms, minlength=n_terms)
            first = np.cumsum(count) - count
            pos = cursor[terms] + (np.arange(len(terms)) - first[terms])
            self.data[pos] = vals * self.idf[terms]
            self.indices[pos] = docs
            cursor += count
            del terms, docs, vals, count, first, pos
        n = max(self.n, 1)
        # What one request word is worth "normally": a match in a description of average
        # length. A word no skill uses is worth `oov_weight` times the rarest word.
        self.max_idf = float(_idf(np.asarray([1]), n)[0])
        w_desc = float(config.weights.get("description", 1.0)) or 1.0
        self.unit_scale = w_desc / (1.0 + config.k1)
        self.unit = np.where(df > 0, self.idf, self.max_idf).astype(np.float32) * self.unit_scale
        # negative-only terms: term id -> doc indices
        neg_docs: dict[int, list[int]] = {}
        for f in ("description", "when_to_use"):
            for i, bg in enumerate(bags[f]):
                if bg.neg:
                    for t in bg.neg:
                        neg_docs.setdefault(t, []).append(i)
        self.neg = {t: np.asarray(sorted(set(v)), dtype=np.int32) for t, v in neg_docs.items()}
        self.conditional = np.asarray([i for i, s in enumerate(self.specs) if s.paths], dtype=np.int64)
        self._eligibility: dict[tuple[Any, ...], tuple[Any, dict[int, Decision]]] = {}
        self.build_ms = (time.perf_counter() - t0) * 1000

    def nbytes(self) -> int:
        return int(self.data.nbytes + self.indices.nbytes + self.indptr.nbytes + self.idf.nbytes + self.unit.nbytes)

    def eligibility(self, actor: Actor, overrides: Mapping[str, str], adapter: Adapter) -> tuple[Any, dict[int, Decision]]:
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

    def scores(self, term_ids: Sequence[int], neg_ids: Sequence[int], penalty: float,
               weight: Mapping[int, float] | None = None) -> Any:  # fmt: skip
        """BM25 scores of every skill for these terms (`weight`: term id -> multiplier)."""
        import numpy as np

        s = np.zeros(self.n, dtype=np.float32)
        for t in term_ids:
            a, b = self.indptr[t], self.indptr[t + 1]
            if b > a:
                w = weight.get(t, 1.0) if weight else 1.0
                s[self.indices[a:b]] += self.data[a:b] if w == 1.0 else self.data[a:b] * w
        if penalty > 0:
            for t in neg_ids:
                docs = self.neg.get(t)
                if docs is not None:
                    s[docs] -= penalty * float(self.unit[t])
        return s

    def field_matches(self, i: int, term_ids: Sequence[int]) -> dict[str, set[int]]:
        q = set(term_ids)
        out: dict[str, set[int]] = {}
        for f in FIELDS:
            if float(self.config.weights.get(f, 0.0)) <= 0:
                continue
            hit = q.intersection(self.bags[f][i].ids)
            if hit:
                out[f] = hit
        return out
