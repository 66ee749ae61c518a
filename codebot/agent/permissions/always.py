""" "Always allow": which rules an approval may save for good, and where.

The rules are exactly what "allow for the session" grants (`session_patterns_for`): each
command of a plain Bash chain exactly (`Bash(npm test)`), or exactly the path of an Edit
or Write (`Edit(/src/app.py)`), never a prefix or a glob. A saved rule is read back by
`parse_pattern`, so it is written in the form that reads back as that same narrow rule: a
path is anchored at the project root (`/src/app.py`, or `//abs/path` outside it) with
its glob characters escaped, since `Edit(app.py)` would mean `app.py` in every folder.
Each rule is then checked the way it will be used: read back, it must allow this call
under the session's deny rules, and it must not match the paths next to it. (A path rule
also covers what is below that path should it ever become a folder, as every gitignore
rule does; so nothing is offered for a path that is a folder now, and neither Edit nor
Write can turn a file into a folder.)

Nothing is offered for a command the parser could not decide on (not plain, or a part it
cannot see into, such as `bash script.sh`), for a call outside the sandbox, for other
tools, or in a project that is not trusted: its `.codebot/config.yaml` allow rules are
ignored there (`config.load_settings`), and saving to the user's config instead would
allow the call in every project.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from codebot.agent.permissions.rules import Pattern, parse_pattern

#: The file, under the project, that "always allow" writes.
PROJECT_CONFIG = (".codebot", "config.yaml")
_GLOB_CHARS = frozenset("*?[]\\()")


@dataclass(frozen=True)
class AlwaysOffer:
    """The rules "always allow" would save and the file they go to; or, with no rules,
    why it is not offered."""

    rules: tuple[str, ...] = ()
    path: str = ""
    why_not: str = ""


def always_offer(
    tool: str,
    subject: str,
    approvals,
    *,
    trusted: bool,
    project_dir: str | os.PathLike[str],
    user_config: str | os.PathLike[str] | None = None,
) -> AlwaysOffer:
    """What "always allow" offers for this call (never raises)."""
    if not trusted:
        return AlwaysOffer(
            why_not="this project is not trusted, so allow rules in its .codebot/config.yaml are "
            "ignored; run `codebot trust` to save rules there"
        )
    path = Path(project_dir, *PROJECT_CONFIG)
    if user_config is not None and _same_file(path, Path(user_config)):
        return AlwaysOffer(
            why_not=f"{path} is your user config: a rule saved there would hold in every project"
        )
    from codebot.agent.permissions.save_rule import target_problem

    problem = target_problem(path)
    if problem:
        return AlwaysOffer(why_not=problem)
    try:
        rules, why_not = always_rules(tool, subject, approvals)
    except Exception as exc:  # a decision that fails offers nothing rather than something wrong
        rules, why_not = [], f"no rule could be made for it ({type(exc).__name__})"
    if not rules:
        return AlwaysOffer(why_not=why_not)
    return AlwaysOffer(tuple(rules), str(path))


def always_rules(tool: str, subject: str, approvals) -> tuple[list[str], str]:
    """The rule texts to save for this call, checked; or [] and why there are none."""
    from codebot.agent.permissions.approvals import session_patterns_for
    from codebot.display import has_hidden

    if not subject or has_hidden(subject) or "\n" in subject:
        return [], "only a call without hidden or control characters can be saved as a rule"
    if tool == "Bash":
        from codebot.shell import parsed

        analysis = parsed(subject)
        if not analysis.plain or not analysis.chain:
            return (
                [],
                "only a plain command can be saved as a rule; this one is "
                f"{analysis.reason or 'not plain'}",
            )
        if analysis.unresolved:
            return (
                [],
                "only a command that can be checked fully can be saved as a rule: "
                f"{analysis.unresolved[0]}",
            )
    elif tool not in ("Edit", "Write"):
        return [], f"{tool} calls cannot be saved as a rule"
    else:
        if "\\" in subject or any(part != part.strip() for part in subject.split("/")):
            # Rules read `\` as `/`, and gitignore drops spaces at the end.
            return (
                [],
                "a path with a backslash or spaces at the edge of a name cannot be written as a "
                "rule exactly",
            )
        where = Path(getattr(approvals, "project_dir", None) or ".", subject)
        if where.is_dir() or (where.exists() and not where.is_file()):
            # `Write(/src)` would also allow every file below src/.
            return [], f"{subject} is not a regular file, so no rule can mean exactly it"
    texts: list[str] = []
    for pattern in session_patterns_for(tool, subject):
        text = rule_text(pattern)
        if text is None:
            return [], "this path cannot be written as a rule that means exactly it"
        if text not in texts:
            texts.append(text)
    why_not = _check(tool, subject, texts, approvals)
    return ([], why_not) if why_not else (texts, "")


def rule_text(pattern: Pattern) -> str | None:
    """`pattern` (a session grant) written so that `parse_pattern` reads it back as the
    same narrow rule; None when that cannot be done."""
    if pattern.tool == "Bash" and pattern.kind == "exact" and pattern.spec:
        text = f"Bash({pattern.spec})"
        back = _parse(text)
        return (
            text
            if back is not None and back.kind == "exact" and back.spec == pattern.spec
            else None
        )
    if pattern.kind != "literal_path" or not pattern.spec:
        return None
    spec = pattern.spec
    if (
        spec in (".", "/")
        or spec != spec.strip()
        or any(part != part.strip() for part in spec.split("/"))
    ):
        return None  # the project itself, or spaces at an edge (gitignore drops them)
    escaped = "".join("\\" + ch if ch in _GLOB_CHARS else ch for ch in spec)
    # Anchored: `/src/app.py` is that file in the project root only; `//abs` is absolute.
    text = f"{pattern.tool}(/{escaped})"
    back = _parse(text)
    if back is None or back.kind != "path" or not back.matches(pattern.tool, spec):
        return None
    return text


def _check(tool: str, subject: str, texts: list[str], approvals) -> str:
    """ "" when the rules, read back, allow this call under the session's deny rules and
    match nothing next to it; else why not (and the rules must not be offered)."""
    from codebot.agent.permissions.approvals import Approvals

    probe = Approvals(allow=texts, deny=[r.text for r in getattr(approvals, "deny_rules", ())])
    probe.project_dir = getattr(approvals, "project_dir", None)
    if probe.warnings or len(probe.allow_rules) != len(texts):
        return "the rule would not read back as written"
    verdict = probe.check(tool, subject)
    if verdict.outcome != "allow":
        return f"a saved rule would not allow it: {verdict.reason}"
    if tool != "Bash":
        # (Paths below it are not checked: gitignore rules cover a folder's contents, and
        # it was made sure above that the subject is not a folder.)
        parent = subject.rpartition("/")[0]
        neighbours = [subject + "x", f"{parent}/x" if parent else "x", parent or "."]
        if not subject.startswith("/"):
            neighbours.append("sub/" + subject)
        if any(
            rule.matches(tool, n) for rule in probe.allow_rules for n in neighbours if n != subject
        ):
            return "the rule would also match other paths"
    return ""


def _parse(text: str) -> Pattern | None:
    try:
        return parse_pattern(text)
    except ValueError:
        return None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except OSError:
        return False
