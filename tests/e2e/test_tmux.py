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

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


class Tmux:
    def __init__(self, socket: str, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=20,
        ).stdout

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
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("TMUX")
    }  # keys: tests/conftest.py
    env.update(TERM="xterm-256color", COLORTERM="truecolor")
    socket = f"codebot-test-{uuid.uuid4().hex[:8]}"
    t = Tmux(socket, env)
    cmd = f"cd {project} && exec {sys.executable} -m codebot --trust"
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
    (skill / "SKILL.md").write_text(
        "---\ndescription: Check zebras. Not for horses.\n---\nLook for stripes.\n"
    )
    t0 = time.monotonic()
    t.keys("/zeb")
    # The completion is computed when typing; retype until the reload has landed. How fast
    # it lands is a bench figure (bench/reload.py), not a bound here: it must land at all.
    while "zebra-check" not in t.screen() and time.monotonic() - t0 < 15.0:
        time.sleep(0.2)
        t.keys("BSpace", "b")
    assert "zebra-check" in t.wait_for("zebra-check", timeout=1.0)
    t.keys("Escape")
    t.keys("C-d")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "codebot" in t.run("list-sessions"):
        time.sleep(0.2)
    assert "codebot" not in t.run("list-sessions")


def _start_untrusted(tmp_path: Path) -> tuple[Tmux, Path]:
    project = tmp_path / "cloned"
    skill = project / ".claude" / "skills" / "review"
    skill.mkdir(parents=True)
    (project / ".git").mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: review\ndescription: Review changes. Not for commits.\n---\n"
        "!`touch MARK`\nReview.\n"
    )
    return _codebot_in(project), project


def _codebot_in(project: Path) -> Tmux:
    """`codebot` (no --trust) in a fresh tmux server, started in `project`."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("TMUX")
    }  # keys: tests/conftest.py
    env.update(TERM="xterm-256color", COLORTERM="truecolor")
    t = Tmux(f"codebot-test-{uuid.uuid4().hex[:8]}", env)
    t.run(
        "new-session",
        "-d",
        "-s",
        "codebot",
        "-x",
        "120",
        "-y",
        "40",
        f"cd {project} && exec {sys.executable} -m codebot",
    )
    return t


@pytest.mark.usefixtures("isolated_home")
def test_trust_screen_trust_this_folder(tmp_path: Path) -> None:
    from codebot.home import codebot_home

    t, project = _start_untrusted(tmp_path)
    try:
        screen = t.wait_for("[q] quit", timeout=30)
        assert (
            "has not been told to trust" in screen
            and "[t] trust this folder" in screen
            and "[u] continue untrusted" in screen
            and "[q] quit" in screen
        )
        t.keys("t")
        t.wait_for("OFFLINE", timeout=30)
        assert "untrusted" not in t.screen()
        assert str(project.resolve()) in (codebot_home() / "trust.json").read_text()
        t.keys("/review", "Enter")
        t.wait_for("skill review", timeout=20)
        deadline = time.monotonic() + 10
        while not (project / "MARK").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (project / "MARK").exists()  # trusted now: the person's own /review runs its command
    finally:
        t.run("kill-server")


@pytest.mark.usefixtures("isolated_home")
def test_trust_screen_continue_untrusted_with_arrows_and_enter(tmp_path: Path) -> None:
    from codebot.home import codebot_home

    t, project = _start_untrusted(tmp_path)
    try:
        t.wait_for("[q] quit", timeout=30)
        t.keys("Down")
        t.keys("Enter")
        screen = t.wait_for("OFFLINE", timeout=30)
        assert "untrusted" in screen
        t.keys("/review", "Enter")
        t.wait_for("skill review", timeout=20)
        time.sleep(1.0)
        assert not (project / "MARK").exists()
        assert not (codebot_home() / "trust.json").exists()
    finally:
        t.run("kill-server")


@pytest.mark.usefixtures("isolated_home")
def test_trust_screen_quit(tmp_path: Path) -> None:
    t, _ = _start_untrusted(tmp_path)
    try:
        t.wait_for("has not been told to trust", timeout=30)
        t.keys("q")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "codebot" in t.run("list-sessions"):
            time.sleep(0.1)
        assert "codebot" not in t.run("list-sessions")
    finally:
        t.run("kill-server")


@pytest.mark.usefixtures("isolated_home")
def test_continue_untrusted_is_asked_once(tmp_path: Path) -> None:
    t, project = _start_untrusted(tmp_path)
    try:
        t.wait_for("[q] quit", timeout=30)
        t.keys("u")
        t.wait_for("OFFLINE", timeout=30)
    finally:
        t.run("kill-server")
    t2 = _codebot_in(project)
    try:
        screen = t2.wait_for("OFFLINE", timeout=30)
        assert "has not been told to trust" not in screen and "untrusted" in screen
    finally:
        t2.run("kill-server")


def test_compact_in_the_real_terminal_keeps_the_skill_and_shows_in_context(tmux) -> None:
    t, _project = tmux
    t.wait_for("OFFLINE", timeout=30)
    t.keys("/review app.py", "Enter")
    t.wait_for("skill review", timeout=20)
    time.sleep(0.5)  # the offline answer lands, the turn ends
    t.keys("what does add do?", "Enter")
    t.wait_for("what does add do?", timeout=10)
    time.sleep(1.0)
    t.keys("/compact the add bug", "Enter")
    screen = t.wait_for("compacted:", timeout=20)
    assert "skills re-attached: review" in " ".join(screen.split())
    assert screen.index("compacting the conversation") < screen.index("compacted:")
    t.keys("/context", "Enter")
    screen = t.wait_for("automatic compaction", timeout=10)
    assert "skills in force: review" in screen and "last compacted at" in screen
    t.keys("C-d")
