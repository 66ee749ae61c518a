"""Shared by the TUI and line mode: how a verdict's reason is shown under the question,
what "always allow" would save (or why it is not offered), and the question for a
command with its counts (`codebot.display.command_lines`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codebot.display import command_lines, home_short, visible

if TYPE_CHECKING:
    from codebot.agent.permissions import ApprovalRequest


def why_asked(reason: str) -> str:
    """The part of a verdict's reason worth showing under the question (not the bare
    "needs approval" the question already says)."""
    if reason.startswith("needs approval"):
        reason = reason[len("needs approval") :].strip().lstrip(":").strip().strip("()")
    return reason


def always_line(request: ApprovalRequest) -> str:
    """`always allow saves Bash(npm test) to ~/p/.codebot/config.yaml`: exactly the rules
    and the file; or why it is not offered; "" when there is nothing to say."""
    rules: tuple[str, ...] = tuple(getattr(request, "always", ()) or ())
    if rules:
        where = visible(home_short(request.always_path))
        return f"always allow saves {', '.join(visible(r) for r in rules)} to {where}"
    why = str(getattr(request, "always_unavailable", "") or "")
    return f"always allow is not offered: {visible(why)}" if why else ""


def command_question(request: ApprovalRequest) -> str | None:
    """For a Bash request, the question with the command's counts in it: `Run this command?
    (122 lines, 120 of them empty)`, or `Run it once OUTSIDE the sandbox? (...)`; None for
    other tools."""
    if getattr(request, "tool", "") != "Bash":
        return None
    outside = getattr(request, "outside_sandbox", None) is not None
    ask = "Run it once OUTSIDE the sandbox?" if outside else "Run this command?"
    return command_lines(str(getattr(request, "subject", "") or "")).question(ask)
