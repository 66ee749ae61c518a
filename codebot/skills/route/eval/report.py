"""Evaluating the router on labelled requests (`codebot skills eval`, bench/route.py):
the report of a run over `cases.Case`s (hit@1, precision, recall, abstention, near
misses, latency, and how well the ranking alone does: recall@k and MRR).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from codebot.skills.route.eval.cases import KINDS, Case

if TYPE_CHECKING:
    from codebot.skills.route.result import Route

#: the k of recall@k; the deepest is how many candidates the ranking is read to (MRR too)
RANK_KS = (1, 3, 5, 10)


def _pct(values: Sequence[float], p: float) -> float:
    if not values:
        return 0.0
    v = sorted(values)
    k = (len(v) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def first_rank(
    ranked: Sequence[str], acceptable: Collection[str], depth: int = RANK_KS[-1]
) -> int | None:
    """The 1-based rank of the first acceptable key among the first `depth`, or None."""
    for r, key in enumerate(ranked[:depth], 1):
        if key in acceptable:
            return r
    return None


def ranking_summary(ranks: Sequence[int | None], ks: Sequence[int] = RANK_KS) -> dict[str, object]:
    """recall@k (share of ranks <= k) for each k, and the mean reciprocal rank (a rank
    past the deepest k, or none, counts 0), over the given positives' ranks."""
    if not ranks:
        return {"recall_at_k": {str(k): None for k in ks}, "mrr": None}
    n = len(ranks)
    return {
        "recall_at_k": {
            str(k): round(sum(1 for r in ranks if r is not None and r <= k) / n, 4) for k in ks
        },
        "mrr": round(sum(1.0 / r for r in ranks if r is not None and r <= ks[-1]) / n, 4),
    }


def _hit(r: Route, top: str | None, ok_names: frozenset[str]) -> bool:
    """Routed right: to an acceptable skill first (not abstaining) when one is expected,
    to `abstain` when none is."""
    if ok_names:
        return r.decision != "abstain" and top in ok_names
    return r.decision == "abstain"


def _row(case: Case, r: Route, hit: bool, rank: int | None) -> dict[str, object]:
    """One case's line in the report's `results`."""
    return {
        "line": case.line,
        "prompt": case.prompt,
        "kind": case.kind,
        "expected": case.expected,
        "decision": r.decision,
        "selected": r.selected.name if r.selected else None,
        "top": r.top.name if r.top else None,
        "score": round(r.top.score, 4) if r.top else 0.0,
        "options": [s.name for s in r.options],
        "ok": hit,
        "rank": rank,
    }


def _outcomes(r: Route, sel: str | None, ok_names: frozenset[str]) -> list[str]:
    """What a positive's route did for the person: selected a right skill (`recall`),
    showed one among its options (`offered`), or selected another (`chose_wrong`)."""
    out = []
    if r.decision == "select":
        out.append("recall" if sel in ok_names else "chose_wrong")
    if any(s.key in ok_names for s in r.options):
        out.append("offered")
    return out


def by_language(
    cases: Sequence[Case], results: Sequence[dict[str, object]]
) -> dict[str, dict[str, object]]:
    """hit@1, abstention on negatives and near-miss accuracy for each language the cases
    name (`lang`; "?" for a case without one)."""
    groups: dict[str, dict[str, list[bool]]] = {}
    for case, row in zip(cases, results, strict=True):
        g = groups.setdefault(case.lang or "?", {k: [] for k in KINDS})
        g[case.kind].append(bool(row["ok"]))

    def share(v: list[bool]) -> float | None:
        return round(sum(v) / len(v), 4) if v else None

    return {
        lang: {
            "counts": {k: len(v) for k, v in g.items()},
            "hit_at_1": share(g["positive"]),
            "abstain_rate_negatives": share(g["negative"]),
            "near_miss_accuracy": share(g["near_miss"]),
        }
        for lang, g in sorted(groups.items())
    }


def evaluate(
    cases: Sequence[Case],
    route_fn: Callable[[str], Route],
    repeat: int = 1,
    known: Collection[str] | None = None,
    rank_fn: Callable[[str], Route] | None = None,
) -> dict[str, object]:
    """Run every case `repeat` times and compute the report (see docs/routing.md).

    - hit_at_1: positives whose top-ranked eligible skill is acceptable and the router did
      not abstain (a `select`, or an `ask` that offers it first).
    - precision: of all `select` decisions, the share that chose an acceptable skill.
    - recall: positives for which an acceptable skill was selected outright.
    - offered: positives for which an acceptable skill is among what the person is offered
      (the `select`'s skill, or either of an `ask`'s two): what a person meets, where
      hit@1 counts only an ask's first.
    - chose_wrong: positives for which another skill was selected outright.
    - abstain_rate_negatives: negatives that got `abstain`.
    - near_miss_accuracy: near misses routed right: to an acceptable skill (first choice of
      a select/ask) when one is expected, to `abstain` when none is.
    - recall_at_k, mrr: the ranking alone, whatever the decision, over positives: the share
      whose first acceptable skill is among the first k candidates (k in RANK_KS), and
      the mean of 1 / its rank (0 when it is not in the first RANK_KS[-1]). The ranking is
      `rank_fn(prompt)`'s candidates when given (a route asked for RANK_KS[-1] of them,
      so the decision `route_fn` measures keeps the configured `top`), else `route_fn`'s.
    """
    from codebot.skills.files import normalize_name

    results: list[dict[str, object]] = []
    latencies: list[float] = []
    unstable = 0
    confusion: Counter[tuple[str, str]] = Counter()
    counts = {k: 0 for k in KINDS}
    hits = {k: 0 for k in KINDS}
    selects = correct_selects = abstain_neg = 0
    outcomes: Counter[str] = Counter()  # positives: recall, offered, chose_wrong
    by_decision = {k: Counter() for k in KINDS}
    unknown_names: set[str] = set()
    ranks: list[int | None] = []
    known_keys = {normalize_name(k) for k in known} if known is not None else None
    for case in cases:
        runs = [route_fn(case.prompt) for _ in range(max(1, repeat))]
        latencies.extend(r.latency_ms for r in runs)
        sigs = {
            (r.decision, r.selected.key if r.selected else None, r.top.spec.key if r.top else None)
            for r in runs
        }
        if len(sigs) > 1:
            unstable += 1
        r = runs[0]
        ok_names = case.acceptable()
        if known_keys is not None:
            unknown_names.update(n for n in ok_names if n not in known_keys)
        top = r.top.spec.key if r.top else None
        sel = r.selected.key if r.selected else None
        counts[case.kind] += 1
        by_decision[case.kind][r.decision] += 1
        hit = _hit(r, top, ok_names)
        if hit:
            hits[case.kind] += 1
        if r.decision == "select":
            selects += 1
            if sel in ok_names:
                correct_selects += 1
        if case.kind == "negative" and r.decision == "abstain":
            abstain_neg += 1
        rank = None
        if case.kind == "positive":
            outcomes.update(_outcomes(r, sel, ok_names))
            ranked = (rank_fn(case.prompt) if rank_fn is not None else r).candidates
            rank = first_rank([c.spec.key for c in ranked], ok_names)
            ranks.append(rank)
        if not hit:
            got = sel or (top if r.decision == "ask" else None) or "(abstain)"
            confusion[(case.expected or "(none)", got)] += 1
        results.append(_row(case, r, hit, rank))

    def rate(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "cases": len(cases),
        **({"by_language": by_language(cases, results)} if any(c.lang for c in cases) else {}),
        "counts": counts,
        "hit_at_1": rate(hits["positive"], counts["positive"]),
        "precision": rate(correct_selects, selects),
        **{k: rate(outcomes[k], counts["positive"]) for k in ("recall", "offered", "chose_wrong")},
        "abstain_rate_negatives": rate(abstain_neg, counts["negative"]),
        "near_miss_accuracy": rate(hits["near_miss"], counts["near_miss"]),
        **ranking_summary(ranks),
        "decisions": {k: dict(v) for k, v in by_decision.items()},
        "confusion": [
            {"expected": e, "got": g, "count": c} for (e, g), c in confusion.most_common()
        ],
        "repeat": max(1, repeat),
        "stability": rate(len(cases) - unstable, len(cases)),
        "latency_ms": {
            "p50": round(_pct(latencies, 0.5), 3),
            "p95": round(_pct(latencies, 0.95), 3),
            "max": round(max(latencies, default=0.0), 3),
        },
        "unknown_names": sorted(unknown_names),
        "results": results,
    }
