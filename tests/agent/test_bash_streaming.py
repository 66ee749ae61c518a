"""A running Bash command's output reaches the screen as it arrives (ToolContext.progress,
ToolOutput events), decoded, escape-free and rate-limited, and the result the model gets
stays exactly what it was without streaming."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from codebot.agent.model import ScriptedModel
from codebot.agent.session import build_session
from codebot.agent.session import events as ev
from codebot.agent.tools import BashTool, ToolContext
from codebot.agent.tools.live_output import INTERVAL, LINE_MAX, TAIL, LiveOutput
from codebot.config import load_settings
from codebot.workspace import open_catalog

THREE_LINES = "for i in 1 2 3; do echo line$i; sleep 0.4; done"


class Shown:
    """A progress callback that records each update and when it came."""

    def __init__(self) -> None:
        self.updates: list[tuple[float, str]] = []

    def __call__(self, text: str) -> None:
        self.updates.append((time.monotonic(), text))

    @property
    def lines(self) -> list[str]:
        return [line for _, text in self.updates for line in text.split("\n")]


async def bash(project: Path, command: str, progress: Any = None) -> Any:
    return await BashTool().run(
        {"command": command}, ToolContext(project_dir=project, progress=progress)
    )


async def test_line1_is_shown_while_the_command_still_runs(project: Path) -> None:
    shown = Shown()
    task = asyncio.create_task(bash(project, THREE_LINES, shown))
    deadline = time.monotonic() + 5
    while not shown.updates and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert shown.lines == ["line1"], "line1 should be shown before the next line is printed"
    assert not task.done(), "line1 must arrive while the command is still running"
    result = await task
    assert shown.lines == ["line1", "line2", "line3"]
    assert len(shown.updates) == 3  # one update per line: they came 0.4 s apart
    assert result.content == "exit code 0\nline1\nline2\nline3\n"


async def test_the_result_is_the_same_with_and_without_streaming(project: Path) -> None:
    command = "printf 'a\\033[31mred\\033[0m\\r\\nb\\n'; echo err >&2; printf 'no newline'"
    plain = await bash(project, command)
    streamed = await bash(project, command, Shown())
    assert streamed == plain
    assert "\x1b[31m" in streamed.content  # the model still gets the bytes as they were


async def test_a_character_split_across_two_chunks_comes_out_whole(project: Path) -> None:
    shown = Shown()
    # é is c3 a9, € is e2 82 ac: each split across two writes, 0.2 s apart (two reads).
    await bash(
        project,
        "printf 'caf\\xc3'; sleep 0.2; printf '\\xa9 \\xe2\\x82'; sleep 0.2; printf '\\xac\\n'",
        shown,
    )
    assert shown.lines == ["café €"]


async def test_the_decoder_keeps_partial_utf8_between_feeds() -> None:
    shown = Shown()
    live = LiveOutput(shown, interval=0)
    data = "naïve 😀 ok\nzweite Zeile ß\n".encode()
    for i in range(len(data)):  # one byte at a time: every character is split
        live.feed(data[i : i + 1])
    live.feed(b"bad \xff byte")
    live.close()
    assert shown.lines == ["naïve 😀 ok", "zweite Zeile ß", "bad \ufffd byte"]


async def test_escape_sequences_are_stripped_from_what_is_shown(project: Path) -> None:
    shown = Shown()
    command = (
        "printf '\\033[1;31mred\\033[0m \\033]52;c;ZWNobw==\\007clip\\n'; "
        "printf '10%%\\r50%%\\r100%%\\n'; printf 'bell\\007 back\\bspace\\n'"
    )
    result = await bash(project, command, shown)
    assert shown.lines == ["red clip", "100%", "bell\\x07 back\\x08space"]
    assert all(
        "\x1b" not in line and "\x07" not in line and "\r" not in line for line in shown.lines
    )
    assert "\x1b]52;" in result.content  # unchanged for the model


async def test_a_flood_gives_a_bounded_number_of_updates_and_the_same_result(project: Path) -> None:
    command = "yes | head -c 5000000"
    plain = await bash(project, command)
    shown = Shown()
    t0 = time.monotonic()
    streamed = await bash(project, command, shown)
    took = time.monotonic() - t0
    assert streamed == plain
    assert 1 <= len(shown.updates) <= took / INTERVAL + 3
    assert all(len(text.split("\n")) <= TAIL + 1 for _, text in shown.updates)
    assert any(
        "lines not shown" in text for _, text in shown.updates
    )  # what was passed over is counted
    assert shown.lines[-1] == "y"


async def test_a_long_line_without_newline_is_cut_not_kept_whole(project: Path) -> None:
    shown = Shown()
    result = await bash(project, "head -c 3000000 /dev/zero | tr '\\0' x", shown)
    assert shown.lines == ["x" * LINE_MAX + "…"]
    assert "output truncated" in result.content


async def test_updates_are_coalesced_to_about_ten_a_second(project: Path) -> None:
    shown = Shown()
    t0 = time.monotonic()
    await bash(project, "for i in $(seq 1 200); do echo n$i; sleep 0.005; done", shown)
    took = time.monotonic() - t0
    assert len(shown.updates) <= took / INTERVAL + 3
    assert len(shown.updates) < 100  # 200 lines, far fewer updates
    assert shown.lines == [f"n{i}" for i in range(1, 201)]  # nothing lost at this rate


async def test_a_progress_callback_that_fails_does_not_fail_the_command(project: Path) -> None:
    def broken(_text: str) -> None:
        raise RuntimeError("display broke")

    result = await bash(project, "echo one; echo two", broken)
    assert result.content == "exit code 0\none\ntwo\n"


async def test_the_session_emits_tool_output_between_start_and_finish(project: Path) -> None:
    settings = load_settings(cwd=project, trust=True)
    events: list[Any] = []
    call = {
        "text": "",
        "tool_calls": [{"id": "c1", "name": "Bash", "arguments": {"command": THREE_LINES}}],
    }
    model = ScriptedModel([call, "done"])
    session = build_session(
        settings,
        open_catalog(settings),
        client=model,
        emit=events.append,
        interactive=False,
        allow=("Bash",),
    )
    await session.run_turn("count")
    kinds = [
        type(e).__name__
        for e in events
        if isinstance(e, ev.ToolStarted | ev.ToolOutput | ev.ToolFinished)
    ]
    assert kinds == ["ToolStarted", "ToolOutput", "ToolOutput", "ToolOutput", "ToolFinished"]
    outputs = [e for e in events if isinstance(e, ev.ToolOutput)]
    assert [(e.call_id, e.text, e.depth) for e in outputs] == [
        ("c1", "line1", 0),
        ("c1", "line2", 0),
        ("c1", "line3", 0),
    ]
    tool_message = next(m for m in model.requests[1].messages if m["role"] == "tool")
    assert tool_message["content"] == "exit code 0\nline1\nline2\nline3\n"
