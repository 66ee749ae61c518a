"""Toasts (hot reload messages, warnings) never cover the prompt or the completion menu."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import until
from textual.css.query import NoMatches
from textual.geometry import Region
from textual.widgets._toast import Toast

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.tui.app import CodebotApp


@pytest.fixture
def project(tmp_path: Path, write_skill) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for i in range(14):  # enough for the menu to grow to its full height
        write_skill(
            proj / ".codebot" / "skills", f"skill-{i:02d}", f"description: Skill number {i}."
        )
    return proj


def on_screen(widget) -> Region:
    """The part of `widget` that is drawn (a toast the rack cuts off is not)."""
    try:
        return widget.screen.find_widget(widget).visible_region
    except NoMatches:
        return Region()


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (60, 18)])
async def test_toasts_stay_clear_of_the_prompt_and_the_open_menu(
    project: Path, write_skill, size: tuple[int, int]
) -> None:
    controller = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel([]), interactive=True
    )
    app = CodebotApp(controller, watch_skills=False)
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.press("/")
        await until(pilot, lambda: app.prompt.menu.is_open)
        # A hot reload message (what the skill watcher shows), then more on top of it.
        write_skill(
            project / ".codebot" / "skills",
            "fresh",
            "description: A skill added while codebot runs.",
        )
        app.reload_skills()
        app.notify(
            "Skill folders are no longer watched (inotify limit reached); /reload rescans.",
            severity="warning",
        )
        app.notify(
            "display error: something long enough to wrap over more than one line of the toast",
            severity="error",
        )
        await until(pilot, lambda: len(app.screen.query(Toast)) == 3)
        await pilot.pause(0.1)
        assert app.prompt.menu.is_open
        menu, prompt = app.prompt.menu.region, app.prompt.region
        assert menu.height > 2 and prompt.height > 2
        shown = [on_screen(t) for t in app.screen.query(Toast)]
        assert any(r.area for r in shown) or size[1] < 20, "no toast is on the screen"
        for region in shown:
            assert not region.intersection(prompt).area, (region, prompt)
            assert not region.intersection(menu).area, (region, menu)
        await pilot.press("escape")  # the menu closes: the toasts have the room again
        await until(pilot, lambda: not app.prompt.menu.is_open)
        await pilot.pause(0.1)
        assert any(on_screen(t).area for t in app.screen.query(Toast))
        assert all(
            not on_screen(t).intersection(app.prompt.region).area for t in app.screen.query(Toast)
        )


async def test_toast_text_is_plain_never_markup(project: Path) -> None:
    """Toasts quote file names, skill names and errors: their brackets are text. As markup
    `[/x]` would fail to render and `[link=…]` would make a link."""
    controller = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel([]), interactive=True
    )
    app = CodebotApp(controller, watch_skills=False)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        app.notify(
            "skills: problem in [/oops]/SKILL.md [link=https://evil.example]here[/link]",
            title="skills",
        )
        await until(pilot, lambda: len(app.screen.query(Toast)) == 1)
        await pilot.pause(0.1)
        shown = str(app.screen.query_one(Toast).render())
        assert "[/oops]" in shown and "[link=https://evil.example]" in shown
