"""The yardstick the router is measured against: plain BM25 over name + description.

`bm25s` with its default tokenizer and English stop words, one document per skill
(the name with `-`/`_` as spaces, then the description), top-1, never abstains unless no
word of the request is in the vocabulary. Its route lists its first `RANK_DEPTH` skills as
candidates, so its recall@k and MRR are measured like the router's. `skills eval --baseline`
and bench/route.py run it on the same cases in the same process, so "how much better than
BM25" is measured, not remembered.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import cast

from codebot.skills.files import Spec
from codebot.skills.invoke import Actor
from codebot.skills.route.eval.report import RANK_KS
from codebot.skills.route.result import Candidate, Route

RANK_DEPTH = RANK_KS[-1]


class Bm25Baseline:
    def __init__(self, specs: Sequence[Spec]) -> None:
        import bm25s

        self._bm25s = bm25s
        self.specs = list(specs)
        texts = [
            f"{s.name.replace('-', ' ').replace('_', ' ')} {s.description}" for s in self.specs
        ]
        self._retriever = bm25s.BM25()
        self._retriever.index(
            bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False
        )

    def ranked(self, query: str, k: int = RANK_DEPTH) -> list[tuple[Spec, float]]:
        """The first `k` skills that score above 0, best first (ties: catalog order)."""
        import numpy as np

        if not self.specs:
            return []
        tokens = self._bm25s.tokenize(
            [query], stopwords="en", show_progress=False, return_ids=False
        )[0]
        tokens = [t for t in tokens if t in self._retriever.vocab_dict]
        if not tokens:
            return []
        scores = self._retriever.get_scores(cast("list[str]", tokens))
        order = np.argsort(-scores, kind="stable")[:k]
        return [(self.specs[int(i)], float(scores[i])) for i in order if scores[i] > 0]

    def top(self, query: str) -> Spec | None:
        got = self.ranked(query, 1)
        return got[0][0] if got else None

    def route(self, query: str) -> Route:
        """The baseline's answer in the router's shape, so `evaluate` can score it."""
        t0 = time.perf_counter()
        ranked = self.ranked(query)
        spec = ranked[0][0] if ranked else None
        cands = tuple(Candidate(s, v, v, {}) for s, v in ranked)
        decision = "select" if spec is not None else "abstain"
        return Route(
            query,
            decision,
            spec,
            cands,
            (),
            "plain BM25 top-1",
            (),
            "task",
            0.0,
            0.0,
            (time.perf_counter() - t0) * 1000,
            Actor.MODEL,
        )


def baseline_summary(report: dict[str, object]) -> dict[str, object]:
    """The headline numbers of an `evaluate` report of the baseline."""
    keys = (
        "hit_at_1",
        "precision",
        "recall",
        "abstain_rate_negatives",
        "near_miss_accuracy",
        "recall_at_k",
        "mrr",
        "latency_ms",
    )
    return {k: report[k] for k in keys}
