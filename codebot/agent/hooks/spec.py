"""What a hook is, read from Claude Code's settings shape (pure: no I/O).

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Write",
                               "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}

The same shape is read from every source: the person's `config.yaml` (`hooks:`), a
project's `.codebot/config.yaml`, Claude Code's `settings.json` files, a plugin's
`hooks/hooks.json` and a skill's frontmatter. Each problem is a warning naming the file
and the field, and the entry is left out: nothing half-read ever runs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "Notification",
)
#: Events whose matcher is compared with something (the tool name, the start's source,
#: the compaction's trigger); the others run every hook given for them.
MATCHED = frozenset({"PreToolUse", "PostToolUse", "SessionStart", "PreCompact"})
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0
#: Hook entries read from one source at most (a hostile file cannot make thousands run).
MAX_HOOKS = 100


@dataclass(frozen=True)
class HookCommand:
    event: str
    matcher: str  # "" matches everything
    command: str
    timeout: float
    source: str  # "user", "project", "claude-project", "claude-local", "claude-user",
    # "plugin:<name>", "skill:<name>"
    where: str  # the file it came from, for /hooks and the trust screen
    plugin_root: str | None = None
    #: Why it does not run ("" when it does): untrusted folder, agent-written file.
    skipped: str = ""

    def matches(self, subject: str | None) -> bool:
        if subject is None or self.event not in MATCHED:
            return True
        return matcher_matches(self.matcher, subject)

    def argv_command(self) -> str:
        """The command as run: a plugin's `${CLAUDE_PLUGIN_ROOT}` is expanded (Claude Code
        does this), the variable is also in the environment."""
        if self.plugin_root is None:
            return self.command
        return self.command.replace("${CLAUDE_PLUGIN_ROOT}", self.plugin_root)


def matcher_matches(matcher: str, subject: str) -> bool:
    """Claude Code's matcher: empty or `*` is every subject; otherwise a regular expression
    that must match the whole subject (`Bash`, `Edit|Write`, `Notebook.*`); a matcher that
    is not a valid expression is compared as plain text."""
    if matcher in ("", "*"):
        return True
    try:
        return re.fullmatch(matcher, subject) is not None
    except re.error:
        return matcher == subject


def parse_hooks(
    data: object,
    *,
    source: str,
    where: str,
    warnings: list[str],
    plugin_root: str | None = None,
) -> list[HookCommand]:
    """The hooks of one `hooks:` mapping (the value under the `hooks` key)."""
    if data is None:
        return []
    if not isinstance(data, Mapping):
        warnings.append(f"{where}: hooks must be a mapping of event names to lists; ignoring it")
        return []
    out: list[HookCommand] = []
    for event, groups in data.items():
        event = str(event)
        if event not in EVENTS:
            warnings.append(
                f"{where}: hooks.{event} is not a hook event codebot runs "
                f"(one of {', '.join(EVENTS)}); ignoring it"
            )
            continue
        if not isinstance(groups, list):
            warnings.append(f"{where}: hooks.{event} must be a list of matcher groups; ignoring it")
            continue
        for i, group in enumerate(groups):
            out.extend(
                _group(group, f"{where}: hooks.{event}[{i}]", event, source, plugin_root, warnings)
            )
    if len(out) > MAX_HOOKS:
        warnings.append(
            f"{where}: more than {MAX_HOOKS} hooks; only the first {MAX_HOOKS} are read"
        )
        out = out[:MAX_HOOKS]
    return [
        HookCommand(h.event, h.matcher, h.command, h.timeout, h.source, where, h.plugin_root)
        for h in out
    ]


def _group(
    group: object,
    at: str,
    event: str,
    source: str,
    plugin_root: str | None,
    warnings: list[str],
) -> list[HookCommand]:
    if not isinstance(group, Mapping):
        warnings.append(f"{at} must be a mapping with `matcher` and `hooks`; ignoring it")
        return []
    matcher = group.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str):
        warnings.append(f"{at}.matcher must be a string; ignoring this group")
        return []
    entries = group.get("hooks")
    if not isinstance(entries, list):
        warnings.append(f"{at}.hooks must be a list of hooks; ignoring this group")
        return []
    out = []
    for j, entry in enumerate(entries):
        hook = _entry(entry, f"{at}.hooks[{j}]", warnings)
        if hook is not None:
            command, timeout = hook
            out.append(HookCommand(event, matcher, command, timeout, source, "", plugin_root))
    return out


def _entry(entry: object, at: str, warnings: list[str]) -> tuple[str, float] | None:
    if not isinstance(entry, Mapping):
        warnings.append(f"{at} must be a mapping with `type` and `command`; ignoring it")
        return None
    kind = entry.get("type", "command")
    if kind != "command":
        warnings.append(f'{at}.type: {kind!r} is not supported (only "command"); ignoring it')
        return None
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip() or "\x00" in command:
        warnings.append(f"{at}.command must be a non-empty string; ignoring it")
        return None
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        warnings.append(
            f"{at}.timeout: {timeout!r} is not a number of seconds above 0; "
            f"using {DEFAULT_TIMEOUT:g}"
        )
        timeout = DEFAULT_TIMEOUT
    return command, min(float(timeout), MAX_TIMEOUT)
