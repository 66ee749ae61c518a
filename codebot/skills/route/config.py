"""Router configuration: the router's numbers, grouped by concern, and reading them from config.

Each group is a small frozen dataclass whose field defaults are the only place a number
lives; docs/routing.md ("Numbers") gives each one's reason and measured effect, and
tests/skills/route/test_route_numbers.py holds the two to the same set. `config_from_mapping`
reads `skills.router: {...}` (each number by its field name, flat or inside its group's
mapping: `threshold: 0.3` or `decision: {threshold: 0.3}`), reporting and skipping values
that are not valid and the settings removed by issue 36 §3.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

FIELDS = ("name", "description", "when_to_use", "body")

# Fixed in code, not settings (docs/routing.md, "The router's numbers"): published
# constants nobody tuned, cost bounds, and a depth another part owns.
K1 = 1.2  # BM25's term-frequency saturation (Lucene's default)
B = 0.75  # BM25's length normalisation (Lucene's default)
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009)
#: across languages, a word ranking's leader scoring this many times the words of the
#: skill the fusion put first takes first place (when the request names it in its own
#: words): ranks alone would throw that lead away ("twice": a round number, not tuned;
#: docs/routing.md, "Embedding fusion")
CLEAR_LEAD = 2.0
#: a short request in another language this alike (the multilingual encoder's cosine) to
#: a message of `chat_examples` is small talk: no task of the case files comes above 0.48,
#: so a round number well clear of them (docs/routing.md, "Small talk by meaning")
CHAT_SIMILAR = 0.6
BODY_CHARS = 5000  # how much of a body is read: bounds the index's build time and size
#: the depth of an over-budget listing (the agent lists this many routed skills, best
#: first), which the second stage reorders so SkillSearch's five are the listing's first five
LISTING_DEPTH = 40


@dataclass(frozen=True, slots=True)
class Bm25:
    """What a word's match in a skill scores (the index depends on these)."""

    body_weight: float = 0.4  # a body match, against 1 for the name, description, when_to_use
    field_mix: float = 0.5  # a word in several fields: best field + this share of the others

    # the fixed constants, read where the index reads its numbers
    @property
    def k1(self) -> float:
        return K1

    @property
    def b(self) -> float:
        return B

    @property
    def body_chars(self) -> int:
        return BODY_CHARS


@dataclass(frozen=True, slots=True)
class Decision:
    """Select, ask or abstain (docs/routing.md, "Numbers")."""

    threshold: float = 0.3  # normalised score the best skill must reach
    margin: float = 0.05  # its lead over the runner-up to select without asking
    min_terms: int = 2  # request words it must match outside its body
    min_evidence: float = 0.6  # ... and their worth together (idf over the rarest word's)
    corroboration: int = 3  # ... or one such word and this many more in its body (0: off)
    rare_worth: float = 0.8  # a word this rare (0..1) can name the tool alone / count as a name
    name_case_weight: float = 2.0  # a rare word written as a name counts this many times
    oov_weight: float = 0.5  # a word no skill uses weighs this much of the rarest word
    small_catalog: int = 30  # up to this many eligible skills, one word of a name is enough
    # across languages: a cosine similarity that vouches for the best skill on its own (the
    # multilingual encoder; an English similarity never decides)
    semantic_threshold: float = 0.6


@dataclass(frozen=True, slots=True)
class Rerank:
    """The order after the decision's pick: score x coverage, big folders' look-alikes
    giving way."""

    # reorder the first LISTING_DEPTH by score x coverage, or this share of a large catalog
    rerank_share: float = 0.01
    folder_cap: int = 600  # word statistics count a folder as at most this many skills
    crowd_decay: float = 0.5  # the j-th look-alike of a folder over the cap counts decay**j
    # a switch, not a number: False keeps the first stage's order (for comparisons)
    second_stage: bool = True

    @property
    def rerank_depth(self) -> int:
        return LISTING_DEPTH


#: the groups of numbers, by the name `RouterConfig` holds each under
GROUPS: Mapping[str, type[Bm25 | Decision | Rerank]] = {
    "bm25": Bm25,
    "decision": Decision,
    "rerank": Rerank,
}
#: a group whose numbers issue 36 §3 removed: its keys are reported as removed. The
#: embedding stage ranks and never decides alone: an English similarity is not evidence,
#: and across languages the evidence is the two rankings agreeing, which needs no number.
_OLD_GROUPS = ("embedding",)


@dataclass(frozen=True, slots=True)
class RouterConfig:
    bm25: Bm25 = field(default_factory=Bm25)
    decision: Decision = field(default_factory=Decision)
    rerank: Rerank = field(default_factory=Rerank)
    top: int = 5  # candidates a route returns (an output size, not a tuned number)
    # English stemming of skills and requests: "auto" and "builtin" are the built-in suffix
    # stemmer (the same terms whatever is installed), "snowball" PyStemmer's English, "none"
    stemmer: str = "auto"
    # a local sentence-embedding model fused with the lexical ranking: a folder or a package
    # that ships one (see semantic); "" is off
    semantic: str = ""
    # how the two rankings are fused: "sum" (lexical score + cosine) or "rrf" (rrf_k)
    fusion: str = "sum"

    @property
    def weights(self) -> Mapping[str, float]:
        """Each field's weight: 1, but the body's `bm25.body_weight`."""
        return {"name": 1.0, "description": 1.0, "when_to_use": 1.0, "body": self.bm25.body_weight}

    @property
    def index_key(self) -> tuple[object, ...]:
        """What the index depends on (the decision numbers do not need a rebuild)."""
        return (dataclasses.astuple(self.bm25), K1, B, BODY_CHARS, self.stemmer)


def numbers(cfg: RouterConfig | None = None) -> dict[str, float | int]:
    """Every number of `cfg` (the defaults) by its setting name: what docs/routing.md lists
    (switches are not numbers)."""
    cfg = cfg or RouterConfig()
    return {
        k: v
        for g in GROUPS
        for k, v in dataclasses.asdict(getattr(cfg, g)).items()
        if not isinstance(v, bool)
    }


#: setting name -> its group
_GROUP_OF = {f.name: g for g, cls in GROUPS.items() for f in dataclasses.fields(cls)}
_CHOICES: Mapping[str, tuple[str, ...]] = {
    "stemmer": ("auto", "builtin", "snowball", "none"),
    "fusion": ("sum", "rrf"),
}
#: settings renamed: old name -> new name
_RENAMED = {"anchor_worth": "rare_worth", "name_case_worth": "rare_worth"}
#: settings removed by issue 36 §3 (set to their neutral value, which did not make the
#: held-out sets worse): old name -> what the router does now
_REMOVED = {
    "duplicate_similarity": "a near-tie always asks",
    "negative_penalty": "a word a skill rules out costs its own worth",
    "howto_penalty": "how-to questions are scored as tasks (they still need min_terms)",
    "anchor_lead": "an anchored skill needs only to rank first",
    "small_catalog_factor": "a small catalog keeps the threshold",
    "left_behind_weight": "every request word counts once",
    "destination_weight": "every request word counts once (a destination still anchors)",
    "rerank_max": "rerank_share is not capped",
    "semantic_weight": "fusion sum adds the cosine once",
    "question_penalty": "a concept question is answered, not routed",
    "coverage_power": "the second stage orders by score x coverage; second_stage: false is off",
    "rerank_depth": "the second stage reorders the listing's depth, 40",
    "k1": "BM25's k1 is Lucene's 1.2",
    "b": "BM25's b is Lucene's 0.75",
    "rrf_k": "reciprocal rank fusion's k is the published 60",
    "body_chars": "the first 5,000 characters of a body are read",
    "semantic_chunks": "four texts per skill are embedded",
    "semantic_agree": (
        "an English similarity never decides; across languages, the best lexical match "
        "that is also the most similar candidate needs one strong word, at any similarity"
    ),
}
_FLOAT_0_1 = ("rare_worth", "crowd_decay", "rerank_share")  # semantic_threshold may be > 1: off


def config_from_mapping(
    raw: Mapping[str, object] | None, warnings: list[str] | None = None
) -> RouterConfig:
    """Build a config from `skills.router` (values that are not valid are reported and skipped)."""
    warn = warnings if warnings is not None else []
    top: dict[str, object] = {}  # RouterConfig's own settings
    groups: dict[str, dict[str, float | int | bool]] = {g: {} for g in GROUPS}
    for key, value in (raw or {}).items():
        key = str(key)
        if key in (*GROUPS, *_OLD_GROUPS) and isinstance(value, Mapping):
            for k, v in value.items():
                _put(str(k), v, groups, top, warn, f"{key}.")
        else:
            _put(key, value, groups, top, warn, "")
    made = {g: dataclasses.replace(GROUPS[g](), **groups[g]) for g in GROUPS}
    return dataclasses.replace(RouterConfig(), **made, **top)


def _put(
    key: str,
    value: object,
    groups: dict[str, dict[str, float | int | bool]],
    top: dict[str, object],
    warn: list[str],
    within: str,
) -> None:
    """Check one setting and put it where `RouterConfig` holds it (or report it)."""
    name = f"config skills.router.{within}{key}"
    if key in _REMOVED:
        warn.append(f"{name}: removed ({_REMOVED[key]}; docs/routing.md, Numbers); ignoring it")
        return
    if key == "weights":
        _weights(value, groups, warn)
        return
    key = _RENAMED.get(key, key)
    if key in _CHOICES:
        if value in _CHOICES[key]:
            top[key] = value
        else:
            warn.append(f"{name}: {value!r} is not {' or '.join(_CHOICES[key])}")
        return
    if key in ("semantic", "top"):
        _top(name, key, value, top, warn)
        return
    group = _GROUP_OF.get(key)
    if group is None:
        warn.append(f"{name}: unknown setting; ignoring it")
        return
    default = getattr(GROUPS[group](), key)
    if isinstance(default, bool):  # a switch
        if isinstance(value, bool):
            groups[group][key] = value
        else:
            warn.append(f"{name}: {value!r} is not true or false; using {str(default).lower()}")
        return
    got = _number(name, value, default)
    if not isinstance(got, str) and key in _FLOAT_0_1 and got > 1:
        got = f"{name}: {value!r} is over 1; give 0..1; using {default}"
    if isinstance(got, str):
        warn.append(got)
    else:
        groups[group][key] = got


def _top(name: str, key: str, value: object, top: dict[str, object], warn: list[str]) -> None:
    """`semantic` (a model's folder or package) or `top` (a whole number)."""
    if key == "semantic":
        if isinstance(value, str) or value is None:
            top[key] = value or ""
        else:
            warn.append(f"{name}: {value!r} is not a model folder or package name")
        return
    got = _number(name, value, 5)
    if isinstance(got, str):
        warn.append(got)
    else:
        top[key] = int(got)


def _number(name: str, value: object, default: float | int) -> float | int | str:
    """A non-negative number of `default`'s type, or the warning (a str) naming the key."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        if value == float("inf"):
            return f"{name}: {value!r} is not a finite number; using {default}"
        if isinstance(default, int) and value != int(value):
            return f"{name}: {value!r} is not a whole number; using {default}"
        return float(value) if isinstance(default, float) else int(value)
    return f"{name}: {value!r} is not a non-negative number; using {default}"


def _weights(
    value: object, groups: dict[str, dict[str, float | int | bool]], warn: list[str]
) -> None:
    """The old `skills.router.weights`: only `body` is still a number (`bm25.body_weight`)."""
    if not isinstance(value, Mapping):
        warn.append("config skills.router.weights: must be a mapping of field: number")
        return
    for f, w in value.items():
        name = f"config skills.router.weights.{f}"
        if f == "body":
            got = _number(name, w, Bm25().body_weight)
            if isinstance(got, str):
                warn.append(got)
            else:
                groups["bm25"]["body_weight"] = got
        elif f in FIELDS:
            warn.append(
                f"{name}: removed (every field but the body weighs 1; set bm25.body_weight; "
                "docs/routing.md, Numbers); ignoring it"
            )
        else:
            warn.append(f"{name}: not a field ({', '.join(FIELDS)}); ignoring it")


def config_from_settings(settings: object, warnings: list[str] | None = None) -> RouterConfig:
    raw = getattr(settings, "raw", None) or {}
    skills = raw.get("skills")
    skills = skills if isinstance(skills, Mapping) else {}
    router = skills.get("router")
    router = router if isinstance(router, Mapping) else {}
    return config_from_mapping(router, warnings)
