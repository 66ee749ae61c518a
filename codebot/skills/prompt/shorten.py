"""Shortening a skill's description for the listing without losing what routes it.

A description usually says what the skill does, then when to use it and what it is not
for ("Use when …", "Do not use for …"). In the corpus (1,151 descriptions) the median is
241 characters and two in three carry such a clause, starting on average 40% of the way
in: a cut at the end loses exactly the part that tells the model when a near-miss request
is *not* this skill's. So text is cut in the middle: the first sentence and every
sentence with a use-when or not-for clause are kept, and if that is still too long the
middle of what is left goes, with `…` where text was left out.

Pure functions over strings; nothing here knows about skills.
"""

from __future__ import annotations

import re
from itertools import pairwise

GAP = " … "
ELLIPSIS = "…"

#: A sentence that tells the model when (not) to pick the skill. English only: it picks
#: what to keep, and a description in another language is still cut in the middle.
CLAUSE = re.compile(
    r"\b(?:use (?:this(?: skill)? |it )?(?:when|whenever|for|to|if|before|after|on)"
    r"|when (?:the user|you|asked|working|a user)|triggers? (?:on|when|for)"
    r"|not (?:for|suitable|intended|meant|to be used)|do not use|don't use|never use"
    r"|instead use|use .{1,40} instead|avoid (?:using )?(?:it|this))\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+")
#: Below this many characters a middle cut keeps nothing useful: cut at the end instead.
_MIN_MIDDLE = 24


def shorten(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: unchanged when it fits; else, when sentences
    after the first carry a use-when or not-for clause, the first sentence and those (and
    as many of the others, in their order, as still fit); else the middle cut out. `…`
    marks each cut."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS if limit == 1 else ""
    sentences = _SENTENCE_END.split(text)
    clauses = [i for i in range(1, len(sentences)) if CLAUSE.search(sentences[i])]
    if not clauses:
        return middle_cut(text, limit)
    keep = {0, *clauses}
    skeleton = _join(sentences, keep)
    if len(skeleton) > limit:
        return middle_cut(skeleton, limit)
    for i in range(1, len(sentences)):  # fill the room with the others, in their order
        if i not in keep and len(_join(sentences, keep | {i})) <= limit:
            keep.add(i)
    return _join(sentences, keep)


def _join(sentences: list[str], keep: set[int]) -> str:
    """The kept sentences in order, `…` wherever sentences were left out."""
    order = sorted(keep)
    out = sentences[order[0]]
    for prev, i in pairwise(order):
        out += (GAP if i > prev + 1 else " ") + sentences[i]
    return out + (GAP.rstrip() if order[-1] != len(sentences) - 1 else "")


def middle_cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters with its middle left out, cut at words. The
    tail keeps a use-when or not-for clause whole when it takes at most two thirds."""
    if len(text) <= limit:
        return text
    room = limit - len(GAP)
    if room < _MIN_MIDDLE:
        return truncate(text, limit)
    # The tail starts at the first clause it can hold whole; else it is three fifths.
    starts = [m.start() for m in CLAUSE.finditer(text) if m.start() > 0]
    whole = [len(text) - start for start in starts if len(text) - start <= room * 2 // 3]
    tail_len = whole[0] if whole else room - room * 2 // 5
    clause = bool(whole)
    head = text[: room - tail_len]
    space = head.rfind(" ")
    if space >= len(head) * 3 // 4:
        head = head[:space]
    tail = text[len(text) - tail_len :]
    space = tail.find(" ")
    if not clause and 0 <= space <= len(tail) // 4:
        tail = tail[space + 1 :]
    return head.rstrip() + GAP + tail.lstrip()


def truncate(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in `…` when cut (at a word if near)."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS if limit == 1 else ""
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit * 3 // 4:
        head = head[:space]
    return head.rstrip() + ELLIPSIS
