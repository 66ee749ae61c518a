"""The real program in a real terminal: one tmux driver for every end-to-end test.

Each `Pane` is a tmux server of its own (its own socket, so parallel workers never meet)
with one window `s`, 120x40 unless asked. Every wait polls the screen; none sleeps and
then asserts.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


class Pane:
    def __init__(self, command: str = "sh", size: tuple[int, int] = (120, 40), **env: str) -> None:
        # Provider keys are already cleared by tests/conftest.py; a TMUX variable would
        # point the client at the outer server.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        self.env.update(TERM="xterm-256color", COLORTERM="truecolor", PS1="$ ", **env)
        self.socket = f"codebot-e2e-{uuid.uuid4().hex[:8]}"
        width, height = size
        self.run("new-session", "-d", "-s", "s", "-x", str(width), "-y", str(height), command)

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
        """The screen and 200 lines of scrollback above it."""
        return self.run("capture-pane", "-p", "-S", "-200", "-t", "s")

    def keys(self, *keys: str) -> None:
        """tmux key names: `Enter`, `C-d`, `Escape`, or literal words."""
        self.run("send-keys", "-t", "s", *keys)

    def type(self, text: str, enter: bool = False) -> None:
        """Type `text` literally (no key-name lookup), then Enter if asked."""
        self.run("send-keys", "-t", "s", "-l", text)
        if enter:
            self.keys("Enter")

    def wait_for(
        self, pattern: str, timeout: float = 30.0, where: Callable[[], str] | None = None
    ) -> str:
        """Poll the screen (or `where`) until the regular expression `pattern` is on it."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = (where or self.screen)()
            if re.search(pattern, screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} did not appear within {timeout}s; screen:\n{screen}")

    def wait_for_text(self, text: str, timeout: float = 30.0) -> str:
        return self.wait_for(re.escape(text), timeout)

    def idle(self, timeout: float = 30.0) -> None:
        """The TUI's status bar (the last line) no longer shows a running turn."""

        def status() -> str:
            lines = [line for line in self.screen().splitlines() if line.strip()]
            return lines[-1] if lines else ""

        deadline = time.monotonic() + timeout
        while re.search(r"working|Esc cancels", last := status()):
            if time.monotonic() >= deadline:
                raise AssertionError(f"the turn did not end; status: {last}")
            time.sleep(0.05)

    def alive(self) -> bool:
        return "s:" in self.run("list-sessions")

    def wait_closed(self, timeout: float = 10.0) -> None:
        """The window's program has exited (the session ends with it)."""
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() >= deadline:
                raise AssertionError(f"the program did not exit; screen:\n{self.screen()}")
            time.sleep(0.05)

    def prompt_ready(self) -> None:
        """Line mode's empty `> ` prompt is the last line: keys typed while it is not up can
        reach a terminal still in cooked mode and be lost."""
        self.wait_for(r"\n>\s*$", 30)

    def codebot_plain(self, project: Path, url: str) -> None:
        """Start line mode against the scripted server and wait for its prompt."""
        self.type(
            f"cd {project} && {sys.executable} -m codebot --plain --trust "
            f"--model openai/test-model --api-base {url}",
            enter=True,
        )
        # The prompt, not just the welcome line: keys typed before it is up can be lost.
        self.wait_for(r"(?m)Ctrl\+D quits\n(?:[ \t]*\n)*> *$")

    def quit_codebot(self) -> None:
        """Ctrl+D at line mode's prompt: sent while a turn is still ending, it reached a
        terminal in cooked mode and was lost (a clean-clone CI run waited 30 s for the exit)."""
        self.prompt_ready()
        self.keys("C-d")
        self.wait_for(r"session \S+ · codebot --continue")

    def kill(self) -> None:
        self.run("kill-server")


class Panes:
    """The `panes` fixture: `panes(command="sh", size=(120, 40), **env)` starts a Pane (all
    are killed when the test ends); `panes.codebot(*args)` is the command line that starts
    codebot with this interpreter."""

    def __init__(self) -> None:
        self.made: list[Pane] = []

    def __call__(self, command: str = "sh", size: tuple[int, int] = (120, 40), **env: str) -> Pane:
        pane = Pane(command, size, CODEBOT_NO_PROBE="1", **env)
        self.made.append(pane)
        return pane

    @staticmethod
    def codebot(*args: str) -> str:
        return " ".join([sys.executable, "-m", "codebot", *args])


@pytest.fixture
def panes() -> Iterator[Panes]:
    started = Panes()
    try:
        yield started
    finally:
        for pane in started.made:
            pane.kill()


@pytest.fixture
def pane(panes: Panes) -> Pane:
    """One `sh` window, 120x40."""
    return panes()
