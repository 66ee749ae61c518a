"""How the eligible skills are put in order: the first stage's best `k` by score, and the
second stage that reorders the first `rerank_depth` (or `rerank_share` of a large
catalog) by score x coverage.

Pure functions of numpy arrays and row numbers, called by `Router.route`.
"""

from __future__ import annotations

from typing import Any


def rerank(pool: list[int], raw: Any, tf: Any, plain: Any, worth: Any, power: float,
           scale: float) -> tuple[list[int], dict[int, float], dict[int, float]]:  # fmt: skip
    """`pool` (rows, best first) ordered by score x coverage**power, ties in pool order;
    each row's coverage; and what it was ordered by, in the units of the shown score.

    BM25 adds up what each request word scores, so one rare word in a short name can
    outscore a skill that matches four of the request's five words. Weighing the score by
    the share of the request's worth a skill matches is a soft AND: it lifts the skills
    that match more of the request. Only the first `rerank_depth` are reordered (a share
    of a catalog over 4,000 skills), so below that size the set an over-budget listing
    shows for the turn stays the first stage's.

    `raw`: every row's first-stage score, as summed; `scale`: what turns it into the shown
    score (the shape factor over what the request's words are worth); `tf`: the pool's
    BM25 term frequencies, a row per
    pool entry and a column per request word; `plain`: each word's worth (idf x weight) in
    that score; `worth`: what it is worth here, which may differ (folder-capped word
    statistics, `Index.folder_idf`). The score is re-weighed by the difference, so a
    ruled-out word's penalty stays as the first stage counted it.
    """
    import numpy as np

    rows = np.asarray(pool, dtype=np.int64)
    score = np.asarray(raw, dtype=np.float64)[rows] + tf @ (worth - plain)
    cov = ((tf > 0) @ worth) / max(float(worth.sum()), 1e-9)
    key = score * scale * cov**power
    order = np.argsort(-key, kind="stable")
    return rows[order].tolist(), dict(zip(pool, cov.tolist(), strict=True)), dict(zip(pool, key.tolist(), strict=True))


def top_rows(score: Any, rows: Any, k: int) -> list[int]:
    """The `k` best of `rows` by `score`, best first, ties to the lower row: also at the
    cut, so the first five of a ranking are the first five of a longer one."""
    import numpy as np

    if len(rows) > k:  # every row scoring at least the k-th best, then sorted and cut
        kth = -np.partition(-score[rows], k - 1)[k - 1]
        rows = rows[score[rows] >= kth]
    return rows[np.lexsort((rows, -score[rows]))][:k].tolist()
