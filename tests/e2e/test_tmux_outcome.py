"""A skill that ends `needs_confirmation` asks the person (issue 35 §1): in the TUI and in
line mode, the real program in tmux against the scripted server; the answer goes back to
the conversation."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

QUESTION = "Delete the 3 stale widgets?"


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    write_skill(
        project / ".codebot" / "skills",
        "counter",
        "description: Count the widgets in a fork. Not for edits.\ncontext: fork",
        "COUNT-BODY: count the widgets.",
    )
    return project


def script(fake_openai: Any) -> None:
    arguments = {"status": "needs_confirmation", "summary": QUESTION, "data": {"count": 3}}
    fake_openai.script(
        [{"tool_calls": [{"name": "SkillOutcome", "arguments": json.dumps(arguments)}]}]
    )


def test_line_mode_asks_the_skills_question(project: Path, fake_openai: Any, pane: Any) -> None:
    script(fake_openai)
    pane.codebot_plain(project, fake_openai.url)
    pane.type("/counter", enter=True)
    pane.wait_for(r"the skill counter asks:\n\s+" + QUESTION.replace("?", r"\?"))
    pane.wait_for(r"Go ahead\? \[y\]es / \[n\]o")
    pane.type("n keep them", enter=True)
    screen = pane.wait_for(r"answered: no: keep them")
    assert "[skill outcome: needs_confirmation] " + QUESTION in screen
    assert "skill counter ended: needs_confirmation" in screen
    pane.quit_codebot()


def test_the_tui_asks_the_skills_question(project: Path, fake_openai: Any, pane: Any) -> None:
    script(fake_openai)
    cmd = f"{sys.executable} -m codebot --trust --model openai/test-model --api-base"
    pane.type(f"cd {project} && {cmd} {fake_openai.url}", enter=True)
    pane.wait_for("Ctrl\\+P")
    pane.type("/counter", enter=True)
    pane.wait_for("A skill asks: go ahead")
    pane.wait_for("counter asks: " + QUESTION.replace("?", r"\?"))
    pane.keys("y")
    screen = pane.wait_for("answered: yes, go ahead")
    assert "→ needs_confirmation" in screen  # the outcome is on the skill's row
    pane.keys("C-d")
