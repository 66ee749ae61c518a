"""A big catalog's start-up work waits for the person's first request: the skill watches
are armed a moment after start and their catch-up rescan later still; nothing an edit
does in that time is lost. (BIG_CATALOG is lowered so a small test catalog counts.)"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from pilot_wait import until as _until

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.tui import startup
from codebot.ui.tui.app import CodebotApp

until = partial(_until, timeout=10.0, step=0.05)


@pytest.fixture
def project(tmp_path: Path, write_skill) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for i in range(3):
        write_skill(proj / ".codebot" / "skills", f"skill-{i}", f"description: Skill number {i}.")
    return proj


async def test_watches_of_a_big_catalog_start_late_and_miss_nothing(
    project: Path, write_skill, monkeypatch
) -> None:
    monkeypatch.setattr(startup, "BIG_CATALOG", 2)
    monkeypatch.setattr(startup, "WATCH_AFTER", 0.6)
    monkeypatch.setattr(startup, "CATCH_UP_AFTER", 0.4)
    controller = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel(["done"]), interactive=True
    )
    app = CodebotApp(controller, watch_skills=True)
    skills = project / ".codebot" / "skills"
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ready_ms is not None)
        assert app.startup.watcher is None, "a big catalog's watches must wait"
        write_skill(skills, "before-arming", "description: Written before the watches exist.")
        await until(
            pilot, lambda: app.startup.watcher is not None and app.startup.watcher.ready.is_set()
        )
        # the delayed catch-up finds what was written before the watches were armed
        await until(pilot, lambda: controller.catalog.snapshot.get("before-arming") is not None)
        write_skill(skills, "after-arming", "description: Written while watched.")
        await until(pilot, lambda: controller.catalog.snapshot.get("after-arming") is not None)
        controller._warming.join(10)  # the background warm-up ran to its end without error
        assert not controller._warming.is_alive()


async def test_a_small_catalog_is_watched_at_once(project: Path) -> None:
    controller = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel([]), interactive=True
    )
    app = CodebotApp(controller, watch_skills=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.startup.watcher is not None)
        assert app.startup.watcher.catch_up_after == 0.0
