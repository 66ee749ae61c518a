"""Router configuration: every tunable number of the router, and reading it from config.

`DEFAULTS` is the only place the numbers live; `RouterConfig` carries them and
`config_from_settings` reads `skills.router: {...}`, reporting (and skipping) values that
are not valid.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict


class RouterDefaults(TypedDict):
    """The type of each default in `DEFAULTS` (as `RouterConfig` holds it)."""

    threshold: float
    margin: float
    duplicate_similarity: float
    weights: Mapping[str, float]
    field_mix: float
    negative_penalty: float
    question_penalty: float
    howto_penalty: float
    min_terms: int
    min_evidence: float
    corroboration: int
    anchor_worth: float
    anchor_lead: float
    small_catalog: int
    small_catalog_factor: float
    name_case_weight: float
    name_case_worth: float
    left_behind_weight: float
    destination_weight: float
    coverage_power: float
    rerank_depth: int
    rerank_share: float
    rerank_max: int
    folder_cap: int
    crowd_decay: float
    oov_weight: float
    k1: float
    b: float
    body_chars: int
    top: int
    rrf_k: int
    stemmer: str
    semantic: str
    semantic_threshold: float
    fusion: str
    semantic_weight: float
    semantic_chunks: int
    semantic_agree: float


#: Defaults for `skills.router` in config. `threshold` and `margin` were calibrated on
#: tests/data/routing_dev.jsonl over the shared corpus (see docs/routing.md).
DEFAULTS: RouterDefaults = {
    "threshold": 0.3,  # normalised score the best skill must reach to be chosen at all
    "margin": 0.05,  # how far it must lead the runner-up to be chosen without asking
    # two descriptions this alike (Jaccard of their stemmed words) are one workflow published
    # twice: a near-tie between them is settled by rank instead of asking
    "duplicate_similarity": 0.6,
    "weights": {"name": 2.0, "description": 1.0, "when_to_use": 1.0, "body": 0.4},
    "field_mix": 0.5,  # a word matched in several fields: best field + this share of the others
    # a word found only in a "Not for …" clause costs this much (x its worth)
    "negative_penalty": 1.0,
    "question_penalty": 0.1,  # score multiplier for concept questions ("what is …", "why …")
    "howto_penalty": 0.2,  # score multiplier for how-to questions ("how do I …?")
    "min_terms": 2,  # request words the chosen skill must match outside its body
    # ... and what those words must be worth together, each counted as its idf over the
    # rarest word's (0..1): common words ("data", "run", "test") add up slowly
    "min_evidence": 0.6,
    # ... or one such word when the body matches this many more request words (0: off)
    "corroboration": 3,
    # ... or one word this rare (its worth, 0..1) in the skill's name when the skill scores
    # `anchor_lead` times the runner-up: "add a PayPal button" is for paypal-integration (0: off)
    "anchor_worth": 0.8,
    "anchor_lead": 1.5,
    # With this many eligible skills or fewer, one word of a skill's name is enough
    # evidence: the min_terms guard exists for big catalogs full of one-word near misses,
    # and would otherwise stop "review app.py" from reaching the bundled `review`.
    "small_catalog": 30,
    "small_catalog_factor": 0.5,  # ... and its threshold is scaled by this
    # a request word written as a name (`NVDA`, `VoiceOver`, `Kafka` in mid-sentence) and
    # rare in the catalog (worth at least name_case_worth, 0..1) counts this many times (1: off)
    "name_case_weight": 2.0,
    "name_case_worth": 0.8,
    # a request word only found in what the request moves away from ("move us off pip onto
    # uv": pip) counts this much (1: off)
    "left_behind_weight": 0.5,
    # ... and one found where it moves things ("onto uv", "into airflow") this much (1: off)
    "destination_weight": 1.5,
    # The ranking after the decision's pick (its two, when it asks): the first rerank_depth
    # (as many as an over-budget listing ranks for a turn) by score x
    # coverage**coverage_power, coverage being the share of the request words' worth a
    # skill matches (0: off). Measured in docs/routing.md: recall@5 up on the held-out and
    # paraphrase sets, the decision unchanged.
    "coverage_power": 1.0,
    "rerank_depth": 40,
    # ... or, in a large catalog, this share of its skills (at most rerank_max): there the
    # first stage's 40 are crowded with one-word matches and the right skill is often just
    # below them (docs/routing.md: the listing's recall@40 up at 9,000-11,000 skills)
    "rerank_share": 0.01,
    "rerank_max": 150,
    # ... with word statistics that count each folder of skills as at most this many
    # (0: the plain idf), so one big pack's vocabulary does not weigh down everyone else's.
    # Above the largest published pack of the shared corpus (555 skills), so packs people
    # publish count as they are; a folder over it is machine-made or an aggregate
    "folder_cap": 600,
    # ... and in such a folder, a skill matching the same request words as j of its folder
    # shown above it counts crowd_decay**j (1: off), so hundreds of variations of one skill
    # do not fill the ranking (rank.second_stage; docs/routing.md)
    "crowd_decay": 0.5,
    "oov_weight": 0.5,  # a word no skill uses weighs this much of the rarest word in the bound
    "k1": 1.2,
    "b": 0.75,
    "body_chars": 5000,
    "top": 5,
    "rrf_k": 60,
    # English stemming of skills and requests: "auto" and "builtin" are the built-in suffix
    # stemmer (the same terms whatever is installed), "snowball" PyStemmer's English, "none"
    "stemmer": "auto",
    # a local sentence-embedding model fused with the lexical ranking: a folder or a package
    # that ships one (see semantic); "" is off
    "semantic": "",
    "semantic_threshold": 0.6,  # a cosine similarity that selects on its own (with `semantic`)
    # how the two rankings are fused: "sum" ranks by lexical score + semantic_weight x cosine;
    # "rrf" by reciprocal rank fusion (rrf_k). "sum" was measured better on all three case files
    "fusion": "sum",
    "semantic_weight": 1.0,
    "semantic_chunks": 4,  # texts embedded per skill: the description, then pieces of the body
    # with `semantic`: when the best lexical match is also the most similar candidate (and at
    # least this similar), one strong word is evidence enough (0: off)
    "semantic_agree": 0.35,
}

FIELDS = ("name", "description", "when_to_use", "body")
#: the defaults looked up by a setting name read from config
_BY_NAME: Mapping[str, object] = DEFAULTS


@dataclass(frozen=True, slots=True)
class RouterConfig:
    threshold: float = DEFAULTS["threshold"]
    margin: float = DEFAULTS["margin"]
    duplicate_similarity: float = DEFAULTS["duplicate_similarity"]
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULTS["weights"]))
    field_mix: float = DEFAULTS["field_mix"]
    negative_penalty: float = DEFAULTS["negative_penalty"]
    question_penalty: float = DEFAULTS["question_penalty"]
    howto_penalty: float = DEFAULTS["howto_penalty"]
    min_terms: int = DEFAULTS["min_terms"]
    min_evidence: float = DEFAULTS["min_evidence"]
    corroboration: int = DEFAULTS["corroboration"]
    anchor_worth: float = DEFAULTS["anchor_worth"]
    anchor_lead: float = DEFAULTS["anchor_lead"]
    small_catalog: int = DEFAULTS["small_catalog"]
    small_catalog_factor: float = DEFAULTS["small_catalog_factor"]
    name_case_weight: float = DEFAULTS["name_case_weight"]
    name_case_worth: float = DEFAULTS["name_case_worth"]
    left_behind_weight: float = DEFAULTS["left_behind_weight"]
    destination_weight: float = DEFAULTS["destination_weight"]
    coverage_power: float = DEFAULTS["coverage_power"]
    rerank_depth: int = DEFAULTS["rerank_depth"]
    rerank_share: float = DEFAULTS["rerank_share"]
    rerank_max: int = DEFAULTS["rerank_max"]
    folder_cap: int = DEFAULTS["folder_cap"]
    crowd_decay: float = DEFAULTS["crowd_decay"]
    oov_weight: float = DEFAULTS["oov_weight"]
    k1: float = DEFAULTS["k1"]
    b: float = DEFAULTS["b"]
    body_chars: int = DEFAULTS["body_chars"]
    top: int = DEFAULTS["top"]
    rrf_k: int = DEFAULTS["rrf_k"]
    stemmer: str = DEFAULTS["stemmer"]
    semantic: str = DEFAULTS["semantic"]
    semantic_threshold: float = DEFAULTS["semantic_threshold"]
    fusion: str = DEFAULTS["fusion"]
    semantic_weight: float = DEFAULTS["semantic_weight"]
    semantic_chunks: int = DEFAULTS["semantic_chunks"]
    semantic_agree: float = DEFAULTS["semantic_agree"]

    @property
    def index_key(self) -> tuple[object, ...]:
        """What the index depends on (the decision numbers do not need a rebuild)."""
        return (
            tuple(sorted(self.weights.items())),
            self.k1,
            self.b,
            self.body_chars,
            self.stemmer,
            self.field_mix,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "threshold": self.threshold,
            "margin": self.margin,
            "duplicate_similarity": self.duplicate_similarity,
            "weights": dict(self.weights),
            "field_mix": self.field_mix,
            "negative_penalty": self.negative_penalty,
            "question_penalty": self.question_penalty,
            "howto_penalty": self.howto_penalty,
            "min_terms": self.min_terms,
            "min_evidence": self.min_evidence,
            "corroboration": self.corroboration,
            "anchor_worth": self.anchor_worth,
            "anchor_lead": self.anchor_lead,
            "small_catalog": self.small_catalog,
            "small_catalog_factor": self.small_catalog_factor,
            "name_case_weight": self.name_case_weight,
            "name_case_worth": self.name_case_worth,
            "left_behind_weight": self.left_behind_weight,
            "destination_weight": self.destination_weight,
            "coverage_power": self.coverage_power,
            "rerank_depth": self.rerank_depth,
            "rerank_share": self.rerank_share,
            "rerank_max": self.rerank_max,
            "folder_cap": self.folder_cap,
            "crowd_decay": self.crowd_decay,
            "oov_weight": self.oov_weight,
            "k1": self.k1,
            "b": self.b,
            "body_chars": self.body_chars,
            "top": self.top,
            "rrf_k": self.rrf_k,
            "stemmer": self.stemmer,
            "semantic": self.semantic,
            "semantic_threshold": self.semantic_threshold,
            "fusion": self.fusion,
            "semantic_weight": self.semantic_weight,
            "semantic_chunks": self.semantic_chunks,
            "semantic_agree": self.semantic_agree,
        }


def config_from_mapping(
    raw: Mapping[str, object] | None, warnings: list[str] | None = None
) -> RouterConfig:
    """Build a config from `skills.router` (values that are not valid are reported and skipped)."""
    # keyword arguments for RouterConfig, each value checked against its setting's type
    out: dict[str, Any] = {}
    warn = warnings if warnings is not None else []
    for key, value in (raw or {}).items():
        if key not in DEFAULTS:
            warn.append(f"config skills.router.{key}: unknown setting; ignoring it")
            continue
        got = _setting(key, value, _BY_NAME[key], warn)
        if got is not _INVALID:
            out[key] = got
    return RouterConfig(**out)


#: what `_setting` returns for a value it reported and skipped
_INVALID = object()


def _setting(key: str, value: object, default: object, warn: list[str]) -> object:
    """`value` of setting `key` as a `RouterConfig` holds it, or `_INVALID` (reported)."""
    if key == "weights":
        return _weights(value, DEFAULTS["weights"], warn)
    if key == "semantic":
        if isinstance(value, str) or value is None:
            return value or ""
        warn.append(
            f"config skills.router.semantic: {value!r} is not a model folder or package name"
        )
        return _INVALID
    if key == "fusion":
        if value in ("sum", "rrf"):
            return value
        warn.append(f"config skills.router.fusion: {value!r} is not sum or rrf")
        return _INVALID
    if key == "stemmer":
        if value in ("auto", "builtin", "snowball", "none"):
            return value
        warn.append(
            f"config skills.router.stemmer: {value!r} is not auto, builtin, snowball or none"
        )
        return _INVALID
    return _number(key, value, default, warn)


def _weights(value: object, default: Mapping[str, float], warn: list[str]) -> object:
    """`skills.router.weights`: the defaults with each valid field's number in its place."""
    if not isinstance(value, Mapping):
        warn.append("config skills.router.weights: must be a mapping of field: number")
        return _INVALID
    weights: dict[str, float] = dict(default)
    for f, w in value.items():
        if f in FIELDS and isinstance(w, int | float) and not isinstance(w, bool) and w >= 0:
            weights[f] = float(w)
        else:
            warn.append(
                f"config skills.router.weights.{f}: {w!r} is not a field ({', '.join(FIELDS)}) "
                "with a non-negative number"
            )
    return weights


def _number(key: str, value: object, default: object, warn: list[str]) -> object:
    """A numeric setting: a non-negative number of its default's type (`crowd_decay`: 0..1)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        if key == "crowd_decay" and value > 1:
            warn.append(
                f"config skills.router.crowd_decay: {value!r} is over 1 (it would lift "
                "look-alikes); "
                f"give 0..1 (1: off); using {default}"
            )
            return _INVALID
        return float(value) if isinstance(default, float) else int(value)
    warn.append(
        f"config skills.router.{key}: {value!r} is not a non-negative number; using {default}"
    )
    return _INVALID


def config_from_settings(settings: object, warnings: list[str] | None = None) -> RouterConfig:
    raw = getattr(settings, "raw", None) or {}
    skills = raw.get("skills")
    skills = skills if isinstance(skills, Mapping) else {}
    router = skills.get("router")
    router = router if isinstance(router, Mapping) else {}
    return config_from_mapping(router, warnings)
