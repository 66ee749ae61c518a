"""Every shown candidate's `why`: what it matched, what placed it where it is, and how it
fared against the decision's choice (chosen, offered, not chosen or lost). It reads the
decision (`decide`) and never changes it.
"""

from __future__ import annotations

from codebot.skills.route.config import CLEAR_LEAD, FIELDS, RouterConfig
from codebot.skills.route.decide import confidence, held_in_front
from codebot.skills.route.result import Candidate


def _describe(c: Candidate, placed_by_stage: bool = True) -> str:
    parts = []
    for f in FIELDS:
        words = c.matched.get(f)
        if words:
            parts.append(f"{', '.join(words)} in {f.replace('_', ' ')}")
    text = "matched " + "; ".join(parts) if parts else "no word matched"
    if c.penalized:
        text += f"; its description rules out {', '.join(c.penalized)}"
    if c.coverage is not None:
        text += f"; {c.coverage:.0%} of what the request's words are worth"
    if c.ordered_by is not None and placed_by_stage:  # not the decision's own pick(s)
        crowd = (
            f" x crowd_decay^{c.crowded}: {c.crowded} of its folder shown above it match the same "
            "words"
            if c.crowded
            else ""
        )
        text += f"; second stage {c.ordered_by:.3f} (score x coverage{crowd})"
    if c.leads is not None:
        text += (
            f"; put first in the fused order: it leads the word ranking with {c.leads:.1f} "
            f"times the words of the skill the fusion put first (CLEAR_LEAD {CLEAR_LEAD:g})"
            if c.leads != float("inf")
            else "; put first in the fused order: it leads the word ranking, and the skill "
            "the fusion put first matched no word"
        )
    if c.raised_from is not None:
        text += (
            f"; shown though the fusion put it {_ordinal(c.raised_from)}: it leads the word ranking"
        )
    return text


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def explain(
    cands: list[Candidate],
    decision: str,
    reason: str,
    first: list[Candidate],
    cfg: RouterConfig,
    sem_on: bool = False,
) -> list[Candidate]:
    """Each of `cands` (as shown) with its `why`, against the decision's `first` two (the
    first stage's, which the decision was made on): chosen, offered, not chosen or lost."""
    import dataclasses

    if not first:
        return list(cands)
    best, second = first[0], first[1] if len(first) > 1 else None
    held = {id(c.spec) for c in first[: held_in_front(decision)]}
    b = confidence(best, sem_on)
    best_words = best.words()
    out = []
    for c in cands:
        text = _describe(c, id(c.spec) not in held)
        if c.spec is best.spec:
            if decision == "select":
                text += "; chosen"
            elif decision == "ask":
                text += f"; too close to {second.name if second else '?'} to choose alone"
            else:
                text += f"; not chosen: {reason}"
        elif decision == "ask" and second is not None and c.spec is second.spec:
            text += (
                f"; only {b - confidence(c, sem_on):.2f} behind {best.name} "
                f"(margin {cfg.decision.margin:.2f}): offered too"
            )
        else:
            lost = f"{b - confidence(c, sem_on):.2f} behind {best.name}"
            theirs = set(c.words())
            missing = [w for w in best_words if w not in theirs]
            if missing:
                lost += f", which also matched {', '.join(missing[:4])}"
            text += f"; lost: {lost}"
        out.append(dataclasses.replace(c, why=text))
    return out
