"""A tool call in a few plain words, as line mode shows a live one and a resumed
conversation shows an old one (`Bash git status`, `Edit src/a.py`, `Skill review src/`)."""

from __future__ import annotations

import json
from typing import Any


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces."""
    return " ".join(str(text).split())


_SUBJECT_KEYS = {
    "Bash": ("command",),
    "Read": ("path",),
    "Write": ("path",),
    "Edit": ("path",),
    "Glob": ("pattern", "path"),
    "Grep": ("pattern", "path"),
    "Skill": ("skill", "args"),
    "SkillSearch": ("query",),
    "Task": ("description", "agent"),
}


def tool_summary(name: str, args: dict[str, Any]) -> str:
    """`Bash git status`, `Edit src/a.py`, `Skill review src/`: the call in a few words."""
    if "_raw" in args:
        return f"{name} {one_line(args['_raw'])}"
    keys = _SUBJECT_KEYS.get(name)
    if keys:
        parts = [
            one_line(args[k])
            for k in keys
            if isinstance(args.get(k), str | int | float) and str(args[k]).strip()
        ]
        if name == "Task" and not parts and isinstance(args.get("prompt"), str):
            parts = [one_line(args["prompt"])]
        return " ".join([name, *parts])
    if not args:
        return name
    return f"{name} {one_line(json.dumps(args, ensure_ascii=False, default=str))}"
