"""The real TUI in tmux against a slow scripted model server: progress, Esc, a queued
message, Ctrl+O on a result, quitting, and `--continue` showing the conversation again."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "tests" / "agent" / "fake_openai.py"
STORY = " ".join(f"word{i}" for i in range(400))


class Pane:
    def __init__(self, socket: str, env: dict[str, str]) -> None:
        self.socket, self.env = socket, env

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=20,
        ).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "s")

    def history(self) -> str:
        return self.run("capture-pane", "-p", "-S", "-200", "-t", "s")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "s", *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "s", "-l", text)

    def wait_for(self, pattern: str, timeout: float = 20.0, where=None) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = (where or self.screen)()
            if re.search(pattern, screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} did not appear within {timeout}s; screen:\n{screen}")


@pytest.fixture
def server(tmp_path: Path):
    script = tmp_path / "replies.json"
    script.write_text(
        json.dumps(
            [
                {"text": STORY, "chunks": 200, "chunk_delay": 0.05},  # ~10 s: cancelled with Esc
                {
                    "tool_calls": [{"name": "Read", "arguments": {"path": "notes.txt"}}],
                    "delay": 2.0,
                },
                {"text": "The notes say hello."},
                {"text": "You are welcome."},
            ]
        )
    )
    proc = subprocess.Popen(
        [sys.executable, str(FAKE), "--port", "0", "--script", str(script)],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    assert line.startswith("READY"), line
    try:
        yield f"http://127.0.0.1:{line.split()[1]}/v1"
    finally:
        proc.kill()
        proc.wait()


def test_progress_escape_queue_ctrl_o_quit_and_continue(
    tmp_path: Path, isolated_home: Path, server: str
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "notes.txt").write_text("NOTES-CONTENT: hello from the notes file\n")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("TMUX")
    }  # keys: tests/conftest.py
    env.update(TERM="xterm-256color", COLORTERM="truecolor", CODEBOT_NO_PROBE="1", PS1="$ ")
    pane = Pane(f"codebot-e2e-{uuid.uuid4().hex[:8]}", env)
    cmd = f"{sys.executable} -m codebot --trust --model openai/test-model --api-base {server}"
    pane.run("new-session", "-d", "-s", "s", "-x", "110", "-y", "36", "sh")
    try:
        pane.type(f"cd {project} && {cmd}")
        pane.keys("Enter")
        pane.wait_for("Ctrl\\+P", timeout=30)
        pane.type("tell me a long story")
        pane.keys("Enter")
        first = pane.wait_for(r"working \d+\.\ds · ↓ \d+ tokens", timeout=30)
        t1 = float(re.search(r"working (\d+\.\d)s", first).group(1))

        def advanced() -> bool:
            now = re.search(r"working (\d+\.\d)s", pane.screen())
            return bool(now) and float(now.group(1)) > t1

        deadline = time.monotonic() + 5  # the elapsed time advances while text streams
        while not advanced() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert advanced(), (first, pane.screen())
        pane.keys("Escape")
        stopped = pane.wait_for("cancelled", timeout=5)
        assert "word399" not in stopped
        time.sleep(0.5)
        assert pane.screen().count("word") == stopped.count("word"), "text kept arriving after Esc"

        pane.type("read notes.txt")
        pane.keys("Enter")
        pane.wait_for("working", timeout=10)
        pane.type("thanks")
        pane.keys("Enter")
        pane.wait_for("queued: thanks", timeout=10)
        pane.wait_for("You are welcome", timeout=30)  # the queued message was sent after the turn
        assert "NOTES-CONTENT" not in pane.screen()  # the result is collapsed
        pane.keys("C-o")
        pane.wait_for("NOTES-CONTENT", timeout=10)  # Ctrl+O expanded it

        pane.keys("C-d")
        out = pane.wait_for(r"session \S+ · codebot --continue", timeout=20, where=pane.history)
        session_id = re.search(r"session (\S+) · codebot --continue", out).group(1)
        assert "You are welcome." in out  # the end of the conversation stays in the scrollback

        pane.keys("clear", "Enter")
        pane.type(f"{cmd} --continue")
        pane.keys("Enter")
        resumed = pane.wait_for(f"resumed session {re.escape(session_id)}", timeout=30)
        assert "tell me a long story" in resumed or "read notes.txt" in resumed
        assert "You are welcome." in resumed
        pane.keys("C-d")
    finally:
        pane.run("kill-server")
