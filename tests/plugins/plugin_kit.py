"""A plugin repository shaped like a real one, written by the tests (no copied files)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

HOOK_SCRIPT = """#!/bin/sh
# SessionStart: tell the model to use the plugin (as a real plugin's start hook does)
printf '%s' '{"hookSpecificOutput": {"hookEventName": "SessionStart", '
printf '%s\\n' '"additionalContext": "PLUGIN-START-CONTEXT-7731"}}'
"""


def make_plugin(
    folder: Path, name: str = "toolkit", manifest: dict[str, Any] | None = None
) -> Path:
    """`.claude-plugin/plugin.json`, three skills, a command, an agent and a SessionStart
    hook that prints `additionalContext`."""
    (folder / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    data = {"name": name, "version": "2.1.0", "description": "Tools for testing plugins"}
    (folder / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest or data))
    for skill in ("brainstorm", "plan-work", "verify"):
        d = folder / "skills" / skill
        d.mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {skill}\ndescription: Use {skill} when the task needs a {skill} step "
            f"before any code is written.\n---\n{skill.upper()}-BODY\n"
        )
    (folder / "commands").mkdir(exist_ok=True)
    (folder / "commands" / "review-pr.md").write_text(
        "---\ndescription: Review a pull request for bugs and missing tests\n"
        "argument-hint: [pr-number]\nallowed-tools: Bash(gh pr view:*)\nmodel: openai/other\n"
        "---\nReview pull request $ARGUMENTS carefully.\n"
    )
    (folder / "agents").mkdir(exist_ok=True)
    (folder / "agents" / "checker.md").write_text(
        "---\nname: checker\ndescription: Checks work\ntools: Read, Grep\nmodel: openai/other\n"
        "---\nYou are CHECKER-AGENT-PROMPT.\n"
    )
    (folder / "hooks").mkdir(exist_ok=True)
    script = folder / "hooks" / "session-start.sh"
    script.write_text(HOOK_SCRIPT)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    hooks = {
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup|resume|clear|compact",
                    "hooks": [
                        {
                            "type": "command",
                            "command": "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh",
                        }
                    ],
                }
            ]
        }
    }
    (folder / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return folder
