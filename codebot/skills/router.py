"""The skill router: which skill (if any) a request is for, and why.

One router serves `codebot skills route`, `codebot skills eval`, the `SkillSearch` tool,
the offline model's matcher and the optional per-turn preselection:

1. **Eligibility first.** Only skills the actor may invoke (`policy.decide`) are ranked;
   the others are reported under `filtered` with the rule that removed them, so a blocked
   skill can never hide an eligible one.
2. **Lexical scores** from `bm25s` over four fields weighted separately: the name (split on
   `-`, `_`, `:`), the description, `when_to_use` and a body excerpt. Text is case-folded,
   stop words are dropped, words are stemmed (PyStemmer when installed, else a small suffix
   stemmer) and identifiers such as `k8s`, `pytest` or `c++` are kept intact.
3. **Negative boundaries count against a match.** A clause such as "Not for X (use Y)" or
   "do not use for X" is indexed apart: a request word that a skill mentions *only* there
   lowers that skill's score.
4. **Optional semantic scores** (`SemanticScorer`, off by default, never downloaded at
   run time) are fused with the lexical ranking by reciprocal rank fusion.
5. **Decision.** A skill's score is divided by what the request's words are worth (each
   word counts as much as a match in an average description, by its idf; words no skill
   uses count `oov_weight` of the rarest), so one threshold serves short and long
   requests. Questions are scaled down (`question_penalty` for "what is…/why…",
   `howto_penalty` for "how do I…") and small talk never routes, because skills are
   workflows, not answers. `select` when the best clears `threshold`, matches at least
   `min_terms` request words outside its body, and beats the runner-up by `margin`;
   `ask` when the two are closer than that; `abstain` otherwise. Every number lives in
   `DEFAULTS` below and can be overridden in config as `skills.router: {...}`.

The index is built once per catalog snapshot and cached; on a reload, tokens of unchanged
skills (and unchanged bodies, keyed by path and stamp) are reused, so only edited skills
are read and tokenized again.

Importing this module is cheap: numpy and bm25s are imported inside the functions that
need them.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import time
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from codebot.skills.policy import Actor, Adapter, Decision, decide, normalize_overrides
from codebot.skills.spec import Spec

# --------------------------------------------------------------------------------------
# Configuration: every tunable number is here, and only here.
# --------------------------------------------------------------------------------------

#: Defaults for `skills.router` in config. `threshold` and `margin` were calibrated on
#: tests/data/routing_dev.jsonl over the shared corpus (see docs/routing.md).
DEFAULTS: Mapping[str, Any] = {
    "threshold": 0.5,  # normalised score the best skill must reach to be chosen at all
    "margin": 0.05,  # how far it must lead the runner-up to be chosen without asking
    "weights": {"name": 2.0, "description": 1.0, "when_to_use": 1.0, "body": 0.15},
    "field_mix": 0.2,  # a word matched in several fields: best field + this share of the others
    "negative_penalty": 1.0,  # a word found only in a "Not for …" clause costs this much (x its worth)
    "question_penalty": 0.3,  # score multiplier for concept questions ("what is …", "why …")
    "howto_penalty": 0.5,  # score multiplier for how-to questions ("how do I …?")
    "min_terms": 2,  # request words the chosen skill must match outside its body
    "oov_weight": 0.5,  # a word no skill uses weighs this much of the rarest word in the bound
    "k1": 1.2,
    "b": 0.75,
    "body_chars": 2000,
    "top": 5,
    "rrf_k": 60,
    "stemmer": "auto",  # "auto" (PyStemmer if installed, else built-in), "builtin", "none"
}

FIELDS = ("name", "description", "when_to_use", "body")
_CHUNK = 8192  # skills per step of the index build (bounds its temporary memory)


@dataclass(frozen=True, slots=True)
class RouterConfig:
    threshold: float = DEFAULTS["threshold"]
    margin: float = DEFAULTS["margin"]
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULTS["weights"]))
    field_mix: float = DEFAULTS["field_mix"]
    negative_penalty: float = DEFAULTS["negative_penalty"]
    question_penalty: float = DEFAULTS["question_penalty"]
    howto_penalty: float = DEFAULTS["howto_penalty"]
    min_terms: int = DEFAULTS["min_terms"]
    oov_weight: float = DEFAULTS["oov_weight"]
    k1: float = DEFAULTS["k1"]
    b: float = DEFAULTS["b"]
    body_chars: int = DEFAULTS["body_chars"]
    top: int = DEFAULTS["top"]
    rrf_k: int = DEFAULTS["rrf_k"]
    stemmer: str = DEFAULTS["stemmer"]

    @property
    def index_key(self) -> tuple[Any, ...]:
        """What the index depends on (the decision numbers do not need a rebuild)."""
        return (tuple(sorted(self.weights.items())), self.k1, self.b, self.body_chars, self.stemmer, self.field_mix)

    def to_json(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "margin": self.margin, "weights": dict(self.weights),
                "field_mix": self.field_mix, "negative_penalty": self.negative_penalty, "question_penalty": self.question_penalty,
                "howto_penalty": self.howto_penalty, "min_terms": self.min_terms,
                "oov_weight": self.oov_weight, "k1": self.k1, "b": self.b, "body_chars": self.body_chars,
                "top": self.top, "rrf_k": self.rrf_k, "stemmer": self.stemmer}  # fmt: skip


def config_from_mapping(raw: Mapping[str, Any] | None, warnings: list[str] | None = None) -> RouterConfig:
    """Build a config from `skills.router` (values that are not valid are reported and skipped)."""
    out: dict[str, Any] = {}
    warn = warnings if warnings is not None else []
    for key, value in (raw or {}).items():
        if key not in DEFAULTS:
            warn.append(f"config skills.router.{key}: unknown setting; ignoring it")
            continue
        default = DEFAULTS[key]
        if key == "weights":
            if not isinstance(value, Mapping):
                warn.append("config skills.router.weights: must be a mapping of field: number")
                continue
            weights = dict(default)
            for f, w in value.items():
                if f in FIELDS and isinstance(w, int | float) and not isinstance(w, bool) and w >= 0:
                    weights[f] = float(w)
                else:
                    warn.append(f"config skills.router.weights.{f}: {w!r} is not a field ({', '.join(FIELDS)}) "
                                "with a non-negative number")  # fmt: skip
            out[key] = weights
        elif key == "stemmer":
            if value in ("auto", "builtin", "none"):
                out[key] = value
            else:
                warn.append(f"config skills.router.stemmer: {value!r} is not auto, builtin or none")
        elif isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            out[key] = type(default)(value)
        else:
            warn.append(f"config skills.router.{key}: {value!r} is not a non-negative number; using {default}")
    return RouterConfig(**out)


def config_from_settings(settings: Any, warnings: list[str] | None = None) -> RouterConfig:
    raw = getattr(settings, "raw", None) or {}
    skills = raw.get("skills") if isinstance(raw.get("skills"), Mapping) else {}
    router = skills.get("router") if isinstance(skills.get("router"), Mapping) else {}
    return config_from_mapping(router, warnings)


# --------------------------------------------------------------------------------------
# Text: tokens, stems, stop words, negative clauses.
# --------------------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9][a-z0-9+#]*")
#: Multi-word names folded into one term (matched on tokens, so "end-to-end" works too).
_PHRASES: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]] = {
    "end": ((("to", "end"), "e2e"),),
    "machine": ((("learning",), "ml"),),
    "large": ((("language", "model"), "llm"), (("language", "models"), "llm")),
    "pull": ((("request",), "pr"), (("requests",), "pr")),
    "continuous": ((("integration",), "ci"),),
    "node": ((("js",), "nodejs"),),
    "next": ((("js",), "nextjs"),),
}
_PHRASE_HEADS = frozenset(_PHRASES)
_MISS = object()


#: Spellings of one thing, mapped to one surface form before stemming (both sides).
ALIASES: Mapping[str, str] = {
    "k8s": "kubernetes", "kube": "kubernetes", "postgres": "postgresql", "pg": "postgresql",
    "psql": "postgresql", "js": "javascript", "ts": "typescript", "py": "python",
    "repo": "repository", "repos": "repository", "db": "database", "dbs": "database",
    "prs": "pr", "gh": "github", "golang": "go", "tf": "terraform", "yml": "yaml",
    "env": "environment", "config": "configuration", "configs": "configuration",
    "auth": "authentication", "authn": "authentication", "docs": "documentation",
    "gif": "gif", "gifs": "gif", "img": "image", "pic": "image", "pics": "image",
}  # fmt: skip

#: English function words plus the filler of skill descriptions ("use when the user asks").
STOP_WORDS = frozenset(
    (
        "a", "about", "above", "across", "after", "again", "against", "all", "also", "am", "an",
        "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below",
        "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done",
        "down", "during", "each", "either", "etc", "eg", "ie", "few", "for", "from", "further",
        "get", "gets", "getting", "got", "had", "has", "have", "having", "he", "her", "here",
        "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
        "let", "lets", "like", "me", "more", "most", "much", "must", "my", "myself", "no", "nor",
        "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out",
        "over", "own", "per", "please", "same", "she", "should", "so", "some", "such", "than",
        "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those",
        "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "very", "via", "was",
        "we", "were", "what", "whatever", "when", "whenever", "where", "whether", "which", "while",
        "who", "whom", "whose", "why", "will", "with", "within", "without", "would", "you", "your",
        "yours", "yourself", "yourselves", "im", "ive", "id", "youre", "dont", "doesnt", "cant",
        "wont", "isnt", "use", "uses", "used", "using", "ask", "asks", "asked", "asking", "want",
        "wants", "wanted", "need", "needs", "needed", "help", "helps", "helping", "mention",
        "mentions", "mentioned", "trigger", "triggers", "triggered", "claude", "codex", "invoke",
        "invoked", "apply", "applies", "specific", "something", "anything", "thing", "things",
        "way", "ways", "really", "actually", "maybe", "sure", "okay", "ok", "hey", "hi", "hello",
        "thanks", "thank", "yes", "yeah"
    )
)
_KEEP_SHORT = frozenset({"c", "r", "go", "ai", "ui", "ux", "qa", "ml", "ci", "cd", "pr", "vm", "os"})


def _builtin_stem(w: str) -> str:
    """A small, predictable suffix stemmer: plurals, -ing, -ed, -ly, -able, -ment, -ation,
    -ion, final e. Crude next to Porter, but both sides of a match go through it."""
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "ches", "shes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is", "ys")):
        w = w[:-1]
    if w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ing") and len(w) - 3 >= 3:
        w = _undouble(w[:-3])
    elif w.endswith("ed") and not w.endswith("eed") and len(w) - 2 >= 3:
        w = _undouble(w[:-2])
    elif w.endswith("ly") and len(w) - 2 >= 4:
        w = w[:-2]
    for suffix, repl in (("ization", "iz"), ("isation", "is"), ("ation", "at"), ("ator", "at"),
                         ("ction", "ct"), ("ssion", "ss"), ("able", ""), ("ible", ""), ("ment", "")):  # fmt: skip
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)] + repl
            break
    if w.endswith("e") and len(w) >= 4:
        w = w[:-1]
    return w


def _undouble(w: str) -> str:
    if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        return w[:-1]
    return w


@functools.cache
def _stemmer(kind: str) -> Callable[[str], str]:
    if kind == "none":
        return lambda w: w
    if kind == "auto":
        try:
            import Stemmer  # PyStemmer, optional

            stem_word = Stemmer.Stemmer("english").stemWord
        except Exception:
            pass
        else:
            return lambda w: w if (not w.isalpha() or len(w) <= 3) else stem_word(w)
    return _builtin_stem


class Tokenizer:
    """Text to stemmed terms. Per-word results are memoised (the vocabulary is small)."""

    def __init__(self, stemmer: str = "auto") -> None:
        self._stem = _stemmer(stemmer)
        self._memo: dict[str, str | None] = {}

    def term(self, word: str) -> str | None:
        got = self._memo.get(word, _MISS)
        if got is not _MISS:
            return got  # type: ignore[return-value]
        w = word.strip("+#") if not word.endswith(("++", "#")) else word
        w = ALIASES.get(w, w)
        if w in STOP_WORDS or (len(w) < 2 and w not in _KEEP_SHORT) or (w.isdigit() and len(w) < 3):
            out = None
        else:
            out = self._stem(w)
            if out in STOP_WORDS:
                out = None
        if len(self._memo) < 500_000:
            self._memo[word] = out
        return out

    def words(self, text: str) -> list[str]:
        toks = _WORD.findall(unicodedata.normalize("NFKC", text).lower())
        if not _PHRASE_HEADS.isdisjoint(toks):
            out: list[str] = []
            i, n = 0, len(toks)
            while i < n:
                t = toks[i]
                for seq, repl in _PHRASES.get(t, ()):
                    if tuple(toks[i + 1 : i + 1 + len(seq)]) == seq:
                        out.append(repl)
                        i += 1 + len(seq)
                        break
                else:
                    out.append(t)
                    i += 1
            return out
        return toks

    def __call__(self, text: str) -> list[str]:
        memo, term = self._memo, self.term
        out = []
        for word in self.words(text):
            t = memo.get(word, _MISS)
            if t is _MISS:
                t = term(word)
            if t is not None:
                out.append(t)
        return out

    def with_surface(self, text: str) -> list[tuple[str, str]]:
        """(term, the word as written) for explanations."""
        out = []
        for word in self.words(text):
            t = self.term(word)
            if t is not None:
                out.append((t, word))
        return out


_CLAUSE = re.compile(r"(?<=[.;!?])\s+|\s+[—–]\s+|\s+-\s+|\n+")
#: Cues that start a negative span running to the end of the clause.
_NEG_START = re.compile(
    r"\b(?:not\s+(?:for|to\s+be\s+used|intended|meant|suitable|when|if|a\s+replacement)|"
    r"do\s+not\s+use|don'?t\s+use|never\s+use|shouldn'?t\s+be\s+used|should\s+not\s+be\s+used|"
    r"avoid\s+(?:using\s+)?(?:it|this)|except\s+for|doesn'?t\s+(?:cover|handle)|does\s+not\s+(?:cover|handle)|"
    r"rather\s+than|unlike)\b|\bNOT\b",
    re.IGNORECASE,
)
#: Cues that make the whole clause negative ("for X, use the Y skill instead").
_NEG_CLAUSE = re.compile(r"\binstead\b|\bis\s+handled\s+by\b|\bbelongs?\s+(?:in|to)\b", re.IGNORECASE)


_NEG_KEYS = ("not", "n't", "never", "avoid", "except", "rather", "unlike", "instead", "handled", "belong")


def split_negative(text: str) -> tuple[str, str]:
    """(what the skill is for, what it says it is not for)."""
    if not text:
        return "", ""
    low = text.lower()
    if not any(k in low for k in _NEG_KEYS) or (not _NEG_START.search(text) and not _NEG_CLAUSE.search(text)):
        return text, ""
    pos: list[str] = []
    neg: list[str] = []
    for clause in _CLAUSE.split(text):
        if not clause:
            continue
        if _NEG_CLAUSE.search(clause):
            neg.append(clause)
            continue
        m = _NEG_START.search(clause)
        if m is None or (m.group(0) == "NOT" and not clause[m.end():].strip()):
            pos.append(clause)
            continue
        pos.append(clause[: m.start()])
        neg.append(clause[m.start():])
    return " ".join(pos), " ".join(neg)


_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|yo|hiya|howdy|good\s+(?:morning|afternoon|evening|night)|thanks|thank\s+you|"
    r"cheers|bye|goodbye|see\s+you)\b[\s!,.]*(?:there|all|again|so\s+much|a\s+lot|everyone|folks)?[\s!,.]*",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"^\s*(?:how\s+are\s+you|how'?s\s+(?:it|your\s+day|life|everything)\s+going|how\s+is\s+your\s+day|"
    r"what'?s\s+up|tell\s+me\s+(?:a\s+)?jokes?|that'?s\s+(?:all|it|great|fine)|who\s+are\s+you|"
    r"are\s+you\s+(?:there|a\s+bot|human))\b",
    re.IGNORECASE,
)
_CONCEPT = re.compile(
    r"^\s*(?:(?:so|and|ok|okay)[,\s]+)?(?:what(?:'s|s)?|why|who|whom|whose|which|is|are|was|were|does|do\s+you|"
    r"did|can\s+you\s+explain|explain|meaning\s+of|difference\s+between|when\s+(?:is|was|did|should))\b",
    re.IGNORECASE,
)
_FACT = re.compile(r"^\s*(?:(?:so|and|ok|okay)[,\s]+)?how\s+(?:many|much|come|long|old|big)\b", re.IGNORECASE)
_HOWTO = re.compile(r"^\s*(?:(?:so|and|ok|okay)[,\s]+)?how\s+(?:do|does|can|could|should|would|to)\b",
                    re.IGNORECASE)
_PROJECT_REF = re.compile(r"\b(?:my|our)\b|\b(?:this|the)\s+(?:repo|repository|project|codebase|app|application|"
                          r"service|site|website|pr|branch|pipeline|cluster)\b", re.IGNORECASE)

SHAPES = ("task", "howto", "concept", "chat")


def request_shape(text: str) -> str:
    """What kind of request this is: `task` (do something), `howto` (how do I …?),
    `concept` (what is / why …?) or `chat` (greetings, thanks, jokes).

    Skills are workflows. A knowledge or syntax question is better answered directly, so
    its scores are scaled down (`howto_penalty`, `question_penalty`) and small talk never
    routes. A question about the person's own project ("how do I set up tests in our
    repo?") is treated as a task.
    """
    rest = text.strip()
    for _ in range(3):  # "hi there! thanks a lot"
        stripped = _GREETING.sub("", rest, count=1)
        if stripped == rest:
            break
        rest = stripped
    if not rest.strip(" !.?,") or _SMALL_TALK.match(rest):
        return "chat"
    if _PROJECT_REF.search(rest):
        return "task"
    if _CONCEPT.match(rest) or _FACT.match(rest):
        return "concept"
    if _HOWTO.match(rest):
        return "howto"
    return "task"


_SHAPE_FACTOR: Mapping[str, Callable[[RouterConfig], float]] = {
    "concept": lambda c: c.question_penalty,
    "howto": lambda c: c.howto_penalty,
}


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Candidate:
    spec: Spec
    score: float  # normalised: about 1.0 when every request word is in an average description
    raw: float  # weighted BM25 minus penalties
    matched: Mapping[str, tuple[str, ...]]  # field -> request words found there
    penalized: tuple[str, ...] = ()  # request words the skill rules out ("Not for …")
    semantic: float | None = None
    rank_lexical: int | None = None
    why: str = ""
    eligible: bool = True

    @property
    def name(self) -> str:
        return self.spec.name

    def words(self) -> list[str]:
        seen: dict[str, None] = {}
        for f in FIELDS:
            for w in self.matched.get(f, ()):
                seen.setdefault(w, None)
        return list(seen)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.spec.name, "score": round(self.score, 4), "raw": round(self.raw, 3),
                             "matched": self.words(),
                             "fields": {f: list(w) for f, w in self.matched.items() if w},
                             "penalized": list(self.penalized), "eligible": self.eligible, "why": self.why,
                             "source": self.spec.source.value}  # fmt: skip
        if self.semantic is not None:
            d["semantic"] = round(self.semantic, 4)
        return d


@dataclass(frozen=True, slots=True)
class Filtered:
    spec: Spec
    reason: str
    decided_by: str
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"name": self.spec.name, "reason": self.reason, "decided_by": self.decided_by,
                "score": round(self.score, 4), "eligible": False}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Route:
    request: str
    decision: str  # "select" | "ask" | "abstain"
    selected: Spec | None
    candidates: tuple[Candidate, ...]
    filtered: tuple[Filtered, ...]
    reason: str
    terms: tuple[str, ...]
    shape: str  # "task" | "howto" | "concept" | "chat" (see request_shape)
    threshold: float
    margin: float
    latency_ms: float  # routing only; a (re)build of the index is in index_ms
    actor: Actor = Actor.MODEL
    index_ms: float = 0.0

    @property
    def options(self) -> tuple[Spec, ...]:
        """What to offer the person: the chosen skill, the two close ones, or nothing."""
        if self.decision == "select" and self.selected is not None:
            return (self.selected,)
        if self.decision == "ask":
            return tuple(c.spec for c in self.candidates[:2])
        return ()

    @property
    def top(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    def to_json(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "decision": self.decision,
            "selected": self.selected.name if self.selected else None,
            "options": [s.name for s in self.options],
            "reason": self.reason,
            "candidates": [c.to_json() for c in self.candidates],
            "filtered": [f.to_json() for f in self.filtered],
            "terms": list(self.terms),
            "shape": self.shape,
            "actor": self.actor.value,
            "threshold": self.threshold,
            "margin": self.margin,
            "latency_ms": round(self.latency_ms, 3),
            "index_ms": round(self.index_ms, 3),
        }


@runtime_checkable
class SemanticScorer(Protocol):
    """An optional second opinion, e.g. a local embedding model (never downloaded by codebot).

    `score` returns a similarity in [0, 1] per spec key; keys it leaves out count as 0.
    """

    def score(self, query: str, specs: Sequence[Spec]) -> dict[str, float]: ...


# --------------------------------------------------------------------------------------
# The index
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Bag:
    """Bag of words of one field of one skill: sorted term ids, counts, length."""

    ids: array  # array("i"), sorted, unique
    counts: array  # array("H")
    length: int
    neg: tuple[int, ...] = ()  # term ids found only in the negative clause


class _FieldBM25:
    """BM25 term-frequency part for one field, vectorised over bags (bm25s' own formula)."""

    @staticmethod
    def average_length(bags: Sequence[_Bag]) -> float:
        return (sum(bg.length for bg in bags) / len(bags) if bags else 0.0) or 1.0

    @staticmethod
    def build(bags: Sequence[_Bag], start: int, k1: float, b: float, avg: float) -> tuple[Any, Any, Any]:
        """(doc, term, tf component) triples for `bags`, the docs numbered from `start`."""
        import numpy as np
        from bm25s.scoring import _score_tfc_lucene

        lens = np.fromiter((bg.length for bg in bags), dtype=np.float32, count=len(bags))
        sizes = np.fromiter((len(bg.ids) for bg in bags), dtype=np.int64, count=len(bags))
        if len(bags) == 0 or sizes.sum() == 0:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float32)
        terms = np.frombuffer(b"".join(bg.ids for bg in bags), dtype=np.int32)
        tf = np.frombuffer(b"".join(bg.counts for bg in bags), dtype=np.uint16).astype(np.float32)
        local = np.repeat(np.arange(len(bags), dtype=np.int32), sizes)
        return local + start, terms, _score_tfc_lucene(tf, lens[local], avg, k1, b).astype(np.float32)


def _idf(df: Any, n_docs: int) -> Any:
    """bm25s' Lucene idf, vectorised."""
    import numpy as np
    from bm25s.scoring import _score_idf_lucene

    out = np.zeros(len(df), dtype=np.float32)
    present = np.nonzero(df)[0]
    values = {int(d): _score_idf_lucene(int(d), n_docs) for d in np.unique(df[present]).tolist()}
    out[present] = [values[int(d)] for d in df[present].tolist()]
    return out


class Index:
    """Combined, weighted BM25 postings for one list of specs."""

    def __init__(self, specs: Sequence[Spec], bags: Mapping[str, Sequence[_Bag]], n_terms: int,
                 config: RouterConfig, lexicon: Mapping[str, int]) -> None:  # fmt: skip
        import numpy as np

        t0 = time.perf_counter()
        self.specs = tuple(specs)
        self.n = len(self.specs)
        self.config = config
        self.lexicon = lexicon  # shared, grows; ids < n_terms are covered here
        self.n_terms = n_terms
        self.bags = bags
        self.pos = {id(s): i for i, s in enumerate(self.specs)}
        self.by_key = {s.key: i for i, s in enumerate(self.specs)}
        # Per field: BM25's tf part. One idf for all fields (as in BM25F), from how many
        # skills use the word anywhere: a word that is rare among names but common in
        # descriptions (e.g. a one-word name like `review`) is not strong evidence.
        # A word found in several fields counts as its best field plus `field_mix` of the
        # others, so a word in the name, the description and the body does not outweigh
        # three different words. Built in chunks of skills to bound the memory it takes.
        fields = [(f, float(config.weights.get(f, 0.0))) for f in FIELDS if float(config.weights.get(f, 0.0)) > 0]
        avgs = {f: _FieldBM25.average_length(bags[f]) for f, _ in fields}
        chunks = []
        df = np.zeros(n_terms, dtype=np.int64)
        for start in range(0, self.n, _CHUNK):
            end = min(self.n, start + _CHUNK)
            parts = [_FieldBM25.build(bags[f][start:end], start, config.k1, config.b, avgs[f]) for f, _ in fields]
            docs = np.concatenate([p[0] for p in parts]) - start
            key = np.concatenate([p[1] for p in parts]).astype(np.int64) * _CHUNK + docs
            vals = np.concatenate([p[2] * w for p, (_, w) in zip(parts, fields, strict=True)])
            del parts, docs
            order = np.argsort(key, kind="stable")
            key, vals = key[order], vals[order]
            del order
            if len(key):
                first = np.concatenate(([0], np.nonzero(np.diff(key))[0] + 1))
                total = np.add.reduceat(vals, first)
                best = np.maximum.reduceat(vals, first)
                vals = best + config.field_mix * (total - best)
                key = key[first]
            terms = (key // _CHUNK).astype(np.int32)
            chunks.append((terms, (key % _CHUNK + start).astype(np.int32), vals.astype(np.float32)))
            df += np.bincount(terms, minlength=n_terms)
        self.idf = _idf(df, max(self.n, 1))
        # CSC layout (postings by term, docs ascending), filled chunk by chunk
        self.indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(df, out=self.indptr[1:])
        self.data = np.empty(int(self.indptr[-1]), dtype=np.float32)
        self.indices = np.empty(int(self.indptr[-1]), dtype=np.int32)
        cursor = self.indptr[:-1].copy()
        while chunks:
            terms, docs, vals = chunks.pop(0)
            count = np.bincount(terms, minlength=n_terms)
            first = np.cumsum(count) - count
            pos = cursor[terms] + (np.arange(len(terms)) - first[terms])
            self.data[pos] = vals * self.idf[terms]
            self.indices[pos] = docs
            cursor += count
            del terms, docs, vals, count, first, pos
        n = max(self.n, 1)
        # What one request word is worth "normally": a match in a description of average
        # length. A word no skill uses is worth `oov_weight` times the rarest word.
        self.max_idf = float(_idf(np.asarray([1]), n)[0])
        w_desc = float(config.weights.get("description", 1.0)) or 1.0
        self.unit_scale = w_desc / (1.0 + config.k1)
        self.unit = np.where(df > 0, self.idf, self.max_idf).astype(np.float32) * self.unit_scale
        # negative-only terms: term id -> doc indices
        neg_docs: dict[int, list[int]] = {}
        for f in ("description", "when_to_use"):
            for i, bg in enumerate(bags[f]):
                if bg.neg:
                    for t in bg.neg:
                        neg_docs.setdefault(t, []).append(i)
        self.neg = {t: np.asarray(sorted(set(v)), dtype=np.int32) for t, v in neg_docs.items()}
        self.conditional = np.asarray([i for i, s in enumerate(self.specs) if s.paths], dtype=np.int64)
        self._eligibility: dict[tuple[Any, ...], tuple[Any, dict[int, Decision]]] = {}
        self.build_ms = (time.perf_counter() - t0) * 1000

    def nbytes(self) -> int:
        return int(self.data.nbytes + self.indices.nbytes + self.indptr.nbytes + self.idf.nbytes + self.unit.nbytes)

    def eligibility(self, actor: Actor, overrides: Mapping[str, str], adapter: Adapter) -> tuple[Any, dict[int, Decision]]:
        import numpy as np

        key = (actor, adapter, tuple(sorted(overrides.items())))
        hit = self._eligibility.get(key)
        if hit is None:
            mask = np.ones(self.n, dtype=bool)
            denied: dict[int, Decision] = {}
            for i, s in enumerate(self.specs):
                d = decide(s, actor, overrides, adapter)
                if not d.allowed:
                    mask[i] = False
                    denied[i] = d
            hit = (mask, denied)
            if len(self._eligibility) > 16:
                self._eligibility.clear()
            self._eligibility[key] = hit
        return hit

    def scores(self, term_ids: Sequence[int], neg_ids: Sequence[int], penalty: float) -> Any:
        import numpy as np

        s = np.zeros(self.n, dtype=np.float32)
        for t in term_ids:
            a, b = self.indptr[t], self.indptr[t + 1]
            if b > a:
                s[self.indices[a:b]] += self.data[a:b]
        if penalty > 0:
            for t in neg_ids:
                docs = self.neg.get(t)
                if docs is not None:
                    s[docs] -= penalty * float(self.unit[t])
        return s

    def field_matches(self, i: int, term_ids: Sequence[int]) -> dict[str, set[int]]:
        q = set(term_ids)
        out: dict[str, set[int]] = {}
        for f in FIELDS:
            if float(self.config.weights.get(f, 0.0)) <= 0:
                continue
            hit = q.intersection(self.bags[f][i].ids)
            if hit:
                out[f] = hit
        return out


class Router:
    """Holds the index cache and the token caches that make rebuilds incremental."""

    def __init__(self, config: RouterConfig | None = None, semantic: SemanticScorer | None = None) -> None:
        self.config = config or RouterConfig()
        self.semantic = semantic
        self._lock = threading.RLock()
        self._tok: Tokenizer | None = None
        self._tok_kind: str | None = None
        self._lexicon: dict[str, int] = {}
        self._word_ids: dict[str, int] = {}  # word as written -> term id (-1: stop word)
        self._index: Index | None = None
        self._index_owner: Any = None  # the snapshot (or spec tuple) the index was built for
        self._index_key: tuple[Any, ...] | None = None
        # token caches: reused across rebuilds, pruned to what the current index uses
        self._name_bags: dict[str, _Bag] = {}
        self._text_bags: dict[str, _Bag] = {}
        self._body_bags: dict[tuple[Any, ...], _Bag] = {}
        self.stats = {"builds": 0, "bodies_read": 0, "last_build_ms": 0.0}

    # -- tokens ---------------------------------------------------------------------

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tok is None or self._tok_kind != self.config.stemmer:
            self._tok = Tokenizer(self.config.stemmer)
            self._tok_kind = self.config.stemmer
            # cached bags were made with the other stemmer
            self._word_ids.clear()
            self._name_bags.clear()
            self._text_bags.clear()
            self._body_bags.clear()
        return self._tok

    def _ids(self, terms: Iterable[str]) -> list[int]:
        lex = self._lexicon
        out = []
        for t in terms:
            i = lex.get(t)
            if i is None:
                i = lex[t] = len(lex)
            out.append(i)
        return out

    def _text_ids(self, text: str) -> list[int]:
        """Term ids of a text, through a word -> id memo (the hot path of index builds)."""
        memo = self._word_ids
        out = []
        for w in self.tokenizer.words(text):
            i = memo.get(w, -2)
            if i == -2:
                t = self.tokenizer.term(w)
                i = -1 if t is None else self._ids((t,))[0]
                if len(memo) < 1_000_000:
                    memo[w] = i
            if i >= 0:
                out.append(i)
        return out

    def _bag(self, text: str, neg_text: str | None = None) -> _Bag:
        ids_all = self._text_ids(text)
        c: dict[int, int] = {}
        for i in ids_all:
            c[i] = c.get(i, 0) + 1
        ids = sorted(c)
        neg: tuple[int, ...] = ()
        if neg_text:
            neg = tuple(sorted(set(self._text_ids(neg_text)).difference(c)))
        return _Bag(array("i", ids), array("H", [min(c[i], 65535) for i in ids]), len(ids_all), neg)

    def _name_bag(self, spec: Spec) -> _Bag:
        got = self._name_bags.get(spec.name)
        if got is None:
            text = re.sub(r"[-_:./]+", " ", spec.name)
            got = self._name_bags[spec.name] = self._bag(text)
        return got

    def _text_bag(self, text: str, exclude: _Bag | None = None) -> _Bag:
        """Description / when_to_use: positive part indexed, negative-only words remembered."""
        got = self._text_bags.get(text)
        if got is None:
            pos, neg = split_negative(text)
            got = self._text_bags[text] = self._bag(pos, neg or None)
        if exclude is not None and got.neg and len(exclude.ids):
            keep = tuple(t for t in got.neg if t not in set(exclude.ids))
            if len(keep) != len(got.neg):
                return _Bag(got.ids, got.counts, got.length, keep)
        return got

    def _body_bag(self, spec: Spec) -> _Bag:
        n = self.config.body_chars
        key = (str(spec.real_path), spec.body_offset, spec.stamp, n)
        got = self._body_bags.get(key)
        if got is None:
            try:
                body = spec.read_body()[:n]
            except OSError:
                body = ""
            self.stats["bodies_read"] += 1
            got = self._body_bags[key] = self._bag(body)
        return got

    # -- index ----------------------------------------------------------------------

    def index(self, specs: Any) -> tuple[Index, Any]:
        """The index for `specs` (a Snapshot or a sequence of Spec) and a row mask or None.

        A sequence whose specs are all in the current index reuses it with a mask, so the
        SkillSearch tool's pre-filtered lists do not cause rebuilds.
        """
        import numpy as np

        with self._lock:
            cfg_key = self.config.index_key
            idx = self._index
            fresh = idx is not None and self._index_key == cfg_key
            if hasattr(specs, "skills") and isinstance(getattr(specs, "skills", None), Mapping):
                if fresh and self._index_owner is specs:
                    return idx, None
                seq = list(specs)
                if fresh and len(seq) == idx.n and all(a is b for a, b in zip(seq, idx.specs, strict=True)):
                    self._index_owner = specs  # a reload that changed nothing
                    return idx, None
                return self._rebuild(seq, specs), None
            seq = specs if isinstance(specs, tuple | list) else list(specs)
            if fresh:
                if len(seq) == idx.n and all(a is b for a, b in zip(seq, idx.specs, strict=True)):
                    return idx, None
                rows = [idx.pos.get(id(s), -1) for s in seq]
                if rows and min(rows) >= 0 and all(idx.specs[r] is s for r, s in zip(rows, seq, strict=True)):
                    mask = np.zeros(idx.n, dtype=bool)
                    mask[rows] = True
                    return idx, mask
            return self._rebuild(list(seq), tuple(seq)), None

    def _rebuild(self, specs: list[Spec], owner: Any) -> Index:
        t0 = time.perf_counter()
        bags: dict[str, list[_Bag]] = {f: [] for f in FIELDS}
        w = self.config.weights
        use_when = w.get("when_to_use", 0) > 0
        use_body = w.get("body", 0) > 0
        empty = self._bag("")
        for s in specs:
            nb = self._name_bag(s)
            bags["name"].append(nb)
            bags["description"].append(self._text_bag(s.description or "", nb))
            bags["when_to_use"].append(self._text_bag(s.when_to_use, nb) if (use_when and s.when_to_use) else empty)
            bags["body"].append(self._body_bag(s) if use_body else empty)
        idx = Index(specs, bags, len(self._lexicon), self.config, self._lexicon)
        # prune caches to what this index uses
        names = {s.name for s in specs}
        texts = {s.description or "" for s in specs} | {s.when_to_use for s in specs if s.when_to_use}
        self._name_bags = {k: v for k, v in self._name_bags.items() if k in names}
        self._text_bags = {k: v for k, v in self._text_bags.items() if k in texts}
        if use_body:
            live = {(str(s.real_path), s.body_offset, s.stamp, self.config.body_chars) for s in specs}
            self._body_bags = {k: v for k, v in self._body_bags.items() if k in live}
        self._index, self._index_owner, self._index_key = idx, owner, self.config.index_key
        self.stats["builds"] += 1
        self.stats["last_build_ms"] = (time.perf_counter() - t0) * 1000
        return idx

    # -- routing --------------------------------------------------------------------

    def route(self, request: str, specs: Any, actor: Actor = Actor.MODEL,
              overrides: Mapping[str, str] | None = None, adapter: Adapter = Adapter.EXTENSION,
              top: int | None = None, active: Collection[str] | None = None,
              restrict: Collection[str] | None = None, config: RouterConfig | None = None) -> Route:  # fmt: skip
        """Route one request among `specs` (a Snapshot or a sequence of Spec).

        `active`: keys of conditional skills (`paths:`) whose paths matched; the others are
        filtered out (None: do not filter on paths). `restrict`: only these keys may be
        chosen (e.g. the names listed to the model); the others are filtered out.
        """
        import numpy as np

        t0 = time.perf_counter()
        cfg = config or self.config
        top = cfg.top if top is None else top
        if config is not None and config.index_key != self.config.index_key:
            self.config = config  # the index depends on these numbers: rebuild on demand
        builds = self.stats["builds"]
        idx, subset = self.index(specs)
        # latency_ms counts everything but a (re)build of the index, which index_ms reports
        index_ms = self.stats["last_build_ms"] if self.stats["builds"] != builds else 0.0
        t_index = t0 + index_ms / 1000

        # 1. eligibility, before anything is ranked
        mask, denied = idx.eligibility(actor, normalize_overrides(overrides) if overrides else {}, adapter)
        other: dict[int, tuple[str, str]] = {}  # row -> (reason, decided_by) for non-policy filters
        if subset is not None or active is not None or restrict is not None:
            mask = mask.copy()
            if subset is not None:
                for i in np.nonzero(mask & ~subset)[0].tolist():
                    other[i] = ("not among the skills given to the router", "subset")
                mask &= subset
            if active is not None:
                act = set(active)
                for i in idx.conditional.tolist():
                    if mask[i] and idx.specs[i].key not in act:
                        mask[i] = False
                        other[i] = ("conditional skill: none of its paths matched a file in this session", "paths")
            if restrict is not None:
                allowed = set(restrict)
                for i in np.nonzero(mask)[0].tolist():
                    if idx.specs[i].key not in allowed:
                        mask[i] = False
                        other[i] = ("not listed for this request", "restrict")

        # 2. lexical scores, normalised by what the request's words are worth
        surface: dict[str, str] = {}
        for t, word in self.tokenizer.with_surface(request):
            surface.setdefault(t, word)
        terms = list(surface)
        lex = self._lexicon
        ids = [lex[t] for t in terms if t in lex and lex[t] < idx.n_terms]
        known = [i for i in ids if idx.indptr[i + 1] > idx.indptr[i]]
        neg_ids = [i for i in ids if i in idx.neg]
        counted = sorted(set(known) | set(neg_ids))
        n_oov = len(terms) - len(counted)
        shape = request_shape(request)
        if shape == "chat":
            return self._empty(request, terms, shape, cfg, actor, t_index, "small talk: no skill is needed", index_ms)
        if not known and self.semantic is None:
            why = "no word of the request appears in any skill" if terms else "the request has no content words"
            return self._empty(request, terms, shape, cfg, actor, t_index, why, index_ms)
        raw = idx.scores(known, neg_ids, cfg.negative_penalty)
        bound = float(idx.unit[counted].sum()) + n_oov * cfg.oov_weight * idx.max_idf * idx.unit_scale
        norm = raw / max(bound, 1e-9) * _SHAPE_FACTOR.get(shape, lambda c: 1.0)(cfg)

        # 3. who was filtered out (only those that would have ranked)
        filtered: list[Filtered] = []
        blocked = np.nonzero(~mask & (norm > 0))[0]
        if len(blocked):
            for i in blocked[np.argsort(-norm[blocked], kind="stable")][: max(top, 5)].tolist():
                d = denied.get(i)
                reason, by = (d.reason, d.decided_by) if d is not None else other.get(i, ("filtered", "?"))
                filtered.append(Filtered(idx.specs[i], reason, by, float(norm[i])))

        # 4. rank the eligible ones (optionally fused with semantic scores)
        elig = np.where(mask, norm, -np.inf)
        k = min(max(top, 2), idx.n)
        positive = np.nonzero(elig > 0)[0]
        part = positive[np.argpartition(-elig[positive], k - 1)[:k]] if len(positive) > k else positive
        order = part[np.lexsort((part, -elig[part]))].tolist()
        lex_rank = {i: r + 1 for r, i in enumerate(order)}
        sem: dict[str, float] = {}
        if self.semantic is not None:
            eligible_specs = [idx.specs[i] for i in np.nonzero(mask)[0].tolist()]
            sem = {key: float(v) for key, v in (self.semantic.score(request, eligible_specs) or {}).items()}
            if sem:
                order, lex_rank = self._fuse(idx, elig, mask, sem, k, cfg)
        cands = []
        for i in order[:k]:
            fields = idx.field_matches(i, known)
            matched = {f: tuple(surface[t] for t in terms if lex.get(t) in hit) for f, hit in fields.items()}
            ruled_out = tuple(surface[t] for t in terms if t in lex and i in _member(idx.neg.get(lex[t])))
            score = float(norm[i]) if mask[i] else 0.0
            cands.append(Candidate(idx.specs[i], score, float(raw[i]), matched, ruled_out,
                                   sem.get(idx.specs[i].key) if sem else None, lex_rank.get(i)))  # fmt: skip

        # 5. decide and explain
        decision, selected, reason, cands = _decide(cands, cfg, shape, len(counted) + n_oov, sem_on=bool(sem))
        return Route(request, decision, selected, tuple(cands[:top] if top else cands), tuple(filtered),
                     reason, tuple(terms), shape, cfg.threshold, cfg.margin,
                     (time.perf_counter() - t_index) * 1000, actor, index_ms)  # fmt: skip

    def _fuse(self, idx: Index, elig: Any, mask: Any, sem: Mapping[str, float], k: int,
              cfg: RouterConfig) -> tuple[list[int], dict[int, int]]:  # fmt: skip
        """Reciprocal rank fusion of the lexical and semantic rankings (eligible skills only)."""
        import numpy as np

        depth = max(k * 10, 50)
        positive = np.nonzero(elig > 0)[0]
        lex_order = positive[np.argsort(-elig[positive], kind="stable")][:depth].tolist()
        lex_rank = {i: r + 1 for r, i in enumerate(lex_order)}
        sem_rows = [(v, idx.by_key[kk]) for kk, v in sem.items() if kk in idx.by_key and mask[idx.by_key[kk]] and v > 0]
        sem_rows.sort(key=lambda x: -x[0])
        sem_rank = {i: r + 1 for r, (_, i) in enumerate(sem_rows[:depth])}
        fused: dict[int, float] = {}
        for ranks in (lex_rank, sem_rank):
            for i, r in ranks.items():
                fused[i] = fused.get(i, 0.0) + 1.0 / (cfg.rrf_k + r)
        order = sorted(fused, key=lambda i: (-fused[i], i))
        return order, lex_rank

    def _empty(self, request: str, terms: list[str], shape: str, cfg: RouterConfig, actor: Actor,
               t0: float, why: str, index_ms: float) -> Route:  # fmt: skip
        return Route(request, "abstain", None, (), (), why, tuple(terms), shape, cfg.threshold, cfg.margin,
                     (time.perf_counter() - t0) * 1000, actor, index_ms)  # fmt: skip


def _member(arr: Any) -> Any:
    return () if arr is None else set(arr.tolist())  # small: docs that rule one word out


def _describe(c: Candidate) -> str:
    parts = []
    for f in FIELDS:
        words = c.matched.get(f)
        if words:
            parts.append(f"{', '.join(words)} in {f.replace('_', ' ')}")
    text = "matched " + "; ".join(parts) if parts else "no word matched"
    if c.penalized:
        text += f"; its description rules out {', '.join(c.penalized)}"
    return text


_SHAPE_NOTE = {"howto": " (a how-to question: scores scaled by howto_penalty)",
               "concept": " (a concept question: scores scaled by question_penalty)"}


def _strong_words(c: Candidate) -> list[str]:
    """Request words a candidate matched outside its body (name, description, when_to_use)."""
    seen: dict[str, None] = {}
    for f in ("name", "description", "when_to_use"):
        for w in c.matched.get(f, ()):
            seen.setdefault(w, None)
    return list(seen)


def _decide(cands: list[Candidate], cfg: RouterConfig, shape: str = "task", n_content: int = 0,
            sem_on: bool = False) -> tuple[str, Spec | None, str, list[Candidate]]:  # fmt: skip
    """Apply threshold, evidence and margin rules, and write each candidate's `why`."""
    import dataclasses

    if not cands:
        return "abstain", None, "no eligible skill matched any word of the request", []

    def conf(c: Candidate) -> float:
        return max(c.score, c.semantic or 0.0) if sem_on else c.score

    best = cands[0]
    second = cands[1] if len(cands) > 1 else None
    b, s = conf(best), conf(second) if second else 0.0
    note = _SHAPE_NOTE.get(shape, "")
    # a one-word task ("kubectl") may match on that word; a question needs min_terms
    need = cfg.min_terms if (shape in _SHAPE_NOTE or not n_content) else min(cfg.min_terms, n_content)
    strong = _strong_words(best)
    if b < cfg.threshold:
        decision, selected = "abstain", None
        reason = f"best match {best.name} scored {b:.2f}, below the threshold {cfg.threshold:.2f}{note}"
    elif len(strong) < need and not (sem_on and (best.semantic or 0.0) >= cfg.threshold):
        decision, selected = "abstain", None
        what = f"only {', '.join(strong)}" if strong else "no word"
        reason = (f"best match {best.name} scored {b:.2f} but matched {what} outside its body; "
                  f"{need} request words must match its name or description (min_terms){note}")  # fmt: skip
    elif second is not None and b - s < cfg.margin:
        decision, selected = "ask", None
        reason = (f"{best.name} ({b:.2f}) and {second.name} ({s:.2f}) are closer than the margin "
                  f"{cfg.margin:.2f}: ask which one is meant{note}")  # fmt: skip
    else:
        decision, selected = "select", best.spec
        reason = (f"{best.name} scored {b:.2f} (threshold {cfg.threshold:.2f}) and leads "
                  f"{second.name if second else 'the rest'} by {b - s:.2f} (margin {cfg.margin:.2f}){note}")  # fmt: skip
    out = []
    for r, c in enumerate(cands):
        text = _describe(c)
        cc = conf(c)
        if r == 0:
            if decision == "select":
                text += "; chosen"
            elif decision == "ask":
                text += f"; too close to {second.name if second else '?'} to choose alone"
            else:
                text += f"; not chosen: {reason}"
        else:
            gap = b - cc
            if decision == "ask" and r == 1:
                text += f"; only {gap:.2f} behind {best.name} (margin {cfg.margin:.2f}): offered too"
            else:
                lost = f"{gap:.2f} behind {best.name}"
                missing = [w for w in best.words() if w not in c.words()]
                if missing:
                    lost += f", which also matched {', '.join(missing[:4])}"
                text += f"; lost: {lost}"
        out.append(dataclasses.replace(c, why=text))
    return decision, selected, reason, out


# --------------------------------------------------------------------------------------
# Module-level API (one shared router, so caches survive between calls)
# --------------------------------------------------------------------------------------

_DEFAULT: Router | None = None
_DEFAULT_LOCK = threading.Lock()


def default_router(config: RouterConfig | None = None) -> Router:
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Router(config)
        elif config is not None:
            _DEFAULT.config = config
        return _DEFAULT


def route(request: str, specs: Any, actor: Actor = Actor.MODEL, overrides: Mapping[str, str] | None = None,
          adapter: Adapter = Adapter.EXTENSION, top: int | None = None, active: Collection[str] | None = None,
          restrict: Collection[str] | None = None, config: RouterConfig | None = None) -> Route:  # fmt: skip
    """Route with the shared router (its index cache survives between calls)."""
    return default_router().route(request, specs, actor, overrides, adapter, top, active, restrict, config)


def search(query: str, specs: Sequence[Spec], limit: int = 5) -> list[Spec]:
    """SkillSearch: the best `limit` matches among `specs` (already filtered for the model).

    Ranks without the select/ask/abstain decision (the model reads the cards and decides),
    but drops skills that scored nothing or only matched words they rule out.
    """
    if not specs or limit <= 0:
        return []
    r = default_router().route(query, list(specs), Actor.EVAL, top=limit)
    return [c.spec for c in r.candidates if c.raw > 0 or (c.semantic or 0.0) > 0][:limit]


def offline_matcher(snapshot_getter: Callable[[], Any]) -> Callable[[str, Sequence[tuple[str, str]]], str | None]:
    """A `Matcher` for the offline model: route among the listed names; act only on `select`.

    `snapshot_getter()` returns the current catalog snapshot (or None). The index is the
    snapshot's (cached); skills that are not listed are filtered out, not re-indexed.
    """

    def match(request: str, listed: Sequence[tuple[str, str]]) -> str | None:
        snap = snapshot_getter()
        if snap is None or not listed:
            return None
        from codebot.skills.spec import normalize_name

        wanted = {normalize_name(n) for n, _ in listed}
        r = default_router().route(request, snap, Actor.MODEL, restrict=wanted)
        return r.selected.name if r.decision == "select" and r.selected is not None else None

    return match


def preselect(request: str, specs: Sequence[Spec], k: int, recent: Collection[str] = ()) -> list[Spec]:
    """`skills.preselect: K`: the top-K routed skills plus recently used ones, in input order."""
    if k <= 0 or len(specs) <= k:
        return list(specs)
    from codebot.skills.spec import normalize_name

    r = default_router().route(request, list(specs), Actor.EVAL, top=k)
    keep = {id(c.spec) for c in r.candidates[:k]}
    recent_keys = {normalize_name(n) for n in recent}
    return [s for s in specs if id(s) in keep or s.key in recent_keys]


# --------------------------------------------------------------------------------------
# Evaluation (`codebot skills eval`)
# --------------------------------------------------------------------------------------

KINDS = ("positive", "near_miss", "negative")


@dataclass(frozen=True, slots=True)
class Case:
    prompt: str
    expected: str | None
    kind: str
    also: tuple[str, ...] = ()
    line: int = 0

    def acceptable(self) -> frozenset[str]:
        from codebot.skills.spec import normalize_name

        names = [self.expected, *self.also] if self.expected else []
        return frozenset(normalize_name(n) for n in names)


def parse_cases(lines: Iterable[str]) -> tuple[list[Case], list[str]]:
    """JSONL cases -> (cases, errors with line numbers)."""
    import json

    cases: list[Case] = []
    errors: list[str] = []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: not JSON ({exc.msg})")
            continue
        if not isinstance(d, dict) or not isinstance(d.get("prompt"), str) or not d["prompt"].strip():
            errors.append(f"line {n}: needs a non-empty string 'prompt'")
            continue
        expected = d.get("expected")
        kind = d.get("kind") or ("negative" if expected is None else "positive")
        also = d.get("also") or []
        if expected is not None and not isinstance(expected, str):
            errors.append(f"line {n}: 'expected' must be a skill name or null")
            continue
        if kind not in KINDS:
            errors.append(f"line {n}: 'kind' must be one of {', '.join(KINDS)}")
            continue
        if kind == "positive" and expected is None:
            errors.append(f"line {n}: a positive case needs an 'expected' skill")
            continue
        if not isinstance(also, list) or not all(isinstance(a, str) for a in also):
            errors.append(f"line {n}: 'also' must be a list of skill names")
            continue
        cases.append(Case(d["prompt"], expected, kind, tuple(also), n))
    return cases, errors


def _pct(values: Sequence[float], p: float) -> float:
    if not values:
        return 0.0
    v = sorted(values)
    k = (len(v) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def evaluate(cases: Sequence[Case], route_fn: Callable[[str], Route], repeat: int = 1,
             known: Collection[str] | None = None) -> dict[str, Any]:  # fmt: skip
    """Run every case `repeat` times and compute the report (see docs/routing.md).

    - hit_at_1: positives whose top-ranked eligible skill is acceptable and the router did
      not abstain (a `select`, or an `ask` that offers it first).
    - precision: of all `select` decisions, the share that chose an acceptable skill.
    - recall: positives for which an acceptable skill was selected outright.
    - abstain_rate_negatives: negatives that got `abstain`.
    - near_miss_accuracy: near misses routed right: to an acceptable skill (first choice of
      a select/ask) when one is expected, to `abstain` when none is.
    """
    from codebot.skills.spec import normalize_name

    results: list[dict[str, Any]] = []
    latencies: list[float] = []
    unstable = 0
    confusion: Counter[tuple[str, str]] = Counter()
    counts = {k: 0 for k in KINDS}
    hits = {k: 0 for k in KINDS}
    selects = correct_selects = recall_hits = abstain_neg = 0
    by_decision = {k: Counter() for k in KINDS}
    unknown_names: set[str] = set()
    known_keys = {normalize_name(k) for k in known} if known is not None else None
    for case in cases:
        runs = [route_fn(case.prompt) for _ in range(max(1, repeat))]
        latencies.extend(r.latency_ms for r in runs)
        sigs = {(r.decision, r.selected.key if r.selected else None, r.top.spec.key if r.top else None) for r in runs}
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
        if ok_names:
            hit = r.decision != "abstain" and top in ok_names
        else:
            hit = r.decision == "abstain"
        if hit:
            hits[case.kind] += 1
        if r.decision == "select":
            selects += 1
            if sel in ok_names:
                correct_selects += 1
        if case.kind == "positive" and r.decision == "select" and sel in ok_names:
            recall_hits += 1
        if case.kind == "negative" and r.decision == "abstain":
            abstain_neg += 1
        if not hit:
            got = sel or (top if r.decision == "ask" else None) or "(abstain)"
            confusion[(case.expected or "(none)", got)] += 1
        results.append({
            "line": case.line, "prompt": case.prompt, "kind": case.kind, "expected": case.expected,
            "decision": r.decision, "selected": r.selected.name if r.selected else None,
            "top": r.top.name if r.top else None, "score": round(r.top.score, 4) if r.top else 0.0,
            "options": [s.name for s in r.options], "ok": hit,
        })  # fmt: skip

    def rate(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "cases": len(cases),
        "counts": counts,
        "hit_at_1": rate(hits["positive"], counts["positive"]),
        "precision": rate(correct_selects, selects),
        "recall": rate(recall_hits, counts["positive"]),
        "abstain_rate_negatives": rate(abstain_neg, counts["negative"]),
        "near_miss_accuracy": rate(hits["near_miss"], counts["near_miss"]),
        "decisions": {k: dict(v) for k, v in by_decision.items()},
        "confusion": [{"expected": e, "got": g, "count": c} for (e, g), c in confusion.most_common()],
        "repeat": max(1, repeat),
        "stability": rate(len(cases) - unstable, len(cases)),
        "latency_ms": {"p50": round(_pct(latencies, 0.5), 3), "p95": round(_pct(latencies, 0.95), 3),
                       "max": round(max(latencies, default=0.0), 3)},  # fmt: skip
        "unknown_names": sorted(unknown_names),
        "results": results,
    }
