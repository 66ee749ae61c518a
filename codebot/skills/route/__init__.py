"""Stage 5: the router (`skills route`, `SkillSearch`, the offline model), its BM25
index, its caches in memory and on disk (`store`), warming it before it is needed
(`warmup`), the optional semantic scorer, and the evaluation harness.

May import: `skills.files` through `skills.invoke`.
"""

from codebot._exports import lazy_exports

_EXPORTS = {
    "Bm25Baseline": "baseline",
    "EDGE_CHARS": "shape",
    "EmbeddingScorer": "semantic",
    "IndexStore": "store",
    "Tokenizer": "text",
    "baseline_summary": "baseline",
    "destination": "shape",
    "edges": "shape",
    "evaluate": "eval",
    "left_behind": "shape",
    "parse_cases": "eval",
    "prefetch_bodies": "warmup",
    "preselect": "router",
    "router_from_settings": "router",
    "update": "warmup",
    "warm": "warmup",
    "warm_in_background": "warmup",
    "written_as_names": "shape",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
