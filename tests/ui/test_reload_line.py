"""A skill reload leaves a line in the conversation, not only a toast that fades: what
was added, changed and removed, and the files that no longer load, named. Line mode
prints the same line (`Controller.reload_message` renders it for both)."""

from __future__ import annotations

import io
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import until
from textual.widgets import Static

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.repl import LineApp
from codebot.ui.tui.app import CodebotApp

BROKEN = "---\nname: broken\ndescription: x\n  bad: [\n---\nBody.\n"


@pytest.fixture
def project(tmp_path: Path, write_skill) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    skills = proj / ".codebot" / "skills"
    write_skill(skills, "old-one", "description: A skill that will be removed. Not for tests.")
    write_skill(skills, "broken", "description: A skill whose file will break. Not for x.")
    write_skill(skills, "kept", "description: A skill that will change. Not for tests.")
    return proj


def change_the_skills(project: Path, write_skill) -> None:
    skills = project / ".codebot" / "skills"
    write_skill(skills, "fresh", "description: A skill added while codebot runs. Not for x.")
    (skills / "old-one" / "SKILL.md").unlink()
    (skills / "old-one").rmdir()
    (skills / "broken" / "SKILL.md").write_text(BROKEN)
    write_skill(skills, "kept", "description: A skill that changed its words. Not for tests.")


def assert_names_everything(line: str, project: Path) -> None:
    assert "+ fresh" in line and "− old-one" in line and "~ kept" in line, line
    assert "− broken" in line and str(project / ".codebot/skills/broken/SKILL.md") in line, line


def controller(project: Path) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel([]), interactive=True
    )


async def test_a_reload_in_the_tui_leaves_a_line_naming_what_changed(
    project: Path, write_skill
) -> None:
    ctrl = controller(project)
    app = CodebotApp(ctrl, watch_skills=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.controller is not None)
        change_the_skills(project, write_skill)
        app.reload_skills()  # what the watcher calls on a change

        def reload_lines() -> list[str]:
            return [
                str(w.content)
                for w in app.conversation.query(Static)
                if str(w.content).startswith("skills: +")
            ]

        await until(pilot, reload_lines)
        assert_names_everything(reload_lines()[0], project)


def test_line_mode_prints_the_same_line(
    project: Path, write_skill, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Watcher:  # runs the real reload once, as the watcher does on a change
        def __init__(self, catalog: Any, on_reload: Any) -> None:
            self.catalog, self.on_reload = catalog, on_reload

        def run_in_thread(self) -> None:
            change_the_skills(project, write_skill)
            self.on_reload(self.catalog.reload())

        def stop(self) -> None:
            pass

    monkeypatch.setitem(
        sys.modules, "codebot.skills.watch.watcher", types.SimpleNamespace(SkillWatcher=Watcher)
    )
    ctrl = controller(project)
    out = io.StringIO()
    assert LineApp(ctrl, input=io.StringIO(""), output=out, watch=True).run() == 0
    lines = [ln for ln in out.getvalue().splitlines() if ln.startswith("skills: +")]
    assert lines, out.getvalue()
    assert_names_everything(out.getvalue(), project)
    ctrl.close()
