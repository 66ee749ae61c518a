"""The `Router`: which skill (if any) a request is for, and why.

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
   requests. Concept questions ("what is…/why…") are answered, not routed, how-to
   questions need `min_terms` words, and small talk never routes, because skills are
   workflows, not answers. `select` when the best clears `threshold`, matches at least
   `min_terms` request words outside its body, and beats the runner-up by `margin`;
   `ask` when the two are closer than that; `abstain` otherwise. Every number lives in
   its group of `config` and can be overridden in config as `skills.router: {...}`.
6. **The rest of the ranking.** After the decision's pick (its two, when it asks; none,
   when it abstains), the first `LISTING_DEPTH` (40; `rerank_share`, 1%, of a catalog
   over 4,000) are ordered
   by score x coverage (`rank`): the share of the request words' worth a skill matches,
   so one rare name word does not outrank most of the request. Its word statistics count
   each folder as at most `folder_cap` skills (`Index.folder_idf`): one big pack cannot
   cheapen its vocabulary; and in a folder over the cap, look-alikes (the same request
   words as one shown above) give way (`rank.crowd_order`).

The index is built once per catalog snapshot and cached; on a reload only edited skills
are read and tokenized again, and their rows patched into the index (`cache`). With a
store (`router_from_settings` gives the shared router one under `$CODEBOT_HOME/cache`), a
new process memory-maps the index saved by the last one instead of building it
(`store`); `warmup` holds the calls front ends make to have it ready before it is needed.

This module holds the `Router`; `router` holds the shared one and the module-level API
built on it. Its pieces: `config` (every number), `index/` (words to terms, the BM25
index, its caches in memory and on disk), `shape` (negative clauses, request shapes),
`weights` (what each request word counts), `result` (what a route returns), `decide`
(select, ask or abstain; `explain` writes each candidate's why), `rank` (the order of
the candidates), `translate` and `fused` (a request in another language, with the
multilingual encoder; `ahead` starts its semantic scores on a worker thread). It never imports
`eval` (`skills eval` measures it from outside). Importing it is cheap: numpy and bm25s
are imported inside the functions that need them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from codebot.skills.files import Spec
from codebot.skills.invoke import Actor, Adapter, normalize_overrides
from codebot.skills.route.ahead import Ahead
from codebot.skills.route.chat_meaning import SmallTalkMeaning
from codebot.skills.route.config import RouterConfig
from codebot.skills.route.decide import decide, held_in_front
from codebot.skills.route.edits import edit_kind
from codebot.skills.route.eligible import filtered_out, narrow
from codebot.skills.route.explain import explain
from codebot.skills.route.fused import lexical_side, ranked
from codebot.skills.route.index.cache import IndexCache
from codebot.skills.route.index.index import Index
from codebot.skills.route.index.text import Tokenizer
from codebot.skills.route.lang import detect, foreign_terms, well_formed, without_elisions
from codebot.skills.route.rank import Staged, second_stage, top_rows
from codebot.skills.route.result import Candidate, Route, SemanticScorer
from codebot.skills.route.shape import destination, edges, request_shape, writes_name
from codebot.skills.route.similarities import Similarities, most_similar_key
from codebot.skills.route.translate import Translator
from codebot.skills.route.weights import term_weights

if TYPE_CHECKING:  # the store (and hashlib, numpy's file format) loads when a router saves
    import numpy as np
    from numpy.typing import NDArray

    from codebot.skills.catalog import Snapshot
    from codebot.skills.route.index.cache import IndexStats
    from codebot.skills.route.index.store import IndexStore

    _Mask = NDArray[np.bool_]  # a row mask


class Router:
    """Routes requests among skills. `indexes` keeps the index of the current snapshot and
    the token caches that make rebuilds incremental; the router adds the decision."""

    def __init__(
        self,
        config: RouterConfig | None = None,
        semantic: SemanticScorer | None = None,
        store: IndexStore | None = None,
    ) -> None:
        self.indexes = IndexCache(config or RouterConfig(), store)
        self.semantic = semantic
        self.semantic_error: str | None = None  # why the semantic scorer was switched off
        self.translator = Translator()
        self.chat_meaning = SmallTalkMeaning()  # small talk by meaning (`chat_meaning`)
        #: the index, eligibility mask and eligible specs of the last semantic scoring
        self._eligible: tuple[Index, bytes, tuple[Spec, ...]] | None = None

    @property
    def config(self) -> RouterConfig:
        return self.indexes.config

    @config.setter
    def config(self, config: RouterConfig) -> None:
        self.indexes.config = config

    @property
    def stats(self) -> IndexStats:
        """Index builds, bodies read and the last build's time (see `IndexCache`)."""
        return self.indexes.stats

    @property
    def tokenizer(self) -> Tokenizer:
        return self.indexes.tokenizer

    def index(self, specs: Snapshot | Sequence[Spec]) -> tuple[Index, _Mask | None]:
        """The index for `specs` and a row mask or None (see `IndexCache.index`)."""
        return self.indexes.index(specs)

    # -- routing --------------------------------------------------------------------

    def route(
        self,
        request: str,
        specs: Snapshot | Sequence[Spec],
        actor: Actor = Actor.MODEL,
        overrides: Mapping[str, str] | None = None,
        adapter: Adapter = Adapter.EXTENSION,
        top: int | None = None,
        active: Collection[str] | None = None,
        restrict: Collection[str] | None = None,
        config: RouterConfig | None = None,
    ) -> Route:
        """Route one request among `specs` (a Snapshot or a sequence of Spec).

        `active`: keys of conditional skills (`paths:`) whose paths matched; the others are
        filtered out (None: do not filter on paths). `restrict`: only these keys may be
        chosen (e.g. the names listed to the model); the others are filtered out.
        """
        t0 = time.perf_counter()
        cfg = config or self.config
        top = cfg.top if top is None else top
        if config is not None and config.index_key != self.config.index_key:
            self.config = config  # the index depends on these numbers: rebuild on demand
        request = well_formed(request)
        shape = request_shape(request)
        if shape == "chat":  # decided on the words alone: no index is loaded or built for it
            return self._small_talk(request, cfg, actor, t0)
        import numpy as np  # after small talk, which a greeting's process need not load it for

        idx, subset, index_ms = self._timed_index(specs)
        t_index = t0 + index_ms / 1000  # latency_ms counts everything but the index's build

        # 1. eligibility, before anything is ranked
        mask, denied = idx.eligibility(
            actor, normalize_overrides(overrides) if overrides else {}, adapter
        )
        mask, other = narrow(idx, mask, subset, active, restrict)

        # 2. lexical scores, normalised by what the request's words are worth; the semantic
        # scores start ahead, on a worker thread, while the words are read (`ahead`)
        lang = detect(request)
        ahead = (
            Ahead(lambda: self._semantic_scores(request, idx, mask))
            if self._semantic_for(lang) is not None
            else None
        )
        surface, known, neg_ids, lang, similar = self._request_terms(idx, request, lang)
        terms = list(surface)
        counted = sorted(set(known) | set(neg_ids))
        # in a request in another language than the skills' (English), a word no skill uses
        # is untranslated, not a sign of another job: it does not count against the skills
        n_oov = len(terms) - len(counted) if lang == "en" else 0
        semantic = self._semantic_for(lang)
        if not known and semantic is None:
            return self._empty(
                request, terms, shape, cfg, actor, t_index, _no_match(terms), index_ms
            )
        ask = edges(request)  # where the person's own words are, in a long paste
        dest = destination(ask)
        weight, kinds = term_weights(idx, ask, surface, known, cfg, dest, similar)
        raw = idx.scores(known, neg_ids, 1.0, weight)  # a ruled-out word costs its worth
        # in a catalog of a few skills, most words of any request are in none of them, which
        # says nothing about the one it names: they do not count against it either
        bound = _bound(idx, weight, counted, n_oov, cfg, int(mask.sum()))
        norm = raw / max(bound, 1e-9)

        # 3. who was filtered out (only those that would have ranked)
        filtered = filtered_out(idx, mask, norm, denied, other, max(top, 5))

        # 4. rank the eligible ones (optionally fused with semantic scores)
        elig = np.where(mask, norm, -np.inf)
        k = min(max(top, 2), idx.n)
        positive = np.nonzero(elig > 0)[0]
        staged = (
            cfg.rerank.second_stage and len(known) > 1 and semantic is None and len(positive) > 2
        )
        # the word ranking's side of a fusion across languages needs no similarity: it is
        # drawn while the worker still makes them
        lexical = (
            lexical_side(idx, elig, k, cfg, known)
            if ahead is not None and semantic is not None and lang != "en"
            else None
        )
        sem = ahead.result() if ahead is not None and semantic is not None else {}
        # worded as no phrase of `chat_phrases` is, but small talk by its meaning
        if sem and lang != "en" and (chat := self.chat_meaning.why(request, semantic)):
            return self._empty(request, terms, "chat", cfg, actor, t_index, chat, index_ms)
        got = ranked(idx, elig, mask, sem, k, cfg, lang, known, lexical, similar)
        stage: Staged | None = None

        def make(i: int) -> Candidate:
            matched, ruled_out = _matches(idx, i, known, surface)
            return Candidate(
                idx.specs[i],
                float(norm[i]) if mask[i] else 0.0,
                float(raw[i]),
                matched,
                ruled_out,
                sem.get(idx.specs[i].key) if sem else None,
                (stage.first_rank if stage else got.lex_rank).get(i),
                fused=got.fused.get(i),
                coverage=stage.coverage.get(i) if stage else None,
                ordered_by=stage.ordered_by.get(i) if stage else None,
                crowded=stage.crowded.get(i, 0) if stage else got.crowd.get(i, 0),
                leads=got.leads.get(i),
                raised_from=got.raised.get(i),
            )

        # 5. decide on the first stage's first two, then order what is shown after the pick
        first = [make(i) for i in got.order[: 2 if staged else k]]
        # across languages, the word ranking's own first two: clear words decide where the
        # fused ranking's first two disagree (`decide._words_decide`)
        by_words = [make(i) for i in top_rows(elig, positive, 2)] if sem and lang != "en" else []
        decision, selected, reason = decide(
            first,
            cfg,
            shape,
            len(counted) + n_oov,
            sem_on=bool(sem),
            # across languages the two scorers agreeing is the evidence: few words can match
            sem_best=most_similar_key(sem) if sem and lang != "en" else None,
            n_eligible=int(mask.sum()),
            worth=lambda w: self._worth(idx, w, surface, similar),
            named={w.lower() for w in kinds["emphasized"]},
            moved_to=dest,
            edit=(edit_kind(request) or "local") if shape == "edit" else None,
            by_words=by_words,
            spelled=bool(by_words) and writes_name(ask, by_words[0].name),
        )
        first = _chosen_first(first, by_words, selected)
        cands = first
        if staged:
            # A second stage orders the first LISTING_DEPTH (rerank_share of a large catalog)
            # by score x coverage, each folder counted as at most folder_cap skills and a
            # bigger folder's look-alikes giving way (rank.second_stage). What the decision
            # chose, or offers when it asks, stays in front; an abstention chose nothing.
            w = np.asarray([weight.get(t, 1.0) for t in known], dtype=np.float64)
            stage = second_stage(
                idx,
                elig,
                positive,
                got.order[: held_in_front(decision)],
                raw,
                known,
                w,
                cfg,
                1.0 / max(bound, 1e-9),
                k,
            )
            cands = [make(i) for i in stage.rows]
        cands = explain(cands, decision, reason, first[:2], cfg, sem_on=bool(sem))
        return Route(
            request,
            decision,
            selected,
            tuple(cands[:top] if top else cands),
            tuple(filtered),
            reason,
            tuple(terms),
            shape,
            cfg.decision.threshold,
            cfg.decision.margin,
            (time.perf_counter() - t_index) * 1000,
            actor,
            index_ms,
            kinds["emphasized"],
            kinds["left_behind"],
            kinds["destination"],
        )

    def _semantic_for(self, lang: str) -> SemanticScorer | None:
        """The semantic scorer for a request in `lang`: one for other languages only (the
        multilingual encoder) sits out English requests, where the lexical ranking is the
        better one (docs/routing.md, "Languages")."""
        if lang == "en" and getattr(self.semantic, "other_languages_only", False):
            return None
        return self.semantic

    def _small_talk(self, request: str, cfg: RouterConfig, actor: Actor, t0: float) -> Route:
        """Small talk abstains on the words alone: no index is loaded or built for it."""
        terms = list(dict.fromkeys(t for t, _ in self.tokenizer.with_surface(request)))
        return self._empty(
            request, terms, "chat", cfg, actor, t0, "small talk: no skill is needed", 0.0
        )

    def _timed_index(self, specs: Snapshot | Sequence[Spec]) -> tuple[Index, _Mask | None, float]:
        """`index(specs)` and how long a (re)build of it took, in ms (0.0 when it was made)."""
        builds = self.stats["builds"]
        idx, subset = self.index(specs)
        index_ms = self.stats["last_build_ms"] if self.stats["builds"] != builds else 0.0
        return idx, subset, index_ms

    def _request_terms(
        self, idx: Index, request: str, lang: str | None = None
    ) -> tuple[dict[str, str], list[int], list[int], str, dict[str, float]]:
        """The request's terms (each with the first word that gave it, in order), the ids
        of those some skill's postings hold (`known`), of those some skill rules out, the
        request's language, and the terms read from its words by the multilingual encoder
        with their similarity. A request in another language is read against the English
        index by its language's rules (stop words, stems, compounds: `lang`) and, with a
        scorer that `translates`, its other words as their nearest English words of the
        catalog (`translate`). `lang`: the request's language when already detected."""
        lang = detect(request) if lang is None else lang
        surface: dict[str, str] = {}
        lex = idx.lexicon
        if lang == "en":
            pairs = self.tokenizer.with_surface(request)
        else:

            def in_index(t: str) -> bool:
                i = lex.get(t)
                return i is not None and i < idx.n_terms and idx.indptr[i + 1] > idx.indptr[i]

            words = [(w, w) for w in self.tokenizer.words(without_elisions(request, lang))]
            snowball = self.config.stemmer == "snowball"
            pairs = foreign_terms(words, lang, self.tokenizer.term, in_index, snowball)
        for t, word in pairs:
            surface.setdefault(t, word)
        similar: dict[str, float] = {}
        if lang != "en" and getattr(self.semantic, "translates", False):
            similar = self._translated(idx, request, lang, in_index, surface)
        ids = [lex[t] for t in surface if t in lex and lex[t] < idx.n_terms]
        known = [i for i in ids if idx.indptr[i + 1] > idx.indptr[i]]
        neg_ids = [i for i in ids if i in idx.neg]
        return surface, known, neg_ids, lang, similar

    def _translated(
        self,
        idx: Index,
        request: str,
        lang: str,
        in_index: Callable[[str], bool],
        surface: dict[str, str],
    ) -> dict[str, float]:
        """Terms `translate` reads from the request's other words (added to `surface`),
        with their similarity; a scorer that fails is switched off (`semantic_error`)."""
        embed = getattr(self.semantic, "embed", None)
        if embed is None:
            return {}
        try:
            found = self.translator.terms(
                idx, self.tokenizer, embed, request, lang, in_index, surface
            )
        except Exception as exc:  # a broken optional model must not break routing
            self.semantic, self.semantic_error = None, str(exc)
            return {}
        for t, piece, _ in found:
            surface.setdefault(t, piece)
        return {t: sim for t, _, sim in found}

    def _semantic_scores(self, request: str, idx: Index, mask: _Mask) -> Mapping[str, float]:
        """The semantic scorer's similarities for the eligible skills; a scorer that fails
        is switched off (`semantic_error` says why) and the route stays lexical."""
        import numpy as np

        scorer = self.semantic
        if scorer is None:  # switched off meanwhile
            return {}
        key, got = mask.tobytes(), self._eligible
        if got is None or got[0] is not idx or got[1] != key:  # the same tuple: reused
            got = (idx, key, tuple(idx.specs[i] for i in np.nonzero(mask)[0].tolist()))
            self._eligible = got
        try:
            sims = scorer.score(request, got[2])
            return sims if isinstance(sims, Similarities) else dict(sims or {})
        except Exception as exc:  # a broken optional model must not break routing
            self.semantic, self.semantic_error = None, str(exc)
            return {}

    def _worth(
        self,
        idx: Index,
        word: str,
        surface: Mapping[str, str] | None = None,
        similar: Mapping[str, float] | None = None,
    ) -> float:
        """A request word's idf over the rarest word's (0..1): how much its match says (a
        word `translate` read, as much as it is alike). `surface`: the request's terms and
        how they are shown, which finds a translated word's term."""
        t = next((k for k, v in (surface or {}).items() if v == word), None)
        t = t or self.tokenizer.term(word)
        similar = similar or {}
        i = idx.lexicon.get(t) if t is not None else None
        if i is None or i >= idx.n_terms:
            return 0.0
        return float(idx.idf[i]) / max(idx.max_idf, 1e-9) * similar.get(t or "", 1.0)

    def _empty(
        self,
        request: str,
        terms: list[str],
        shape: str,
        cfg: RouterConfig,
        actor: Actor,
        t0: float,
        why: str,
        index_ms: float,
    ) -> Route:
        return Route(
            request,
            "abstain",
            None,
            (),
            (),
            why,
            tuple(terms),
            shape,
            cfg.decision.threshold,
            cfg.decision.margin,
            (time.perf_counter() - t0) * 1000,
            actor,
            index_ms,
        )


def _bound(
    idx: Index,
    weight: Mapping[int, float],
    counted: Sequence[int],
    n_oov: int,
    cfg: RouterConfig,
    n_eligible: int,
) -> float:
    """What the request's words are worth: the most a skill could score for them, each at
    the best field any skill holds it in (`Index.reach`: a word only bodies hold is worth
    `body_weight` of one a description holds; words no skill uses count `oov_weight` of the
    rarest, but not among `small_catalog` skills or fewer), which a score is divided by."""
    if n_eligible <= cfg.decision.small_catalog:
        n_oov = 0
    return (
        sum(float(idx.unit[i]) * float(idx.reach[i]) * weight.get(i, 1.0) for i in counted)
        + n_oov * cfg.decision.oov_weight * idx.max_idf * idx.unit_scale
    )


def _chosen_first(
    first: list[Candidate], by_words: list[Candidate], selected: Spec | None
) -> list[Candidate]:
    """The decision's first candidates with what it selected in front: the words may have
    chosen another than the fused first (`decide._words_decide`), from the word ranking."""
    if selected is None or not first or selected is first[0].spec:
        return first
    chosen = next(c for c in [*first, *by_words] if c.spec is selected)
    return [chosen, *[c for c in first if c.spec is not selected]]


def _no_match(terms: Sequence[str]) -> str:
    """Why a request no skill's postings know abstains."""
    if terms:
        return "no word of the request appears in any skill"
    return "the request has no content words"


def _matches(
    idx: Index, i: int, known: Sequence[int], surface: Mapping[str, str]
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """Row `i`'s matched request words by field, and the words it rules out, as written."""
    lex = idx.lexicon
    fields = idx.field_matches(i, known)
    matched = {
        f: tuple(surface[t] for t in surface if lex.get(t) in hit) for f, hit in fields.items()
    }
    ruled_out = tuple(surface[t] for t in surface if t in lex and i in _member(idx.neg.get(lex[t])))
    return matched, ruled_out


def _member(arr: NDArray[np.int32] | None) -> Collection[int]:
    return () if arr is None else set(arr.tolist())  # small: docs that rule one word out
