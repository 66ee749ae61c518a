"""A workflow step as one line of text, for line mode and the TUI (issue 35 §2):
`  ▸ flow › analyse running 3s — anomaly-report`. Names and details are display-safe."""

from __future__ import annotations

from codebot.agent.session.events import WorkflowStep
from codebot.display import visible

MARKS = {
    "waiting": "◦",
    "running": "▸",
    "ok": "✓",
    "failed": "✗",
    "partial": "◐",
    "needs_confirmation": "?",
    "fallback": "↪",
    "skipped": "–",
    "cancelled": "✗",
}
DETAIL_CHARS = 100
#: States that end a step (their elapsed time is final).
DONE = frozenset({"ok", "failed", "partial", "needs_confirmation", "cancelled"})


def step_line(e: WorkflowStep, elapsed: float | None = None) -> str:
    """The step's line; `elapsed` (seconds) replaces the event's for a running step whose
    time is still moving (the TUI's ticker)."""
    secs = elapsed if elapsed is not None else e.elapsed
    when = f" {secs:.1f}s" if e.state in DONE or (e.state == "fallback" and secs) else ""
    if e.state == "running" and elapsed is not None:
        when = f" {int(secs)}s"
    detail = visible(" ".join(e.detail.split()))
    if len(detail) > DETAIL_CHARS:
        detail = detail[: DETAIL_CHARS - 1] + "…"
    head = f"{'  ' * e.nest}{MARKS.get(e.state, '·')} {visible(e.workflow)} › {visible(e.step)}"
    return f"{head} {visible(e.state)}{when}" + (f" — {detail}" if detail else "")
