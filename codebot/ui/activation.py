"""The line a skill's activation is shown as, in words every front end shares.

`skill deploy · inline · model gpt-4.1 for this turn · allows Bash(make deploy:*)`: the
TUI puts `◆ ` (or `↳ ` for a nested one) before it and styles it, line mode prints it
indented under its turn; the words come from `skill_line` alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codebot.display import strip_escapes

if TYPE_CHECKING:
    from codebot.agent.session.events import SkillActivated, SkillEnded


def skill_line(e: SkillActivated) -> str:
    """A `SkillActivated` event (name, actor, mode, delta) as one line: the skill, how it
    runs, what it changes (model, effort, tools allowed or hidden) and for how long, and
    who chose it when the person did not."""
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


def outcome_words(e: SkillEnded) -> str:
    """How a run ended, for the end of its skill's row: `success · 1.2 s: summary`
    (summary shortened, control characters escaped)."""
    from codebot.agent.session.outcomes import shown

    words = e.status + (" (timed out)" if e.timed_out else "")
    if e.ms >= 100:
        words += f" · {e.ms / 1000:.1f} s"
    return words + (f": {shown(e.summary)}" if e.summary else "")


def ended_line(e: SkillEnded) -> str:
    """A `SkillEnded` event as a line of its own (line mode, `-p` on stderr)."""
    from codebot.agent.session.outcomes import shown

    return f"skill {shown(e.name, 80)} ended: {outcome_words(e)}"
