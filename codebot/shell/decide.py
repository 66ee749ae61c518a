"""The one decision for a Bash command, on what the shell will run (`parse`), with the
person's rules from every source: deny rules, session grants, allow rules, and the turn's
grants (a skill's `allowed-tools`).

Order (written once, in `_order`; `check_bash` and `decide` only phrase its outcome):
1. a deny rule that hits any command anywhere in it (through wrappers, `bash -c`, ...)
   denies; a bare `Bash` deny denies everything;
2. with Bash deny rules in place, a command that cannot be checked fully (a command name
   that is not a literal, `eval`, a dangerous option such as `find -delete`) is asked,
   never allowed, even under a bare `Bash` allow;
3. with a `Read(...)` deny rule, a git command that prints committed files (`git show`,
   `git log -p`) is asked, even under a bare `Bash` allow: the sandbox masks a denied file,
   not git's object store;
4. a bare `Bash` allow (any source) allows;
5. exact and prefix rules allow only a plain command every part of which is covered by
   some rule, with no dangerous option the rule did not name; and not when one of its
   words names a path a `Read(...)`/`Edit(...)` deny rule refuses (`cat .env`);
6. anything else asks, and the reason says why (`not plain: contains a parameter
   expansion ${x@P} at column 26`).
The command is parsed once per decision (`parse.parsed`). tree-sitter is imported only
when the first Bash decision is made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from codebot.shell.git_prints import prints_repository
from codebot.shell.parse import Analysis, parsed
from codebot.shell.rules import (
    RuleKind,
    allow_match,
    allow_rules,
    covered,
    deny_match,
    needs_asking_under_deny,
    rule_label,
)

__all__ = ["Decision", "RuleLike", "check_bash", "decide"]

#: The tool of a rule that holds for every tool (as `codebot.agent.permissions` writes it).
EVERY_TOOL = "*"


class RuleLike(Protocol):
    """A permission rule as the caller holds it (`codebot.agent.permissions.Pattern`), read
    only (a frozen dataclass qualifies)."""

    @property
    def tool(self) -> str: ...
    @property
    def kind(self) -> str: ...  # "any", "exact", "prefix", or a kind Bash ignores ("path", ...)
    @property
    def spec(self) -> str | None: ...
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Decision:
    """A Bash verdict, why in words, and the rule that decided alone (if one did)."""

    verdict: Literal["allow", "deny", "ask"]
    reason: str
    rule: str | None = None


@dataclass(frozen=True)
class _Outcome:
    step: Literal[
        "deny_all",
        "deny",
        "unchecked",
        "repository",
        "any",
        "no_rules",
        "uncovered",
        "path",
        "covered",
    ]
    why: str
    rule: str | None = None  # the rule's text
    source: str = "rule"  # where an allow rule comes from: "session", "rule" or "turn"


_Denial = tuple[RuleKind, str, str]  # kind, spec, text
_Grant = tuple[RuleKind, str, str, str]  # kind, spec, text, source


def _order(
    command: str,
    deny_all: str | None,
    deny: Sequence[_Denial],
    read_denied: str | None,
    allow_any: tuple[str, str] | None,
    allow: Sequence[_Grant],
    path_denied: Callable[[str], str | None] | None,
) -> tuple[_Outcome, Analysis | None]:
    """The one order of the Bash decision (see the module docstring), on one parse."""
    if deny_all is not None:
        return _Outcome("deny_all", f"Bash is denied by the rule {deny_all}", deny_all), None
    analysis = parsed(command)
    refused = _refusal(analysis, deny, read_denied)
    if refused is not None:
        return refused, analysis
    return _grant(analysis, allow_any, allow, path_denied), analysis


def _refusal(
    analysis: Analysis, deny: Sequence[_Denial], read_denied: str | None
) -> _Outcome | None:
    """Steps 1 to 3 of the order: a deny rule hits, a command that cannot be checked under
    deny rules, a git command printing files under a Read(...) deny rule; None if none."""
    for kind, spec, text in deny:
        hit = deny_match(analysis, spec, kind)
        if hit.ok:
            return _Outcome("deny", hit.reason, text)
    if deny:
        why = needs_asking_under_deny(analysis)
        if why:
            return _Outcome("unchecked", why)
    if read_denied is not None:
        reading = _reads_repository(analysis, read_denied)
        if reading:
            return _Outcome("repository", reading)
    return None


def _grant(
    analysis: Analysis,
    allow_any: tuple[str, str] | None,
    allow: Sequence[_Grant],
    path_denied: Callable[[str], str | None] | None,
) -> _Outcome:
    """The rest of the order: whether allow rules cover the command, and which."""
    if allow_any is not None:
        return _Outcome("any", "a bare Bash rule allows every command", *allow_any)
    usable = allow_rules([(kind, spec) for kind, spec, _, _ in allow])
    m = covered(analysis, usable)
    if not allow:
        return _Outcome("no_rules", m.reason)
    if not m.ok:
        return _Outcome("uncovered", m.reason)
    named = _denied_word(analysis, path_denied) if path_denied is not None else None
    if named:
        return _Outcome("path", named)
    # Name the rule when one alone covers the whole command; else the parts' rules.
    for kind, spec, text, source in allow:
        if allow_match(analysis, spec, kind).ok:
            return _Outcome("covered", m.reason, text, source)
    return _Outcome("covered", m.reason)


def check_bash(
    command: str,
    deny: Sequence[RuleLike],
    allow: Sequence[tuple[RuleLike, str]],
    path_denied: Callable[[str], str | None],
) -> Decision:
    """The verdict for one Bash call. `deny` holds every deny rule (those for other tools
    too: a `Read(...)` deny changes what git may print); `allow` holds (rule, where it comes
    from: "session", "rule" or "turn"); `path_denied(word)` names the deny rule refusing a path."""
    bash_denies = [r for r in deny if r.tool in ("Bash", EVERY_TOOL)]
    deny_all = next((r.text for r in bash_denies if r.kind == "any"), None)
    read_denied = next((r.text for r in deny if r.tool == "Read"), None)
    grants = [(r, src) for r, src in allow if r.tool == "Bash"]
    allow_any = next(((r.text, src) for r, src in grants if r.kind == "any"), None)
    out, analysis = _order(
        command,
        deny_all,
        [(r.kind, r.spec or "", r.text) for r in bash_denies],  # type: ignore[misc]
        read_denied,
        allow_any,
        [(r.kind, r.spec or "", r.text, src) for r, src in grants if r.kind in ("exact", "prefix")],  # type: ignore[misc]
        path_denied,
    )
    if out.step in ("deny_all", "deny"):
        return Decision("deny", out.why, out.rule)
    if out.step in ("any", "covered"):
        if out.rule is None:
            return Decision("allow", f"allowed: {out.why}")
        return Decision("allow", _allowed(out.source, out.rule), out.rule)
    if out.step == "no_rules":
        plain = analysis is not None and analysis.plain
        return Decision("ask", "needs approval" if plain else f"needs approval ({out.why})")
    if out.step == "path":
        return Decision("ask", f"needs approval: {out.why}, so no allow rule covers it")
    return Decision("ask", f"needs approval: {out.why}")


def decide(
    command: str,
    allow: Sequence[tuple[RuleKind, str]],
    deny: Sequence[tuple[RuleKind, str]],
    allow_any: bool,
) -> Decision:
    """The verdict for one Bash command under bare rules (`Bash(spec)` or `Bash(spec:*)`),
    in the same order as `check_bash`, with the matcher's own reasons."""
    out, _ = _order(
        command,
        None,
        [(kind, spec, rule_label(spec, kind)) for kind, spec in deny],
        None,
        ("Bash", "rule") if allow_any else None,
        [(kind, spec, rule_label(spec, kind), "rule") for kind, spec in allow],
        None,
    )
    verdict = "deny" if out.step == "deny" else "allow" if out.step in ("any", "covered") else "ask"
    return Decision(verdict, out.why, out.rule)


def _allowed(src: str, rule: str) -> str:
    if src == "session":
        return f"allowed for this session by {rule}"
    if src == "turn":
        return f"allowed for this turn by {rule} (the active skill's allowed-tools)"
    return f"allowed by the rule {rule}"


def _denied_word(analysis: Analysis, path_denied: Callable[[str], str | None]) -> str | None:
    """A word of the command (or the value of `--opt=value`) naming a denied path."""
    for cmd in analysis.commands:
        for word in cmd.words[1:]:
            for candidate in (word, word.partition("=")[2]):
                if candidate and not candidate.startswith("-"):
                    rule = path_denied(candidate)
                    if rule:
                        return f"`{candidate}` is a path the rule {rule} denies"
    return None


def _reads_repository(analysis: Analysis, rule: str) -> str | None:
    """With a Read(...) deny rule, a git command that prints committed files (`git show
    HEAD:.env`): the sandbox masks the file, not git's object store, so it is always asked."""
    for cmd in analysis.commands:
        label = prints_repository(cmd)
        if label:
            return (
                f"`{label}` prints repository contents, and a Read(...) deny rule ({rule}) is in "
                "force: a file it denies, once committed, can be read from git's object store"
            )
    return None
