"""Snapshots of the TUI's main screen, skills browser and approval dialog.

Stable by construction: the project is `~/proj` inside the test's own HOME (a tmp folder),
and the screen writes paths inside HOME as `~/…`, so the pictures hold no per-run path; a
scripted model, no clocks on screen, and no blinking cursor under test.
Update with `pytest tests/ui/test_tui_snapshots.py --snapshot-update` and look at the SVGs.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

import codebot.workspace
from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.skills.catalog import default_roots
from codebot.ui.controller import Controller
from codebot.ui.tui.app import CodebotApp
from codebot.ui.tui.approval import ApprovalScreen
from codebot.ui.tui.skills_screen import SkillsScreen

SIZE = (100, 30)
ANSWER = """I looked at the project. Two things stand out:

1. `deploy` has no **dry-run** mode.
2. The `review` skill shadows the bundled one.

```python
print("hello")
```
"""


@pytest.fixture
def snap_project(write_skill, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The bundled skills change as they are improved; these pictures are about the UI.
    # (Every skill has its `name`: one without is a `name-missing` warning, counted.)
    monkeypatch.setattr(
        codebot.workspace, "default_roots", partial(default_roots, include_bundled=False)
    )
    project = Path.home() / "proj"  # HOME is this test's own tmp folder (tests/conftest.py)
    (project / ".git").mkdir(parents=True)
    skills = project / ".codebot" / "skills"
    write_skill(
        skills,
        "review",
        'name: review\ndescription: Review this project\'s code for bugs.\nargument-hint: "[path]"',
    )
    write_skill(
        skills,
        "deploy",
        "name: deploy\ndescription: Deploy the app to an environment.\nargument-hint: <env>\n"
        "model: gpt-x",
    )
    write_skill(
        skills,
        "release",
        "name: release\ndescription: Tag, changelog and publish a release.\n"
        "argument-hint: <version>",
    )
    user = Path.home() / ".codebot" / "skills"
    write_skill(
        user, "review", "name: review\ndescription: My own review checklist, used everywhere."
    )
    write_skill(
        user,
        "explain",
        "name: explain\ndescription: Explain a piece of code in plain words.\n"
        "disable-model-invocation: true",
    )
    return project


def app_for(project: Path, replies: list[Any]) -> CodebotApp:
    controller = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel(replies), interactive=True
    )
    app = CodebotApp(controller, watch_skills=False)
    app.clock = lambda: 0.0  # no clocks on screen: the turn's elapsed time stays 0.0s
    return app


async def send(pilot, text: str) -> None:
    await pilot.press(*[{" ": "space"}.get(ch, ch) for ch in text], "enter")
    await pilot.pause()


async def until(pilot, predicate) -> None:
    for _ in range(250):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("timed out waiting for the UI")


def test_main_screen(snap_compare, snap_project: Path) -> None:
    app = app_for(snap_project, [ANSWER])

    async def run_before(pilot) -> None:
        await send(pilot, "what needs attention in this project?")
        await pilot.app.settled()
        await pilot.press(*"/re")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_skills_browser(snap_compare, snap_project: Path) -> None:
    app = app_for(snap_project, [])

    async def run_before(pilot) -> None:
        await send(pilot, "/skills")
        await until(pilot, lambda: isinstance(pilot.app.screen, SkillsScreen))
        await until(
            pilot, lambda: "counting" not in str(pilot.app.screen.query_one("#head").content)
        )

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_approval_dialog(snap_compare, snap_project: Path) -> None:
    write = {
        "text": "I will create the file.",
        "tool_calls": [
            {
                "name": "Write",
                "arguments": {"path": "notes/todo.md", "content": "# TODO\n\n- ship it\n"},
            }
        ],
    }
    app = app_for(snap_project, [write])

    async def run_before(pilot) -> None:
        await send(pilot, "write a todo list")
        await until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_main_screen_light_theme(snap_compare, snap_project: Path) -> None:
    app = app_for(snap_project, [ANSWER])
    app.theme = "textual-light"  # what `theme: light` or a light COLORFGBG gives

    async def run_before(pilot) -> None:
        await send(pilot, "what needs attention in this project?")
        await pilot.app.settled()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_main_screen_at_60_columns(snap_compare, snap_project: Path) -> None:
    app = app_for(snap_project, [ANSWER])

    async def run_before(pilot) -> None:
        await send(pilot, "what needs attention in this project?")
        await pilot.app.settled()

    assert snap_compare(app, terminal_size=(60, 30), run_before=run_before)


def test_skills_browser_at_60_columns(snap_compare, snap_project: Path) -> None:
    app = app_for(snap_project, [])

    async def run_before(pilot) -> None:
        await send(pilot, "/skills")
        await until(pilot, lambda: isinstance(pilot.app.screen, SkillsScreen))
        await until(
            pilot, lambda: "counting" not in str(pilot.app.screen.query_one("#head").content)
        )

    assert snap_compare(app, terminal_size=(60, 24), run_before=run_before)
