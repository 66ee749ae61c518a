"""What routing returns: `Route` (the decision and its reasons), the ranked `Candidate`s
and `Filtered` skills, plus the `SemanticScorer` protocol for an optional second opinion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from codebot.skills.files import Spec
from codebot.skills.invoke import Actor
from codebot.skills.route.config import FIELDS


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
    fused: float | None = None  # lexical + semantic (fusion "sum"), what ranks it
    coverage: float | None = None  # share of the request words' worth it matches (when reranked)
    # what the second stage orders it by (when reranked): the score, re-weighed with each
    # folder counted as at most folder_cap skills, x coverage
    ordered_by: float | None = None
    # how many skills of its folder shown above it match every request word it matches:
    # ordered_by is then score x coverage x crowd_decay**crowded (rank.crowd_order)
    crowded: int = 0
    # across languages: how many times the words of the skill the fusion put first it scores
    # (inf: that skill matched none), when that put it first (fused.clear_lead_first)
    leads: float | None = None
    # across languages: its place in the fused order when, as the word ranking's leader, it
    # was shown among the first `top` instead (fused.word_leader_shown)
    raised_from: int | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def words(self) -> list[str]:
        seen: dict[str, None] = {}
        for f in FIELDS:
            for w in self.matched.get(f, ()):
                seen.setdefault(w, None)
        return list(seen)

    def to_json(self) -> dict[str, object]:
        d: dict[str, object] = {
            "name": self.spec.name,
            "score": round(self.score, 4),
            "raw": round(self.raw, 3),
            "matched": self.words(),
            "fields": {f: list(w) for f, w in self.matched.items() if w},
            "penalized": list(self.penalized),
            "eligible": self.eligible,
            "why": self.why,
            "source": self.spec.source.value,
        }
        if self.semantic is not None:
            d["semantic"] = round(self.semantic, 4)
        if self.fused is not None:
            d["fused"] = round(self.fused, 4)
        if self.coverage is not None:
            d["coverage"] = round(self.coverage, 4)
        if self.ordered_by is not None:
            d["ordered_by"] = round(self.ordered_by, 4)
        if self.crowded:
            d["crowded"] = self.crowded
        if self.leads is not None:  # "no words": the skill it displaced matched none
            d["leads"] = round(self.leads, 2) if self.leads != float("inf") else "no words"
        if self.raised_from is not None:
            d["raised_from"] = self.raised_from
        return d


@dataclass(frozen=True, slots=True)
class Filtered:
    spec: Spec
    reason: str
    decided_by: str
    score: float

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.spec.name,
            "reason": self.reason,
            "decided_by": self.decided_by,
            "score": round(self.score, 4),
            "eligible": False,
        }


@dataclass(frozen=True, slots=True)
class Route:
    request: str
    decision: str  # "select" | "ask" | "abstain"
    selected: Spec | None
    candidates: tuple[Candidate, ...]
    filtered: tuple[Filtered, ...]
    reason: str
    terms: tuple[str, ...]
    shape: str  # "task" | "howto" | "concept" | "chat" | "edit" (see request_shape)
    threshold: float
    margin: float
    latency_ms: float  # routing only; a (re)build of the index is in index_ms
    actor: Actor = Actor.MODEL
    index_ms: float = 0.0
    emphasized: tuple[
        str, ...
    ] = ()  # request words written as names, counted name_case_weight times
    left_behind: tuple[str, ...] = ()  # words of what the request moves away from, counted less
    destination: tuple[str, ...] = ()  # words of where the request moves things, counted more

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

    def to_json(self) -> dict[str, object]:
        return {
            "request": self.request,
            "decision": self.decision,
            "selected": self.selected.name if self.selected else None,
            "options": [s.name for s in self.options],
            "reason": self.reason,
            "candidates": [c.to_json() for c in self.candidates],
            "filtered": [f.to_json() for f in self.filtered],
            "terms": list(self.terms),
            "emphasized": list(self.emphasized),
            "left_behind": list(self.left_behind),
            "destination": list(self.destination),
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

    def score(self, query: str, specs: Sequence[Spec]) -> Mapping[str, float]: ...
