"""How the eligible skills are put in order: the first stage's best `k` by score, and the
second stage that reorders the first `LISTING_DEPTH` (or `rerank_share` of a large
catalog) by score x coverage, with a big folder's look-alikes giving way (`crowded`).

Pure functions of numpy arrays and row numbers (and, for `second_stage`, the Index they
come from), called by `Router.route`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from codebot.skills.route.config import RRF_K
from codebot.skills.route.similarities import Similarities, as_arrays

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

    from codebot.skills.route.config import RouterConfig
    from codebot.skills.route.index.index import Index


class Staged:
    """What the second stage shows and why: `rows` (the decision's front first, then its
    order, `k` in all); each pool row's coverage and what it was ordered by; how many
    look-alikes of its folder were shown above each crowded row; the shown rows'
    first-stage ranks."""

    __slots__ = ("coverage", "crowded", "first_rank", "ordered_by", "rows")

    def __init__(
        self,
        rows: list[int],
        coverage: dict[int, float],
        ordered_by: dict[int, float],
        crowded: dict[int, int],
        first_rank: dict[int, int],
    ) -> None:
        self.rows, self.coverage, self.ordered_by = rows, coverage, ordered_by
        self.crowded, self.first_rank = crowded, first_rank


def second_stage(
    idx: Index,
    elig: NDArray[np.floating],
    positive: NDArray[np.intp],
    front: list[int],
    raw: NDArray[np.float32],
    known: list[int],
    w: NDArray[np.float64],
    cfg: RouterConfig,
    scale: float,
    k: int,
) -> Staged:
    """The first stage's best `depth` (`LISTING_DEPTH`, or `rerank_share` of a large catalog)
    ordered by score x coverage (`rerank`) after `front` (what the decision keeps first);
    `k` rows in all.

    In a catalog with a folder of more than `folder_cap` skills, that folder's skills that
    match the same request words give way, in the pool (`crowded`) and in its order
    (`crowd_order`): a folder holding hundreds of variations of one skill would otherwise
    fill both, and another source's skill matching as much of the request would not be
    ranked at all. The pool is then drawn from the first stage's best 4 x depth: bounded work
    at any size.
    """
    import numpy as np

    depth = max(k, cfg.rerank.rerank_depth, int(idx.n * cfg.rerank.rerank_share))
    owner, sizes = idx.folders()
    crowding = (
        cfg.rerank.crowd_decay < 1
        and cfg.rerank.folder_cap > 0
        and bool((sizes > cfg.rerank.folder_cap).any())
    )
    near = np.asarray(top_rows(elig, positive, 4 * depth if crowding else depth), dtype=np.int64)
    tf = idx.matches(known, near)
    at = np.arange(len(near))
    plain = idx.idf[np.asarray(known, dtype=np.int64)] * w
    worth = idx.folder_idf(known, cfg.rerank.folder_cap) * w
    if crowding:
        words = word_bits(tf > 0)
        # a folder within the cap: each of its skills a group of its own, never crowded
        group = np.where(sizes[owner[near]] > cfg.rerank.folder_cap, owner[near], -1 - near)
        if len(near) > depth:  # the pool: the best `depth` by crowded first-stage score
            held = (near[:, None] == np.asarray(front, dtype=np.int64)[None, :]).any(axis=1)
            drawn = crowded(elig[near], group, words, held, cfg.rerank.crowd_decay)
            at = np.sort(np.lexsort((at, -drawn))[:depth])  # the front scores highest: always in
    pool = near[at].tolist()
    rows, cov, key = rerank(pool, raw, tf[at], plain, worth, scale)
    crowd: dict[int, int] = {}
    if crowding:
        rest, crowd = crowd_order(
            front,
            rows,
            key,
            dict(zip(pool, group[at].tolist(), strict=True)),
            dict(zip(pool, words[at].tolist(), strict=True)),
            cfg.rerank.crowd_decay,
            max(k - len(front), 0),
        )
        for i, j in crowd.items():  # only positive keys are ever crowded
            key[i] *= cfg.rerank.crowd_decay**j
    else:
        rest = [i for i in rows if i not in front][: max(k - len(front), 0)]
    shown = list(front) + rest
    place = near.tolist()  # the first stage's order
    return Staged(shown, cov, key, crowd, {i: place.index(i) + 1 for i in shown})


def crowd_order(
    front: list[int],
    rows: list[int],
    key: dict[int, float],
    group: dict[int, int],
    words: dict[int, int],
    decay: float,
    k: int,
) -> tuple[list[int], dict[int, int]]:
    """The first `k` of `rows` (`front` left out) in the order they are shown after
    `front`, and each one's j when it is not 0: a row counts `key` x decay**j, j being how
    many rows of its `group` shown above it (`front` included) match every request word it
    matches (`words`: bit sets). Such a skill adds nothing the model does not already see
    from that folder. A negative group is a group of one, never crowded.

    Greedy, lazily re-weighed: a row's factor only falls as more are shown, so the best of
    the stored (upper-bound) keys that is still the best once re-weighed is the next one.
    """
    import heapq

    shown: dict[int, list[int]] = {}
    for i in front:
        shown.setdefault(group[i], []).append(words[i])
    held = set(front)
    heap = [(-key[i], n, i, 0) for n, i in enumerate(rows) if i not in held]
    heapq.heapify(heap)
    out: list[int] = []
    crowd: dict[int, int] = {}
    while heap and len(out) < k:
        _, n, i, j0 = heapq.heappop(heap)
        m, g = words[i], group[i]
        j = sum(1 for other in shown.get(g, ()) if other & m == m) if g >= 0 and key[i] > 0 else 0
        if j != j0:  # re-weighed: back in line with its lower key
            heapq.heappush(heap, (-key[i] * decay**j, n, i, j))
            continue
        out.append(i)
        if j:
            crowd[i] = j
        shown.setdefault(g, []).append(m)
    return out, crowd


def word_bits(present: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Each row's set of matched request words as the bits of an int64 (`present`: a row
    per skill, a column per word). Past 62 words, word j shares bit j % 62: the sets of a
    long paste may then look alike, which only counts more skills as look-alikes."""
    import numpy as np

    if present.shape[1] == 0:
        return np.zeros(present.shape[0], dtype=np.int64)
    bit = np.left_shift(np.int64(1), np.arange(present.shape[1], dtype=np.int64) % 62)
    return np.bitwise_or.reduce(np.where(present, bit, np.int64(0)), axis=1)


def crowd_counts(
    key: ArrayLike, group: NDArray[np.int64], words: NDArray[np.int64], held: ArrayLike
) -> NDArray[np.int64]:
    """For each row, how many rows of its `group` with the same `words` come before it:
    the `held` ones (shown first) and then those with a higher `key` (ties in row order).
    A held row's own count is 0."""
    import numpy as np

    key = np.asarray(key, dtype=np.float64)
    pos = np.arange(len(key))
    held = np.asarray(held, dtype=bool)
    order = np.lexsort((pos, -key, ~held, words, group))
    g, w = np.asarray(group)[order], np.asarray(words)[order]
    start = (
        np.r_[True, (g[1:] != g[:-1]) | (w[1:] != w[:-1])] if len(key) else np.zeros(0, dtype=bool)
    )
    j = np.empty(len(key), dtype=np.int64)
    j[order] = pos - np.maximum.accumulate(np.where(start, pos, 0))
    return np.where(held, 0, j)


def crowded(
    key: ArrayLike,
    group: NDArray[np.int64],
    words: NDArray[np.int64],
    held: ArrayLike,
    decay: float,
) -> NDArray[np.float64]:
    """`key` with each row weighed by decay**j, j being `crowd_counts`: the j-th
    look-alike of a group counts less the more of them are ahead of it. Web search does
    the same with "host crowding" (a few results per site). A key at or below zero (a
    skill that matched only words it rules out) is left as it is: no factor lifts it."""
    import numpy as np

    key = np.asarray(key, dtype=np.float64)
    return np.where(key > 0, key * np.power(decay, crowd_counts(key, group, words, held)), key)


def rerank(
    pool: list[int],
    raw: NDArray[np.floating],
    tf: NDArray[np.float64],
    plain: NDArray[np.float64],
    worth: NDArray[np.float64],
    scale: float,
) -> tuple[list[int], dict[int, float], dict[int, float]]:
    """`pool` (rows, best first) ordered by score x coverage, ties in pool order;
    each row's coverage; and what it was ordered by, in the units of the shown score.

    BM25 adds up what each request word scores, so one rare word in a short name can
    outscore a skill that matches four of the request's five words. Weighing the score by
    the share of the request's worth a skill matches is a soft AND: it lifts the skills
    that match more of the request. Only the first `LISTING_DEPTH` are reordered (a share
    of a catalog over 4,000 skills), so below that size the set an over-budget listing shows
    for the turn stays the first stage's.

    `raw`: every row's first-stage score, as summed; `scale`: what turns it into the shown
    score (1 over what the request's words are worth); `tf`: the pool's
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
    key = score * scale * cov
    order = np.argsort(-key, kind="stable")
    return (
        rows[order].tolist(),
        dict(zip(pool, cov.tolist(), strict=True)),
        dict(zip(pool, key.tolist(), strict=True)),
    )


def top_rows(score: NDArray[np.floating], rows: NDArray[np.intp], k: int) -> list[int]:
    """The `k` best of `rows` by `score`, best first, ties to the lower row: also at the
    cut, so the first five of a ranking are the first five of a longer one."""
    import numpy as np

    if len(rows) > k:  # every row scoring at least the k-th best, then sorted and cut
        kth = -np.partition(-score[rows], k - 1)[k - 1]
        rows = rows[score[rows] >= kth]
    return rows[np.lexsort((rows, -score[rows]))][:k].tolist()


def most_similar_rows(
    idx: Index, mask: NDArray[np.bool_], sem: Mapping[str, float], depth: int
) -> list[tuple[float, int]]:
    """(similarity, row) of the `depth` most similar eligible skills, most similar first
    (ties in the scorer's order): only those are fused, so a catalog of 10,000 is
    partitioned in numpy, not sorted in Python."""
    import numpy as np

    keys, vals = as_arrays(sem)
    n = min(len(keys), 2 * depth)  # room for keys not in the index or not eligible
    top = np.argpartition(-vals, n - 1)[:n] if 0 < n < len(keys) else np.arange(len(keys))
    top = top[np.lexsort((top, -vals[top]))]
    if isinstance(sem, Similarities):  # its keys come back request after request
        rows = idx.rows_of(keys)[top]
        keep = (vals[top] > 0) & (rows >= 0)
        keep[keep] = mask[rows[keep]]
        top, rows = top[keep][:depth], rows[keep][:depth]
        return list(zip(vals[top].tolist(), rows.tolist(), strict=True))
    by_key = idx.by_key
    out: list[tuple[float, int]] = []
    for j in top.tolist():
        i = by_key.get(keys[j])
        if vals[j] > 0 and i is not None and mask[i]:
            out.append((float(vals[j]), i))
            if len(out) == depth:
                break
    return out


def fuse(
    idx: Index,
    elig: NDArray[np.floating],
    mask: NDArray[np.bool_],
    sem: Mapping[str, float],
    k: int,
    cfg: RouterConfig,
) -> tuple[list[int], dict[int, int], dict[int, float]]:
    """The lexical and semantic rankings fused (eligible skills only): the order, each
    row's lexical rank and, for fusion "sum", each row's fused score.

    "sum" adds the cosine to the normalised lexical score, so a strong
    lexical lead survives a weak semantic one; "rrf" uses ranks only (1 / (RRF_K + rank)),
    which throws away how far apart the scores are.
    """
    import numpy as np

    depth = max(k * 10, 50)
    positive = np.nonzero(elig > 0)[0]
    lex_order = positive[np.argsort(-elig[positive], kind="stable")][:depth].tolist()
    lex_rank = {i: r + 1 for r, i in enumerate(lex_order)}
    sem_rows = most_similar_rows(idx, mask, sem, depth)
    if cfg.fusion == "sum":
        sem_of = {i: v for v, i in sem_rows}
        for i in lex_order:  # a lexical row below the similarity's first `depth` keeps its own
            sem_of.setdefault(i, max(sem.get(idx.specs[i].key, 0.0), 0.0))
        rows = set(lex_order) | {i for _, i in sem_rows[:depth]}
        total = {i: max(float(elig[i]), 0.0) + sem_of.get(i, 0.0) for i in rows}
        return sorted(total, key=lambda i: (-total[i], i)), lex_rank, total
    sem_rank = {i: r + 1 for r, (_, i) in enumerate(sem_rows[:depth])}
    fused: dict[int, float] = {}
    for ranks in (lex_rank, sem_rank):
        for i, r in ranks.items():
            fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + r)
    order = sorted(fused, key=lambda i: (-fused[i], i))
    return order, lex_rank, {}
