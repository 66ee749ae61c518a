"""Issue 30, part 4, in a real terminal: the model asks for `touch X`, 120 blank lines and
`git status`. Line mode (`codebot --plain`, in a 100x30 tmux, against a scripted model
server on 127.0.0.1) must show `touch X` on screen together with a question that states
the counts, never only `git status`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

ATTACK = "touch X" + "\n" * 121 + "git status"  # 120 blank lines between the two commands


def test_line_mode_shows_the_first_line_and_the_counts_with_the_question(
    project: Path, fake_openai: Any, panes: Any
) -> None:
    fake_openai.script(
        [
            {"tool_calls": [{"name": "Bash", "arguments": {"command": ATTACK}}]},
            {"text": "All right, I will not run it."},
        ]
    )
    pane = panes(size=(100, 30))
    pane.type(
        f"cd {project} && {sys.executable} -m codebot --plain --trust "
        f"--model openai/test-model --api-base {fake_openai.url}",
        enter=True,
    )
    pane.wait_for(r"(?m)^> ?$|›|>>>")  # line mode's prompt
    pane.type("tidy up", enter=True)
    screen = pane.wait_for(r"\(122 lines, 120 of them empty\)")
    rows = screen.rstrip("\n").split("\n")
    question = next(i for i, row in enumerate(rows) if "(122 lines, 120 of them empty)" in row)
    assert rows[question].lstrip().startswith("Run this command? (122 lines, 120 of them empty)"), (
        screen
    )
    above = [row.strip() for row in rows[:question]]
    assert "touch X" in above and "⏎ ×120" in above and "git status" in above, screen
    pane.type("n", enter=True)
    pane.wait_for("I will not run it")
    assert not (project / "X").exists()
    pane.quit_codebot()  # at the prompt: a Ctrl+D sent while the turn still ends is lost
