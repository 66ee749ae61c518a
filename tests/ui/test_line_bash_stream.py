"""Line mode prints a running Bash command's output as it comes, once, escape-free, and
then only the short result line."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session import events as ev
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.render import Renderer, Sink
from codebot.ui.line.repl import LineApp

THREE_LINES = "for i in 1 2 3; do echo line$i; sleep 0.4; done"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


class Timed(io.StringIO):
    """A text stream that remembers when each write came."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[float, str]] = []

    def write(self, s: str) -> int:
        self.writes.append((time.monotonic(), s))
        return super().write(s)

    def when(self, needle: str) -> float:
        return next(t for t, s in self.writes if needle in s)


def run(project: Path, command: str) -> Timed:
    call = {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}
    ctrl = Controller(
        load_settings(cwd=project, trust=True),
        client=ScriptedModel([call, "All done."]),
        interactive=True,
        allow=("Bash",),
    )
    out = Timed()
    assert LineApp(ctrl, input=io.StringIO("go\n"), output=out, watch=False).run() == 0
    ctrl.close()
    return out


def test_lines_are_printed_as_they_come_and_only_once(project: Path) -> None:
    out = run(project, THREE_LINES)
    text = out.getvalue()
    for i in (1, 2, 3):
        assert text.count(f"line{i}") == 1, text
        assert f"  │ line{i}\n" in text
    assert "  ✓ exit code 0" in text and "All done." in text
    # line1 is on screen while the command still runs: well before its result line.
    assert out.when("│ line1") < out.when("│ line3") - 0.5
    assert out.when("│ line3") <= out.when("✓ exit code 0")
    assert (
        text.index("→ Bash")
        < text.index("│ line1")
        < text.index("✓ exit code 0")
        < text.index("All done.")
    )


def test_escape_sequences_never_reach_the_terminal(project: Path) -> None:
    out = run(project, "printf '\\033[2J\\033[31mred\\033[0m \\033]52;c;ZWNobw==\\007clip\\n'")
    text = out.getvalue()
    assert "│ red clip\n" in text
    assert "\x1b" not in text and "\x07" not in text


def test_the_renderer_strips_and_cuts_streamed_lines_itself() -> None:
    stream = io.StringIO()
    renderer = Renderer(Sink(stream, columns=lambda: 30))
    renderer.render(ev.ToolOutput("c1", "plain\n\x1b[31mred\x1b[0m\tx\n" + "y" * 100, depth=1))
    lines = stream.getvalue().splitlines()
    assert lines[:2] == ["    │ plain", "    │ red x"]  # tabs expand from the line's own start
    assert lines[2].startswith("    │ yyy") and lines[2].endswith("…") and len(lines[2]) == 29
    pipe = io.StringIO()
    Renderer(Sink(pipe)).render(ev.ToolOutput("c1", "z" * 100))
    assert pipe.getvalue() == "  │ " + "z" * 100 + "\n"  # a pipe or a log gets the line whole


def test_a_tool_result_after_streamed_lines_is_one_short_line() -> None:
    stream = io.StringIO()
    renderer = Renderer(Sink(stream))
    renderer.render(ev.ToolStarted("c1", "Bash", {"command": "make"}))
    renderer.render(ev.ToolOutput("c1", "compiling\nlinking"))
    renderer.render(ev.ToolFinished("c1", "Bash", "ok", "exit code 0\ncompiling\nlinking\n", 10.0))
    text = stream.getvalue()
    assert text.count("compiling") == 1 and text.count("linking") == 1
    assert text.splitlines()[-1] == "  ✓ exit code 0"


def test_a_command_that_prints_nothing_shows_only_its_result(project: Path) -> None:
    out = run(project, "true")
    text = out.getvalue()
    assert "│" not in text and "  ✓ exit code 0" in text
