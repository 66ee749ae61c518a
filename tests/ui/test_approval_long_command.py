"""A command is never approved with part of it out of view (issue 30, part 4): line mode
prints it whole and collapsed above a question that holds its counts; the TUI dialog
shows the counts, grows to fit, and refuses to allow until its end has been on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_wait import until
from prompt_toolkit.input import create_pipe_input
from textual.widgets import Button, Static

from codebot.agent.model import ScriptedModel
from codebot.agent.permissions import ApprovalRequest
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.approve import question_for
from codebot.ui.line.render import approval_text
from codebot.ui.line.repl import LineApp
from codebot.ui.tui.app import CodebotApp
from codebot.ui.tui.approval import ApprovalScreen

ATTACK = "touch X" + "\n" * 121 + "git status"  # 122 lines, 120 of them empty
LONG = (
    "touch X\n" + "\n".join(f"echo line {i}" for i in range(78)) + "\ngit status"
)  # 80 lines, none empty


def bash(command: str) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}


def controller(project: Path, command: str) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=True),
        client=ScriptedModel([bash(command), "done"]),
        interactive=True,
    )


# --------------------------------------------------------------------------- line mode


def test_line_question_holds_the_counts_and_the_whole_command_is_just_above() -> None:
    request = ApprovalRequest("Bash", {"command": ATTACK}, ATTACK, ATTACK)
    text = approval_text(request)
    assert text.split("\n") == ["? Bash needs approval:", "  touch X", "  ⏎ ×120", "  git status"]
    assert question_for(request).startswith(
        "Run this command? (122 lines, 120 of them empty) [y]es once"
    )
    outside = ApprovalRequest(
        "Bash",
        {"command": ATTACK},
        ATTACK,
        "whatever",
        outside_sandbox="the sandbox keeps /usr/x read-only",
    )
    assert approval_text(outside).split("\n")[1:] == ["  touch X", "  ⏎ ×120", "  git status"]
    assert question_for(outside).startswith(
        "Run it once OUTSIDE the sandbox? (122 lines, 120 of them empty)"
    )


def test_line_mode_prints_the_command_collapsed_right_above_the_question(project: Path) -> None:
    import io

    out = io.StringIO()
    ctrl = controller(project, ATTACK)
    with create_pipe_input() as pipe:
        pipe.send_text("go\rn\r\x04")
        LineApp(ctrl, input=pipe, output=out, watch=False).run()
    ctrl.close()
    text = out.getvalue()
    lines = text.split("\n")
    ask = next(
        i for i, ln in enumerate(lines) if "Run this command? (122 lines, 120 of them empty)" in ln
    )
    first = next(i for i, ln in enumerate(lines) if ln.strip() == "touch X")
    assert 0 < ask - first <= 6, text  # the first line is a few lines above the question
    assert "⏎ ×120" in text and not (project / "X").exists()


# --------------------------------------------------------------------------- TUI


async def ask(pilot, app: CodebotApp) -> ApprovalScreen:
    await pilot.press(*"go", "enter")
    await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
    await pilot.pause()
    return app.screen  # type: ignore[return-value]


def shown_text(screen: ApprovalScreen) -> str:
    preview = screen.query_one("#shown Static", Static).content
    return str(getattr(preview, "code", preview))


async def test_tui_title_has_the_counts_and_the_first_line_is_shown(project: Path) -> None:
    app = CodebotApp(controller(project, ATTACK), watch_skills=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ask(pilot, app)
        assert (
            str(screen.query_one(".title", Static).content)
            == "Run this command? (122 lines, 120 of them empty)"
        )
        assert shown_text(screen).split("\n")[:3] == ["touch X", "⏎ ×120", "git status"]
        await until(pilot, lambda: screen.seen_end)  # three lines: all of it is on screen
        assert not screen.has_class("-long")
        await pilot.press("n")
        await app.settled()
        assert not (project / "X").exists()


async def test_tui_refuses_to_allow_until_the_end_has_been_seen(project: Path) -> None:
    app = CodebotApp(controller(project, LONG), watch_skills=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ask(pilot, app)
        assert str(screen.query_one(".title", Static).content).startswith(
            "Run this command? (80 lines"
        )
        await until(pilot, lambda: screen.has_class("-long"))
        position = str(screen.query_one("#position", Static).content)
        assert (
            position.startswith("lines 1-")
            and " of 80 · PgDn / ↓ / End: read to the end to allow" in position
        ), position
        assert shown_text(screen).startswith("touch X\n")
        assert screen.query_one("#allow_once", Button).disabled
        for key in ("y", "a", "enter"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key  # not answered
        assert not screen.seen_end and not (project / "X").exists()
        await pilot.press("pagedown")
        await pilot.pause()
        assert "lines 1-" not in str(screen.query_one("#position", Static).content)
        assert not screen.seen_end
        await pilot.press("end")
        await until(pilot, lambda: screen.seen_end)
        assert "of 80 · seen to the end" in str(screen.query_one("#position", Static).content)
        assert not screen.query_one("#allow_once", Button).disabled
        await pilot.press("y")
        await app.settled()
        await until(pilot, lambda: (project / "X").exists())


async def test_tui_dialog_grows_with_the_screen(project: Path) -> None:
    app = CodebotApp(controller(project, LONG), watch_skills=False)
    async with app.run_test(size=(100, 100)) as pilot:
        screen = await ask(pilot, app)
        await until(pilot, lambda: screen.seen_end)  # 80 lines fit on a 100-line screen
        assert (
            not screen.has_class("-long") and not screen.query_one("#allow_once", Button).disabled
        )
        await pilot.press("n")
        await app.settled()
