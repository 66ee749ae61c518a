"""The decision among ranked candidates: select, ask or abstain, and why (each candidate's
own `why` is written by `explain`).

Also what a request's shape asks of the match: skills are workflows, so a concept question
is answered, not routed, and a how-to question needs `min_terms` words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from codebot.skills.files import Spec
from codebot.skills.route.config import RouterConfig
from codebot.skills.route.edits import claims_edit
from codebot.skills.route.result import Candidate

_NAME_SPLIT = re.compile(r"[-_:\s]+")


def held_in_front(decision: str) -> int:
    """How many of the first stage's candidates the decision keeps first, above the second
    stage's order: its pick, the two it asks between, none when it abstains."""
    return {"select": 1, "ask": 2}.get(decision, 0)


_SHAPE_NOTE = {
    "howto": " (a how-to question: min_terms words needed)",
}


def _strong_words(c: Candidate) -> list[str]:
    """Request words a candidate matched outside its body (name, description, when_to_use).
    The word of a one-word name (`loop`, `fix`, `migrate`) is as often an everyday word: it
    counts only where the description (or when_to_use) has it too."""
    seen: dict[str, None] = {}
    one_word = len([p for p in _NAME_SPLIT.split(c.name) if p]) < 2
    for f in ("description", "when_to_use") if one_word else ("name", "description", "when_to_use"):
        for w in c.matched.get(f, ()):
            seen.setdefault(w, None)
    return list(seen)


def decide(
    cands: list[Candidate],
    cfg: RouterConfig,
    shape: str = "task",
    n_content: int = 0,
    sem_on: bool = False,
    n_eligible: int | None = None,
    worth: Callable[[str], float] | None = None,
    named: Collection[str] = (),
    moved_to: Collection[str] = (),
    edit: str | None = None,
    sem_best: str | None = None,
    by_words: Sequence[Candidate] = (),
    spelled: bool = False,
) -> tuple[str, Spec | None, str]:
    """Apply threshold, evidence and margin rules to the first two of `cands` (the first
    stage's): the decision, the chosen skill and the reason. `explain` then writes each
    shown candidate's `why`.

    `worth(word)` (0..1, the
    word's idf over the rarest word's) weighs the evidence for `min_evidence`: "data" and
    "engineer" are two words, but together worth less than one "terraform". `named`: the
    request words (lower case) the person wrote as names and that are rare in the catalog;
    `moved_to`: the words of where the request moves things. Either can anchor a choice.
    `edit`: the kind of small, local edit the request is (shape "edit"): it routes only to a
    skill whose own description claims that kind of edit. `sem_best`: in a request in
    another language than the skills', the key of the most similar eligible skill: when it
    is also the best candidate, the two scorers agree, which stands in for word evidence.
    `by_words`: in such a request, the word ranking's first two (see `_words_decide`);
    `spelled`: the request writes the whole name of the first of them.
    """
    if not cands:
        return "abstain", None, "no eligible skill matched any word of the request"
    if edit is not None and not claims_edit(edit, cands[0].spec.description):
        return (
            "abstain",
            None,
            f"a small, local edit ({edit}): {cands[0].name} scored {cands[0].score:.2f}, but "
            f"its description does not claim {edit} edits; no skill is needed",
        )

    if shape == "concept":
        # what the old question_penalty (0.1) did in effect: no case routed through it
        return (
            "abstain",
            None,
            f'a concept question ("what is …", "why …") is answered, not routed: skills are '
            f"workflows ({cands[0].name} scored {cands[0].score:.2f})",
        )
    best = cands[0]
    second = cands[1] if len(cands) > 1 else None
    b, s = confidence(best, sem_on), confidence(second, sem_on) if second else 0.0
    ev = _evidence(cands, cfg, shape, n_content, n_eligible, worth, named, moved_to)
    if sem_best is not None and shape == "task":
        ev = _across(best, cands, ev, cfg, sem_best)
    decision, selected, reason = _verdict(best, second, b, s, ev, cfg)
    disagree = decision == "ask" and second is not None and s > b
    if by_words and (disagree or (spelled and selected is not by_words[0].spec)):

        def by_words_alone(two: list[Candidate]) -> tuple[str, Spec | None, str]:
            return decide(
                two,
                cfg,
                shape,
                n_content,
                n_eligible=n_eligible,
                worth=worth,
                named=named,
                moved_to=moved_to,
            )

        words = _words_decide(best, second, by_words, by_words_alone, spelled)
        if words is not None:
            return words
    if decision == "select" and (len(ev.strong) < ev.need or ev.crossed or ev.vouched):
        reason += _select_note(best, ev, cfg)
    return decision, selected, reason


@dataclass(frozen=True, slots=True)
class _Evidence:
    """What the decision weighs about the best candidate (see `decide`)."""

    need: int  # request words it must match outside its body (min_terms, or fewer)
    threshold: float
    note: str  # how the request's shape or the catalog's size moved the bar
    strong: list[str]  # request words it matched outside its body
    backing: list[str]  # further words its body alone matched
    corroborated: bool
    evidence: float | None  # what the strong words are worth together (None: not weighed)
    anchors: dict[str, str]  # word -> why it can name the tool alone
    lexical_second: float
    anchored: bool
    # in another language, it is also the most similar skill of all: the encoder's word
    # stands in for the lexical evidence (an English similarity never decides)
    vouched: bool = False
    crossed: bool = False
    # in another language, the best lexical match is also the most similar candidate
    agreed: bool = False


def _bar(
    best: Candidate, cfg: RouterConfig, shape: str, n_content: int, n_eligible: int | None
) -> tuple[int, float, str]:
    """How many words must match outside the body, the threshold, and why (a note)."""
    note = _SHAPE_NOTE.get(shape, "")
    # a one-word task ("kubectl") may match on that word; a question needs min_terms
    need = (
        cfg.decision.min_terms
        if (shape in _SHAPE_NOTE or not n_content)
        else min(cfg.decision.min_terms, n_content)
    )
    threshold = cfg.decision.threshold
    if (
        shape == "task"
        and n_eligible is not None
        and n_eligible <= cfg.decision.small_catalog
        and best.matched.get("name")
    ):
        # in a handful of skills, a request that names one ("write tests for utils.py")
        # means it; and most of its other words are in no skill, which says nothing here
        need = 1
        note += (
            f" (a catalog of {n_eligible} skills and a request naming {best.name}: one word "
            "of its name is enough)"
        )
    return need, threshold, note


def _anchors(
    best: Candidate,
    strong: list[str],
    cfg: RouterConfig,
    worth: Callable[[str], float] | None,
    named: Collection[str],
    moved_to: Collection[str],
) -> dict[str, str]:
    """The words that can name the tool alone, when it ranks first, and why:
    - a rare word of the skill's own name. Not a one-word name ("merge", "review"): that
      word is as often an everyday verb;
    - a rare word the person wrote as a name ("40 DOIs", "NVDA") in its name or description;
    - where the request moves things ("onto uv", "to Playwright"), in its name."""
    anchors: dict[str, str] = {}
    if len([p for p in _NAME_SPLIT.split(best.name) if p]) >= 2 and worth is not None:
        for w in best.matched.get("name", ()):
            if worth(w) >= cfg.decision.rare_worth:
                anchors.setdefault(
                    w, f"is a rare word of its name (rare_worth {cfg.decision.rare_worth:.2f})"
                )
    for w in strong:
        if w.lower() in named:
            anchors.setdefault(w, "is a rare word the request writes as a name")
    for w in best.matched.get("name", ()):
        if w.lower() in moved_to:
            anchors.setdefault(w, "is in its name and is where the request moves things")
    return anchors


def _evidence(
    cands: list[Candidate],
    cfg: RouterConfig,
    shape: str,
    n_content: int,
    n_eligible: int | None,
    worth: Callable[[str], float] | None,
    named: Collection[str],
    moved_to: Collection[str],
) -> _Evidence:
    best = cands[0]
    second = cands[1] if len(cands) > 1 else None
    need, threshold, note = _bar(best, cfg, shape, n_content, n_eligible)
    strong = _strong_words(best)
    # words the body alone matched: one strong word backed by several of them is a match
    # ("write the CHANGELOG entry from git log…": changelog + tagging, entry, git, log, fixed)
    backing = [w for w in best.matched.get("body", ()) if w not in strong]
    corroborated = (
        cfg.decision.corroboration > 0
        and len(strong) >= 1
        and len(backing) >= cfg.decision.corroboration
    )
    evidence = sum(worth(w) for w in strong) if worth is not None else None
    anchors = _anchors(best, strong, cfg, worth, named, moved_to)
    lexical_second = second.score if second is not None else 0.0  # the lead is a lexical one
    anchored = (
        cfg.decision.rare_worth > 0
        and shape == "task"
        and bool(anchors)
        and best.score >= cfg.decision.threshold
        and best.score >= lexical_second
    )
    return _Evidence(
        need,
        threshold,
        note,
        strong,
        backing,
        corroborated,
        evidence,
        anchors,
        lexical_second,
        anchored,
    )


def _abstention(best: Candidate, b: float, ev: _Evidence, cfg: RouterConfig) -> str | None:
    """Why the best candidate is not enough to route, or None."""
    strong, need, note = ev.strong, ev.need, ev.note
    if best.score < ev.threshold and not ev.vouched:
        return (
            f"best match {best.name} scored {best.score:.2f}, below the threshold "
            f"{ev.threshold:.2f}{note}"
        )
    if len(strong) < need and not (ev.corroborated or ev.vouched or ev.anchored or ev.agreed):
        what = f"only {', '.join(strong)}" if strong else "no word"
        return (
            f"best match {best.name} scored {b:.2f} but matched {what} outside its body; "
            f"{need} request words must match its name or description (min_terms), or one "
            f"and {cfg.decision.corroboration} more in its body (corroboration; it had "
            f"{len(ev.backing)}){note}"
        )
    if (
        need > 1
        and not (ev.corroborated or ev.vouched or ev.anchored or ev.agreed)
        and ev.evidence is not None
        and ev.evidence < cfg.decision.min_evidence
    ):
        return (
            f"best match {best.name} scored {b:.2f} but the words it matched outside its body "
            f"({', '.join(strong)}) are common ones, worth {ev.evidence:.2f} together "
            f"(min_evidence {cfg.decision.min_evidence:.2f}){note}"
        )
    return None


def _verdict(
    best: Candidate,
    second: Candidate | None,
    b: float,
    s: float,
    ev: _Evidence,
    cfg: RouterConfig,
) -> tuple[str, Spec | None, str]:
    """Select, ask or abstain, the chosen skill and the reason (before `_select_note`)."""
    why_not = _abstention(best, b, ev, cfg)
    if why_not is not None:
        return "abstain", None, why_not
    note = ev.note
    if second is not None and s > b:
        # only a request in another language, ranked by reciprocal rank fusion: its order
        # is by ranks, so the second can score higher than the first. Not "closer than the
        # margin": the two rankings point at different skills, and that is what is said.
        return (
            "ask",
            None,
            f"{best.name} comes first when the word and similarity rankings are fused, but "
            f"{second.name} scores higher ({s:.2f} against {b:.2f}): the two rankings "
            f"disagree, ask which one is meant{note}",
        )
    if second is not None and b - s < cfg.decision.margin:
        return (
            "ask",
            None,
            f"{best.name} ({b:.2f}) and {second.name} ({s:.2f}) are closer than the margin "
            f"{cfg.decision.margin:.2f}: ask which one is meant{note}",
        )
    return (
        "select",
        best.spec,
        f"{best.name} scored {b:.2f} (threshold {ev.threshold:.2f}) and leads "
        f"{second.name if second else 'the rest'} by {b - s:.2f} "
        f"(margin {cfg.decision.margin:.2f}){note}",
    )


def _words_decide(
    best: Candidate,
    second: Candidate | None,
    by_words: Sequence[Candidate],
    alone: Callable[[list[Candidate]], tuple[str, Spec | None, str]],
    spelled: bool = False,
) -> tuple[str, Spec | None, str] | None:
    """When the fused ranking's first two disagree (the second scores higher) and the second
    leads the word ranking, or when the request writes the whole name of the word ranking's
    first (`spelled`, "Loki Mode an. …"), wherever the fused ranking put it, its words
    decide: if they alone select it, as they would in English (threshold, `min_terms` or
    `min_evidence`, the margin over the word ranking's runner-up), it is chosen. The encoder
    stands in for word evidence a request in another language cannot give; where the words
    are that clear, its rank does not overrule them. `alone`: the decision on candidates
    without the encoder (English's rules). None: the words alone do not choose it, and the
    fused decision stands."""
    lead = by_words[0]
    if not spelled and (second is None or lead.spec is not second.spec):
        return None
    decision, selected, reason = alone(list(by_words[:2]))
    if decision != "select":
        return None
    if not spelled:
        why = f"{lead.name} leads the word ranking"
    elif lead.spec is best.spec:
        return decision, selected, f"the request writes {lead.name}'s whole name: {reason}"
    else:
        why = f"the request writes {lead.name}'s whole name"
    return (
        decision,
        selected,
        f"{best.name} comes first when the word and similarity rankings are fused, but "
        f"{why} and its words alone choose it: {reason}",
    )


def _select_note(best: Candidate, ev: _Evidence, cfg: RouterConfig) -> str:
    """What let a selection through with fewer than `need` words outside its body."""
    strong, lexical_second = ev.strong, ev.lexical_second
    out = ""
    if ev.anchored and not ev.corroborated:
        lead = f"{best.score / lexical_second:.1f} times" if lexical_second > 0 else "far ahead of"
        w, what = next(iter(ev.anchors.items()))
        out += (
            f"; only {', '.join(strong)} matched outside its body, but {w} {what}, "
            f"and it scores {lead} the runner-up"
        )
    if ev.agreed and not (ev.corroborated or ev.anchored or ev.vouched):
        out += (
            f"; only {', '.join(strong) or 'no word'} matched outside its body, but the request "
            f"is in another language and it is also the most similar candidate "
            f"({best.semantic or 0.0:.2f})"
        )
    if ev.vouched and not (ev.crossed or ev.corroborated or ev.anchored):
        out += (
            f"; the request is in another language and its similarity "
            f"{best.semantic or 0.0:.2f} reaches semantic_threshold "
            f"{cfg.decision.semantic_threshold:.2f}"
        )
    if ev.crossed and not (ev.corroborated or ev.anchored):
        out += (
            f"; the request is in another language, and it is also the most similar skill of "
            f"all ({best.semantic or 0.0:.2f}): the two scorers agree"
            if best.raw > 0
            else f"; the request is in another language and no word of it matches a skill: the "
            f"most similar skill of all ({best.semantic or 0.0:.2f}) is the encoder's choice alone"
        )
    if ev.corroborated:
        out += (
            f"; only {', '.join(strong)} matched outside its body, backed by {len(ev.backing)} "
            f"words in it (corroboration {cfg.decision.corroboration})"
        )
    return out


def _across(
    best: Candidate, cands: list[Candidate], ev: _Evidence, cfg: RouterConfig, sem_best: str
) -> _Evidence:
    """What the encoder can vouch for in a request in another language, whose words match
    few skill words: the most similar skill of the whole catalog (`sem_best`) ranked first
    by both scorers; a similarity of `semantic_threshold` or more; or the best lexical match
    (reaching the threshold) being also the most similar candidate, which one strong word
    alone cannot arrange. An English similarity never decides (issue 36 §3)."""
    sim = best.semantic or 0.0
    if best.spec.key == sem_best:
        return replace(ev, vouched=True, crossed=True)
    if sim >= cfg.decision.semantic_threshold:
        return replace(ev, vouched=True)
    if best.score >= ev.threshold and all((c.semantic or 0.0) <= sim for c in cands[1:]):
        return replace(ev, agreed=True)
    return ev


def confidence(c: Candidate, sem_on: bool) -> float:
    """What the decision compares a candidate by."""
    if c.fused is not None:  # fusion "sum": the score that ranked it
        return c.fused
    return max(c.score, c.semantic or 0.0) if sem_on else c.score
