"""A running workflow's steps in the TUI conversation: one row per step, mounted when the
step is announced (waiting) and rewritten in place as it runs (seconds moving with the
turn's ticker), ends, falls back or is skipped."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rich.text import Text
from textual.widgets import Static

from codebot.agent.session.events import WorkflowStep
from codebot.ui.workflow_steps import step_line

Key = tuple[int, int, str, str]


class StepRows:
    """The rows of the workflow steps shown; `mount` adds a widget to the conversation."""

    def __init__(self, mount: Callable[[Static], Awaitable[object]]) -> None:
        self._mount = mount
        self._rows: dict[Key, Static] = {}
        self._running: dict[Key, tuple[WorkflowStep, float]] = {}

    async def show(self, e: WorkflowStep, now: float) -> None:
        key = (e.depth, e.nest, e.workflow, e.step)
        row = self._rows.get(key)
        if row is None or e.state == "waiting":
            row = Static(Text(step_line(e)), classes="skill nested")
            self._rows[key] = row
            await self._mount(row)
        else:
            row.update(Text(step_line(e)))
        if e.state == "running":
            started = self._running.get(key, (e, now))[1]
            self._running[key] = (e, started)
        else:
            self._running.pop(key, None)

    def tick(self, now: float) -> None:
        for key, (e, started) in self._running.items():
            self._rows[key].update(Text(step_line(e, now - started)))

    def clear(self) -> None:
        self._rows.clear()
        self._running.clear()
