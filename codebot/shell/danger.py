"""The check of one command against the dangerous-options table (`danger_table`).

`findings(command)` says which rows of `DANGEROUS_OPTIONS` (and which `DANGEROUS_VARIABLES`)
one `SimpleCommand` triggers and at which word. A row's options are matched on parsed words:
`--output` also matches `--output=x`, a short `-o` also matches `-ofile` and a cluster such as
`-sSo`, and for the programs in `ABBREVIATING` a long option also matches its abbreviations
(`tar --checkpoint-act`); a row's `kind` says when it applies (an option, a subcommand, any
use, or a check of a script such as sed's `w` command).
The script checks (sed, awk) and the value checks (curl `@file`) live in `scripts`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codebot.shell.danger_table import (
    ABBREVIATING,
    CHECKED_LONG,
    DANGEROUS_OPTIONS,
    DANGEROUS_VARIABLES,
    Danger,
)
from codebot.shell.parse import SimpleCommand
from codebot.shell.scripts import awk_danger, curl_uploads, sed_danger

__all__ = ["Finding", "findings", "positionals", "variable_danger"]


@dataclass(frozen=True)
class Finding:
    """One row a command triggers: at word `index` (-1 when no word of a rule can grant it)."""

    index: int
    label: str  # "option --output", "subcommand install", "xargs", "PATH=..."
    why: str
    row: Danger | None = None  # None for variables and words that may become options

    def describe(self, command: SimpleCommand) -> str:
        text = command.text
        text = text if len(text) <= 60 else text[:59] + "…"
        return f"`{text}`: {self.label} {self.why}"


_BY_COMMAND: dict[str, list[Danger]] = {}
for _row in DANGEROUS_OPTIONS:
    for _name in _row.commands:
        _BY_COMMAND.setdefault(_name, []).append(_row)
_GIT_VALUED = frozenset(
    {
        "-c",
        "-C",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--list-cmds",
        "--attr-source",
    }
)


#: Short options of two letters that may sit in a cluster (`zip -qTT cmd`, `-TTcmd`).
_CLUSTERED = frozenset({"-TT"})


def _option_hits(option: str, word: str, exact: frozenset[str] | None = None) -> bool:
    """Whether a parsed word is (or contains, in a short cluster) this option; `exact` is
    given for a program in `ABBREVIATING`, and then an abbreviation of `--option` hits."""
    if option in _CLUSTERED:
        return word.startswith("-") and not word.startswith("--") and option[1:] in word
    if option.startswith("--") or (option.startswith("-") and len(option) > 2):
        if word == option or word.startswith(option + "="):
            return True
        head = word.partition("=")[0]
        return (
            exact is not None
            and option.startswith("--")
            and head.startswith("--")
            and len(head) > 2
            and option.startswith(head)
            and head not in exact
        )
    if option.startswith("-") and len(option) == 2:
        return word.startswith("-") and not word.startswith("--") and option[1] in word[1:]
    return word == option


def positionals(name: str, words: Sequence[str]) -> list[int]:
    """Indices of the words that are not options (git skips its global options' values)."""
    out: list[int] = []
    i = 1
    while i < len(words):
        w = words[i]
        if w.startswith("-") and w != "-":
            i += 2 if name == "git" and w in _GIT_VALUED and not out else 1
            continue
        out.append(i)
        i += 1
    return out


def _subcommand_hit(row: Danger, words: Sequence[str], pos: list[int]) -> int | None:
    if row.options != ("*",):
        return pos[0] if pos and words[pos[0]] in row.options else None
    if not pos:
        return 0 if row.commands == ("yarn",) and len(words) >= 1 else None  # bare yarn installs
    first = words[pos[0]]
    second = words[pos[1]] if len(pos) > 1 else ""
    for safe in row.read_only:
        head, _, tail = safe.partition(":")
        if first == head and (not tail or second == tail):
            return None
    return pos[0]


def findings(cmd: SimpleCommand) -> list[Finding]:
    """The rows of the table (and the variables) that one command triggers."""
    out: list[Finding] = [
        Finding(-1, f"{v}=...", why) for v in cmd.assignments if (why := variable_danger(v))
    ]
    name = cmd.name
    if name is None:
        return out
    rows = _BY_COMMAND.get(name) or _BY_COMMAND.get(name.lower()) or []
    words = cmd.words
    if name == "tar" and len(words) > 1 and not words[1].startswith("-"):
        words = (words[0], "-" + words[1], *words[2:])  # `tar xzf a.tgz`: old-style options
    exact = ABBREVIATING.get(name, ABBREVIATING.get(name.lower()))
    if rows and "awk" in rows[0].commands:
        words = _awk_long_options(words)
    pos = positionals(name, words)
    sub = words[pos[0]] if pos else None
    for row in rows:
        if row.scope and sub not in row.scope:
            continue
        out.extend(_row_findings(row, name, words, pos, exact))
    if rows:
        out.extend(_unknown_words(cmd, name))
    return out


def _row_findings(
    row: Danger, name: str, words: Sequence[str], pos: list[int], exact: frozenset[str] | None
) -> list[Finding]:
    """What one row (whose scope, if any, the command is in) finds in the command's words."""
    if row.kind == "any":
        return [Finding(0, f"`{name}`", row.why, row)]
    if row.kind == "subcommand":
        hit = _subcommand_hit(row, words, pos)
        if hit is None:
            return []
        label = f"subcommand `{words[hit]}`" if hit else f"`{name}`"
        return [Finding(hit, label, row.why, row)]
    if row.kind == "check":
        return _check(name, _spelled_out(name, words, exact), row)
    first_pos = pos[0] if pos else len(words)
    end = first_pos if row.kind == "global" else len(words)
    for i in range(1, end):
        w = words[i]
        hit = next(
            (
                o
                for o in row.options
                if (w.startswith(o) if row.kind == "prefix" else _option_hits(o, w, exact))
            ),
            None,
        )
        if hit is not None:
            return [Finding(i, f"option `{hit}`", row.why, row)]
    return []


def _awk_long_options(words: Sequence[str]) -> tuple[str, ...]:
    """awk's `-W name` and `-Wname` (gawk: `--name`; mawk: its only long options, `-Wa,b`
    for several) as `--name`, with a bare `-W` left as a word no row or check reads."""
    out = list(words)
    for i in range(1, len(words)):
        w = words[i]
        if w == "--":
            break
        if w.startswith("-W") and (len(w) > 2 or i + 1 < len(words)):
            at = i if len(w) > 2 else i + 1
            parts = [p for p in (w[2:] if at == i else words[at]).split(",") if p] or ["W"]
            risky = [
                p
                for p in parts
                if any(o.startswith("--" + p.partition("=")[0]) for o in CHECKED_LONG["awk"])
            ]
            out[i], out[at] = "--W", "--" + (risky or parts)[0]
    return tuple(out)


def _spelled_out(name: str, words: Sequence[str], exact: frozenset[str] | None) -> Sequence[str]:
    """The words with each abbreviation of a long option a script check reads spelled out."""
    names = CHECKED_LONG.get("awk" if "awk" in name else name, ())
    if exact is None or not names:
        return words
    out = list(words)
    for i, w in enumerate(words[1:], 1):
        if w == "--":
            break
        head, eq, value = w.partition("=")
        if len(head) > 2 and head.startswith("--") and head not in exact and head not in names:
            out[i] = next((n + eq + value for n in names if n.startswith(head)), w)
    return out


def _check(name: str, words: Sequence[str], row: Danger) -> list[Finding]:
    if name == "sed":
        hit = sed_danger(words)
    elif name == "curl":
        hit = curl_uploads(words)
    else:
        hit = awk_danger(words)
    if hit is None:
        return []
    index, what = hit
    return [Finding(index, what, row.why, row)]


def _unknown_words(cmd: SimpleCommand, name: str) -> list[Finding]:
    """Words of a table command that could turn into any option at run time."""
    out: list[Finding] = []
    for part in cmd.parts[1:]:
        if part.glob and part.value[:1] in ("*", "?", "[", "-"):
            out.append(
                Finding(
                    -1,
                    f"the glob `{part.source}`",
                    f"can expand to a file name starting with `-`, read as an option of {name}",
                )
            )
        elif not part.literal and not part.glob:
            out.append(Finding(-1, f"`{part.source}`", f"can expand to any option of {name}"))
    if cmd.via and cmd.via[-1] == "xargs":
        out.append(
            Finding(
                -1,
                "xargs",
                f"appends arguments read from its input, which can be any option of {name}",
            )
        )
    return out


def variable_danger(name: str) -> str | None:
    """Why assigning this variable is dangerous, or None."""
    for names, why in DANGEROUS_VARIABLES:
        for pattern in names.split():
            if (
                pattern == name
                or (pattern.endswith("*") and name.startswith(pattern[:-1]))
                or (pattern.startswith("*") and name.endswith(pattern[1:]))
            ):
                return why
    return None
