"""Permission rules: parsing `Bash(git diff:*)`-style patterns and matching calls against them.

Rules look like Claude Code's:

    Edit                 any Edit call
    Bash(npm test)       exactly this command
    Bash(git diff:*)     a command starting with the words `git diff` (`git difftool` is not)
    Read(src/**)         a gitignore-style glob on the project-relative path
    Skill(pdf-*)         other tools: an fnmatch glob on the subject

Bash exact and prefix rules are matched on the parsed command (`codebot.shell`: `parsed`,
`allow_match`, `deny_match`), never on its text: they allow only a plain command, word by
word, every part of a chain on its own; deny rules hit any command anywhere in it, through
wrappers. The whole Bash decision, with every source of rules, is `codebot.shell.check_bash`.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = [
    "PATH_TOOLS",
    "READ_ONLY_TOOLS",
    "Pattern",
    "parse_pattern",
]

#: Tools whose subject is a path, matched with gitignore-style globs.
PATH_TOOLS = frozenset({"Read", "Write", "Edit", "Glob", "Grep"})
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep", "SkillSearch", "Skill", "Task", "ToolSearch"})

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
Kind = Literal["any", "exact", "prefix", "path", "literal_path", "glob"]


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
    _matcher: GitIgnoreSpec | None = field(default=None, compare=False, repr=False)

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
            return cls(
                tool, "literal_path", rel if rel is not None else posixpath.normpath(subject), text
            )
        return cls(tool, "exact", subject, text)

    # -- matching ---------------------------------------------------------------------------

    def matches(self, tool_name: str, subject: str) -> bool:
        """Whether this rule grants (or, in a deny list, refuses) a call."""
        if tool_name != self.tool and self.tool != EVERY_TOOL and not _of_server(self, tool_name):
            return False
        if self.kind == "any":
            return True
        subject = subject or ""
        if self.kind in ("exact", "prefix") and self.tool == "Bash":
            # One parser for every Bash decision: the words the shell will run, not the text.
            from codebot.shell import allow_match, parsed

            return allow_match(parsed(subject), self.spec or "", self.kind).ok  # type: ignore[arg-type]
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
        """Like `matches`, but a Bash rule hits when any command anywhere in the line has its
        name (through wrappers, `bash -c`, `find -exec`, `/bin/rm`, `\\rm`, `'rm'`)."""
        if tool_name != self.tool or self.tool != "Bash" or self.kind not in ("exact", "prefix"):
            return self.matches(tool_name, subject)
        from codebot.shell import deny_match, parsed

        return deny_match(parsed(subject or ""), self.spec or "", self.kind).ok  # type: ignore[arg-type]

    def _path_match(self, subject: str) -> bool:
        spec = self.spec or ""
        matcher = self._matcher
        assert matcher is not None  # parse_pattern makes one for every path rule
        if self.absolute:
            s = posixpath.normpath(subject.replace("\\", "/")) if subject else ""
            if not s.startswith("/"):
                return False
            return bool(matcher.match_file(s[1:]))
        rel = _norm_rel(subject)
        if rel is None:
            return False  # outside the project: only a bare tool rule or an absolute rule
        if rel == ".":
            return spec in ("**", "*", ".", "./")
        return bool(matcher.match_file(rel))


def _of_server(rule: Pattern, tool_name: str) -> bool:
    """`mcp__<server>` (a bare rule) covers each tool of that server, `mcp__<server>__<tool>`:
    server parts never hold `__` (codebot/mcp/names.py), so the prefix names one server."""
    server = rule.tool
    return (
        rule.kind == "any"
        and server.startswith("mcp__")
        and "__" not in server[5:]
        and tool_name.startswith(server + "__")
    )


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


#: The tool of a rule that matches every tool (what a deny entry naming no tool becomes).
EVERY_TOOL = "*"


def fail_closed(text: object) -> Pattern:
    """What a malformed deny entry denies until it is fixed: the whole tool it names
    (`Bash(rm:*` denies every Bash call), or every tool when it names none."""
    name = text.partition("(")[0].strip() if isinstance(text, str) else ""
    tool = name if _NAME_RE.match(name) else EVERY_TOOL
    return Pattern(tool, "any", None, str(text))


@lru_cache(maxsize=1024)
def parse_pattern(text: str) -> Pattern:
    """Parse a rule such as `Edit`, `Bash(git diff:*)` or `Read(src/**)`.

    Raises ValueError if the rule is malformed.
    """
    if not isinstance(text, str):
        raise ValueError(f"a permission pattern must be text, not {type(text).__name__}")
    raw = text.strip()
    if not raw:
        raise ValueError("empty permission pattern")
    if raw == "*" or raw.startswith("*"):
        raise ValueError(
            f"{raw!r}: a bare '*' is not supported; name a tool, e.g. 'Bash' or 'Edit(src/**)'"
        )
    if "(" not in raw and raw.startswith("mcp__") and raw.endswith("__*"):
        return Pattern(_bare_tool(raw[:-3]).tool, "any", None, raw)  # `mcp__server__*`
    if "(" not in raw:
        return _bare_tool(raw)
    name, spec = _split_call(raw)
    if name == "Bash":
        return _bash_pattern(name, spec, raw)
    if name in PATH_TOOLS:
        return _path_pattern(name, spec, raw)
    if spec == "*":
        return Pattern(name, "any", None, raw)
    return Pattern(name, "glob", spec, raw)


def _bare_tool(raw: str) -> Pattern:
    """A rule with no specifier, such as `Edit`: every call of that tool."""
    if ")" in raw:
        raise ValueError(f"{raw!r}: unbalanced parentheses")
    if not _NAME_RE.match(raw):
        raise ValueError(f"{raw!r}: not a tool name (expected e.g. 'Edit' or 'Bash(git diff:*)')")
    return Pattern(raw, "any", None, raw)


def _split_call(raw: str) -> tuple[str, str]:
    """`Tool(spec)` into its checked tool name and its stripped, non-empty specifier."""
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
        raise ValueError(
            f"{raw!r}: empty specifier; write {name!r} alone to match every {name} call"
        )
    return name, spec


def _bash_pattern(name: str, spec: str, raw: str) -> Pattern:
    """`Bash(git diff:*)` (a prefix), `Bash(*)` (any command) or `Bash(npm test)` (exact)."""
    if spec.endswith((":*", " *")):
        prefix = spec[:-2].strip()
        if not prefix:
            raise ValueError(
                f"{raw!r}: empty command prefix; write 'Bash' alone to allow every command"
            )
        return Pattern(name, "prefix", prefix, raw)
    if spec == "*":
        return Pattern(name, "any", None, raw)
    return Pattern(name, "exact", spec, raw)


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
