"""The real program in a real terminal: codebot (offline model) inside a 120x40 tmux."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.fixture
def tmux(tmp_path: Path, panes) -> tuple[Any, Path]:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "app.py").write_text("def add(a, b):\n    return a - b\n")
    return panes(f"cd {project} && exec {panes.codebot('--trust')}"), project


def test_real_terminal_completion_skill_run_and_hot_reload(tmux) -> None:
    t, project = tmux
    t.wait_for("OFFLINE")
    t.keys("/rev")
    t.wait_for("review")
    t.keys("iew app.py", "Enter")
    # The skill line, or what the offline model says after running a skill: its long
    # answer can scroll the line away between two looks at the screen on a loaded machine.
    screen = t.wait_for(r"skill review|Read-only steps I ran")
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
    t.wait_closed()


def _untrusted_project(tmp_path: Path) -> Path:
    project = tmp_path / "cloned"
    skill = project / ".claude" / "skills" / "review"
    skill.mkdir(parents=True)
    (project / ".git").mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: review\ndescription: Review changes. Not for commits.\n---\n"
        "!`touch MARK`\nReview.\n"
    )
    return project


def _codebot_in(panes, project: Path) -> Any:
    """`codebot` (no --trust) in a fresh tmux server, started in `project`."""
    return panes(f"cd {project} && exec {panes.codebot()}")


def test_trust_screen_trust_this_folder(tmp_path: Path, panes, wait_until) -> None:
    from codebot.home import codebot_home

    project = _untrusted_project(tmp_path)
    t = _codebot_in(panes, project)
    screen = t.wait_for_text("[q] quit")
    assert (
        "has not been told to trust" in screen
        and "[t] trust this folder" in screen
        and "[u] continue untrusted" in screen
        and "[q] quit" in screen
    )
    t.keys("t")
    t.wait_for("OFFLINE")
    assert "untrusted" not in t.screen()
    assert str(project.resolve()) in (codebot_home() / "trust.json").read_text()
    t.keys("/review", "Enter")
    # trusted now: the person's own /review runs its command. (Not waiting for the
    # "skill review" line first: the offline answer below it can scroll it out of view
    # between two looks at the screen on a loaded machine.)
    wait_until((project / "MARK").exists, 30, "the skill's `!` command to run")


def test_trust_screen_continue_untrusted_with_arrows_and_enter(tmp_path: Path, panes) -> None:
    from codebot.home import codebot_home

    project = _untrusted_project(tmp_path)
    t = _codebot_in(panes, project)
    t.wait_for_text("[q] quit")
    t.keys("Down")
    t.keys("Enter")
    screen = t.wait_for("OFFLINE")
    assert "untrusted" in screen
    t.keys("/review", "Enter")
    t.wait_for('<skill name="review"')  # the expanded skill, in the offline model's answer
    t.idle()  # the turn that expanded the skill has ended: its `!` command ran or never will
    assert not (project / "MARK").exists()
    assert not (codebot_home() / "trust.json").exists()


def test_trust_screen_quit(tmp_path: Path, panes) -> None:
    t = _codebot_in(panes, _untrusted_project(tmp_path))
    t.wait_for("has not been told to trust")
    t.keys("q")
    t.wait_closed()


def test_continue_untrusted_is_asked_once(tmp_path: Path, panes) -> None:
    project = _untrusted_project(tmp_path)
    t = _codebot_in(panes, project)
    t.wait_for_text("[q] quit")
    t.keys("u")
    t.wait_for("OFFLINE")
    t.kill()
    screen = _codebot_in(panes, project).wait_for("OFFLINE")
    assert "has not been told to trust" not in screen and "untrusted" in screen


def test_compact_in_the_real_terminal_keeps_the_skill_and_shows_in_context(tmux) -> None:
    t, _project = tmux
    t.wait_for("OFFLINE")
    t.keys("/review app.py", "Enter")
    # the skill's row, or (when the offline answer lands in the same frame and scrolls the
    # row out of view) that answer, which the review skill's read-only steps begin; that the
    # skill ran and stays in force is checked below (/compact, /context)
    t.wait_for("skill review|Read-only steps I ran")
    t.idle()  # the offline answer has landed and the turn has ended
    t.keys("what does add do?", "Enter")
    t.wait_for("answering questions takes a real model")  # the offline model's answer
    t.idle()
    t.keys("/compact the add bug", "Enter")
    screen = t.wait_for("compacted:")
    assert "skills re-attached: review" in " ".join(screen.split())
    assert screen.index("compacting the conversation") < screen.index("compacted:")
    t.keys("/context", "Enter")
    screen = t.wait_for("automatic compaction")
    assert "skills in force: review" in screen and "last compacted at" in screen
    t.keys("C-d")


def test_model_picker_takes_keys_in_a_real_terminal(tmux) -> None:
    """`/model` alone: what is typed shows in its filter and narrows the list, Backspace
    takes it back, Esc closes it and the prompt has the keys again (it used to swallow
    every key until Esc)."""
    t, _ = tmux
    t.wait_for("OFFLINE")
    t.keys("/model", "Enter")
    # The dialog's own rows sit inside its inner frame (`▊ ▊ … ▎ ▎`): the /model reply in
    # the conversation also says "offline  (current)", beside or under it by the layout.
    option = r"▊ ▊ offline +\(current\)"
    t.wait_for(option)
    t.type("zq")
    t.wait_for(r"▊ ▊ +zq")
    t.wait_for(rf"^(?![\s\S]*{option})")  # nothing in the dialog matches `zq`
    t.keys("BSpace", "BSpace")
    t.wait_for(option)
    t.keys("Escape")
    wait_gone(t, "type to filter")
    t.type("hello there")
    t.wait_for("hello there")
    t.keys("C-d")
    t.wait_closed()


def wait_gone(t: Any, text: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while text in t.screen() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert text not in t.screen(), t.screen()
