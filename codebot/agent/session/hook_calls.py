"""Where the session fires its hooks, and what each outcome does to a tool call, a
prompt or the turn's end (docs/hooks.md). The hooks themselves are `agent/hooks/`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from codebot.agent.hooks import HookCommand, Hooks, Outcome, skill_hooks
from codebot.agent.permissions import Verdict
from codebot.agent.session.turn import TurnState
from codebot.agent.tools import ToolResult
from codebot.display import visible
from codebot.skills.files import Spec
from codebot.skills.invoke import may_grant

#: How often Stop/SubagentStop hooks may send the model back to work in one turn.
MAX_STOP_CONTINUES = 3


def reminder(texts: list[str], event: str) -> str:
    body = "\n".join(texts)
    return f"<system-reminder>\n{event} hook context:\n{body}\n</system-reminder>"


async def pre_tool(hooks: Hooks, name: str, args: dict[str, Any], turn: TurnState) -> Outcome:
    if not hooks.wanted("PreToolUse", turn.hooks):
        return Outcome()
    return await hooks.fire(
        "PreToolUse", {"tool_name": name, "tool_input": args}, subject=name, scoped=turn.hooks
    )


def blocked_result(name: str, pre: Outcome) -> ToolResult:
    """A call a PreToolUse hook denied: the reason is what the model is told."""
    return ToolResult(f"{name} was blocked by a PreToolUse hook: {pre.reason}", "denied")


def hook_verdict(verdict: Verdict, pre: Outcome | None, protected: str | None) -> Verdict:
    """The rules' verdict after a PreToolUse hook's `permissionDecision`: `ask` asks even
    what the rules allow; `allow` skips the question, but never a deny rule and never a
    protected path (those are the person's, not a hook's, to wave through)."""
    if pre is None or pre.permission is None or verdict.outcome == "deny":
        return verdict
    why = pre.permission_reason or "a PreToolUse hook asks"
    if pre.permission == "ask" and verdict.outcome == "allow":
        return Verdict("ask", None, why)
    if pre.permission == "allow" and verdict.outcome == "ask" and not protected:
        return Verdict("allow", None, pre.permission_reason or "allowed by a PreToolUse hook")
    return verdict


async def post_tool(
    hooks: Hooks, name: str, args: dict[str, Any], result: ToolResult, turn: TurnState
) -> ToolResult:
    """PostToolUse: what its hooks say reaches the model with the tool's result."""
    if result.status == "denied" or not hooks.wanted("PostToolUse", turn.hooks):
        return result
    post = await hooks.fire(
        "PostToolUse",
        {
            "tool_name": name,
            "tool_input": args,
            "tool_response": {"content": result.content, "status": result.status},
        },
        subject=name,
        scoped=turn.hooks,
    )
    notes = list(post.context)
    if post.block:
        notes.insert(0, f"a PostToolUse hook objects: {post.reason}")
    if post.stop:
        notes.append(f"a PostToolUse hook ended the turn: {post.stop_reason}")
    if not notes:
        return result
    return dataclasses.replace(
        result, content=f"{result.content}\n{reminder(notes, 'PostToolUse')}"
    )


async def start_context(hooks: Hooks) -> list[str]:
    """SessionStart, once after start, `/clear`, a compaction or a resume: its context
    reaches the model with the next request."""
    source = hooks.start_pending
    if source is not None:
        hooks.start_pending = None
        if hooks.wanted("SessionStart"):
            out = await hooks.fire("SessionStart", {"source": source}, subject=source)
            if out.context:
                hooks.start_held.append(reminder(out.context, "SessionStart"))
    held, hooks.start_held = hooks.start_held, []
    return held


async def prompt_submit(hooks: Hooks, text: str, turn: TurnState) -> Outcome:
    """UserPromptSubmit: may block the prompt (the reason is the person's) or add context."""
    if not hooks.wanted("UserPromptSubmit", turn.hooks):
        return Outcome()
    return await hooks.fire("UserPromptSubmit", {"prompt": text}, scoped=turn.hooks)


async def stop_again(hooks: Hooks, event: str, turn: TurnState) -> str | None:
    """Stop/SubagentStop: the message that sends the model back to work, or None to stop.
    `stop_hook_active` says the model already went on once this turn; after
    MAX_STOP_CONTINUES it stops whatever the hooks say."""
    if not hooks.wanted(event, turn.hooks) or turn.stop_reason:
        return None
    active = turn.stop_continues > 0
    out = await hooks.fire(event, {"stop_hook_active": active}, scoped=turn.hooks)
    if out.stop or not out.block:
        return None
    if turn.stop_continues >= MAX_STOP_CONTINUES:
        hooks.say(
            f"{event} hooks asked to go on {MAX_STOP_CONTINUES} times this turn; stopping",
            "warning",
        )
        return None
    turn.stop_continues += 1
    return reminder([out.reason], event) + "\nContinue working on the task as the hook asks."


def skill_scoped(spec: Spec, trusted: bool, agent_written: bool, hooks: Hooks) -> list[HookCommand]:
    """A skill's frontmatter `hooks:`, for the turn (or the fork) it is in force: only a
    skill that may run commands (`may_grant`: the person's, or a trusted project's) and
    not one codebot's agent wrote and the person has not accepted."""
    if not isinstance(spec.extra, Mapping) or spec.extra.get("hooks") is None:
        return []
    if agent_written or not may_grant(spec, trusted):
        why = (
            "it was written by codebot's agent and is not accepted yet (`codebot written`)"
            if agent_written
            else "its folder is not trusted or its source may not run commands"
        )
        hooks.say(visible(f"skill {spec.name}: its hooks do not run: {why}"), "warning")
        return []
    warnings: list[str] = []
    found = skill_hooks(spec.name, spec.extra, str(spec.path), warnings)
    for text in warnings:
        hooks.say(visible(text), "warning")
    return found
