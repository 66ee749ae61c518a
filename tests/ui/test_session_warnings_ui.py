"""A transcript that cannot be written, and a session another process holds, as the
interactive front ends show them: once in the conversation, and in the TUI's status."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from textual.widgets import Static

from codebot.agent.model import ScriptedModel
from codebot.agent.session import ResumeChoice
from codebot.agent.session import transcript as tr
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.repl import LineApp
from codebot.ui.tui.app import NOT_SAVED, CodebotApp
from codebot.ui.tui.status import StatusBar


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tr, "private_open", lambda p, mode, **kw: open("/dev/full", "w", **kw))  # noqa: SIM115 - returned open, like private_open


def controller(project: Path, replies: list, **kw) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=True),
        client=ScriptedModel(replies),
        interactive=True,
        **kw,
    )


def test_line_mode_says_a_failed_write_once(project: Path, monkeypatch) -> None:
    full_disk(monkeypatch)
    out = io.StringIO()
    c = controller(project, ["one", "two"])
    assert LineApp(c, input=io.StringIO("first\nsecond\n"), output=out, watch=False).run() == 0
    c.close()
    text = out.getvalue()
    assert text.count("cannot write transcript") == 1 and "one" in text and "two" in text


def test_line_mode_says_the_session_is_in_use(project: Path) -> None:
    first = controller(project, ["one"])
    LineApp(first, input=io.StringIO("hello\n"), output=io.StringIO(), watch=False).run()
    first.close()
    holder = controller(project, [], resume=ResumeChoice(continue_latest=True))
    out = io.StringIO()
    second = controller(project, [], resume=ResumeChoice(continue_latest=True))
    LineApp(second, input=io.StringIO(""), output=out, watch=False).run()
    assert (
        "in use by another codebot process" in out.getvalue()
        and second.session.id in out.getvalue()
    )
    second.close()
    holder.close()


async def test_tui_status_keeps_saying_the_transcript_is_not_saved(
    project: Path, monkeypatch
) -> None:
    full_disk(monkeypatch)
    c = controller(project, ["one", "two"])
    app = CodebotApp(c, watch_skills=False)
    async with app.run_test(size=(120, 30)) as pilot:
        for text in ("first", "second"):
            await app.submit(text)
            await app.settled()
        await pilot.pause()
        status = app.query_one(StatusBar).status
        assert status.context.startswith(NOT_SAVED) and status.context.count(NOT_SAVED) == 1
        shown = [str(w.content) for w in app.conversation.query(Static)]
        assert sum("cannot write transcript" in s for s in shown) == 1
    c.close()


async def test_tui_says_the_session_is_in_use(project: Path) -> None:
    first = controller(project, ["one"])
    await LineApp(
        first, input=io.StringIO("hello\n"), output=io.StringIO(), watch=False
    ).run_async()
    first.close()
    holder = controller(project, [], resume=ResumeChoice(continue_latest=True))
    c = controller(project, [], resume=ResumeChoice(continue_latest=True))
    app = CodebotApp(c, watch_skills=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await app.settled()
        await pilot.pause()
        shown = [str(w.content) for w in app.conversation.query(Static)]
        assert sum("in use by another codebot process" in s for s in shown) == 1
    c.close()
    holder.close()
