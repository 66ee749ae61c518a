"""A workflow's steps on screen (issue 35 §2): the real program in tmux against the
scripted server. Line mode prints each step's state; the TUI shows a running step with
its seconds, and Esc cancels every running step."""

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


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    skills = project / ".codebot" / "skills"
    for name in ("one", "two", "three", "rescue"):
        write_skill(
            skills,
            name,
            f"description: The {name} step of the test flow. Not for anything else.\ncontext: fork",
            f"{name.upper()}-BODY: do {name}.",
        )
    write_skill(
        skills,
        "flow",
        "description: Three steps with a fallback. Not for anything else.\n"
        "steps:\n"
        "  - id: first\n    skill: one\n"
        "  - id: second\n    skill: two\n    on: {failed: {skill: rescue}}\n"
        "  - id: third\n    skill: three\n    when: \"{{ steps.second.status == 'success' }}\"\n",
    )
    write_skill(
        skills,
        "fan",
        "description: Two members at once. Not for anything else.\n"
        "steps:\n  - id: both\n    parallel:\n      - {skill: one}\n      - {skill: two}\n",
    )
    return project


def outcome(match: str, status: str, summary: str) -> dict[str, Any]:
    arguments = json.dumps({"status": status, "summary": summary})
    return {"match": match, "tool_calls": [{"name": "SkillOutcome", "arguments": arguments}]}


def test_line_mode_shows_each_step(project: Path, fake_openai: Any, pane: Any) -> None:
    fake_openai.script(
        [
            outcome("ONE-BODY", "success", "first fine"),
            outcome("TWO-BODY", "failed", "second broke"),
            outcome("RESCUE-BODY", "success", "rescued"),
        ]
    )
    pane.codebot_plain(project, fake_openai.url)
    pane.type("/flow", enter=True)
    screen = pane.wait_for(r"\[workflow flow: partial\]")
    assert "◦ flow › third waiting" in screen
    assert "✓ flow › first ok" in screen and "✗ flow › second failed" in screen
    assert "↪ flow › second fallback" in screen and "rescue: success" in screen
    assert "– flow › third skipped" in screen
    pane.quit_codebot()


def test_the_tui_shows_running_seconds_and_esc_cancels_every_step(
    project: Path, fake_openai: Any, pane: Any
) -> None:
    fake_openai.script(
        [
            {"match": "ONE-BODY", "text": "x", "stall": 60},
            {"match": "TWO-BODY", "text": "x", "stall": 60},
        ]
    )
    cmd = f"{sys.executable} -m codebot --trust --model openai/test-model --api-base"
    pane.type(f"cd {project} && {cmd} {fake_openai.url}", enter=True)
    pane.wait_for("Ctrl\\+P")
    pane.type("/fan", enter=True)
    pane.wait_for(r"▸ fan › both-1 running [1-9]\d*s")  # the seconds move while it runs
    pane.wait_for(r"▸ fan › both-2 running [1-9]\d*s")
    pane.keys("Escape")
    screen = pane.wait_for(r"✗ fan › both-2 cancelled")
    assert "✗ fan › both-1 cancelled" in screen
    pane.keys("C-d")
