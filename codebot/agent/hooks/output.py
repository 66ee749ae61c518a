"""What a hook's exit code and output mean (Claude Code's contract; pure).

Exit 0: fine. Its stdout is context for the model for `UserPromptSubmit` and
`SessionStart`, or a JSON object (below) for any event. Exit 2: block, with stderr as the
reason (who reads it depends on the event). Any other code: an error shown to the person;
nothing is blocked.

The JSON object: `continue: false` (+ `stopReason`) ends the turn; `suppressOutput`;
`systemMessage` (shown to the person); `decision: "block"` + `reason`; the older
`decision: "approve"`; `hookSpecificOutput: {hookEventName, permissionDecision:
allow|deny|ask, permissionDecisionReason, additionalContext}`. Context for the model is
read from every shape hosts use: `hookSpecificOutput.additionalContext`,
`additionalContext` and `additional_context`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from codebot.display import strip_escapes

#: Context one hook may add, in characters (Claude Code's cap too).
MAX_CONTEXT = 10_000
#: Events whose plain stdout (not JSON) is context for the model.
STDOUT_IS_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})
DECISIONS = ("allow", "deny", "ask")


@dataclass
class HookRun:
    """One hook process: what it returned. `exit_code` is None when it did not finish."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    error: str = ""  # it could not start, or the sandbox refused it


@dataclass
class Outcome:
    """What every hook of one event said, together."""

    block: bool = False
    reason: str = ""  # why blocked (to the model or the person: the event decides)
    stop: bool = False  # `continue: false`: the turn ends
    stop_reason: str = ""
    permission: str | None = None  # PreToolUse: allow, deny or ask
    permission_reason: str = ""
    context: list[str] = field(default_factory=list)  # for the model
    messages: list[str] = field(default_factory=list)  # for the person (notices)
    errors: list[str] = field(default_factory=list)  # for the person (warnings)


def _text(value: object) -> str:
    return strip_escapes(value if isinstance(value, str) else json.dumps(value))[:MAX_CONTEXT]


def _contexts(data: dict[str, object]) -> list[str]:
    specific = data.get("hookSpecificOutput")
    found = []
    if isinstance(specific, dict):
        found.append(specific.get("additionalContext"))
    found += [data.get("additionalContext"), data.get("additional_context")]
    return [_text(c) for c in found if c not in (None, "")]


def _json_object(stdout: str) -> dict[str, object] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def merge(outcome: Outcome, event: str, label: str, run: HookRun) -> None:
    """Add what one hook run said to the event's `outcome`."""
    if run.error or run.timed_out or run.exit_code is None:
        why = run.error or "timed out and was killed"
        outcome.errors.append(f"{label}: {why}")
        return
    stderr = strip_escapes(run.stderr.strip())[:MAX_CONTEXT]
    if run.exit_code == 2:
        outcome.block = True
        _add_reason(outcome, stderr or f"{label} blocked it (exit code 2)")
        if event == "PreToolUse":
            outcome.permission = "deny"
        return
    if run.exit_code != 0:
        outcome.errors.append(
            f"{label}: exit code {run.exit_code}" + (f": {stderr}" if stderr else "")
        )
        return
    data = _json_object(run.stdout)
    if data is None:
        text = strip_escapes(run.stdout.strip())[:MAX_CONTEXT]
        if text and event in STDOUT_IS_CONTEXT:
            outcome.context.append(text)
        return
    _merge_json(outcome, event, data)


def _add_reason(outcome: Outcome, reason: str) -> None:
    outcome.reason = f"{outcome.reason}\n{reason}" if outcome.reason else reason


def _merge_json(outcome: Outcome, event: str, data: dict[str, object]) -> None:
    if data.get("continue") is False:
        outcome.stop = True
        outcome.stop_reason = _text(data.get("stopReason") or "a hook ended the turn")
    message = data.get("systemMessage")
    if isinstance(message, str) and message.strip():
        outcome.messages.append(_text(message))
    outcome.context += _contexts(data)
    decision, reason = data.get("decision"), data.get("reason")
    reason_text = _text(reason) if isinstance(reason, str) and reason.strip() else ""
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    wanted = specific.get("permissionDecision")
    if event == "PreToolUse":
        if wanted not in DECISIONS and decision in ("approve", "block"):
            wanted = "allow" if decision == "approve" else "deny"  # the older fields
            specific = {"permissionDecisionReason": reason, **specific}
        if wanted in DECISIONS:
            _permission(outcome, wanted, specific.get("permissionDecisionReason"))
        return
    if decision == "block":
        outcome.block = True
        _add_reason(outcome, reason_text or "a hook blocked it")


def _permission(outcome: Outcome, wanted: str, why: object) -> None:
    """The strictest decision wins when several hooks answer: deny > ask > allow."""
    order = {"allow": 0, "ask": 1, "deny": 2}
    why_text = _text(why) if isinstance(why, str) and why.strip() else ""
    if outcome.permission is None or order[wanted] > order[outcome.permission]:
        outcome.permission = wanted
        outcome.permission_reason = why_text
    if wanted == "deny":
        outcome.block = True
        _add_reason(outcome, why_text or "a PreToolUse hook denied it")
