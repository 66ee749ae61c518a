"""Permission rules and approval requests.

Rules look like Claude Code's:

    Edit                 any Edit call
    Bash(npm test)       exactly this command
    Bash(git diff:*)     a command starting with the words `git diff` (`git difftool` is not)
    Read(src/**)         a gitignore-style glob on the project-relative path
    Skill(pdf-*)         other tools: an fnmatch glob on the subject

A Bash exact or prefix rule never grants a command that chains, pipes, substitutes or
redirects (`;`, `&&`, `||`, `|`, `&`, newline, backticks, `$(`, `>`, `<`): those always
fall back to asking, unless a bare `Bash` rule allows every command. Deny rules are
matched conservatively instead: each chained part of a command is checked on its own,
so `Bash(rm:*)` in --deny also catches `make && rm -rf build`.

Order: deny rules win; read-only tools are allowed; then session grants, --allow/config
rules and the turn's grants (a skill's allowed-tools) allow; anything else asks.
"""

from __future__ import annotations

import asyncio
import enum
import fnmatch
import json
import posixpath
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from codebot.agent.tools.base import ToolContext, ToolError, display_path, resolve_path

__all__ = [
    "BASH_METACHARS",
    "PATH_TOOLS",
    "READ_ONLY_TOOLS",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approvals",
    "Pattern",
    "Verdict",
    "has_shell_metachars",
    "parse_pattern",
    "preview_for",
    "session_pattern_for",
]

#: Tools whose subject is a path, matched with gitignore-style globs.
PATH_TOOLS = frozenset({"Read", "Write", "Edit", "Glob", "Grep"})
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep", "SkillSearch", "Skill", "Task"})
#: Any of these in a command and Bash exact/prefix rules do not match it.
BASH_METACHARS = (";", "&", "|", "\n", "\r", "`", "$(", ">", "<")

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
Kind = Literal["any", "exact", "prefix", "path", "literal_path", "glob"]


def has_shell_metachars(command: str) -> bool:
    return any(m in command for m in BASH_METACHARS)


def _norm_rel(subject: str) -> str | None:
    """A project-relative posix path, or None when it is absolute or escapes the project."""
    s = subject.replace("\\", "/").strip()
    if not s:
        return None
    if s.startswith("/"):
        return None
    s = posixpath.normpath(s)
    if s == ".." or s.startswith("../"):
        return None
    return s


@dataclass(frozen=True)
class Pattern:
    """One permission rule. Build with `parse_pattern` (or `Pattern.exact` for a grant)."""

    tool: str
    kind: Kind
    spec: str | None = None  # the command, prefix, glob or path
    text: str = ""  # as written
    absolute: bool = False  # a path rule written as `//abs/**` or `~/x/**`
    _matcher: Any = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def exact(cls, tool: str, subject: str) -> Pattern:
        """A rule for exactly this call's subject (no globbing, no `:*` interpretation)."""
        if not subject:
            return cls(tool, "any", None, tool)
        text = f"{tool}({subject})"
        if tool == "Bash":
            return cls(tool, "exact", subject.strip(), text)
        if tool in PATH_TOOLS:
            rel = _norm_rel(subject)
            return cls(tool, "literal_path", rel if rel is not None else posixpath.normpath(subject), text)
        return cls(tool, "exact", subject, text)

    # -- matching ---------------------------------------------------------------------------

    def matches(self, tool_name: str, subject: str) -> bool:
        """Whether this rule grants (or, in a deny list, refuses) a call."""
        if tool_name != self.tool:
            return False
        if self.kind == "any":
            return True
        subject = subject or ""
        if self.kind in ("exact", "prefix") and self.tool == "Bash":
            command = subject.strip()
            if has_shell_metachars(command):
                return False
            return self._bash_match(command)
        if self.kind == "exact":
            return subject == self.spec
        if self.kind == "literal_path":
            rel = _norm_rel(subject)
            return (rel if rel is not None else posixpath.normpath(subject)) == self.spec
        if self.kind == "path":
            return self._path_match(subject)
        if self.kind == "glob":
            return fnmatch.fnmatchcase(subject, self.spec or "")
        return False

    def matches_for_deny(self, tool_name: str, subject: str) -> bool:
        """Like `matches`, but a chained Bash command matches when any of its parts does."""
        if self.matches(tool_name, subject):
            return True
        if tool_name != self.tool or self.tool != "Bash" or self.kind not in ("exact", "prefix"):
            return False
        return any(self._bash_match(part) for part in _bash_parts(subject or ""))

    def _bash_match(self, command: str) -> bool:
        spec = self.spec or ""
        if self.kind == "exact":
            return command == spec
        return command == spec or (command.startswith(spec) and command[len(spec)] in " \t")

    def _path_match(self, subject: str) -> bool:
        spec = self.spec or ""
        if self.absolute:
            s = posixpath.normpath(subject.replace("\\", "/")) if subject else ""
            if not s.startswith("/"):
                return False
            return bool(self._matcher.match_file(s[1:]))
        rel = _norm_rel(subject)
        if rel is None:
            return False  # outside the project: only a bare tool rule or an absolute rule
        if rel == ".":
            return spec in ("**", "*", ".", "./")
        return bool(self._matcher.match_file(rel))


_SPLIT_RE = re.compile(r"\|\||&&|[;&|\n\r`()<>{}]|\$\(")
_WRAPPERS = frozenset({"sudo", "env", "command", "exec", "nohup", "time", "nice", "builtin", "!",
                       "then", "do", "else", "elif", "if", "while", "until", "xargs"})  # fmt: skip
_ASSIGN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*\s+")


def _bash_parts(command: str) -> list[str]:
    """The simple commands a chained command line is made of (approximately), for deny rules."""
    parts = []
    for raw in _SPLIT_RE.split(command):
        part = raw.strip()
        changed = True
        while part and changed:
            changed = False
            m = _ASSIGN_RE.match(part)
            if m:
                part, changed = part[m.end():].lstrip(), True  # fmt: skip
                continue
            word, _, rest = part.partition(" ")
            if word in _WRAPPERS:
                part, changed = rest.lstrip(), True
        if part:
            parts.append(part)
    return parts


def _balanced(text: str) -> bool:
    """Parentheses balance, ignoring those inside quotes."""
    depth = 0
    quote = ""
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
            continue
        if ch == "\\" and quote != "'":
            escaped = True
            continue
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


@lru_cache(maxsize=1024)
def parse_pattern(text: str) -> Pattern:
    """Parse a rule such as `Edit`, `Bash(git diff:*)` or `Read(src/**)`; ValueError if malformed."""
    if not isinstance(text, str):
        raise ValueError(f"a permission pattern must be text, not {type(text).__name__}")
    raw = text.strip()
    if not raw:
        raise ValueError("empty permission pattern")
    if raw == "*" or raw.startswith("*"):
        raise ValueError(f"{raw!r}: a bare '*' is not supported; name a tool, e.g. 'Bash' or 'Edit(src/**)'")
    if "(" not in raw:
        if ")" in raw:
            raise ValueError(f"{raw!r}: unbalanced parentheses")
        if not _NAME_RE.match(raw):
            raise ValueError(f"{raw!r}: not a tool name (expected e.g. 'Edit' or 'Bash(git diff:*)')")
        return Pattern(raw, "any", None, raw)
    name, _, rest = raw.partition("(")
    name = name.strip()
    if not name:
        raise ValueError(f"{raw!r}: missing tool name before '('")
    if not _NAME_RE.match(name):
        raise ValueError(f"{raw!r}: {name!r} is not a tool name")
    if not rest.endswith(")"):
        raise ValueError(f"{raw!r}: unbalanced parentheses (the pattern must end with ')')")
    spec = rest[:-1]
    if not _balanced(spec):
        raise ValueError(f"{raw!r}: unbalanced parentheses")
    spec = spec.strip()
    if not spec:
        raise ValueError(f"{raw!r}: empty specifier; write {name!r} alone to match every {name} call")
    if name == "Bash":
        if spec.endswith((":*", " *")):
            prefix = spec[:-2].strip()
            if not prefix:
                raise ValueError(f"{raw!r}: empty command prefix; write 'Bash' alone to allow every command")
            return Pattern(name, "prefix", prefix, raw)
        if spec == "*":
            return Pattern(name, "any", None, raw)
        return Pattern(name, "exact", spec, raw)
    if name in PATH_TOOLS:
        return _path_pattern(name, spec, raw)
    if spec == "*":
        return Pattern(name, "any", None, raw)
    return Pattern(name, "glob", spec, raw)


def _path_pattern(name: str, spec: str, raw: str) -> Pattern:
    import os

    import pathspec

    if spec.startswith("!"):
        raise ValueError(f"{raw!r}: negated globs are not supported; use a deny rule instead")
    absolute = False
    if spec.startswith("//"):  # an absolute path, as in Claude Code: //etc/**
        spec, absolute = "/" + spec.lstrip("/"), True
    elif spec.startswith("~/"):
        spec, absolute = os.path.expanduser(spec), True
    elif spec.startswith("./"):
        spec = spec[2:]
    # A relative spec keeps gitignore semantics: `/src/**` is anchored at the project root,
    # `*.py` matches at any depth, `docs/*.md` does not cross folders.
    if spec.strip("/") == "":
        raise ValueError(f"{raw!r}: empty path pattern")
    try:
        matcher = pathspec.GitIgnoreSpec.from_lines([spec])
    except Exception as e:
        raise ValueError(f"{raw!r}: invalid path pattern: {e}") from None
    if not any(getattr(p, "include", None) is not None for p in matcher.patterns):
        raise ValueError(f"{raw!r}: invalid path pattern")
    return Pattern(name, "path", spec, raw, absolute, matcher)


def session_pattern_for(tool: str, subject: str) -> Pattern:
    """What "allow for the session" should grant: exactly this command, or exactly this path.

    Built directly (never parsed), so a command ending in `:*` or a path containing glob
    characters grants nothing more than what the person saw.
    """
    return Pattern.exact(tool, subject)


# --------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Verdict:
    outcome: Literal["allow", "deny", "ask"]
    rule: str | None
    reason: str

    @property
    def allowed(self) -> bool:
        return self.outcome == "allow"


class Approvals:
    def __init__(
        self,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        read_only_tools: Collection[str] = READ_ONLY_TOOLS,
    ) -> None:
        self.warnings: list[str] = []
        self.allow_rules: list[Pattern] = self._parse_all(allow, "allow")
        self.deny_rules: list[Pattern] = self._parse_all(deny, "deny")
        self.read_only_tools = frozenset(read_only_tools)
        self.session_rules: list[Pattern] = []

    def _parse_all(self, texts: Iterable[str], what: str) -> list[Pattern]:
        rules = []
        for text in texts:
            try:
                rules.append(parse_pattern(text))
            except ValueError as e:
                self.warnings.append(f"ignored {what} pattern {text!r}: {e}")
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
        return rule

    def add_allow(self, pattern: str) -> bool:
        rules = self._parse_all([pattern], "allow")
        self.allow_rules.extend(rules)
        return bool(rules)

    def add_deny(self, pattern: str) -> bool:
        rules = self._parse_all([pattern], "deny")
        self.deny_rules.extend(rules)
        return bool(rules)

    def check(self, tool: str, subject: str, turn_grants: Sequence[str | Pattern] = ()) -> Verdict:
        subject = subject or ""
        for rule in self.deny_rules:
            if rule.matches_for_deny(tool, subject):
                return Verdict("deny", rule.text, f"{tool} is denied by the rule {rule.text}")
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
                return Verdict("allow", rule.text, f"allowed for this turn by {rule.text} (the active skill's allowed-tools)")
        why = "needs approval"
        if tool == "Bash" and has_shell_metachars(subject):
            why = "needs approval (the command chains, pipes or redirects, so prefix rules do not apply)"
        return Verdict("ask", None, why)


def _try_parse(text: str) -> Pattern | None:
    try:
        return parse_pattern(text)
    except (ValueError, TypeError):
        return None


# --------------------------------------------------------------------------- requests


class ApprovalAnswer(enum.Enum):
    ALLOW_ONCE = "allow_once"
    ALLOW_SESSION = "allow_session"
    DENY = "deny"


@dataclass
class ApprovalRequest:
    tool: str
    arguments: dict[str, Any]
    subject: str
    preview: str
    future: asyncio.Future[ApprovalAnswer] | None = None


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
    from codebot.agent.tools.files import apply_edit, unified_diff

    if tool == "Bash":
        return str(args.get("command", ""))
    if tool in ("Edit", "Write") and isinstance(args.get("path"), str):
        path = resolve_path(ctx, args["path"])
        shown = display_path(ctx, path)
        if tool == "Edit":
            if not path.is_file():
                return f"(file not found: {shown}; the edit will fail)"
            before = path.read_text(encoding="utf-8", errors="replace")
            after, _ = apply_edit(before, str(args.get("old", "")), str(args.get("new", "")),
                                  bool(args.get("replace_all")), shown)  # fmt: skip
            return unified_diff(before, after, shown, max_lines=PREVIEW_MAX_LINES)
        content = str(args.get("content", ""))
        if path.is_file():
            before = path.read_text(encoding="utf-8", errors="replace")
            if before == content:
                return f"(no change: {shown} already has this content)"
            return unified_diff(before, content, shown, max_lines=PREVIEW_MAX_LINES)
        lines = content.splitlines()
        head = "\n".join(lines[:NEW_FILE_HEAD_LINES])
        more = f"\n[... {len(lines) - NEW_FILE_HEAD_LINES} more lines]" if len(lines) > NEW_FILE_HEAD_LINES else ""
        size = len(content.encode("utf-8"))
        return f"new file {shown} ({size} bytes, {len(lines)} lines)\n{head}{more}"
    if tool in PATH_TOOLS and isinstance(args.get("path"), str):
        return display_path(ctx, resolve_path(ctx, args["path"]))
    text = json.dumps(dict(args), indent=2, ensure_ascii=False, default=str)
    return text if len(text) <= 4000 else text[:4000] + "\n[...]"
