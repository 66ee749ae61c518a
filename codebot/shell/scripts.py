"""Checks of the little languages inside arguments: sed scripts, awk programs, curl values.

This module owns reading a sed script far enough to see its `w`/`W`/`e` commands and the
`w`/`e` flags of `s///`, an awk program far enough to see `system()`, pipes and output
redirection, and curl's `@file` values. Each check returns the index of the word that holds
the danger and a short label, or None. When a script cannot be read, the check reports it:
what cannot be read is treated as dangerous.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["awk_danger", "curl_uploads", "sed_danger"]

Hit = tuple[int, str] | None

# -- sed ------------------------------------------------------------------------------------

_SED_VALUED_LONG = frozenset({"--file", "--line-length", "--expression"})
_SED_SIMPLE = frozenset("=dDgGhHlLnNpPqQxzF")


def _sed_explicit(words: Sequence[str]) -> bool:
    """Whether the scripts come from -e/-f options (else the first operand is the script)."""
    return any(
        w in ("-f", "--file")
        or w.startswith(("--file=", "--expression"))
        or (w.startswith("-") and not w.startswith("--") and ("e" in w[1:] or "f" in w[1:]))
        for w in words[1:]
    )


def _sed_long(words: Sequence[str], i: int, scripts: list[tuple[int, str]]) -> int:
    """The long option at `i` (noting an --expression script); the index after it."""
    w, n = words[i], len(words)
    if w.startswith("--expression="):
        scripts.append((i, w.split("=", 1)[1]))
    elif w == "--expression" and i + 1 < n:
        scripts.append((i + 1, words[i + 1]))
    return i + (2 if w in _SED_VALUED_LONG else 1)


def _sed_short(words: Sequence[str], i: int, scripts: list[tuple[int, str]]) -> int:
    """The short options at `i` (noting an -e script, attached or the next word); the
    index after the last word they take."""
    w, n = words[i], len(words)
    for j in range(1, len(w)):
        if w[j] in "efl":
            value, index = w[j + 1 :], i
            if not value and i + 1 < n:
                i += 1
                value, index = words[i], i
            if w[j] == "e":
                scripts.append((index, value))
            break
    return i + 1


def _sed_scripts(words: Sequence[str]) -> list[tuple[int, str]]:
    """(word index, script) for each -e script, or the first operand when there is none."""
    scripts: list[tuple[int, str]] = []
    explicit = _sed_explicit(words)
    i, n = 1, len(words)
    while i < n:
        w = words[i]
        if w == "--":
            if not explicit and i + 1 < n:
                scripts.append((i + 1, words[i + 1]))
            break
        if w.startswith("--"):
            i = _sed_long(words, i, scripts)
            continue
        if w.startswith("-") and len(w) > 1:
            i = _sed_short(words, i, scripts)
            continue
        if not explicit:
            scripts.append((i, w))
            break
        i += 1
    return scripts


def _skip_regex(s: str, i: int, delim: str) -> int | None:
    """Past the closing `delim`; GNU sed lets a bracket expression hold the delimiter."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < n and s[j] == "^":
                j += 1
            if j < n and s[j] == "]":
                j += 1
            while j < n and s[j] != "]":
                if s[j] == "[" and j + 1 < n and s[j + 1] in ":.=":
                    close = s.find(s[j + 1] + "]", j + 2)
                    j = close + 2 if close >= 0 else n
                    continue
                j += 1
            i = j + 1
            continue
        if c == delim:
            return i + 1
        i += 1
    return None


def _skip_text(s: str, i: int, delim: str) -> int | None:
    """Past the closing `delim` of a replacement (no bracket expressions there)."""
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == delim:
            return i + 1
        i += 1
    return None


def _skip_address(s: str, i: int) -> int | None:
    n = len(s)
    if i < n and s[i] == "$":
        return i + 1
    if i < n and (s[i].isdigit() or s[i] in "+~"):
        j = i + 1
        while j < n and (s[j].isdigit() or s[j] == "~"):
            j += 1
        return j
    if i < n and s[i] in "/\\":
        delim = s[i + 1] if s[i] == "\\" and i + 1 < n else "/"
        j = _skip_regex(s, i + (2 if s[i] == "\\" else 1), delim)
        while j is not None and j < n and s[j] in "IM":
            j += 1
        return j
    return i


def _after_address(s: str, i: int) -> int | None:
    """Past the address (or range) at `i` and the blanks and `!` after it; None when an
    address is not terminated."""
    n = len(s)
    j = _skip_address(s, i)
    if j is not None and j < n and s[j] == ",":
        j = _skip_address(s, j + 1)
    if j is None:
        return None
    while j < n and s[j] in " \t!":
        j += 1
    return j


def _sed_replace(s: str, j: int, c: str) -> str | int:
    """The `s` or `y` command at `j`: why it cannot be read or writes or runs something, or
    where the script goes on after it."""
    n = len(s)
    if j + 1 >= n or s[j + 1] in "\n\\":
        return f"an unreadable `{c}` command in its script"
    delim = s[j + 1]
    k = _skip_regex(s, j + 2, delim) if c == "s" else _skip_text(s, j + 2, delim)
    k = _skip_text(s, k, delim) if k is not None else None
    if k is None:
        return f"an unterminated `{c}` command in its script"
    while c == "s" and k < n and s[k] not in ";\n}":
        if s[k] in "we":
            return f"the `{s[k]}` flag of `s` in its script"
        k += 1
    return k


def _sed_line_end(s: str, j: int, c: str) -> int:
    """Where the script goes on after a comment, a text command or a label at `j`."""
    end = s.find("\n", j)
    if c in "btT:v":  # a label ends at `;` too
        semi = s.find(";", j)
        end = semi if semi >= 0 and (end < 0 or semi < end) else end
    return len(s) if end < 0 else end + 1


def _sed_script(s: str) -> str | None:
    """The first writing or executing command of a sed script, or why it cannot be read."""
    i, n = 0, len(s)
    while i < n:
        if s[i] in " \t\n;{}!":
            i += 1
            continue
        j = _after_address(s, i)
        if j is None:
            return "an unterminated address in its script"
        if j >= n:
            return None
        c = s[j]
        if c in "wW":
            return f"the `{c}` command in its script"
        if c == "e":
            return "the `e` command in its script"
        if c in "sy":
            after = _sed_replace(s, j, c)
            if isinstance(after, str):
                return after
            i = after
        elif c == "#" or c in "aicrRbtTv:":
            i = _sed_line_end(s, j, c)
        elif c in _SED_SIMPLE:
            i = j + 1
            while i < n and (s[i].isdigit() or s[i] == " "):
                i += 1
        else:
            return f"an unknown command `{c}` in its script"
    return None


def _sed_sandboxed(words: Sequence[str]) -> bool:
    """Whether `--sandbox` is an option here: before `--`, and not the value of `-e`, `-f`,
    `-l` (`sed -e '1w x' -- --sandbox` reads a file named `--sandbox`)."""
    i = 1
    while i < len(words):
        w = words[i]
        if w == "--":
            return False
        if w == "--sandbox":
            return True
        takes_value = w in ("--expression", "--file", "--line-length") or (
            w.startswith("-") and not w.startswith("--") and len(w) > 1 and w[-1] in "efl"
        )
        i += 2 if takes_value else 1
    return False


def sed_danger(words: Sequence[str]) -> Hit:
    """A sed script that writes files or runs commands (none of that under --sandbox)."""
    if _sed_sandboxed(words):
        return None
    for index, script in _sed_scripts(words):
        why = _sed_script(script)
        if why:
            return index, why
    return None


# -- awk ------------------------------------------------------------------------------------

_AWK_VALUED = frozenset("FvfeilEW")
_AWK_VALUED_LONG = frozenset(
    {"--field-separator", "--assign", "--file", "--source", "--include", "--load", "--exec"}
)
_AWK_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_AWK_DANGERS = (
    (re.compile(r"\bsystem\s*\("), "`system()` in its program"),
    (re.compile(r"\|\s*&?\s*getline|\|&"), "a command piped into `getline` in its program"),
    (
        re.compile(r"\bprintf?\b[^;{}\n]*[>|]"),
        "output redirected to a file or a command in its program",
    ),
    (re.compile(r"@\s*[A-Za-z_]"), "`@load`, `@include` or an indirect call in its program"),
)


def _awk_programs(words: Sequence[str]) -> list[tuple[int, str]]:
    programs: list[tuple[int, str]] = []
    i, n, explicit = 1, len(words), False
    while i < n:
        w = words[i]
        if w == "--":
            i += 1
            break
        if w.startswith("--"):
            opt, eq, value = w.partition("=")
            if opt == "--source":
                programs.append((i, value) if eq else (i + 1, words[i + 1] if i + 1 < n else ""))
            explicit = explicit or opt in ("--source", "--file", "--exec")
            i += 2 if opt in _AWK_VALUED_LONG and not eq else 1
            continue
        if w.startswith("-") and len(w) > 1:
            ch = w[1]
            if ch in _AWK_VALUED:
                value, index = (
                    (w[2:], i) if len(w) > 2 else (words[i + 1] if i + 1 < n else "", i + 1)
                )
                if ch == "e":
                    programs.append((index, value))
                explicit = explicit or ch in "efE"
                i = index + 1
            else:
                i += 1
            continue
        break
    if not explicit and i < n:
        programs.append((i, words[i]))
    return programs


def awk_danger(words: Sequence[str]) -> Hit:
    """An awk program that runs commands or writes files."""
    for index, program in _awk_programs(words):
        code = _AWK_STRING.sub('""', program)
        for pattern, why in _AWK_DANGERS:
            if pattern.search(code):
                return index, why
    return None


# -- curl -----------------------------------------------------------------------------------

_CURL_DATA = frozenset(
    {"-d", "--data", "--data-binary", "--data-ascii", "--json", "-H", "--header", "--url-query"}
)
_CURL_ANYWHERE = frozenset({"--data-urlencode", "-F", "--form"})


def curl_uploads(words: Sequence[str]) -> Hit:
    """A curl value that sends a local file: `-d @file`, `-F x=@file`, `-F x=<file`."""
    for i, w in enumerate(words[1:], 1):
        opt, value = w, None
        if w.startswith("--") and "=" in w:
            opt, value = w.split("=", 1)
        elif len(w) > 2 and w[:2] in ("-d", "-F", "-H") and not w.startswith("--"):
            opt, value = w[:2], w[2:]
        elif w in _CURL_DATA or w in _CURL_ANYWHERE:
            value = words[i + 1] if i + 1 < len(words) else ""
        if value is None:
            continue
        if (opt in _CURL_DATA and value.startswith("@")) or (
            opt in _CURL_ANYWHERE and ("@" in value or "<" in value)
        ):
            return i, f"option `{opt}` with `{value[:30]}`"
    return None
