"""The TUI, driven by Pilot against a scripted model and a real project with skills."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from pilot_wait import until
from textual.command import CommandPalette
from textual.filter import Monochrome, NoColor
from textual.widgets import Collapsible, DataTable, Input, Markdown, Static

from codebot.agent.model import ModelError, ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.tui.app import CodebotApp
from codebot.ui.tui.approval import ApprovalScreen
from codebot.ui.tui.conversation import ToolCall
from codebot.ui.tui.skills_screen import SkillsScreen
from codebot.ui.tui.status import StatusBar

ROOT = Path(__file__).resolve().parents[2]
SIZE = (120, 40)


def make_project(proj: Path, write_skill) -> Path:
    (proj / ".git").mkdir(parents=True, exist_ok=True)
    skills = proj / ".codebot" / "skills"
    write_skill(
        skills,
        "review",
        'description: Review this project\'s code for bugs.\nargument-hint: "[path]"',
        "Review $ARGUMENTS.",
    )
    write_skill(
        skills,
        "deploy",
        "description: Deploy the app to an environment.\nargument-hint: <env>\nmodel: gpt-x",
        "Deploy to $ARGUMENTS.",
    )
    write_skill(skills, "help", "description: A project skill named like a built-in.")
    return proj


@pytest.fixture
def project(tmp_path: Path, write_skill) -> Path:
    return make_project(tmp_path / "proj", write_skill)


MakeApp = Callable[..., CodebotApp]


@pytest.fixture
def make_app(project: Path) -> MakeApp:
    def make(replies: list[Any] | None = None, **kwargs: Any) -> CodebotApp:
        controller = Controller(
            load_settings(cwd=project, trust=True),
            client=ScriptedModel(replies or []),
            interactive=True,
        )
        return CodebotApp(controller, watch_skills=False, **kwargs)

    return make


async def type_text(pilot, text: str) -> None:
    await pilot.press(*[{" ": "space"}.get(ch, ch) for ch in text])
    await pilot.pause()


def menu_labels(app: CodebotApp) -> list[str]:
    s = app.prompt.menu.suggestions
    return [item.label for item in s.items] if s else []


def transcript(app: CodebotApp) -> list[str]:
    """What the conversation shows, one entry per widget."""
    out = []
    for w in app.conversation.children:
        if isinstance(w, Markdown):
            out.append(w.source)
        elif isinstance(w, ToolCall):
            parts = [str(w.query_one(".tool-head", Static).content)]
            parts += [c.title for c in w.query(Collapsible)]
            out.append(" | ".join(parts))
        elif isinstance(w, Static):
            out.append(str(w.content))
    return out


def notifications(app: CodebotApp) -> list[str]:
    return [n.message for n in app._notifications]


# -- completion ------------------------------------------------------------------------------


async def test_slash_lists_builtins_first_with_hints_then_skills(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/")
        labels = menu_labels(app)
        assert labels[:9] == [
            "/help",
            "/skills",
            "/reload",
            "/model",
            "/clear",
            "/context",
            "/compact",
            "/usage",
            "/exit",
        ]
        items = {i.label: i for i in app.prompt.menu.suggestions.items}
        assert items["/deploy"].hint == "<env>"
        assert items["/deploy"].description == "Deploy the app to an environment."
        assert items["/deploy"].tag == "project"
        assert items["/model"].hint == "[name]"


async def test_rev_offers_review_first_and_tab_accepts(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/rev")
        assert menu_labels(app)[0] == "/review"
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == "/review "
        assert not app.prompt.menu.is_open


async def test_escape_closes_the_dropdown_and_enter_accepts_while_open(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/dep")
        assert app.prompt.menu.is_open
        await pilot.press("escape")
        assert not app.prompt.menu.is_open
        await type_text(pilot, "l")
        await pilot.press("enter")
        await pilot.pause()
        assert app.prompt.text == "/deploy "
        assert not app.busy  # Enter accepted the completion; it did not send


async def test_builtin_wins_over_a_skill_with_the_same_name(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/help")
        help_items = [i for i in app.prompt.menu.suggestions.items if i.label == "/help"]
        assert [i.tag for i in help_items] == ["built-in"]
        await pilot.press("enter")  # typed in full: Enter sends instead of completing
        await until(pilot, lambda: any(t.startswith("Commands:") for t in transcript(app)))
        assert app.controller.session.client.requests == []  # the built-in ran, not the skill


async def test_at_path_completes_project_files(make_app: MakeApp, project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hi')\n")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "look at @app")
        assert menu_labels(app)[0] == "src/app.py"
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == "look at @src/app.py "


# -- conversation --------------------------------------------------------------------------------


async def test_a_message_streams_the_answer_as_markdown(make_app: MakeApp) -> None:
    answer = "Here is **the plan**:\n\n1. read the code\n2. change it\n"
    app = make_app([answer])
    async with app.run_test(size=SIZE) as pilot:
        pieces: list[str] = []
        stream = app.conversation.stream

        async def spy(text: str) -> None:
            pieces.append(text)
            await stream(text)

        app.conversation.stream = spy  # type: ignore[method-assign]
        await type_text(pilot, "make a plan")
        await pilot.press("enter")
        await app.settled()
        await pilot.pause()
        shown = transcript(app)
        assert "› make a plan" in shown
        assert shown[-1] == answer
        assert (
            1 <= len(pieces) <= 3 and "".join(pieces) == answer
        )  # streamed (deltas that queue up are drawn together)
        assert len(app.conversation.query(Markdown)) == 1
        assert app.prompt.text == ""
        assert not app.busy


async def test_multiline_input_with_shift_enter_and_ctrl_j(make_app: MakeApp) -> None:
    app = make_app(["ok"])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "one")
        await pilot.press("shift+enter")
        await type_text(pilot, "two")
        await pilot.press("ctrl+j")
        await type_text(pilot, "three")
        assert app.prompt.text == "one\ntwo\nthree"
        await pilot.press("enter")
        await app.settled()
        assert (
            app.controller.session.client.requests[0]
            .messages[-1]["content"]
            .endswith("one\ntwo\nthree")
        )


async def test_history_is_persisted_and_recalled_with_up_and_down(make_app: MakeApp) -> None:
    app = make_app(["one", "two"])
    async with app.run_test(size=SIZE) as pilot:
        for text in ("first question", "second question"):
            await type_text(pilot, text)
            await pilot.press("enter")
            await app.settled()
        await type_text(pilot, "draft")
        await pilot.press("up")
        assert app.prompt.text == "second question"
        await pilot.press("up")
        assert app.prompt.text == "first question"
        await pilot.press("down", "down")
        assert app.prompt.text == "draft"
    lines = (app.controller.settings.home / "history").read_text().splitlines()
    assert [json.loads(line) for line in lines] == ["first question", "second question"]
    again = make_app()
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press("up")
        assert again.prompt.text == "second question"


async def test_skill_activation_line_and_temporary_model_in_the_status_bar(
    make_app: MakeApp,
) -> None:
    app = make_app(
        [
            {
                "text": "",
                "tool_calls": [{"name": "Bash", "arguments": {"command": "echo deploying"}}],
            },
            "Deployed.",
        ]
    )
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/deploy staging")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        status = app.query_one(StatusBar).status
        assert (status.model, status.skill_model, status.skill) == ("scripted", "gpt-x", "deploy")
        await pilot.press("n")
        await app.settled()
        await pilot.pause()
        row = "◆ skill deploy · inline · model gpt-x for this turn → success"  # and its outcome
        assert any(line.startswith(row) for line in transcript(app))
        assert app.controller.session.client.requests[0].model == "gpt-x"
        assert app.query_one(StatusBar).status.skill_model is None


async def test_model_errors_are_shown_in_plain_words(make_app: MakeApp) -> None:
    app = make_app([ModelError("auth", "The API key was rejected.")])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await app.settled()
        await pilot.pause()
        assert (
            "✗ The model provider refused the credentials: The API key was rejected."
            in transcript(app)
        )


# -- approvals ---------------------------------------------------------------------------------


def write_call(path: str = "hello.txt", content: str = "hello\n") -> dict[str, Any]:
    return {
        "text": "",
        "tool_calls": [{"name": "Write", "arguments": {"path": path, "content": content}}],
    }


async def test_allowing_a_write_writes_the_file(make_app: MakeApp, project: Path) -> None:
    app = make_app([write_call(), "Written."])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "write hello")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert "new file hello.txt" in app.screen.request.preview
        await pilot.press("y")
        await app.settled()
        await pilot.pause()
        assert (project / "hello.txt").read_text() == "hello\n"
        tool = [t for t in transcript(app) if t.startswith("⚙ Write")]
        assert tool == ["⚙ Write  hello.txt  content: 1 line | result · ok · 1 line"]


async def test_denying_a_write_leaves_no_file(make_app: MakeApp, project: Path) -> None:
    app = make_app([write_call(), "Understood."])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "write hello")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("escape")
        await app.settled()
        assert not (project / "hello.txt").exists()
        assert any("result · denied" in t for t in transcript(app))


async def test_allow_for_the_session_does_not_ask_again(make_app: MakeApp, project: Path) -> None:
    app = make_app([write_call(content="a\n"), "one", write_call(content="b\n"), "two"])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "write")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("a")
        await app.settled()
        await type_text(pilot, "again")
        await pilot.press("enter")
        await app.settled()
        assert not isinstance(app.screen, ApprovalScreen)
        assert (project / "hello.txt").read_text() == "b\n"


# -- cancel and quit -------------------------------------------------------------------------------


async def test_ctrl_c_cancels_a_slow_tool(make_app: MakeApp) -> None:
    sleep = {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": "sleep 30"}}]}
    app = make_app([sleep])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "wait a while")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("y")
        await until(pilot, lambda: app.conversation.query(ToolCall))
        await pilot.pause(0.3)
        started = time.monotonic()
        await pilot.press("ctrl+c")
        await app.settled()
        await pilot.pause()
        assert time.monotonic() - started < 5
        assert not app.busy
        assert transcript(app)[-1] == "cancelled"
        assert app.is_running  # the first Ctrl+C only cancelled the turn


async def test_ctrl_c_twice_on_an_idle_prompt_quits(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        assert any("again to quit" in n for n in notifications(app))
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_value == 0


async def test_ctrl_d_quits(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert app.return_value == 0


# -- built-ins and palette -------------------------------------------------------------------------


async def test_clear_empties_the_view_and_the_conversation(make_app: MakeApp) -> None:
    app = make_app(["answer"])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "question")
        await pilot.press("enter")
        await app.settled()
        await type_text(pilot, "/clear")
        await pilot.press("enter")
        await until(pilot, lambda: not app.conversation.query(Markdown))
        assert app.controller.session.history == []
        assert transcript(app)[-1].startswith("conversation cleared")


async def test_usage_and_context_commands_answer_in_the_view(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for command in ("/usage", "/context"):
            await type_text(pilot, command)
            await pilot.press("enter")
        await until(pilot, lambda: any(t.startswith("Context:") for t in transcript(app)))
        assert any(t.startswith("Usage this session:") for t in transcript(app))


async def test_resizing_keeps_the_layout(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.resize_terminal(70, 20)
        await pilot.pause()
        bar = app.query_one(StatusBar)
        assert bar.region.width == 70 and bar.region.y == 19
        assert app.prompt.has_focus


async def test_exit_command_quits(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/exit")
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value == 0


async def test_palette_lists_commands_and_puts_a_skill_in_the_prompt(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await type_text(pilot, "deploy")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, CommandPalette))
        assert app.prompt.text == "/deploy "


# -- skills browser --------------------------------------------------------------------------------


async def test_skills_browser_filters_and_cycles_overrides(make_app: MakeApp) -> None:
    app = make_app()
    config = app.controller.settings.local_config_path  # per project (docs/configuration.md)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/skills")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SkillsScreen))
        screen = app.screen
        await type_text(pilot, "deplo")
        assert [r.name for r in screen.shown] == ["deploy"]
        await pilot.press("down", "o")
        await pilot.pause()
        assert yaml.safe_load(config.read_text())["skills"]["overrides"] == {"deploy": "off"}
        assert screen.shown[0].state == "off"
        assert screen.query_one(DataTable).get_cell_at((0, 2)).plain == "off"
        await pilot.press("o")
        assert yaml.safe_load(config.read_text())["skills"]["overrides"] == {"deploy": "user-only"}
        await pilot.press("o", "o", "o")  # model-only, name-only, back to on
        assert yaml.safe_load(config.read_text())["skills"]["overrides"] == {}
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SkillsScreen)


async def test_skills_browser_shows_shadowing_cost_and_totals(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/skills review")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SkillsScreen))
        screen = app.screen
        assert screen.query_one(Input).value == "review"
        rows = {(r.name, r.source): r for r in screen.rows}
        winner, loser = rows["review", "project"], rows["review", "bundled"]
        assert loser.state == "shadowed" and loser.shadowed_by.startswith("project review")
        assert winner.shadows and winner.shadows[0].startswith(
            "bundled review (<bundled>/review/SKILL.md)"
        )
        assert winner.path == "./.codebot/skills/review/SKILL.md"
        assert rows["help", "project"].shadowed_by == "built-in /help"
        # The cost is the skill's own line in the listing the model really gets.
        assert winner.line == "- review [path]: Review this project's code for bugs."
        assert winner.cost == len(winner.line) and winner.line in screen.listing.text
        assert loser.cost == 0
        head = str(screen.query_one("#head", Static).content)
        assert f"listing {screen.listing.chars:,}/8,000 chars" in head
        from codebot.skills.validate import count_of, problem_count

        # The same count `skills list` and `skills validate` give.
        await until(pilot, lambda: "counting" not in str(screen.query_one("#head", Static).content))
        head = str(screen.query_one("#head", Static).content)
        assert count_of(problem_count(app.controller.catalog.snapshot), "problem") in head


async def test_skills_browser_lists_diagnostics(make_app: MakeApp, project: Path) -> None:
    bad = project / ".codebot" / "skills" / "broken" / "SKILL.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("---\nname: [unclosed\n---\nbody\n")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/skills")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SkillsScreen))
        details = str(app.screen.query_one("#detail-text", Static).content)
        catalog = details[details.index("catalog: ") :]
        assert "broken/SKILL.md:1: error missing-description" in catalog


# -- hot reload, start-up, colours -----------------------------------------------------------------


async def test_reload_notifies_and_completion_sees_the_new_skill(
    make_app: MakeApp, project: Path, write_skill
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        write_skill(project / ".codebot" / "skills", "zebra", "description: Paint stripes.")
        app.reload_skills()
        await pilot.pause()
        assert any(n.startswith("skills: +1 ~0 −0") for n in notifications(app))
        await type_text(pilot, "/zeb")
        assert menu_labels(app) == ["/zebra"]
        assert app.query_one(StatusBar).status.skills == app.controller.skill_count()


async def test_watcher_callback_from_another_thread_notifies(make_app: MakeApp) -> None:
    from codebot.skills.catalog import Change

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        thread = threading.Thread(target=app.startup.watched, args=(Change(changed=("deploy",)),))
        thread.start()
        await until(pilot, lambda: not thread.is_alive() and notifications(app))
        assert notifications(app)[0].startswith("skills: +0 ~1 −0")


async def test_first_paint_is_measured_and_can_exit_right_after(make_app: MakeApp) -> None:
    app = make_app(exit_after_paint=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
    assert app.return_value == 0
    assert isinstance(app.first_paint_ms, int) and app.first_paint_ms > 0


async def test_the_session_can_be_built_after_the_first_paint(project: Path) -> None:
    settings = load_settings(cwd=project, trust=True)
    built: list[Controller] = []
    gate = threading.Event()

    def make() -> Controller:
        gate.wait(5)  # a slow start: Enter comes first
        built.append(Controller(settings, client=ScriptedModel(["hello back"]), interactive=True))
        return built[0]

    app = CodebotApp(settings=settings, make_controller=make, watch_skills=False)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "hello")
        assert app.controller is None
        assert app.query_one(StatusBar).status.model == "starting…"
        await pilot.press("enter")  # before the session exists: the message waits for it
        assert app.prompt.text == ""
        gate.set()
        await until(
            pilot,
            lambda: app.controller is not None and not app.busy and "hello back" in transcript(app),
        )
        assert app.controller is built[0]
        assert transcript(app)[0].startswith("codebot ")
        assert app.first_paint_ms is not None and app.ready_ms is not None


async def test_a_session_that_cannot_start_ends_the_app_with_the_reason(project: Path) -> None:
    from codebot.agent.session import SetupError

    def make() -> Controller:
        raise SetupError("no session 'nope' in ~/.codebot/sessions")

    app = CodebotApp(
        settings=load_settings(cwd=project, trust=True), make_controller=make, watch_skills=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
    assert app.return_code == 2


async def test_no_color_is_respected(make_app: MakeApp, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=SIZE):
        assert app.no_color
        assert not any(isinstance(f, Monochrome) for f in app._filters)  # greys are colours too
        nocolor = next(f for f in app._filters if isinstance(f, NoColor))
        from rich.segment import Segment
        from rich.style import Style
        from textual.color import Color

        out = nocolor.apply(
            [Segment("x", Style.parse("bold red on rgb(10,20,30)"))], Color(0, 0, 0)
        )
        assert (
            out[0].style.bold and out[0].style.color.is_default and out[0].style.bgcolor.is_default
        )


def test_theme_follows_the_config_then_the_terminal(project: Path) -> None:
    from codebot.ui.tui.app import theme_for

    settings = load_settings(cwd=project, trust=True)
    assert theme_for(settings, {"COLORFGBG": "0;15"}) == "textual-light"
    assert theme_for(settings, {"COLORFGBG": "15;0"}) == "textual-dark"
    assert theme_for(settings, {}) == "textual-dark"
    (project / ".codebot" / "config.yaml").write_text("theme: light\n")
    assert (
        theme_for(load_settings(cwd=project, trust=True), {"COLORFGBG": "15;0"}) == "textual-light"
    )


def test_core_modules_do_not_import_textual() -> None:
    code = (
        "import sys, codebot.ui.tui, codebot.ui.controller, codebot.cli; "
        "print('textual' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "False"


async def test_skills_off_name_in_the_tui_switches_it_off_without_a_table(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/skills off deploy")
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, SkillsScreen)
        assert any("deploy: off (saved in" in t for t in transcript(app))
        assert app.controller.override_of("deploy") == "off"


async def test_a_broken_skill_on_reload_is_a_problem_in_the_toast(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        bad = project / ".codebot" / "skills" / "broken" / "SKILL.md"
        bad.parent.mkdir(parents=True)
        bad.write_text('---\ndescription: "unclosed\n---\nbody\n')
        app.reload_skills()
        await pilot.pause()
        toast = notifications(app)[-1]
        assert "1 new problem" in toast and "broken/SKILL.md:" in toast


async def test_skills_table_cuts_with_an_ellipsis_and_fits_60_columns(
    make_app: MakeApp, project: Path, write_skill
) -> None:
    write_skill(
        project / ".codebot" / "skills",
        "a-skill-with-a-really-long-name-that-goes-on-and-on",
        "description: " + "word " * 60,
    )
    app = make_app()
    async with app.run_test(size=(60, 30)) as pilot:
        await type_text(pilot, "/skills")
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SkillsScreen)
        table = screen.query_one(DataTable)
        widths = [c.width for c in table.columns.values()]
        assert widths[0] <= 28 and sum(widths) + 2 * len(widths) <= 60
        cells = [
            str(c)
            for c in table.get_row("skill:a-skill-with-a-really-long-name-that-goes-on-and-on")
        ]
        assert cells[0].endswith("…") and cells[4].endswith("…") and " wor…" not in cells[4][-5:]
        head = str(screen.query_one("#head", Static).content)
        assert head.index("problem") < 40, (
            "the problem count is near the start, where 60 columns show it"
        )
        screen.action_cycle()  # a state change rebuilds the table: still cut with an ellipsis
        await pilot.pause()
        cells = [
            str(c)
            for c in screen.query_one(DataTable).get_row(
                "skill:a-skill-with-a-really-long-name-that-goes-on-and-on"
            )
        ]
        assert cells[4].endswith("…")


async def test_model_without_its_key_is_refused_at_once_and_alone_opens_a_picker(
    make_app: MakeApp,
) -> None:
    from codebot.ui.tui.picker import Picker

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/model gpt-4o-mini")
        await pilot.press("enter")
        await until(pilot, lambda: any("model not switched" in t for t in transcript(app)))
        assert (
            any("OPENAI_API_KEY" in t for t in transcript(app))
            and app.controller.model_name == "scripted"
        )
        await type_text(pilot, "/model")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, Picker))
        await pilot.press("escape")


async def test_continue_shows_the_earlier_conversation_and_quitting_says_how_to_come_back(
    project: Path,
) -> None:
    from codebot.agent.session import ResumeChoice
    from codebot.ui.tui import farewell

    first = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel(["the first answer"])
    )
    await first.run_turn("the first question")
    first.close()
    again = Controller(
        load_settings(cwd=project, trust=True),
        client=ScriptedModel([]),
        interactive=True,
        resume=ResumeChoice(continue_latest=True),
    )
    app = CodebotApp(again, watch_skills=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any(t.startswith("resumed session ") for t in transcript(app)))
        shown = transcript(app)
        assert "› the first question" in shown and "the first answer" in shown
    text = farewell(again.session)
    assert "the first answer" in text and f"session {again.session.id} · codebot --continue" in text
    again.close()
