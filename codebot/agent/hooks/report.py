"""Hooks in words, for `/hooks` and the trust screen: event, matcher, the exact command
(escaped: a command may hold control characters), where it came from, and whether it
runs and why not."""

from __future__ import annotations

from collections.abc import Sequence

from codebot.agent.hooks.spec import HookCommand
from codebot.display import visible


def hook_line(hook: HookCommand) -> str:
    matcher = hook.matcher or "*"
    return f"{hook.event} [{visible(matcher)}] {visible(hook.command)}"


def describe(hooks: Sequence[HookCommand], warnings: Sequence[str] = ()) -> str:
    """Every hook, one block each; "no hooks" when there are none."""
    if not hooks and not warnings:
        return (
            "hooks: none configured (add `hooks:` to $CODEBOT_HOME/config.yaml, or use "
            ".claude/settings.json in a trusted project; see docs/hooks.md)"
        )
    lines = [
        f"hooks: {sum(1 for h in hooks if not h.skipped)} active, "
        f"{sum(1 for h in hooks if h.skipped)} skipped"
    ]
    for hook in hooks:
        state = "active" if not hook.skipped else f"skipped: {visible(hook.skipped)}"
        lines.append(f"  {hook_line(hook)}")
        lines.append(
            f"      {hook.source} ({visible(hook.where)}), timeout {hook.timeout:g} s; {state}"
        )
    lines += [f"  warning: {visible(w)}" for w in warnings]
    return "\n".join(lines)


def trust_lines(hooks: Sequence[HookCommand]) -> list[str]:
    """What the trust screen adds: each command trusting the folder lets run."""
    if not hooks:
        return []
    return [
        "",
        f"Trusting it also runs these {len(hooks)} hook command(s) on their events:",
        *(f"  • {hook_line(h)}  ({h.source})" for h in hooks),
    ]
