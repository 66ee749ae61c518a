"""The real TUI in tmux against a slow scripted model server: progress, Esc, a queued
message, Ctrl+O on a result, quitting, and `--continue` showing the conversation again."""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

STORY = " ".join(f"word{i}" for i in range(400))


@pytest.fixture
def server(fake_openai: Any) -> str:
    fake_openai.script(
        [
            {"text": STORY, "chunks": 200, "chunk_delay": 0.05},  # ~10 s: cancelled with Esc
            {"tool_calls": [{"name": "Read", "arguments": {"path": "notes.txt"}}], "delay": 2.0},
            {"text": "The notes say hello."},
            {"text": "You are welcome."},
        ]
    )
    return fake_openai.url


def start(pane: Any, project: Path, server: str) -> str:
    """codebot in the pane's shell, in `project`; returns the command line (to --continue)."""
    cmd = f"{sys.executable} -m codebot --trust --model openai/test-model --api-base {server}"
    pane.type(f"cd {project} && {cmd}", enter=True)
    pane.wait_for("Ctrl\\+P")
    return cmd


def elapsed(screen: str) -> float | None:
    found = re.search(r"working (\d+\.\d)s", screen)
    return float(found.group(1)) if found else None


def stream_and_cancel(pane: Any, wait_until: Callable[..., Any]) -> None:
    """The elapsed time advances while text streams; Esc stops the stream for good."""
    pane.type("tell me a long story", enter=True)
    first = pane.wait_for(r"working \d+\.\ds · ↓ \d+ tokens")
    t1 = elapsed(first)
    assert t1 is not None
    wait_until(lambda: (elapsed(pane.screen()) or 0) > t1, 5, "the elapsed time to advance")
    pane.keys("Escape")
    stopped = pane.wait_for("cancelled", timeout=5)
    assert "word399" not in stopped
    words = stopped.count("word")
    # No more text may arrive after Esc: the count holds while the stream would have gone on.
    holds(lambda: pane.screen().count("word") == words, 0.5, "text kept arriving after Esc")


def holds(predicate: Callable[[], bool], seconds: float, why: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert predicate(), why
        time.sleep(0.05)


def test_progress_escape_queue_ctrl_o_quit_and_continue(
    project: Path, server: str, pane: Any, wait_until
) -> None:
    (project / "notes.txt").write_text("NOTES-CONTENT: hello from the notes file\n")
    cmd = start(pane, project, server)
    stream_and_cancel(pane, wait_until)

    pane.type("read notes.txt", enter=True)
    pane.wait_for("working", timeout=10)
    pane.type("thanks", enter=True)
    pane.wait_for("queued: thanks", timeout=10)
    pane.wait_for("You are welcome")  # the queued message was sent after the turn
    assert "NOTES-CONTENT" not in pane.screen()  # the result is collapsed
    pane.keys("C-o")
    pane.wait_for("NOTES-CONTENT", timeout=10)  # Ctrl+O expanded it

    pane.keys("C-d")
    out = pane.wait_for(r"session \S+ · codebot --continue", where=pane.history)
    found = re.search(r"session (\S+) · codebot --continue", out)
    assert found
    assert "You are welcome." in out  # the end of the conversation stays in the scrollback

    pane.keys("clear", "Enter")
    pane.type(f"{cmd} --continue", enter=True)
    resumed = pane.wait_for(f"resumed session {re.escape(found.group(1))}")
    assert "tell me a long story" in resumed or "read notes.txt" in resumed
    assert "You are welcome." in resumed
    pane.keys("C-d")
