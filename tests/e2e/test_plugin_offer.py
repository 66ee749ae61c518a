"""The offer to load a plugin repository, in a real terminal: asked once (TUI and line
mode), shown escaped, remembered per folder."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins"))
from plugin_kit import make_plugin

from codebot.home import codebot_home

pytestmark = pytest.mark.slow


def _repo(tmp_path: Path) -> Path:
    root = make_plugin(
        tmp_path / "repo",
        manifest={"name": "toolkit", "description": "Tools \x1b[31mRED\x1b[0m here"},
    )
    (root / ".git").mkdir()
    return root


def _choices() -> dict[str, str]:
    return json.loads((codebot_home() / "plugin-choices.json").read_text())


def test_tui_offer_loads_the_plugin_and_is_asked_once(tmp_path: Path, panes) -> None:
    repo = _repo(tmp_path)
    t = panes(f"cd {repo} && exec {panes.codebot('--trust')}")
    screen = t.wait_for_text("[n] do not load it")
    assert "Claude Code plugin `toolkit` with 4 skills: load it?" in screen
    assert "\\x1b[31mRED" in screen  # the description's escape is shown, not obeyed
    t.keys("y")
    t.wait_for("OFFLINE")
    t.type("/skills", enter=True)
    t.wait_for_text("toolkit:verify")
    assert _choices() == {str(repo.resolve()): "load"}
    t.keys("C-d")
    t.wait_closed()
    again = panes(f"cd {repo} && exec {panes.codebot('--trust')}")
    screen = again.wait_for("OFFLINE")
    assert "load it?" not in screen


def test_line_mode_offer_defaults_to_no(tmp_path: Path, panes) -> None:
    repo = _repo(tmp_path)
    t = panes(f"cd {repo} && exec {panes.codebot('--plain', '--trust')}")
    t.wait_for_text("load it? [y/N]:")
    assert "Tools \\x1b[31mRED" in t.screen()
    t.keys("Enter")
    t.prompt_ready()
    assert _choices() == {str(repo.resolve()): "skip"}
    t.type("/skills", enter=True)
    t.wait_for_text("bundled")
    assert "toolkit:" not in t.history()
