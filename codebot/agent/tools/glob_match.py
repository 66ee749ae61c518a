"""Glob matching for Glob and Grep: `*`, `?`, `[...]`, `**` and `{a,b}` over posix
relative paths, in time bounded by len(path) x len(pattern) per brace alternative."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "MAX_BRACE_ALTERNATIVES",
    "GlobError",
    "GlobPattern",
    "expand_braces",
    "glob_pattern",
    "glob_regex",
]

#: A pattern whose braces expand to more alternatives than this is refused, not expanded
#: (`{a,b}` twenty times over is a million patterns).
MAX_BRACE_ALTERNATIVES = 1024


class GlobError(ValueError):
    """A glob that cannot be matched in bounded time or memory."""


def expand_braces(pattern: str) -> list[str]:
    """`*.{py,pyi}` -> [`*.py`, `*.pyi`] (nested braces work; an unclosed brace is literal)."""
    depth = 0
    start = -1
    for i, ch in enumerate(pattern):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                inner = pattern[start + 1 : i]
                parts, level, cur = [], 0, ""
                for c in inner:
                    if c == "," and level == 0:
                        parts.append(cur)
                        cur = ""
                        continue
                    level += c == "{"
                    level -= c == "}"
                    cur += c
                parts.append(cur)
                if len(parts) == 1:
                    return [pattern[: start + 1] + e for e in expand_braces(pattern[start + 1 :])]
                head, tail = pattern[:start], pattern[i + 1 :]
                tails = expand_braces(tail)
                if len(parts) * len(tails) > MAX_BRACE_ALTERNATIVES:
                    raise GlobError(
                        f"the braces in {pattern!r} expand to more than "
                        f"{MAX_BRACE_ALTERNATIVES} patterns"
                    )
                return [head + p + t for p in parts for t in tails]
    return [pattern]


# A glob is matched segment by segment, never as one regex: `*a*a*a*a*a*ab` as
# `[^/]*a[^/]*a...` backtracks polynomially in the name length per star (minutes on one long
# name). Here a segment is a token list matched by the classic two-pointer wildcard algorithm
# (on a mismatch only the last `*` is retried, so O(len(name) x len(pattern)) at worst), and
# `**` segments are an NFA over path segments (a set of positions, no backtracking).
_STAR = object()
_ANY = object()
_GLOBSTAR = object()


def _segment_tokens(seg: str) -> tuple[object, ...]:
    """`test_*.py` -> ('t', 'e', ..., '*', '.', 'p', 'y'); `[!ab]` -> a one-character regex."""
    out: list[object] = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "*":
            while i + 1 < n and seg[i + 1] == "*":  # `**` inside a segment is `*`
                i += 1
            if not out or out[-1] is not _STAR:
                out.append(_STAR)
        elif c == "?":
            out.append(_ANY)
        elif c == "[":
            token, i = _bracket(seg, i)
            out.append(token)
            continue
        else:
            out.append(("lit", c))
        i += 1
    return tuple(t[1] if isinstance(t, tuple) else t for t in out)


def _bracket(seg: str, i: int) -> tuple[object, int]:
    """The token for the `[` at `seg[i]` and the index just past what it consumed.

    A closed class such as `[!ab]` becomes a one-character regex; a `[` that is never closed,
    or whose class is not a valid regex, is a literal `[`.
    """
    n = len(seg)
    j = i + 1
    if j < n and seg[j] in "!^":
        j += 1
    if j < n and seg[j] == "]":
        j += 1
    while j < n and seg[j] != "]":
        j += 1
    if j >= n:
        return ("lit", "["), i + 1
    body = seg[i + 1 : j]
    if body[:1] in ("!", "^"):
        body = "^" + body[1:]
    try:  # one class, one character: nothing to backtrack over
        return re.compile("[" + body.replace("\\", "\\\\") + "]"), j + 1
    except re.error:
        return ("lit", "["), i + 1


def _one_char(token: object, ch: str) -> bool:
    if token is _ANY:
        return True
    if isinstance(token, str):
        return token == ch
    return token.fullmatch(ch) is not None  # type: ignore[attr-defined]


def _match_segment(tokens: tuple[object, ...], name: str) -> bool:
    """Wildcard match of one path segment; `*` never crosses `/` (segments hold none)."""
    t = c = 0
    star_t, star_c = -1, 0
    nt, nc = len(tokens), len(name)
    while c < nc:
        if t < nt and tokens[t] is _STAR:
            star_t, star_c = t, c
            t += 1
        elif t < nt and _one_char(tokens[t], name[c]):
            t += 1
            c += 1
        elif star_t >= 0:
            # Let the last `*` take one more character and retry after it. Earlier stars
            # never need revisiting: the last one can absorb whatever they would have.
            star_c += 1
            c = star_c
            t = star_t + 1
        else:
            return False
    while t < nt and tokens[t] is _STAR:
        t += 1
    return t == nt


def _compile_alternative(pattern: str) -> tuple[object, ...]:
    segs: list[object] = []
    for seg in pattern.split("/"):
        if seg == "**":
            if not segs or segs[-1] is not _GLOBSTAR:
                segs.append(_GLOBSTAR)
        else:
            segs.append(_segment_tokens(seg))
    return tuple(segs)


def _match_path(segs: tuple[object, ...], parts: list[str]) -> bool:
    """NFA over segments: `**` matches zero or more folders, and a trailing `**` one or
    more path segments (`src/**` matches what is inside `src`, as before)."""
    last = len(segs)

    def closure(states: set[int]) -> set[int]:
        todo = list(states)
        while todo:
            i = todo.pop()
            if i < last - 1 and segs[i] is _GLOBSTAR and i + 1 not in states:
                states.add(i + 1)
                todo.append(i + 1)
        return states

    states = closure({0})
    for part in parts:
        nxt: set[int] = set()
        for i in states:
            if i == last:
                continue
            seg = segs[i]
            if seg is _GLOBSTAR:
                nxt.update((i, i + 1))
            elif _match_segment(seg, part):  # type: ignore[arg-type]
                nxt.add(i + 1)
        if not nxt:
            return False
        states = closure(nxt)
    return last in states


class GlobPattern:
    """A compiled glob (`*`, `?`, `[...]`, `**`, `{a,b}`) over posix relative paths;
    `match(rel)` is True when the whole path matches. Time is bounded by
    len(path) x len(pattern) per brace alternative."""

    __slots__ = ("_alternatives", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._alternatives = tuple(_compile_alternative(p) for p in expand_braces(pattern))

    def match(self, rel: str) -> bool:
        parts = rel.split("/")
        return any(_match_path(alt, parts) for alt in self._alternatives)


@lru_cache(maxsize=256)
def glob_pattern(pattern: str) -> GlobPattern:
    """The compiled glob (raises GlobError for one that would not be bounded)."""
    return GlobPattern(pattern)


#: The old name: it returned a regex; callers only ever used `.match(rel)`.
glob_regex = glob_pattern
