"""Look-alikes give way in the fused ranking too (a request in another language, with the
multilingual encoder: `rank.fuse`).

The second stage (`rank.second_stage`) lets the skills of a folder over `folder_cap` that
match no request word beyond what one of their folder shown above them matches give way
(`crowd_decay` per such skill). The fused ranking of a request in another language skipped
it, so among 10,000 generated skills the first five of "Génère le changelog de la version
à partir de l'historique git" were five generated `changelog-*` variations. Here the fused
order is crowded the same way: a row's number is what its place in the fused order is
worth under reciprocal rank fusion, 1 / (`RRF_K` + place), times `crowd_decay`^j; a skill
the encoder alone brought matches no word, so any skill of its folder shown above covers
it. A catalog whose folders are all within the cap keeps the fused order as it is.

Then a clear lead in words is not lost to ranks (`clear_lead_first`): the word ranking's
leader goes first when it scores `CLEAR_LEAD` times the fused first's words and the
request names it in its own words; and wherever it is, it is among the candidates shown
(`word_leader_shown`). `ranked` is the order the decision reads, in every
case (`Ranking`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from codebot.skills.route.config import CLEAR_LEAD, RRF_K
from codebot.skills.route.rank import (
    crowd_order,
    crowded,
    fuse,
    most_similar_rows,
    top_rows,
    word_bits,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

    from codebot.skills.route.config import RouterConfig
    from codebot.skills.route.index.index import Index


def _groups(idx: Index, rows: NDArray[np.int64], cap: int) -> NDArray[np.int64]:
    """Each row's folder when that folder is over the cap, else a group of its own."""
    import numpy as np

    owner, sizes = idx.folders()
    return np.where(sizes[owner[rows]] > cap, owner[rows], -1 - rows)


def crowd_fused(
    idx: Index, order: list[int], known: list[int], cfg: RouterConfig, k: int
) -> tuple[list[int], dict[int, int]]:
    """`order` (rows, the fused order) with look-alikes of a folder over `folder_cap`
    giving way in its first `k` (the rest follows in its order), and how many of its
    folder shown above each moved row matched every word it matched. Unchanged (and {})
    when no folder is over the cap, or `crowd_decay` is 1."""
    import numpy as np

    decay, cap = cfg.rerank.crowd_decay, cfg.rerank.folder_cap
    if not order or not _crowds(idx, cfg):
        return order, {}
    rows = np.asarray(order, dtype=np.int64)
    key = {i: 1.0 / (RRF_K + p) for p, i in enumerate(order, 1)}
    shown, crowd = crowd_order(
        [],
        order,
        key,
        dict(zip(order, _groups(idx, rows, cap).tolist(), strict=True)),
        dict(zip(order, word_bits(idx.matches(known, rows) > 0).tolist(), strict=True)),
        decay,
        k,
    )
    taken = set(shown)
    return shown + [i for i in order if i not in taken], crowd


def _drawn(
    idx: Index, near: list[int], score: ArrayLike, known: list[int], cfg: RouterConfig, n: int
) -> list[int]:
    """The best `n` of `near` (rows, best first by `score`) once the look-alikes of a
    folder over the cap count `crowd_decay`^j of their score (`rank.crowded`)."""
    import numpy as np

    rows = np.asarray(near, dtype=np.int64)
    if not len(rows):
        return []
    words = word_bits(idx.matches(known, rows) > 0)
    group = _groups(idx, rows, cfg.rerank.folder_cap)
    key = crowded(score, group, words, np.zeros(len(rows), dtype=bool), cfg.rerank.crowd_decay)
    return rows[np.lexsort((np.arange(len(rows)), -key))[:n]].tolist()


def _crowds(idx: Index, cfg: RouterConfig) -> bool:
    """Whether look-alikes give way here: a folder over `folder_cap` and a `crowd_decay`
    below 1."""
    decay, cap = cfg.rerank.crowd_decay, cfg.rerank.folder_cap
    return decay < 1 and cap > 0 and bool((idx.folders()[1] > cap).any())


def lexical_side(
    idx: Index, elig: NDArray[np.floating], k: int, cfg: RouterConfig, known: list[int]
) -> list[int] | None:
    """The word ranking's half of `fuse_across`, which reads no similarity: the route
    draws it while the similarities are still being made (`ahead`). None without a folder
    over the cap (`rank.fuse` then fuses as it is)."""
    import numpy as np

    if not _crowds(idx, cfg):
        return None
    depth = max(k * 10, 50)  # as `rank.fuse`
    lexical = top_rows(elig, np.nonzero(elig > 0)[0], 4 * depth)
    return _drawn(idx, lexical, elig[np.asarray(lexical, dtype=np.int64)], known, cfg, depth)


def fuse_across(
    idx: Index,
    elig: NDArray[np.floating],
    mask: NDArray[np.bool_],
    sem: Mapping[str, float],
    k: int,
    cfg: RouterConfig,
    known: list[int],
    lexical: list[int] | None = None,
) -> tuple[list[int], dict[int, int], dict[int, int]]:
    """The lexical and semantic rankings of a request in another language fused by
    reciprocal rank fusion (as `rank.fuse`), each drawn from its best 4 x depth with a big
    folder's look-alikes giving way (as the second stage draws its pool), then the fused
    order crowded (`crowd_fused`): the order, each row's lexical rank, and the crowded
    rows' j. Without a folder over the cap, `rank.fuse` as it is. `lexical`: the word
    ranking's side when already drawn (`lexical_side`)."""
    if not _crowds(idx, cfg):
        order, lex_rank, _ = fuse(idx, elig, mask, sem, k, replace(cfg, fusion="rrf"))
        return order, lex_rank, {}
    depth = max(k * 10, 50)  # as `rank.fuse`
    if lexical is None:
        lexical = lexical_side(idx, elig, k, cfg, known) or []
    similar = most_similar_rows(idx, mask, sem, 4 * depth)
    rankings = [
        lexical,
        _drawn(idx, [i for _, i in similar], [v for v, _ in similar], known, cfg, depth),
    ]
    fused: dict[int, float] = {}
    for ranking in rankings:
        for r, i in enumerate(ranking, 1):
            fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + r)
    order = sorted(fused, key=lambda i: (-fused[i], i))
    order, crowd = crowd_fused(idx, order, known, cfg, k)
    return order, {i: r for r, i in enumerate(rankings[0], 1)}, crowd


@dataclass(frozen=True, slots=True)
class Ranking:
    """The order the decision reads (rows), each row's lexical rank, and what placed some
    rows: their fused score (fusion "sum"), how many look-alikes above a crowded row
    match the same words (`crowd_fused`), a clear word leader's lead (`clear_lead_first`)
    and a word leader's place in the fused order before it was shown (`word_leader_shown`)."""

    order: list[int]
    lex_rank: dict[int, int]
    fused: dict[int, float] = field(default_factory=dict[int, float])
    crowd: dict[int, int] = field(default_factory=dict[int, int])
    leads: dict[int, float] = field(default_factory=dict[int, float])
    raised: dict[int, int] = field(default_factory=dict[int, int])


def ranked(
    idx: Index,
    elig: NDArray[np.floating],
    mask: NDArray[np.bool_],
    sem: Mapping[str, float],
    k: int,
    cfg: RouterConfig,
    lang: str,
    known: list[int],
    lexical: list[int] | None = None,
    translated: Collection[str] = (),
) -> Ranking:
    """The order the decision reads: the first `k` rows by score, or (with similarities)
    the fused order (by sum in English, by ranks across languages, a clear word leader
    first). `lexical`: the word ranking's side of a fusion across languages, drawn ahead
    (`lexical_side`); `translated`: the terms the encoder read from the request's words
    (`translate`), which a clear lead must not rest on alone."""
    import numpy as np

    if not sem:
        order = top_rows(elig, np.nonzero(elig > 0)[0], k)
        return Ranking(order, {i: r + 1 for r, i in enumerate(order)})  # first-stage ranks
    if lang == "en":
        order, lex_rank, fused = fuse(idx, elig, mask, sem, k, cfg)
        return Ranking(order, lex_rank, fused)
    # across languages by ranks (reciprocal rank fusion): the lexical score of a request in
    # another language measures only its loanwords and names; a big folder's look-alikes
    # give way as in the second stage (`fused`); a clear lead in words is not lost to ranks
    order, lex_rank, crowd = fuse_across(idx, elig, mask, sem, k, cfg, known, lexical)
    lex = idx.lexicon
    read = {lex[t] for t in translated if t in lex}
    own = [i for i in known if i not in read]  # the words the request wrote itself

    def named(i: int) -> bool:
        return any(f != "body" for f in idx.field_matches(i, own))

    leader = word_leader(elig)
    order, leads = clear_lead_first(order, elig, leader, named)
    order, raised = word_leader_shown(order, leader, cfg.top)
    return Ranking(order, lex_rank, crowd=crowd, leads=leads, raised=raised)


def word_leader(elig: NDArray[np.floating]) -> int | None:
    """The row the request's words match best (the word ranking's first), or None when no
    word matched an eligible skill."""
    import numpy as np

    best = top_rows(elig, np.nonzero(elig > 0)[0], 1)
    return best[0] if best else None


def clear_lead_first(
    order: list[int],
    elig: NDArray[np.floating],
    lead: int | None,
    named: Callable[[int], bool],
) -> tuple[list[int], dict[int, float]]:
    """`order` (the fused order across languages) with the word ranking's leader (`lead`,
    `word_leader`) in front
    when it scores at least `CLEAR_LEAD` times what the fused order's first scores in
    words, and `named(its row)`: a word the request wrote itself (not one the encoder
    translated) matches its name, description or `when_to_use`; and {that row: how many
    times} (inf: the first matched no word) when it moved. Reciprocal rank fusion keeps
    ranks only, so a skill whose words the request names many times over ("ARIMA … con
    diagnóstico de residuos": `statsmodels` 1.02 against 0.33) fell to 25th place behind
    skills the encoder found a little more alike. A lead made of translated words alone
    is the encoder's guess ("hasta" read as patient), no evidence against its own ranking.
    The decision's rules (threshold, `min_terms`, margin) then judge the leader as any
    first candidate."""
    if lead is None or not order or order[0] == lead:
        return order, {}
    other = max(float(elig[order[0]]), 0.0)
    times = float(elig[lead]) / other if other > 0 else float("inf")
    if times < CLEAR_LEAD or not named(lead):
        return order, {}
    return [lead, *(i for i in order if i != lead)], {lead: times}


def word_leader_shown(
    order: list[int], lead: int | None, shown: int
) -> tuple[list[int], dict[int, int]]:
    """`order` (the fused order across languages) with the word ranking's leader (`lead`,
    `word_leader`) among its
    first `shown` (the route's configured `top`), and {that row: its place in the fused
    order} when it was lower: the last place shown is given to it. A person offered the
    best few should see the skill the request's words match best, wherever the encoder
    put it; the first two, which the decision reads, never move (`shown` under 3 leaves
    the order as it is)."""
    if shown < 3 or lead is None or lead in order[:shown] or lead not in order:
        return order, {}
    place = order.index(lead) + 1
    return [*order[: shown - 1], lead, *(i for i in order[shown - 1 :] if i != lead)], {lead: place}
