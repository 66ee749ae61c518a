"""Approval decisions and requests: which calls run, which are refused, which ask first.

The rules themselves (their syntax and how a call matches one) live in `permissions`.
Order: deny rules win; read-only tools are allowed; then session grants, --allow/config
rules and the turn's grants (a skill's allowed-tools) allow; anything else asks.
"""

from __future__ import annotations

import asyncio
import enum
import json
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codebot.agent.permissions.rules import (
    EVERY_TOOL,
    PATH_TOOLS,
    READ_ONLY_TOOLS,
    Pattern,
    fail_closed,
    parse_pattern,
)
from codebot.agent.permissions.verdict import Verdict
from codebot.agent.tools import ToolContext, ToolError, display_path, resolve_path

# The permission names lived here before the split; other code still imports them from here.
__all__ = [
    "PATH_TOOLS",
    "READ_ONLY_TOOLS",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approvals",
    "Pattern",
    "Verdict",
    "clean_reason",
    "parse_pattern",
    "preview_for",
    "session_pattern_for",
    "session_patterns_for",
]


def session_patterns_for(tool: str, subject: str) -> list[Pattern]:
    """ "Allow for the session" on a plain Bash chain grants each of its commands exactly
    (a rule of several commands allows nothing: every part must be allowed on its own), so
    `make && make test` asked once runs unasked again, and so do `make` and `make test`,
    but nothing else. Anything else: exactly what was seen (`session_pattern_for`)."""
    if tool == "Bash":
        import shlex

        from codebot.shell import parsed

        analysis = parsed(subject)
        if analysis.plain and analysis.chain:
            return [Pattern.exact("Bash", shlex.join(cmd.words)) for cmd in analysis.chain]
    return [session_pattern_for(tool, subject)]


def session_pattern_for(tool: str, subject: str) -> Pattern:
    """What "allow for the session" should grant: exactly this command, or exactly this path.

    Built directly (never parsed), so a command ending in `:*` or a path containing glob
    characters grants nothing more than what the person saw.
    """
    return Pattern.exact(tool, subject)


# --------------------------------------------------------------------------- verdicts


class Approvals:
    def __init__(
        self,
        allow: Sequence[str | tuple[str, str]] = (),
        deny: Sequence[str | tuple[str, str]] = (),
        read_only_tools: Collection[str] = READ_ONLY_TOOLS,
        ask: Sequence[str | tuple[str, str]] = (),
    ) -> None:
        """Rules are pattern texts, or (pattern, where it was written) for the warnings.
        Deny wins, then ask (asked even when a rule allows), then allow."""
        self.warnings: list[str] = []
        self.allow_rules: list[Pattern] = self._parse_all(allow, "allow")
        self.deny_rules: list[Pattern] = self._parse_all(deny, "deny")
        self.ask_rules: list[Pattern] = self._parse_all(ask, "ask")
        self.read_only_tools = frozenset(read_only_tools)
        self.session_rules: list[Pattern] = []
        self.on_grant: Callable[[], None] | None = None  # a new session rule (setup records it)
        # Set by setup: lets `path_denied` read a path as the project's tools would (a word
        # such as `/abs/proj/.env`, `sub/../.env` or a symlink to it is `.env`).
        self.project_dir: str | None = None

    def _parse_all(self, items: Iterable[str | tuple[str, str]], what: str) -> list[Pattern]:
        rules = []
        for item in items:
            text, origin = (item, "") if isinstance(item, str) else item
            where = f"{origin}: " if origin else ""
            try:
                rules.append(parse_pattern(text))
            except ValueError as e:
                if what != "deny":
                    self.warnings.append(f"{where}ignored {what} pattern {text!r}: {e}")
                    continue
                # A deny rule the person meant must not vanish because of a typo.
                rule = fail_closed(text)
                scope = "every tool" if rule.tool == EVERY_TOOL else f"every {rule.tool} call"
                if text != EVERY_TOOL:
                    self.warnings.append(
                        f"{where}malformed deny pattern {text!r} ({e}); {scope} is denied until it "
                        "is fixed"
                    )
                rules.append(rule)
        return rules

    def grant_session(self, pattern: str | Pattern) -> Pattern | None:
        """Allow calls matching `pattern` for the rest of the session (never raises)."""
        if isinstance(pattern, Pattern):
            rule = pattern
        else:
            try:
                rule = parse_pattern(pattern)
            except ValueError as e:
                self.warnings.append(f"ignored session grant {pattern!r}: {e}")
                return None
        if rule not in self.session_rules:
            self.session_rules.append(rule)
            if self.on_grant is not None:
                self.on_grant()
        return rule

    def add_allow(self, pattern: str) -> bool:
        rules = self._parse_all([pattern], "allow")
        self.allow_rules.extend(rules)
        return bool(rules)

    def add_deny(self, pattern: str) -> bool:
        rules = self._parse_all([pattern], "deny")
        self.deny_rules.extend(rules)
        return bool(rules)

    def _asked(self, tool: str, subject: str) -> Verdict | None:
        """The ask verdict when an ask rule matches the call (it is asked even if allowed)."""
        return _asked_by(self.ask_rules, tool, subject) if self.ask_rules else None

    def denied(self, tool: str, subjects: Iterable[str]) -> Verdict | None:
        """The deny verdict when any of a call's subjects (a skill's name as asked for and
        as resolved, say) matches a deny rule; None otherwise."""
        for rule in self.deny_rules:
            for subject in subjects:
                if rule.matches_for_deny(tool, subject or ""):
                    return Verdict("deny", rule.text, f"{tool} is denied by the rule {rule.text}")
        return None

    def path_denied(self, subject: str, writing: bool = False) -> str | None:
        """The deny rule that refuses reading (or writing) this path, or None. `subject` is
        project-relative, or absolute outside the project, as path tools give it."""
        tools = ("Read", "Edit", EVERY_TOOL) if writing else ("Read", EVERY_TOOL)
        rules = [r for r in self.deny_rules if r.tool in tools and r.kind != "any"]
        if not rules:  # the common case: Grep and Glob pay nothing per file
            return None
        if self.project_dir is not None:
            subject = _as_tools_see_it(subject, self.project_dir)
        for rule in rules:
            if rule.matches_for_deny(rule.tool, subject):
                return rule.text
        return None

    def check(self, tool: str, subject: str, turn_grants: Sequence[str | Pattern] = ()) -> Verdict:
        subject = subject or ""
        if tool == "Bash":
            from codebot.shell import check_bash

            grants = [g if isinstance(g, Pattern) else _try_parse(g) for g in turn_grants]
            allow = [
                *((r, "session") for r in self.session_rules),
                *((r, "rule") for r in self.allow_rules),
                *((g, "turn") for g in grants if g is not None),
            ]
            d = check_bash(subject, self.deny_rules, allow, self.path_denied)
            asked = self._asked(tool, subject) if d.verdict == "allow" else None
            return asked or Verdict(d.verdict, d.rule, d.reason)
        for rule in self.deny_rules:
            # A path rule means the path, whichever tool touches it: Read(...) holds for
            # Grep, Glob and Edit too, Edit(...) for Write.
            covered = COVERS.get(rule.tool, ())
            if rule.matches_for_deny(tool, subject) or (
                tool in covered and rule.matches_for_deny(rule.tool, subject)
            ):
                return Verdict("deny", rule.text, f"{tool} is denied by the rule {rule.text}")
        if (asked := self._asked(tool, subject)) is not None:
            return asked
        if tool in self.read_only_tools:
            return Verdict("allow", None, f"{tool} is read-only")
        for rule in self.session_rules:
            if rule.matches(tool, subject):
                return Verdict("allow", rule.text, f"allowed for this session by {rule.text}")
        for rule in self.allow_rules:
            if rule.matches(tool, subject):
                return Verdict("allow", rule.text, f"allowed by the rule {rule.text}")
        for grant in turn_grants:
            rule = grant if isinstance(grant, Pattern) else _try_parse(grant)
            if rule is not None and rule.matches(tool, subject):
                return Verdict(
                    "allow",
                    rule.text,
                    f"allowed for this turn by {rule.text} (the active skill's allowed-tools)",
                )
        return Verdict("ask", None, "needs approval")


def _asked_by(rules: Sequence[Pattern], tool: str, subject: str) -> Verdict | None:
    for rule in rules:
        if rule.matches_for_deny(tool, subject):
            return Verdict("ask", rule.text, f"{tool} is asked every time by the rule {rule.text}")
    return None


def _as_tools_see_it(subject: str, project: str) -> str:
    real = os.path.realpath(os.path.join(project, os.path.expanduser(subject)))
    rel = os.path.relpath(real, project)
    return subject if rel == ".." or rel.startswith("../") else rel.replace(os.sep, "/")


#: Which tools a path rule on a tool also covers.
COVERS = {"Read": ("Grep", "Glob", "Edit"), "Edit": ("Write",)}


def _try_parse(text: str) -> Pattern | None:
    try:
        return parse_pattern(text)
    except (ValueError, TypeError):
        return None


# --------------------------------------------------------------------------- requests


class ApprovalAnswer(enum.Enum):
    ALLOW_ONCE = "allow_once"
    ALLOW_SESSION = "allow_session"
    # Allow for the session and save `ApprovalRequest.always` to the project's config.
    ALLOW_ALWAYS = "allow_always"
    # With `ApprovalRequest.denial` set, the model is told the person's reason.
    DENY = "deny"


@dataclass
class ApprovalRequest:
    tool: str
    arguments: dict[str, Any]
    subject: str
    preview: str
    future: asyncio.Future[ApprovalAnswer] | None = None
    # Why it is asked, in words ("not plain: contains a parameter expansion ...").
    reason: str = ""
    # Why this is asked again: the command failed inside the sandbox, and "allow" runs it
    # once outside (never granted for the session).
    outside_sandbox: str | None = None
    # "Always allow": the rules it saves, exactly as written to `always_path` (empty: not
    # offered, and `always_unavailable` says why in words).
    always: tuple[str, ...] = ()
    always_path: str = ""
    always_unavailable: str = ""
    # Set by the front end with DENY: what the person said; the model is told it,
    # cleaned (`clean_reason`).
    denial: str = ""

    @property
    def takes_reason(self) -> bool:
        """Whether "deny and say why" is offered (not for a run outside the sandbox)."""
        return self.outside_sandbox is None


#: The longest reason for a denial the model is told (longer ones are cut).
REASON_MAX_CHARS = 500
_SEQUENCE = re.compile(
    r"\x1b\[[\x20-\x3f]*[\x40-\x7e]?|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[\x20-\x7e]?"
)


def clean_reason(text: object) -> str:
    """What the person typed as a denial's reason, as the model is told it: terminal escape
    sequences removed, control and invisible characters dropped, every run of whitespace
    one space, at most REASON_MAX_CHARS characters."""
    import unicodedata

    from codebot.display import visible

    raw = _SEQUENCE.sub("", str(text or "")[: REASON_MAX_CHARS * 4])
    kept = []
    for ch in raw:
        if ch.isspace():
            kept.append(" ")
        elif visible(ch) == ch and unicodedata.category(ch) not in ("Cc", "Cf"):
            kept.append(ch)
    out = " ".join("".join(kept).split())
    return out if len(out) <= REASON_MAX_CHARS else out[: REASON_MAX_CHARS - 1].rstrip() + "…"


PREVIEW_MAX_LINES = 2000
NEW_FILE_HEAD_LINES = 40


def preview_for(tool: str, args: Mapping[str, Any], ctx: ToolContext) -> str:
    """What the person sees before approving: the command, or the diff the call would make.

    Never raises: a call that would fail shows why instead.
    """
    try:
        return _preview(tool, args, ctx)
    except ToolError as e:
        return f"({e})"
    except Exception as e:
        return f"(no preview: {type(e).__name__}: {e})"


def _preview(tool: str, args: Mapping[str, Any], ctx: ToolContext) -> str:
    from codebot.agent.tools import apply_edit, unified_diff

    if tool == "Bash":
        return str(args.get("command", ""))
    if tool == "SkillOutcome":  # a skill's question (`needs_confirmation`), as asked
        return f"{args.get('skill', '')} asks: {args.get('question', '')}"
    if tool in ("Edit", "Write") and isinstance(args.get("path"), str):
        path = resolve_path(ctx, args["path"])
        shown = display_path(ctx, path)
        if tool == "Edit":
            if not path.is_file():
                return f"(file not found: {shown}; the edit will fail)"
            before = path.read_text(encoding="utf-8", errors="replace")
            after, _ = apply_edit(
                before,
                str(args.get("old", "")),
                str(args.get("new", "")),
                bool(args.get("replace_all")),
                shown,
            )
            return unified_diff(before, after, shown, max_lines=PREVIEW_MAX_LINES)
        content = str(args.get("content", ""))
        if path.is_file():
            before = path.read_text(encoding="utf-8", errors="replace")
            if before == content:
                return f"(no change: {shown} already has this content)"
            return unified_diff(before, content, shown, max_lines=PREVIEW_MAX_LINES)
        lines = content.splitlines()
        head = "\n".join(lines[:NEW_FILE_HEAD_LINES])
        more = (
            f"\n[... {len(lines) - NEW_FILE_HEAD_LINES} more lines]"
            if len(lines) > NEW_FILE_HEAD_LINES
            else ""
        )
        size = len(content.encode("utf-8"))
        return f"new file {shown} ({size} bytes, {len(lines)} lines)\n{head}{more}"
    if tool in PATH_TOOLS and isinstance(args.get("path"), str):
        return display_path(ctx, resolve_path(ctx, args["path"]))
    text = json.dumps(dict(args), indent=2, ensure_ascii=False, default=str)
    return text if len(text) <= 4000 else text[:4000] + "\n[...]"
