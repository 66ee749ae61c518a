"""Issue 30, part 4, in a real terminal: the model asks for `touch X`, 120 blank lines and
`git status`. Line mode (`codebot --plain`, in a 100x30 tmux, against a scripted model
server on 127.0.0.1) must show `touch X` on screen together with a question that states
the counts, never only `git status`."""

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
ATTACK = "touch X" + "\n" * 121 + "git status"  # 120 blank lines between the two commands


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

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "s", *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "s", "-l", text)

    def wait_for(self, pattern: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
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
                {"tool_calls": [{"name": "Bash", "arguments": {"command": ATTACK}}]},
                {"text": "All right, I will not run it."},
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


def test_line_mode_shows_the_first_line_and_the_counts_with_the_question(
    tmp_path: Path, isolated_home: Path, server: str
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("TMUX")
    }  # keys: tests/conftest.py
    env.update(TERM="xterm-256color", CODEBOT_NO_PROBE="1")
    pane = Pane(f"codebot-e2e-{uuid.uuid4().hex[:8]}", env)
    pane.run("new-session", "-d", "-s", "s", "-x", "100", "-y", "30", "sh")
    try:
        pane.type(
            f"cd {project} && {sys.executable} -m codebot --plain --trust "
            f"--model openai/test-model --api-base {server}"
        )
        pane.keys("Enter")
        pane.wait_for(r"(?m)^> ?$|›|>>>", timeout=30)  # line mode's prompt
        pane.type("tidy up")
        pane.keys("Enter")
        screen = pane.wait_for(r"\(122 lines, 120 of them empty\)")
        rows = screen.rstrip("\n").split("\n")
        question = next(i for i, row in enumerate(rows) if "(122 lines, 120 of them empty)" in row)
        assert (
            rows[question].lstrip().startswith("Run this command? (122 lines, 120 of them empty)")
        ), screen
        above = [row.strip() for row in rows[:question]]
        assert "touch X" in above and "⏎ ×120" in above and "git status" in above, screen
        pane.type("n")
        pane.keys("Enter")
        pane.wait_for("I will not run it")
        assert not (project / "X").exists()
        pane.keys("C-d")
        pane.wait_for(r"codebot --continue", timeout=20)
    finally:
        pane.run("kill-server")
