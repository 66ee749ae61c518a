"""How the eligible skills are put in order: the first stage's best `k` by score, and the
second stage that reorders the first `rerank_depth` by score x coverage.

Pure functions of numpy arrays and row numbers, called by `Router.route`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def rerank(pool: list[int], norm: Any, cov: Mapping[int, float], power: float) -> list[int]:
    """`pool` (rows, best first) ordered by score x coverage**power, ties in pool order.

    BM25 adds up what each request word scores, so one rare word in a short name can
    outscore a skill that matches four of the request's five words. Weighing the score by
    the share of the request's worth (idf x weight) a skill matches is a soft AND: it
    lifts the skills that match more of the request. Only the first `rerank_depth` are
    reordered, so the set an over-budget listing shows for the turn stays the same.
    """
    key = {i: float(norm[i]) * float(cov[i]) ** power for i in pool}
    return sorted(pool, key=lambda i: -key[i])


def top_rows(score: Any, rows: Any, k: int) -> list[int]:
    """The `k` best of `rows` by `score`, best first, ties to the lower row: also at the
    cut, so the first five of a ranking are the first five of a longer one."""
    import numpy as np

    if len(rows) > k:  # every row scoring at least the k-th best, then sorted and cut
        kth = -np.partition(-score[rows], k - 1)[k - 1]
        rows = rows[score[rows] >= kth]
    return rows[np.lexsort((rows, -score[rows]))][:k].tolist()
