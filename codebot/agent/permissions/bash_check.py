"""The one decision for a Bash command, on what the shell will run (`shell_parse`), with
the person's rules from every source: deny rules, session grants, allow rules, and the
turn's grants (a skill's `allowed-tools`).

Order:
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
tree-sitter is imported only here, when the first Bash decision is made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from codebot.agent.permissions.rules import EVERY_TOOL, Pattern
from codebot.agent.permissions.verdict import Verdict


def check_bash(
    command: str,
    deny: Sequence[Pattern],
    allow: Sequence[tuple[Pattern, str]],
    path_denied: Callable[[str], str | None],
) -> Verdict:
    """`allow` holds (rule, where it comes from: "session", "rule" or "turn")."""
    from codebot.agent.permissions.shell_parse import analyze
    from codebot.agent.permissions.shell_rules import (
        allow_match,
        decide,
        deny_match,
        needs_asking_under_deny,
    )

    bash_denies = [r for r in deny if r.tool in ("Bash", EVERY_TOOL)]
    for rule in bash_denies:
        if rule.kind == "any":
            return Verdict("deny", rule.text, f"Bash is denied by the rule {rule.text}")
    analysis = analyze(command)
    for rule in bash_denies:
        hit = deny_match(analysis, rule.spec or "", rule.kind)  # type: ignore[arg-type]
        if hit.ok:
            return Verdict("deny", rule.text, hit.reason)
    if bash_denies:
        why = needs_asking_under_deny(analysis)
        if why:
            return Verdict("ask", None, f"needs approval: {why}")
    reading = _reads_repository(analysis, deny)
    if reading:
        return Verdict("ask", None, f"needs approval: {reading}")
    bash_allows = [(r, src) for r, src in allow if r.tool == "Bash"]
    for rule, src in bash_allows:
        if rule.kind == "any":
            return Verdict("allow", rule.text, _allowed(src, rule.text))
    rules = [(r, src) for r, src in bash_allows if r.kind in ("exact", "prefix")]
    if not rules:
        return Verdict("ask", None, f"needs approval ({analysis.reason})" if not analysis.plain else "needs approval")
    verdict = decide(command, [(r.kind, r.spec or "") for r, _ in rules], [], False)  # type: ignore[misc]
    if verdict.verdict != "allow":
        return Verdict("ask", None, f"needs approval: {verdict.reason}")
    named = _denied_word(analysis, path_denied)
    if named:
        return Verdict("ask", None, f"needs approval: {named}, so no allow rule covers it")
    # Name the rule when one alone covers the whole command; else the parts' rules.
    for rule, src in rules:
        if allow_match(analysis, rule.spec or "", rule.kind).ok:  # type: ignore[arg-type]
            return Verdict("allow", rule.text, _allowed(src, rule.text))
    return Verdict("allow", None, f"allowed: {verdict.reason}")


def _allowed(src: str, rule: str) -> str:
    if src == "session":
        return f"allowed for this session by {rule}"
    if src == "turn":
        return f"allowed for this turn by {rule} (the active skill's allowed-tools)"
    return f"allowed by the rule {rule}"


def _denied_word(analysis, path_denied: Callable[[str], str | None]) -> str | None:
    """A word of the command (or the value of `--opt=value`) naming a denied path."""
    for cmd in analysis.commands:
        for word in cmd.words[1:]:
            for candidate in (word, word.partition("=")[2]):
                if candidate and not candidate.startswith("-"):
                    rule = path_denied(candidate)
                    if rule:
                        return f"`{candidate}` is a path the rule {rule} denies"
    return None


def _reads_repository(analysis, deny: Sequence[Pattern]) -> str | None:
    """With a Read(...) deny rule, a git command that prints committed files (`git show
    HEAD:.env`): the sandbox masks the file, not git's object store, so it is always asked."""
    from codebot.agent.permissions.shell_danger import prints_repository

    rule = next((r for r in deny if r.tool == "Read"), None)
    if rule is None:
        return None
    for cmd in analysis.commands:
        label = prints_repository(cmd)
        if label:
            return (f"`{label}` prints repository contents, and a Read(...) deny rule ({rule.text}) is in "
                    "force: a file it denies, once committed, can be read from git's object store")  # fmt: skip
    return None
