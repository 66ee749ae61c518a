"""The TUI shows a running Bash command: `running… Ns` and its last lines, live; then the
usual collapsed result once it is done."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import until as _until
from textual.widgets import Collapsible, Static

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.tui.app import CodebotApp
from codebot.ui.tui.conversation import LIVE_LINES, ToolCall, live_text

SIZE = (120, 40)
# The last line is followed by a pause, so that line2 stays on the running row for 2 s: a
# busy machine must not let the command finish between two looks at the screen.


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


def make_app(project: Path, replies: list[Any]) -> CodebotApp:
    settings = load_settings(cwd=project, trust=True)
    controller = Controller(
        settings, client=ScriptedModel(replies), interactive=True, allow=("Bash",)
    )
    return CodebotApp(controller, watch_skills=False)


def bash(command: str) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}


until = partial(_until, step=0.01)


async def send(app: CodebotApp, text: str) -> None:
    app.prompt.load_text(text)
    await app.on_prompt_area_submitted(app.prompt.Submitted(text))


def tool(app: CodebotApp) -> ToolCall | None:
    calls = list(app.conversation.query(ToolCall))
    return calls[-1] if calls else None


def live(app: CodebotApp) -> str:
    """The running line as shown ("" when it is hidden)."""
    view = tool(app)
    if view is None:
        return ""
    # A ToolCall is in the conversation a moment before its children are mounted: until
    # then there is no running line to read, which is the same as not shown yet.
    line = next(iter(view.query(".tool-live").results(Static)), None)
    if line is None:
        return ""
    return str(line.render()) if line.display and line.has_class("-shown") else ""


def test_live_text_says_running_with_seconds_and_the_lines() -> None:
    assert live_text(3.9, ["a", "b\tc"]).plain == "running… 3s\na\nb   c"


GATED = (
    "echo line1; until [ -e GO ]; do sleep 0.05; done; echo line2; sleep 0.4; echo line3; sleep 1.5"
)


async def test_line1_shows_while_the_command_still_runs(project: Path) -> None:
    app = make_app(project, [bash(GATED), "done"])
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "count to three")
        await until(pilot, lambda: "line1" in live(app))
        view = tool(app)
        assert view is not None and view.running and not view.query(Collapsible)  # no result yet
        assert live(app).startswith("running… ") and "line3" not in live(app)
        (project / "GO").touch()  # the command waits for this before line2: no race under load
        await until(pilot, lambda: "line2" in live(app))
        await app.settled()
        await pilot.pause()
        assert live(app) == "" and not view.running  # the running line gave way to the result
        box = view.query_one(Collapsible)
        assert box.collapsed and box.title.startswith("result · ok · 5 lines")
        await pilot.press("ctrl+o")
        assert not box.collapsed  # the usual result, with all the output
        assert "line3" in str(box.query_one(".tool-result", Static).render())


async def test_only_the_last_lines_are_shown_and_seconds_move(project: Path) -> None:
    command = "for i in $(seq 1 9); do echo out$i; done; sleep 4; echo end"
    app = make_app(project, [bash(command), "done"])
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "go")
        await until(pilot, lambda: "out9" in live(app))
        lines = live(app).split("\n")
        assert lines[1:] == [f"out{i}" for i in range(10 - LIVE_LINES, 10)]
        # a slow machine may show the lines a second or more after the start: the count
        # is whatever has passed, and then the ticker moves it on while the command sleeps
        shown = re.fullmatch(r"running… (\d+)s", lines[0])
        assert shown is not None, lines[0]
        moved = f"running… {int(shown[1]) + 1}s"
        await until(pilot, lambda: live(app).startswith(moved), timeout=6)
        await app.settled()
        await pilot.pause()
        assert live(app) == ""


async def test_a_long_line_takes_one_row(project: Path) -> None:
    command = "for i in 1 2 3 4 5 6; do printf 'long%s %0300d\\n' $i 0; done; sleep 1"
    app = make_app(project, [bash(command), "done"])
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "go")
        await until(pilot, lambda: "long6" in live(app))
        await pilot.pause()
        line = tool(app).query_one(".tool-live", Static)
        assert (
            line.size.height == 1 + LIVE_LINES
        )  # `running…` and five rows, however long the lines
        await app.settled()


async def test_a_silent_tool_says_it_is_running_after_a_second(project: Path) -> None:
    app = make_app(project, [bash("sleep 1.5"), "done"])
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "wait")
        await until(pilot, lambda: tool(app) is not None)
        assert live(app) == ""  # a quick tool never flickers a running line
        await until(pilot, lambda: live(app) == "running… 1s", timeout=3)
        await app.settled()


async def test_a_stopped_clock_shows_no_seconds_for_a_silent_tool(project: Path) -> None:
    app = make_app(project, [bash("sleep 1.3"), "done"])
    app.clock = lambda: 0.0  # as in the snapshot tests: nothing on screen depends on time
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "wait")
        await until(pilot, lambda: tool(app) is not None)
        await pilot.pause(1.2)
        assert live(app) == ""
        await app.settled()


async def test_cancelling_a_running_command_removes_the_running_line(project: Path) -> None:
    app = make_app(project, [bash("echo started; sleep 30")])
    async with app.run_test(size=SIZE) as pilot:
        await send(app, "run forever")
        await until(pilot, lambda: "started" in live(app))
        await pilot.press("ctrl+c")
        await app.settled()
        await pilot.pause()
        view = tool(app)
        assert view is not None and not view.running and live(app) == ""
