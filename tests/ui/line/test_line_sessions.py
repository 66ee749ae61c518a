"""Line mode and saved sessions: the history shown on `--continue`, the line that says how
to continue after quitting, and `/resume` (list this project's sessions, pick one)."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session import ResumeChoice
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.repl import LineApp


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


class Tty(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def controller(project: Path, replies: list[Any] | None = None, **kw: Any) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=True),
        client=ScriptedModel(replies or []),
        interactive=True,
        **kw,
    )


def earlier_session(project: Path, lines: str, replies: list[Any]) -> str:
    """Run a whole line-mode session and return its id."""
    c = controller(project, replies)
    LineApp(c, input=io.StringIO(lines), output=io.StringIO(), watch=False).run()
    c.close()
    return c.session.id


# -- the history on --continue ------------------------------------------------------------------


def test_continue_shows_the_loaded_history(project: Path) -> None:
    sid = earlier_session(
        project, "first question\nsecond question\n", ["the first answer", "the second answer"]
    )
    again = controller(project, resume=ResumeChoice(continue_latest=True))
    out = io.StringIO()
    assert LineApp(again, input=io.StringIO(""), output=out, watch=False).run() == 0
    again.close()
    text = out.getvalue()
    assert again.session.id == sid
    assert f"resumed session {sid} from {time.strftime('%Y-%m-%d')}" in text
    for said in ("> first question", "the first answer", "> second question", "the second answer"):
        assert said in text
    assert text.index("first question") < text.index("the second answer")


def test_continue_shows_only_the_last_five_turns(project: Path) -> None:
    n = 7
    earlier_session(
        project, "".join(f"question {i}\n" for i in range(n)), [f"answer {i}" for i in range(n)]
    )
    again = controller(project, resume=ResumeChoice(continue_latest=True))
    out = io.StringIO()
    LineApp(again, input=io.StringIO(""), output=out, watch=False).run()
    again.close()
    text = out.getvalue()
    assert "… 2 earlier turns (see `codebot sessions`)" in text
    assert "answer 1" not in text and "> question 2" in text and "answer 6" in text


def test_a_new_session_shows_no_history_heading(project: Path) -> None:
    out = io.StringIO()
    c = controller(project)
    LineApp(c, input=io.StringIO(""), output=out, watch=False).run()
    c.close()
    assert "resumed session" not in out.getvalue()


# -- how to continue, said when quitting ---------------------------------------------------------


def test_quitting_on_a_terminal_says_how_to_continue(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    c = controller(project, ["hi"])
    out = Tty()
    assert LineApp(c, input=io.StringIO("hello\n"), output=out, watch=False).run() == 0
    c.close()
    sid = c.session.id
    said = " ".join(out.getvalue().split())  # word-wrapped to the terminal like any prose
    assert said.endswith(f"session {sid} · codebot --continue (or codebot --resume {sid})")
    assert sid not in capsys.readouterr().err


def test_quitting_with_piped_output_says_it_on_stderr(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # stdout is a log or a pipe: the conversation stays the only thing in it
    c = controller(project, ["hi"])
    out = io.StringIO()
    LineApp(c, input=io.StringIO("hello\n"), output=out, watch=False).run()
    c.close()
    sid = c.session.id
    assert "codebot --continue" not in out.getvalue()
    assert (
        f"session {sid} · codebot --continue (or codebot --resume {sid})" in capsys.readouterr().err
    )


def test_quitting_an_empty_session_says_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    c = controller(project)
    out = Tty()
    LineApp(c, input=io.StringIO("/help\n"), output=out, watch=False).run()
    c.close()
    assert "codebot --continue" not in out.getvalue() + capsys.readouterr().err


# -- /resume -----------------------------------------------------------------------------------


def two_earlier_sessions(project: Path) -> tuple[str, str]:
    old = earlier_session(project, "the old question\n", ["old answer"])
    time.sleep(0.01)  # newest first goes by the file's last write
    new = earlier_session(project, "the newer question\n", ["newer answer"])
    return old, new


def test_resume_lists_the_sessions_and_switches_to_the_one_picked(project: Path) -> None:
    old, new = two_earlier_sessions(project)
    model = ScriptedModel(["answer in the old session"])
    c = Controller(load_settings(cwd=project, trust=True), client=model, interactive=True)
    fresh = c.session.id
    out = io.StringIO()
    assert LineApp(c, input=io.StringIO("/resume\n2\ngo on\n"), output=out, watch=False).run() == 0
    c.close()
    text = out.getvalue()
    listing = text.split("> /resume")[1]
    assert listing.index(new) < listing.index(old)  # newest first
    assert "the newer question" in listing and "the old question" in listing
    assert fresh not in listing  # the session in use is not offered
    assert (
        f"resumed session {old} from" in text and "old answer" in text.split("resumed session")[1]
    )
    assert c.session.id == old
    sent = [m["content"] for m in model.requests[0].messages if m["role"] == "user"]
    assert "the old question" in sent[0] and "go on" in sent[-1]


def test_resume_with_an_id_switches_at_once(project: Path) -> None:
    old, _new = two_earlier_sessions(project)
    c = controller(project)
    out = io.StringIO()
    LineApp(c, input=io.StringIO(f"/resume {old}\n"), output=out, watch=False).run()
    c.close()
    assert c.session.id == old and f"resumed session {old}" in out.getvalue()


def test_resume_cancelled_or_unknown_keeps_the_session(project: Path) -> None:
    two_earlier_sessions(project)
    c = controller(project)
    fresh = c.session.id
    out = io.StringIO()
    LineApp(
        c, input=io.StringIO("/resume\n\n/resume 9\n/resume nope\n"), output=out, watch=False
    ).run()
    c.close()
    text = out.getvalue()
    assert c.session.id == fresh
    assert "(not resumed)" in text
    assert "no session numbered 9" in text
    assert "no session 'nope'" in text


def test_resume_with_no_other_session_says_so(project: Path) -> None:
    c = controller(project)
    out = io.StringIO()
    LineApp(c, input=io.StringIO("/resume\n"), output=out, watch=False).run()
    c.close()
    assert "no other saved session for" in out.getvalue()


def test_resume_is_offered_by_completion_and_help(project: Path) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    c = controller(project)  # /resume is a built-in of the table: the controller completes it
    found = list(c.completions("res"))
    assert found[0].name == "resume" and found[0].hint == "[id]"
    assert "help" in [x.name for x in c.completions("")][:1]
    from codebot.ui.line.input import SlashCompleter

    shown = list(SlashCompleter(c.completions).get_completions(Document("/resu"), CompleteEvent()))
    assert shown[0].display_text == "/resume [id]"
    out = io.StringIO()
    LineApp(c, input=io.StringIO("/help\n"), output=out, watch=False).run()
    c.close()
    assert "/resume [id]" in out.getvalue()


def test_a_resumed_session_keeps_the_command_lines_rules(project: Path) -> None:
    from codebot.ui.line.repl import run_line

    old = earlier_session(project, "hello\n", ["hi"])
    write = {
        "text": "",
        "tool_calls": [{"name": "Write", "arguments": {"path": "notes.txt", "content": "x\n"}}],
    }
    out = io.StringIO()
    code = run_line(
        load_settings(cwd=project, trust=True),
        allow=["Write(notes.txt)"],
        client=ScriptedModel([write, "done"]),
        input=io.StringIO(f"/resume {old}\nwrite the notes\n"),
        output=out,
        watch=False,
    )
    assert code == 0
    assert f"resumed session {old}" in out.getvalue()
    assert (
        project / "notes.txt"
    ).read_text() == "x\n"  # allowed by --allow, in the session switched to
    assert "needs approval" not in out.getvalue()
