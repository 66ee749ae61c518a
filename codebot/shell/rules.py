"""Bash allow and deny rules matched on parsed commands.

This module owns what `Bash(git diff:*)` (prefix) and `Bash(npm test)` (exact) mean for a
command once `parse.analyze` has taken it apart; the order in which rules are consulted
(the one verdict for a Bash call) is `decide`. The dangerous-options table it consults is
`danger_table.DANGEROUS_OPTIONS`, re-exported here.

Allow is strict. A rule allows only a plain command (see `parse`), every simple command
of which, including those run through a wrapper (`timeout 5 pytest` runs `pytest`) or a
`bash -c` script, is covered: its words start with the rule's words (prefix) or equal them
(exact), or the rule's words already named it (`Bash(xargs grep:*)` names the `grep` that
xargs runs). No covered command may use a dangerous option the rule did not name itself
(`Bash(sed -i:*)` grants `-i`, `Bash(sed:*)` does not); a prefix rule never allows a command
with unresolved parts. An exact rule of several commands (`Bash(make && make test)`, as a
session grant may be) allows that plain command word for word and operator for operator.
Deny is conservative: a deny rule hits when any command anywhere (nested, wrapped,
`/bin/rm`, `\\rm`, `'rm'`) has the rule's name, compared case-insensitively, and the rule's
other words appear in order among its words (a word that is not a literal could be any).
With deny rules in place, a command that cannot be checked fully (unresolved names,
dangerous options, dangerous variables) is asked, never allowed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from codebot.shell.danger import findings, variable_danger
from codebot.shell.danger_table import DANGEROUS_OPTIONS, DANGEROUS_VARIABLES, Danger
from codebot.shell.parse import Analysis, SimpleCommand, analyze

__all__ = [
    "DANGEROUS_OPTIONS",
    "DANGEROUS_VARIABLES",
    "DENY_ALIASES",
    "Danger",
    "Match",
    "RuleKind",
    "allow_match",
    "allow_rules",
    "covered",
    "deny_match",
    "needs_asking_under_deny",
    "rule_label",
    "rule_words",
]

RuleKind = Literal["exact", "prefix"]


@dataclass(frozen=True)
class Match:
    """Whether a rule matches, and a sentence saying why (or why not), naming the part."""

    ok: bool
    reason: str


def rule_label(spec: str, kind: RuleKind) -> str:
    return f"Bash({spec}:*)" if kind == "prefix" else f"Bash({spec})"


def _shown(cmd: SimpleCommand) -> str:
    text = cmd.text if len(cmd.text) <= 60 else cmd.text[:59] + "…"
    via = f" (run via {' → '.join(cmd.via)})" if cmd.via else ""
    return f"`{text}`{via}"


def _shape(a: Analysis) -> tuple[tuple[str, ...] | str, ...]:
    """A plain command's words and operators: (("make",), "&&", ("make", "test"))."""
    src = a.command.encode("utf-8", "surrogatepass")
    out: list[tuple[str, ...] | str] = []
    prev_end = None
    for c in a.chain:
        if prev_end is not None:
            between = src[prev_end : c.parts[0].offset].decode("utf-8", "replace").strip(" \t\\")
            out.append(between.strip() or ";")  # a newline separates like `;`
        out.append(c.words)
        last = c.parts[-1]
        prev_end = last.offset + len(last.source.encode("utf-8", "surrogatepass"))
    return tuple(out)


@lru_cache(maxsize=1024)
def _rule_chain(spec: str) -> tuple[tuple[str, ...] | str, ...] | None:
    a = analyze(spec)
    return _shape(a) if a.plain else None


@lru_cache(maxsize=1024)
def rule_words(spec: str) -> tuple[str, ...] | None:
    """A rule's words, split and unquoted by the same parser; None unless one plain command."""
    chain = _rule_chain(spec)
    if chain is None or len(chain) != 1 or isinstance(chain[0], str):
        return None
    return chain[0]


def _covers(cmd: SimpleCommand, words: tuple[str, ...], kind: RuleKind) -> bool:
    if kind == "exact":
        return cmd.words == words
    return cmd.words[: len(words)] == words


_Rule = tuple[RuleKind, tuple[str, ...], str]  # kind, words, label


def _best_cover(
    cmd: SimpleCommand, rules: Sequence[_Rule], named: list[float], labels: list[str]
) -> tuple[float, str]:
    """How many of the command's words the best covering rule spells out (inf: all, -1:
    none covers it) and that rule's label; a command run through a wrapper or a script
    inherits what the rule covering its parent named (`Bash(xargs grep:*)` names `grep`)."""
    best, label = -1.0, ""
    for kind, words, rule in rules:
        if _covers(cmd, words, kind):
            n = math.inf if kind == "exact" else len(words)
            if n > best:
                best, label = n, rule
    if cmd.parent >= 0 and named[cmd.parent] > cmd.at:
        inherited = math.inf if cmd.in_script else named[cmd.parent] - cmd.at
        if inherited > best:
            best, label = inherited, labels[cmd.parent]
    return best, label


def _allow(analysis: Analysis, rules: Sequence[_Rule], what: str) -> Match:
    """Every command covered by some rule, with no dangerous option the rule did not name."""
    if not analysis.plain:
        return Match(False, analysis.reason or "not plain")
    if not rules:
        return Match(False, "no Bash rule allows it")
    # named[i]: how many of command i's words the covering rule spelled out (inf: all of them)
    named: list[float] = []
    labels: list[str] = []
    for cmd in analysis.commands:
        best, label = _best_cover(cmd, rules, named, labels)
        if best < 0:
            return Match(False, f"{_shown(cmd)} is not covered by {what}")
        for f in findings(cmd):
            if f.index < 0 or f.index >= best:
                return Match(False, f.describe(cmd))
        named.append(best)
        labels.append(label)
    if analysis.unresolved and not all(n == math.inf for n in named):
        return Match(False, f"{analysis.unresolved[0]}, so a prefix rule cannot vouch for it")
    used = ", ".join(dict.fromkeys(labels))
    return Match(True, f"every command is covered by {used}")


def allow_match(analysis: Analysis, spec: str, kind: RuleKind) -> Match:
    """Whether the rule `Bash(spec)` (exact) or `Bash(spec:*)` (prefix) allows the command."""
    words = rule_words(spec)
    label = rule_label(spec, kind)
    if words is None:
        return Match(False, f"{label} is not a single plain command, so it allows nothing")
    return _allow(analysis, [(kind, words, label)], label)


def _deny_words(spec: str) -> tuple[str, ...]:
    words = rule_words(spec) or tuple(spec.split())
    name = words[0].rsplit("/", 1)[-1].casefold() if words else ""
    if name.startswith("git-") and len(name) > 4:  # `Bash(git-push:*)` means `git push` too
        return ("git", name[4:], *words[1:])
    return words


#: Words a deny rule's word also means, per command: `git send-pack` is the plumbing `git
#: push` runs to send objects to a remote, so a deny of `git push` denies it too.
DENY_ALIASES: dict[str, dict[str, str]] = {"git": {"send-pack": "push"}}


def _consistent(cmd: SimpleCommand, rest: tuple[str, ...]) -> bool:
    """The rule's words after the name appear in order; a non-literal word may be any."""
    i = 0
    aliases = DENY_ALIASES.get((cmd.name or "").casefold(), {})
    for part in cmd.parts[1:]:
        if i >= len(rest):
            break
        if not part.literal or rest[i] in (part.value, aliases.get(part.value)):
            i += 1
    return i >= len(rest)


def deny_match(analysis: Analysis, spec: str, kind: RuleKind) -> Match:
    """Whether any command anywhere in it is one the rule denies (see the module docstring)."""
    words = _deny_words(spec)
    label = rule_label(spec, kind)
    if not words:
        return Match(False, f"{label} names no command")
    name = words[0].rsplit("/", 1)[-1].casefold()
    for cmd in analysis.commands:
        if cmd.name is not None and cmd.name.casefold() == name and _consistent(cmd, words[1:]):
            return Match(True, f"{_shown(cmd)} is denied by {label}")
    return Match(False, f"no command is denied by {label}")


def needs_asking_under_deny(analysis: Analysis) -> str | None:
    """Why, with deny rules in place, this command must be asked rather than allowed."""
    if analysis.unresolved:
        return f"cannot be checked against the deny rules: {analysis.unresolved[0]}"
    for cmd in analysis.commands:
        found = findings(cmd)
        if found:
            return f"{found[0].describe(cmd)}, so it is asked while deny rules are in place"
    for name in analysis.assignments:
        why = variable_danger(name)
        if why:
            return f"it sets {name}, which {why}, so it is asked while deny rules are in place"
    return None


def allow_rules(allow: Sequence[tuple[RuleKind, str]]) -> list[_Rule]:
    """The exact and prefix rules that can allow anything: a rule of several commands allows
    nothing, every part of a chain must be allowed on its own (`Bash(make && rm -rf x)` is
    not a way to pre-approve `rm -rf x`)."""
    rules: list[_Rule] = []
    for kind, spec in allow:
        words = rule_words(spec)
        if words is not None:
            rules.append((kind, words, rule_label(spec, kind)))
    return rules


def covered(analysis: Analysis, rules: Sequence[_Rule]) -> Match:
    """Whether these rules (from `allow_rules`) together allow the command."""
    what = ", ".join(r[2] for r in rules) or "any allow rule"
    return _allow(analysis, rules, what)
