"""Stage 5: the router (`skills route`, `SkillSearch`, the offline model) and how it is
measured. This module's lazy `_EXPORTS` are the one public surface of the stage: code
outside `codebot/skills/route` imports from here (tests of one inner module may import
that module).

- `pipeline` (the `Router`: how one request is routed), `router` (the shared router and
  the module-level API), `config` (every number), `result` (what a route returns), and
  the ranking: `shape` (negative clauses, request shapes), `weights` (what each request
  word counts), `eligible` (who may be ranked), `rank` (the order), `decide` (select, ask
  or abstain), `semantic` (the optional embedding scorer), `translate` (a request's
  words read as the catalog's English words through the multilingual encoder), `fused`
  (a big folder's look-alikes giving way in the fused ranking), and for their time `ahead`
  (the semantic scores on a worker thread), `similarities` (the scores as one array);
  `warmup` (the shared router
  made ready before it is needed);
- `index/`: words to terms, token rows, BM25 postings and the `Index`, its caches in
  memory and on disk (`store`), and bodies tokenized in a helper process (`prefetch`);
- `eval/`: labelled cases, the `skills eval` report and the plain BM25 baseline.

Inside the stage: `config` and `shape` import nothing of it; `index/` imports only them;
the ranking and `pipeline` import `index/`; `router` imports `pipeline`; `warmup` imports
both; `eval/` imports only `result`, and nothing else here imports `eval/` (the router
least of all).
May import: `skills.files` through `skills.invoke`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.skills.route.config import (
        Bm25,
        Decision,
        Rerank,
        RouterConfig,
        config_from_mapping,
        config_from_settings,
        numbers,
    )
    from codebot.skills.route.eval.baseline import Bm25Baseline, baseline_summary
    from codebot.skills.route.eval.cases import KINDS, Case, parse_cases
    from codebot.skills.route.eval.report import RANK_KS, evaluate, first_rank, ranking_summary
    from codebot.skills.route.index.store import IndexStore
    from codebot.skills.route.index.text import Tokenizer
    from codebot.skills.route.pipeline import Router
    from codebot.skills.route.result import Candidate, Filtered, Route, SemanticScorer
    from codebot.skills.route.router import (
        default_router,
        offline_matcher,
        preselect,
        route,
        router_from_settings,
        search,
    )
    from codebot.skills.route.semantic import EmbeddingScorer
    from codebot.skills.route.shape import (
        EDGE_CHARS,
        destination,
        edges,
        left_behind,
        request_shape,
        split_negative,
        written_as_names,
    )
    from codebot.skills.route.warmup import prefetch_bodies, update, warm, warm_in_background


_EXPORTS = {
    "Bm25Baseline": "eval.baseline",
    "Candidate": "result",
    "Case": "eval.cases",
    "Bm25": "config",
    "Decision": "config",
    "Rerank": "config",
    "numbers": "config",
    "EDGE_CHARS": "shape",
    "EmbeddingScorer": "semantic",
    "Filtered": "result",
    "IndexStore": "index.store",
    "KINDS": "eval.cases",
    "RANK_KS": "eval.report",
    "Route": "result",
    "Router": "pipeline",
    "RouterConfig": "config",
    "SemanticScorer": "result",
    "Tokenizer": "index.text",
    "baseline_summary": "eval.baseline",
    "config_from_mapping": "config",
    "config_from_settings": "config",
    "default_router": "router",
    "destination": "shape",
    "edges": "shape",
    "evaluate": "eval.report",
    "first_rank": "eval.report",
    "left_behind": "shape",
    "offline_matcher": "router",
    "parse_cases": "eval.cases",
    "prefetch_bodies": "warmup",
    "preselect": "router",
    "ranking_summary": "eval.report",
    "request_shape": "shape",
    "route": "router",
    "router_from_settings": "router",
    "search": "router",
    "split_negative": "shape",
    "update": "warmup",
    "warm": "warmup",
    "warm_in_background": "warmup",
    "written_as_names": "shape",
}
__all__ = [
    "EDGE_CHARS",
    "KINDS",
    "RANK_KS",
    "Bm25",
    "Bm25Baseline",
    "Candidate",
    "Case",
    "Decision",
    "EmbeddingScorer",
    "Filtered",
    "IndexStore",
    "Rerank",
    "Route",
    "Router",
    "RouterConfig",
    "SemanticScorer",
    "Tokenizer",
    "baseline_summary",
    "config_from_mapping",
    "config_from_settings",
    "default_router",
    "destination",
    "edges",
    "evaluate",
    "first_rank",
    "left_behind",
    "numbers",
    "offline_matcher",
    "parse_cases",
    "prefetch_bodies",
    "preselect",
    "ranking_summary",
    "request_shape",
    "route",
    "router_from_settings",
    "search",
    "split_negative",
    "update",
    "warm",
    "warm_in_background",
    "written_as_names",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
