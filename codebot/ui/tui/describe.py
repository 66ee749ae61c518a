"""One-line descriptions of events, in plain words, for the conversation view."""

from __future__ import annotations

import json
from typing import Any

from codebot.agent.session import events as ev
from codebot.display import strip_escapes
from codebot.skills.prompt import one_line, truncate

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
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            parts.append(f"{key}={truncate(one_line(shown), 60)}")
    return truncate("  ".join(parts), width)


def skill_line(e: ev.SkillActivated) -> str:
    """`skill review · inline · model gpt-x for this turn`."""
    parts = [f"skill {e.name}", e.mode]
    delta = e.delta or {}
    scope = "for this turn" if e.mode == "inline" else "in its sub-agent"
    if delta.get("model"):
        parts.append(f"model {delta['model']} {scope}")
    if delta.get("effort"):
        parts.append(f"effort {delta['effort']}")
    if delta.get("allowed_tools"):
        parts.append("allows " + ", ".join(delta["allowed_tools"]))
    if delta.get("disallowed_tools"):
        parts.append("hides " + ", ".join(delta["disallowed_tools"]))
    if e.actor != "human":
        parts.append(f"chosen by the {e.actor}")
    # The name and the delta come from a skill file: no escape sequence reaches the screen.
    return strip_escapes(" · ".join(parts))


def error_line(e: ev.ErrorEvent) -> str:
    label = ERROR_LABELS.get(e.kind)
    if label is None or e.message.startswith(label):
        return e.message
    return f"{label}: {e.message}"


def tool_status(e: ev.ToolFinished) -> str:
    lines = e.content.count("\n") + 1 if e.content else 0
    took = f" · {e.ms / 1000:.1f} s" if e.ms >= 1000 else ""
    return f"{e.status} · {lines} line{'s' if lines != 1 else ''}{took}"
