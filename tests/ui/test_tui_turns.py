"""Turns in the TUI: progress, cancelling a stream (Esc and Ctrl+C, at random points),
messages queued while a turn runs, Ctrl+O on results, and the prompt keeping the focus."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import until as _until
from textual.widgets import Collapsible, Markdown

from codebot.agent.model import Completion, ModelRequest, ScriptedModel, TextDelta
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.tui.app import CodebotApp
from codebot.ui.tui.status import StatusBar
from codebot.ui.tui.turns import progress_text

SIZE = (120, 40)


class SlowStream:
    """Streams `pieces` words, one every `gap` seconds; records each request."""

    model = "slow"
    context_window = None
    offline = False

    def __init__(self, pieces: int = 400, gap: float = 0.01) -> None:
        self.pieces, self.gap = pieces, gap
        self.requests: list[ModelRequest] = []

    @staticmethod
    def count_tokens(text: str) -> int:
        return len(text) // 4

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        self.requests.append(request)
        text = []
        for i in range(self.pieces):
            await asyncio.sleep(self.gap)
            text.append(f"w{i} ")
            yield TextDelta(text[-1])
        yield Completion("".join(text))


@pytest.fixture
def project(tmp_path: Path, write_skill) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "a.txt").write_text("hello\n")
    return proj


def make_app(project: Path, client: Any) -> CodebotApp:
    controller = Controller(load_settings(cwd=project, trust=True), client=client, interactive=True)
    return CodebotApp(controller, watch_skills=False)


until = partial(_until, step=0.01)


def shown_text(app: CodebotApp) -> str:
    return "".join(w.source for w in app.conversation.query(Markdown))


async def send(pilot, app: CodebotApp, text: str) -> None:
    """Type and send without `pilot.press`, which waits for the app to go idle (it does
    not while a stream is being drawn)."""
    app.prompt.load_text(text)
    await app.on_prompt_area_submitted(app.prompt.Submitted(text))


async def key(app: CodebotApp, name: str) -> None:
    """A key press delivered as the terminal would, without waiting for idle."""
    app.simulate_key(name)
    await asyncio.sleep(0)


def test_progress_text_has_spinner_seconds_tokens_and_queue() -> None:
    assert (
        progress_text(3.44, 120, 2, 1) == "⠹ working 3.4s · ↓ 120 tokens · 1 queued · Esc cancels"
    )
    assert progress_text(0.0, 0, 0) == "⠋ working 0.0s · Esc cancels"


async def test_spinner_and_elapsed_advance_while_text_streams(project: Path) -> None:
    app = make_app(project, SlowStream(pieces=60, gap=0.02))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "go")
        await until(pilot, lambda: "↓" in app.query_one(StatusBar).status.progress)
        first = app.query_one(StatusBar).status.progress
        await pilot.pause(0.35)
        later = app.query_one(StatusBar).status.progress
        assert first != later and first.split()[0] != later.split()[0]  # the spinner moved
        assert float(later.split()[2].rstrip("s")) > float(first.split()[2].rstrip("s"))
        await app.settled()
        assert not app.busy and app.query_one(StatusBar).status.progress == ""


async def test_cancel_at_random_points_stops_the_stream(project: Path) -> None:
    rng = random.Random(7)
    app = make_app(project, SlowStream(pieces=400, gap=0.005))
    async with app.run_test(size=SIZE) as pilot:
        for attempt in range(50):
            await send(pilot, app, f"turn {attempt}")
            await pilot.pause(rng.uniform(0.0, 0.25))
            name = "escape" if attempt % 2 else "ctrl+c"
            t0 = time.monotonic()
            await key(app, name)
            # Handled before the stream (400 pieces, 2 s) could have ended by itself; how
            # soon is a figure for a quiet machine, not an assertion under xdist.
            await until(pilot, lambda: app.turns.dropping or not app.busy, timeout=2.0)
            await pilot.pause(max(0.0, 0.2 - (time.monotonic() - t0)))
            at_200ms = shown_text(app)
            await pilot.pause(0.1)
            assert shown_text(app) == at_200ms, (
                f"attempt {attempt}: text kept arriving after the cancel"
            )
            await until(pilot, lambda: not app.busy, timeout=2.0)
        assert (
            sum(
                1
                for w in app.conversation.children
                if "cancelled" in str(getattr(w, "content", ""))
            )
            == 50
        )


async def test_a_message_sent_while_a_turn_runs_is_queued_then_sent(project: Path) -> None:
    client = SlowStream(pieces=30, gap=0.02)
    app = make_app(project, client)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "first")
        await until(pilot, lambda: app.busy)
        await send(pilot, app, "second")
        assert "queued: second" in str(app.query_one("#queued").content)
        assert "1 queued" in app.query_one(StatusBar).status.progress
        await until(pilot, lambda: len(client.requests) == 2, timeout=5)
        assert client.requests[1].messages[-1]["content"].endswith("second")
        await until(pilot, lambda: not app.busy, timeout=5)
        assert not app.query_one("#queued").has_class("-shown")


async def test_cancelling_puts_the_queued_message_back_in_the_prompt(project: Path) -> None:
    client = SlowStream(pieces=300, gap=0.01)
    app = make_app(project, client)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "first")
        await send(pilot, app, "second")
        await key(app, "escape")  # before the turn's first step even ran: still ends it
        await until(pilot, lambda: not app.busy)
        await pilot.pause(0.1)
        assert app.prompt.text == "second" and len(client.requests) <= 1  # "second" was never sent


async def test_ctrl_o_toggles_the_latest_result_and_a_click_keeps_the_prompt_focused(
    project: Path,
) -> None:
    call = {"text": "", "tool_calls": [{"name": "Read", "arguments": {"path": "a.txt"}}]}
    app = make_app(project, ScriptedModel([call, "done"]))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "read a.txt")
        await app.settled()
        box = app.conversation.query(Collapsible).last()
        assert box.collapsed
        await pilot.press("ctrl+o")
        assert not box.collapsed
        await pilot.press("ctrl+o")
        assert box.collapsed
        await pilot.click(box.query_one("CollapsibleTitle"))
        await pilot.pause()
        assert not box.collapsed and app.focused is app.prompt
        await pilot.press("h", "i")
        assert app.prompt.text == "hi"


async def test_a_quit_before_the_turn_starts_leaves_no_coroutine_behind(project: Path):
    """A request sent as the app quits: its turn is cancelled before it starts. The worker
    is given a function to call, not a coroutine made in advance, so no coroutine is left
    that was never started (Python warns "never awaited" when one is collected)."""
    import gc
    import inspect

    from codebot.ui.tui.turns import TurnRunner

    def unstarted() -> list[Any]:
        return [
            o
            for o in gc.get_objects()
            if inspect.iscoroutine(o)
            and o.cr_code is TurnRunner._run.__code__
            and inspect.getcoroutinestate(o) == inspect.CORO_CREATED
        ]

    app = make_app(project, ScriptedModel(["never drawn"]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.start_turn("hello")
        app.exit()
        await pilot.pause()
    assert unstarted() == []
