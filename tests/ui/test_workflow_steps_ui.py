"""Workflow steps on screen (issue 35 §2): line mode prints each state change as a line;
the TUI keeps one row per step, rewritten in place, its seconds moving while it runs."""

from __future__ import annotations

import io

from textual.app import App, ComposeResult
from textual.widgets import Static

from codebot.agent.session.events import WorkflowStep
from codebot.ui.line.render import Renderer, Sink
from codebot.ui.tui.conversation import Conversation
from codebot.ui.workflow_steps import step_line


def test_each_state_has_its_mark_and_times_only_when_done() -> None:
    assert step_line(WorkflowStep("flow", "a", "waiting")) == "◦ flow › a waiting"
    assert step_line(WorkflowStep("flow", "a", "running", 0.0, "one")) == "▸ flow › a running — one"
    assert step_line(WorkflowStep("flow", "a", "ok", 1.25, "fine")) == "✓ flow › a ok 1.2s — fine"
    assert step_line(WorkflowStep("flow", "b", "skipped", 0, "when: false")).startswith("– ")
    assert step_line(WorkflowStep("inner", "x", "failed", 2.0, nest=1)).startswith("  ✗ inner")
    assert step_line(WorkflowStep("f", "a", "running"), elapsed=3.7) == "▸ f › a running 3s"


def test_hostile_names_and_details_are_escaped_and_short() -> None:
    line = step_line(WorkflowStep("fl\x1b[2Jow", "a\u202eb", "failed", 1, "x\rboom " * 100))
    assert "\x1b" not in line and "\u202e" not in line and "\r" not in line
    assert len(line) < 200 and line.endswith("…")


def test_line_mode_prints_every_state_change() -> None:
    out = io.StringIO()
    r = Renderer(Sink(out))
    for e in (
        WorkflowStep("flow", "a", "waiting"),
        WorkflowStep("flow", "a", "running", 0, "one"),
        WorkflowStep("flow", "a", "ok", 0.5, "done"),
    ):
        r.render(e)
    assert out.getvalue().splitlines() == [
        "◦ flow › a waiting",
        "▸ flow › a running — one",
        "✓ flow › a ok 0.5s — done",
    ]


class One(App[None]):
    now = 100.0

    def clock(self) -> float:
        return self.now

    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")


async def test_tui_rows_are_rewritten_in_place_and_tick() -> None:
    app = One()
    async with app.run_test(size=(80, 20)) as pilot:
        conv = app.query_one(Conversation)
        await conv.show(WorkflowStep("flow", "a", "waiting"))
        await conv.show(WorkflowStep("flow", "b", "waiting"))
        await conv.show(WorkflowStep("flow", "a", "running", 0, "one"))
        await pilot.pause()
        rows = [str(s.render()) for s in conv.query(Static)]
        assert rows == ["▸ flow › a running — one", "◦ flow › b waiting"]
        app.now = 104.2
        conv.tick()
        await pilot.pause()
        assert str(conv.query(Static).first().render()) == "▸ flow › a running 4s — one"
        await conv.show(WorkflowStep("flow", "a", "ok", 4.3, "done"))
        app.now = 110.0
        conv.tick()  # a finished step's time no longer moves
        await pilot.pause()
        rows = [str(s.render()) for s in conv.query(Static)]
        assert rows == ["✓ flow › a ok 4.3s — done", "◦ flow › b waiting"]
