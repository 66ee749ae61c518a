"""One-line descriptions of events, in plain words, for the conversation view."""

from __future__ import annotations

import json
from typing import Any

from codebot.agent.session import events as ev
from codebot.skills.prompt import one_line, truncate
from codebot.ui.activation import skill_line

__all__ = ["error_line", "skill_line", "tool_args", "tool_status"]

BULKY = frozenset({"content", "old", "new", "prompt"})  # shown as a size, not inline
MAIN = ("command", "path", "pattern", "skill", "query", "description", "file")

ERROR_LABELS = {
    "auth": "The model provider refused the credentials",
    "rate_limit": "The model provider is rate limiting",
    "context": "The conversation is too long for this model",
    "timeout": "The model took too long to answer",
    "connection": "Could not reach the model",
    "server": "The model provider had a problem",
    "bad_request": "The model rejected the request",
    "not_found": "The model was not found",
    "skill": "Skill",
    "tool": "Tool",
}


def tool_args(name: str, arguments: dict[str, Any], width: int = 160) -> str:
    """`sleep 30` for Bash, `src/app.py (12 lines)` for Write, key=value for the rest."""
    if "_raw" in arguments:
        return truncate(one_line(str(arguments["_raw"])), width)
    parts: list[str] = []
    main = next((k for k in MAIN if k in arguments), None)
    if main is not None:
        parts.append(one_line(str(arguments[main])))
    for key, value in arguments.items():
        if key == main or value in ("", None, [], {}):
            continue
        if key in BULKY and isinstance(value, str):
            n = len(value.splitlines())
            parts.append(f"{key}: {n} line{'s' if n != 1 else ''}")
        else:
            shown = (
                value
                if isinstance(value, str)
                else json.dumps(value, ensure_ascii=False, default=str)
            )
            parts.append(f"{key}={truncate(one_line(shown), 60)}")
    return truncate("  ".join(parts), width)


def error_line(e: ev.ErrorEvent) -> str:
    label = ERROR_LABELS.get(e.kind)
    if label is None or e.message.startswith(label):
        return e.message
    return f"{label}: {e.message}"


def tool_status(e: ev.ToolFinished) -> str:
    lines = e.content.count("\n") + 1 if e.content else 0
    took = f" · {e.ms / 1000:.1f} s" if e.ms >= 1000 else ""
    return f"{e.status} · {lines} line{'s' if lines != 1 else ''}{took}"
