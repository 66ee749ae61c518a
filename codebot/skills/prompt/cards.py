"""Skill search for the model (the SkillSearch tool) and the offline model's matcher.

A small lexical scorer over name, description and when_to_use. The router
(`codebot.skills.route.router`) replaces it when present; this keeps the tool useful without it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from codebot.skills.files import Spec
from codebot.skills.invoke import escape_tags

_WORD = re.compile(r"[a-z0-9][a-z0-9+#.]*")
STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "the",
        "this",
        "to",
        "use",
        "using",
        "what",
        "when",
        "with",
        "you",
        "your",
        "our",
        "we",
        "us",
    ]
)


def tokens(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        w = w.strip(".")
        if w and w not in STOP:
            out.append(w[:-1] if len(w) > 4 and w.endswith("s") else w)
    return out


def score(query: Sequence[str], spec: Spec) -> float:
    name = set(tokens(spec.name.replace("-", " ").replace("_", " ").replace(":", " ")))
    desc = set(tokens(spec.description))
    when = set(tokens(spec.when_to_use or ""))
    s = 0.0
    for t in set(query):
        s += 3.0 * (t in name) + 1.0 * (t in desc) + 0.5 * (t in when)
    return s


def rank(query: str, specs: Iterable[Spec], limit: int = 5) -> list[tuple[Spec, float]]:
    q = tokens(query)
    scored = [(s, score(q, s)) for s in specs]
    scored = [x for x in scored if x[1] > 0]
    scored.sort(key=lambda x: (-x[1], x[0].key))
    return scored[:limit]


def card(spec: Spec) -> str:
    lines = [
        f"- {spec.name}"
        + (f" [{spec.argument_hint}]" if spec.argument_hint else "")
        + f" ({spec.source.value})",
        f"  {spec.description}",
    ]
    if spec.when_to_use:
        lines.append(f"  when: {spec.when_to_use}")
    return escape_tags("\n".join(lines))


def search_cards(query: str, specs: Iterable[Spec], limit: int = 5) -> str:
    try:
        from codebot.skills.route import router
    except ImportError:
        hits = [s for s, _ in rank(query, specs, limit)]
    else:
        hits = router.search(query, list(specs), limit)
    if not hits:
        return f"no skill matches {query!r}"
    return "\n".join(card(s) for s in hits)
