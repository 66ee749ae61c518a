"""`codebot "fix the bug"`: the TUI sends the bare prompt as its first message, after the
welcome line, without anyone pressing Enter."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import until
from textual.widgets import Markdown, Static

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.tui.app import CodebotApp


@pytest.fixture
def project(tmp_path: Path, write_skill) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    write_skill(
        proj / ".codebot" / "skills",
        "review",
        "description: Review code. Not for edits.",
        "Review $ARGUMENTS.",
    )
    return proj


def transcript(app: CodebotApp) -> list[str]:
    """What the conversation shows, one entry per widget."""
    return [
        w.source if isinstance(w, Markdown) else str(w.content)
        for w in app.conversation.children
        if isinstance(w, Markdown | Static)
    ]


@pytest.mark.parametrize("built_later", [False, True])
async def test_the_initial_prompt_is_the_first_message(project: Path, built_later: bool) -> None:
    model = ScriptedModel(["the bug is fixed"])
    settings = load_settings(cwd=project, trust=True)

    def make() -> Controller:
        return Controller(settings, client=model, interactive=True)

    if built_later:  # the usual start: the controller is built after the first frame
        app = CodebotApp(
            None,
            settings=settings,
            make_controller=make,
            watch_skills=False,
            initial_prompt="fix the bug",
        )
    else:  # --continue / --resume: the controller exists before the screen
        app = CodebotApp(make(), watch_skills=False, initial_prompt="fix the bug")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: model.requests and not app.busy)
        await app.settled()
        assert "fix the bug" in str(model.requests[0].messages[-1]["content"])
        shown = "\n".join(transcript(app))
        assert shown.index("codebot") < shown.index("fix the bug") < shown.index("the bug is fixed")
        app.controller.close()
