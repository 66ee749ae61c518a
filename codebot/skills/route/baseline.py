"""The yardstick the router is measured against: plain BM25 over name + description.

`bm25s` with its default tokenizer and English stop words, one document per skill
(the name with `-`/`_` as spaces, then the description), top-1, never abstains unless no
word of the request is in the vocabulary. `skills eval --baseline` and bench/route.py run
it on the same cases in the same process, so "how much better than BM25" is measured,
not remembered.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from codebot.skills.files import Spec
from codebot.skills.invoke import Actor
from codebot.skills.route.result import Candidate, Route


class Bm25Baseline:
    def __init__(self, specs: Sequence[Spec]) -> None:
        import bm25s

        self._bm25s = bm25s
        self.specs = list(specs)
        texts = [f"{s.name.replace('-', ' ').replace('_', ' ')} {s.description}" for s in self.specs]
        self._retriever = bm25s.BM25()
        self._retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)

    def top(self, query: str) -> Spec | None:
        if not self.specs:
            return None
        tokens = self._bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
        tokens = [t for t in tokens if t in self._retriever.vocab_dict]
        if not tokens:
            return None
        scores = self._retriever.get_scores(tokens)
        return self.specs[int(scores.argmax())] if scores.max() > 0 else None

    def route(self, query: str) -> Route:
        """The baseline's answer in the router's shape, so `evaluate` can score it."""
        t0 = time.perf_counter()
        spec = self.top(query)
        cands = (Candidate(spec, 1.0, 1.0, {}),) if spec is not None else ()
        decision = "select" if spec is not None else "abstain"
        return Route(query, decision, spec, cands, (), "plain BM25 top-1", (), "task", 0.0, 0.0,
                     (time.perf_counter() - t0) * 1000, Actor.MODEL)  # fmt: skip


def baseline_summary(report: dict[str, Any]) -> dict[str, Any]:
    """The headline numbers of an `evaluate` report of the baseline."""
    keys = ("hit_at_1", "precision", "recall", "abstain_rate_negatives", "near_miss_accuracy", "latency_ms")
    return {k: report[k] for k in keys}
