"""The transcript view (Ctrl+T, `/transcript`): the whole session, tool results in full."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_wait import until

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.commands import Action
from codebot.ui.controller import Controller
from codebot.ui.transcript_view import Entry, as_text, entries_of
from codebot.ui.tui.app import CodebotApp
from codebot.ui.tui.transcript_screen import TranscriptScreen

SIZE = (120, 40)
# Longer than the collapsed result in the conversation shows, with an escape sequence.
LINES = [f"line {i:03d} of notes" for i in range(120)]
NOTES = (
    "\n".join(LINES[:60]) + "\n\x1b]52;c;aGk=\x07\x1b[2J" + "\n".join(LINES[60:]) + "\nNOTES-END\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "notes.txt").write_text(NOTES)
    return proj


def make_app(project: Path, replies: list[Any]) -> CodebotApp:
    controller = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel(replies), interactive=True
    )
    return CodebotApp(controller, watch_skills=False)


READ = {
    "text": "Let me read it.",
    "tool_calls": [{"name": "Read", "arguments": {"path": "notes.txt"}}],
}


async def turn(pilot, app: CodebotApp, text: str) -> None:
    app.prompt.load_text(text)
    await app.on_prompt_area_submitted(app.prompt.Submitted(text))
    await app.settled()
    await pilot.pause()


async def test_ctrl_t_shows_the_whole_session_and_esc_gives_the_prompt_back(project: Path) -> None:
    app = make_app(project, [READ, "The notes end with NOTES-END."])
    async with app.run_test(size=SIZE) as pilot:
        await turn(pilot, app, "what is in notes.txt?")
        await pilot.press("ctrl+t")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        screen = app.screen
        text = screen.text()
        assert "> what is in notes.txt?" in text and "Let me read it." in text
        assert "● Read notes.txt  [ok]" in text and "path: notes.txt" in text
        assert all(line in text for line in LINES) and "NOTES-END" in text  # the whole result
        assert "\x1b" not in text and "\x07" not in text
        assert "The notes end with NOTES-END." in text
        assert app.focused is screen.body
        await pilot.press("home")
        assert screen.body.scroll_y == 0
        await pilot.press("j", "j")
        assert screen.body.scroll_y == 2
        await pilot.press("pagedown")
        assert screen.body.scroll_y > 2
        await pilot.press("end")
        assert screen.body.scroll_y == screen.body.max_scroll_y > 0
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, TranscriptScreen))
        assert app.focused is app.prompt
        await pilot.press("h", "i")
        assert app.prompt.text == "hi"
        # Ctrl+T closes it again, as q does.
        for close in ("ctrl+t", "q"):
            await pilot.press("ctrl+t")
            await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
            await pilot.press(close)
            await until(pilot, lambda: not isinstance(app.screen, TranscriptScreen))
            assert app.focused is app.prompt and app.prompt.text == "hi"


async def test_the_transcript_command_opens_it_too(project: Path) -> None:
    app = make_app(project, ["Hello there."])
    async with app.run_test(size=SIZE) as pilot:
        await turn(pilot, app, "hi")
        await turn(pilot, app, "/transcript")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        assert "> hi" in app.screen.text() and "Hello there." in app.screen.text()
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, TranscriptScreen))
        assert app.focused is app.prompt


def test_markers_for_clear_compaction_and_skills_and_parallel_calls_in_order() -> None:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
    }
    other = {
        "id": "c2",
        "type": "function",
        "function": {"name": "Read", "arguments": '{"path": "a"}'},
    }
    records = [
        {"type": "session", "id": "s1", "project": "/p", "created": 0},
        {"type": "turn", "text": "/review src"},
        {"type": "skill", "key": "review", "name": "review", "text": "Review src.", "at": 0},
        {
            "type": "message",
            "message": {"role": "user", "content": '<skill name="review">Review src.</skill>'},
        },
        {
            "type": "message",
            "message": {"role": "assistant", "content": "", "tool_calls": [call, other]},
        },
        {"type": "message", "message": {"role": "tool", "tool_call_id": "c2", "content": "A-TEXT"}},
        {"type": "message", "message": {"role": "tool", "tool_call_id": "c1", "content": "LS-OUT"}},
        {
            "type": "compact",
            "at": 0,
            "reason": "manual",
            "summarized": 4,
            "kept": 0,
            "before": 900,
            "after": 100,
            "messages": [],
        },
        {"type": "clear"},
        {"type": "message", "message": {"role": "user", "content": "untyped \x1b[31mred"}},
    ]
    entries = entries_of(records)
    assert [e.kind for e in entries] == [
        "heading",
        "user",
        "skill",
        "tool",
        "tool",
        "marker",
        "marker",
        "user",
    ]
    assert entries[1].text == "/review src"  # what was typed, not the expanded skill
    assert (entries[3].text, entries[3].result, entries[4].result) == (
        "Bash ls",
        "LS-OUT",
        "A-TEXT",
    )
    assert "compacted" in entries[5].text and "4 messages summarized" in entries[5].text
    assert "cleared" in entries[6].text and entries[7].text == "untyped red"
    text = as_text(entries)
    assert "  │ LS-OUT" in text and "── conversation cleared" in text


def test_a_session_without_a_file_shows_its_history() -> None:
    from types import SimpleNamespace

    from codebot.ui.transcript_view import session_entries

    session = SimpleNamespace(transcript=None, history=[{"role": "user", "content": "hello"}])
    assert session_entries(session)[1:] == [Entry("user", "hello")]
    assert (
        session_entries(SimpleNamespace(transcript=None, history=[]))[0].text
        == "nothing in this session yet"
    )


async def test_the_transcript_command_in_line_mode_prints_the_whole_result(project: Path) -> None:
    controller = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel([READ, "ok"]), interactive=True
    )
    try:
        await controller.run_turn("read the notes")
        reply = controller.builtin("transcript", "")
    finally:
        controller.close()
    assert reply.action is Action.OPEN_TRANSCRIPT
    assert "> read the notes" in reply.text and "● Read notes.txt  [ok]" in reply.text
    assert "\tNOTES-END" in reply.text and all(f"\t{line}\n" in reply.text for line in LINES)
    assert "\x1b" not in reply.text
