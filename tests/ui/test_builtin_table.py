"""One table of built-in slash commands (`commands.BUILTINS`): every entry has a handler,
both front ends run every command through it and only show what it returns; `/help`
comes from it; a skill's activation line is the same words in both front ends."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Markdown, Static

from codebot.agent.model import ScriptedModel
from codebot.agent.session import events as ev
from codebot.config import load_settings
from codebot.ui import commands
from codebot.ui.activation import skill_line
from codebot.ui.builtins import HANDLERS
from codebot.ui.commands import BUILTINS, Action, Front, Reply
from codebot.ui.controller import Controller
from codebot.ui.line.render import Renderer, Sink
from codebot.ui.line.repl import LineApp
from codebot.ui.tui.app import CodebotApp

SIZE = (120, 40)


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    write_skill(
        proj / ".codebot" / "skills",
        "deploy",
        "description: Deploy the app.\nmodel: big-model",
        "Deploy to $ARGUMENTS.",
    )
    return proj


def controller(project: Path) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel([]), interactive=True
    )


def run_line(project: Path, lines: list[str]) -> str:
    ctrl = controller(project)
    out = io.StringIO()
    try:
        LineApp(
            ctrl, input=io.StringIO("".join(f"{line}\n" for line in lines)), output=out, watch=False
        ).run()
    finally:
        ctrl.close()
    return out.getvalue()


def shown(app: CodebotApp) -> list[str]:
    """What the TUI's conversation shows, one entry per widget."""
    return [
        w.source if isinstance(w, Markdown) else str(w.content)
        for w in app.conversation.children
        if isinstance(w, Markdown | Static)
    ]


async def run_tui(project: Path, lines: list[str]) -> list[str]:
    app = CodebotApp(controller(project), watch_skills=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            for line in lines:
                await app.submit(line)
                await pilot.pause()
            return shown(app)
    finally:
        app.controller.close()


# -- the table ------------------------------------------------------------------------------------


def test_every_builtin_has_a_controller_handler() -> None:
    assert set(HANDLERS) == commands.BUILTIN_NAMES == {c.name for c in BUILTINS}
    assert len(BUILTINS) == len(commands.BUILTIN_NAMES)  # no name twice
    for c in BUILTINS:
        assert HANDLERS[c.name] is getattr(Controller, c.handler), c.name
        assert commands.BY_NAME[c.name] is c
        assert not (c.tui_only and c.line_only), c.name
    assert commands.BY_NAME["compact"].runs_turn  # a model request: run as a turn


def test_every_handler_returns_a_reply_with_an_action(project: Path) -> None:
    ctrl = controller(project)
    try:
        replies = {c.name: ctrl.builtin(c.name, "") for c in BUILTINS}
    finally:
        ctrl.close()
    for name, reply in replies.items():
        assert isinstance(reply, Reply) and isinstance(reply.action, Action), name
    assert (
        replies["transcript"].action is Action.OPEN_TRANSCRIPT
        and replies["exit"].action is Action.EXIT
    )
    assert (
        replies["compact"].action is Action.COMPACT
        and replies["skills"].action is Action.OPEN_SKILLS
    )


def stub_every_handler(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    said = {c.name: f"handled /{c.name} by the table" for c in BUILTINS}
    for c in BUILTINS:
        monkeypatch.setitem(HANDLERS, c.name, lambda _self, args, text=said[c.name]: Reply(text))
    return said


def test_line_mode_runs_every_command_through_the_table(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = stub_every_handler(monkeypatch)  # replaced handlers: line mode decides nothing itself
    out = run_line(project, [f"/{c.name}" for c in BUILTINS])
    for name, text in said.items():
        assert text in out, name


async def test_the_tui_runs_every_command_through_the_table(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = stub_every_handler(monkeypatch)
    view = await run_tui(project, [f"/{c.name}" for c in BUILTINS])
    for name, text in said.items():
        assert text in view, name


def text_only(project: Path, front: Front) -> dict[str, str]:
    """What each command without arguments answers when all it does is say something."""
    ctrl = controller(project)
    ctrl.front = front
    try:
        replies = {
            c.name: ctrl.builtin(c.name, "")
            for c in BUILTINS
            if c.name not in ("clear", "reload", "init")  # these change the project
        }
    finally:
        ctrl.close()
    return {name: r.text for name, r in replies.items() if r.action is Action.NONE and r.text}


def test_line_mode_prints_the_controllers_text(project: Path) -> None:
    expected = text_only(project, Front.PLAIN)  # a StringIO is read plainly
    assert {"help", "usage", "context", "sandbox", "written", "local", "resume"} <= set(expected)
    out = run_line(project, [f"/{name}" for name in expected])
    for name, text in expected.items():
        assert text in out, name


async def test_the_tui_shows_the_controllers_text(project: Path) -> None:
    expected = text_only(project, Front.TUI)
    view = await run_tui(project, [f"/{name}" for name in expected])
    for name, text in expected.items():
        assert text in view, name
        assert f"› /{name}" in view  # the command is echoed before its answer


# -- /help ----------------------------------------------------------------------------------------


def test_help_comes_from_the_table_and_names_each_front_ends_keys() -> None:
    from codebot.ui.tui.app import CodebotApp

    tui = commands.help_text(Front.TUI)
    for c in BUILTINS:
        line = f"  /{c.name}{' ' + c.hint if c.hint else ''}  — {c.help}"
        assert (
            tui.count(line + "\n") == 1 and commands.help_text(Front.LINE).count(line + "\n") == 1
        )
    assert "escape" in {b.key for b in CodebotApp.BINDINGS} and "Esc cancel the turn" in tui
    assert "Ctrl+P palette" in tui and "Ctrl+P" not in commands.help_text(Front.LINE)
    assert commands.help_text(Front.PLAIN).endswith(commands.KEYS[Front.PLAIN])


def test_a_command_of_one_front_end_is_unknown_in_the_other(project: Path, monkeypatch) -> None:
    only = commands.Command("tuionly", "", "x", "cmd_help", tui_only=True)
    monkeypatch.setitem(commands.BY_NAME, "tuionly", only)
    monkeypatch.setitem(HANDLERS, "tuionly", lambda _self, _args: Reply("tui words"))
    ctrl = controller(project)
    try:
        assert ctrl.builtin("tuionly").text == "tui words"
        ctrl.front = Front.LINE
        assert ctrl.builtin("tuionly").text.startswith("unknown command /tuionly")
    finally:
        ctrl.close()


# -- the skill line -------------------------------------------------------------------------------


EVENTS = [
    ev.SkillActivated(
        "deploy",
        "human",
        "inline",
        "project",
        {"model": "gpt-4.1", "allowed_tools": ["Bash(make deploy:*)"]},
    ),
    ev.SkillActivated(
        "review\x1b[2J",
        "model",
        "fork",
        "bundled",
        {"model": "gpt-x", "effort": "high", "disallowed_tools": ["Write"]},
    ),
    ev.SkillActivated("helper", "human", "inline", "user"),
]


def test_the_skill_line_says_what_the_skill_changes() -> None:
    assert (
        skill_line(EVENTS[0])
        == "skill deploy · inline · model gpt-4.1 for this turn · allows Bash(make deploy:*)"
    )
    assert skill_line(EVENTS[1]) == (
        "skill review · fork · model gpt-x in its sub-agent · effort high · "
        "hides Write · chosen by the model"
    )
    assert skill_line(EVENTS[2]) == "skill helper · inline"


async def test_the_skill_line_is_the_same_words_in_both_front_ends(project: Path) -> None:
    out = io.StringIO()
    renderer = Renderer(Sink(out))
    for e in EVENTS:
        renderer.render(e)
    assert out.getvalue().splitlines() == [skill_line(e) for e in EVENTS]

    app = CodebotApp(controller(project), watch_skills=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            for e in EVENTS:
                await app.conversation.show(e)
            await pilot.pause()
            lines: list[Any] = [t for t in shown(app) if t.startswith("◆ ")]
    finally:
        app.controller.close()
    assert lines == ["◆ " + skill_line(e) for e in EVENTS]


def test_help_says_what_esc_does_in_each_front_end() -> None:
    """Esc cancels a TUI turn and closes its pickers; line mode says it does not cancel there
    (Ctrl+C does). Both come from the one KEYS table that /help reads."""
    from codebot.ui.tui.picker import Picker

    tui, line = commands.help_text(Front.TUI), commands.help_text(Front.LINE)
    assert "Esc cancel the turn, or close a picker or dialog" in tui
    assert "escape" in {getattr(b, "key", "") for b in Picker.BINDINGS}
    assert "Esc does not cancel here" in line and "Ctrl+C cancel the turn" in line
