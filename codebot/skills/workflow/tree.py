"""Workflows as text: the tree `skills show` draws, and the short rendering of a run's
outcome that enters the conversation as the workflow skill's result."""

from __future__ import annotations

from collections.abc import Mapping

from codebot.display import visible
from codebot.skills.outcome import Outcome
from codebot.skills.workflow.model import DEFAULT_ON, Fallback, Step, Workflow

_SHORT = 60


def _short(text: str, limit: int = _SHORT) -> str:
    one = visible(" ".join(text.split()))
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _action(act: object) -> str:
    if isinstance(act, Fallback):
        return f"fallback {visible(act.skill)}" + (f" {_short(act.args, 30)}" if act.args else "")
    return str(act)


def _line(step: Step) -> str:
    parts = [visible(step.id)]
    if step.parallel:
        parts.append(f"parallel, {len(step.parallel)} members")
    else:
        parts.append(visible(step.skill or ""))
    if step.args:
        parts.append(f"args: {_short(step.args)}")
    if step.when:
        parts.append(f"when: {_short(step.when)}")
    if step.timeout:
        parts.append(f"timeout {step.timeout:g}s")
    if step.retry:
        parts.append(f"retry {step.retry.attempts}× backoff {step.retry.backoff_s:g}s")
    return "  ".join(parts)


def draw_tree(wf: Workflow) -> list[str]:
    """The workflow as lines of a tree: each step, its members, its `on:` policies
    (only those that differ from the defaults)."""
    lines = [f"workflow {visible(wf.name)} ({len(wf.steps)} steps)"]
    for i, step in enumerate(wf.steps):
        last = i == len(wf.steps) - 1
        lines.append(("└─ " if last else "├─ ") + _line(step))
        pad = "   " if last else "│  "
        for j, member in enumerate(step.parallel):
            lines.append(pad + ("└─ " if j == len(step.parallel) - 1 else "├─ ") + _line(member))
        on = [f"{k} → {_action(a)}" for k, a in step.on.items() if a != DEFAULT_ON.get(k)]
        if on:
            lines.append(pad + "   on " + "; ".join(on))
    return lines


def render_outcome(name: str, outcome: Outcome) -> str:
    """What the conversation gets from a workflow run: its status, then one line per step
    (its status and summary, a fallback's, a parallel group's members)."""
    lines = [f"[workflow {visible(name)}: {outcome.status.value}] {_short(outcome.summary, 300)}"]
    data = outcome.data if isinstance(outcome.data, Mapping) else {}
    steps = data.get("steps")
    if not isinstance(steps, Mapping):
        return lines[0]
    for sid, rec in steps.items():
        if not isinstance(rec, Mapping):
            continue
        summary = str(rec.get("summary") or "")
        lines.append(
            f"- {visible(str(sid))}: {rec.get('status')}"
            + (f" — {_short(summary, 300)}" if summary else "")
        )
        fb = rec.get("fallback")
        if isinstance(fb, Mapping):
            lines.append(
                f"  fallback: {fb.get('status')} — {_short(str(fb.get('summary') or ''), 300)}"
            )
        members = rec.get("data")
        if isinstance(members, list):
            for m in members:
                if isinstance(m, Mapping) and "skill" in m and "status" in m:
                    lines.append(
                        f"  - {visible(str(m.get('id')))} ({visible(str(m.get('skill')))}): "
                        f"{m.get('status')} — {_short(str(m.get('summary') or ''), 200)}"
                    )
    question = outcome.extra.get("question")
    if question:
        lines.append(f"question: {_short(str(question), 300)}")
    return "\n".join(lines)
