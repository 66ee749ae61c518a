"""The real program in a real terminal: codebot (offline model) inside a 120x40 tmux."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]  # fmt: skip

PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "CODEBOT_MODEL",
                 "CODEBOT_API_BASE", "MISTRAL_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY",
                 "OPENROUTER_API_KEY", "XAI_API_KEY")  # fmt: skip


class Tmux:
    def __init__(self, socket: str, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              env=self.env, timeout=20).stdout  # fmt: skip

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "codebot")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "codebot", *keys)

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear within {timeout}s; screen:\n{screen}")


@pytest.fixture
def tmux(tmp_path: Path, isolated_home: Path):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "app.py").write_text("def add(a, b):\n    return a - b\n")
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_KEYS and not k.startswith("TMUX")}
    env.update(TERM="xterm-256color", COLORTERM="truecolor")
    socket = f"codebot-test-{uuid.uuid4().hex[:8]}"
    t = Tmux(socket, env)
    cmd = f"cd {project} && exec {sys.executable} -m codebot"
    t.run("new-session", "-d", "-s", "codebot", "-x", "120", "-y", "40", cmd)
    try:
        yield t, project
    finally:
        t.run("kill-server")


def test_real_terminal_completion_skill_run_and_hot_reload(tmux) -> None:
    t, project = tmux
    t.wait_for("OFFLINE", timeout=30)
    t.keys("/rev")
    t.wait_for("review")
    t.keys("iew app.py", "Enter")
    screen = t.wait_for("skill review", timeout=20)
    assert "offline" in screen.lower()
    skill = project / ".codebot" / "skills" / "zebra-check"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: Check zebras. Not for horses.\n---\nLook for stripes.\n")
    t0 = time.monotonic()
    t.keys("/zeb")
    # The completion is computed when typing; retype until the reload has landed.
    while "zebra-check" not in t.screen() and time.monotonic() - t0 < 2.0:
        time.sleep(0.2)
        t.keys("BSpace", "b")
    assert "zebra-check" in t.wait_for("zebra-check", timeout=0.5)
    assert time.monotonic() - t0 <= 2.5
    t.keys("Escape")
    t.keys("C-d")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "codebot" in t.run("list-sessions"):
        time.sleep(0.2)
    assert "codebot" not in t.run("list-sessions")
