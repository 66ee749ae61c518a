"""`resume_view`: the history a resumed session will send, as the items every front end
shows; `session_rows`: the sessions `/resume` offers."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.repl import LineApp
from codebot.ui.resume_view import Item, resume_view, session_rows, tool_status, user_text

NOON = time.mktime((2026, 12, 1, 12, 0, 0, 0, 0, -1))
REMINDER = "<system-reminder>\nToday's date is 2026-12-01.\n</system-reminder>\n"


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": REMINDER + text}


def answer(text: str, *calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    m: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        m["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ]
    return m


def result(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def skill_block(name: str, body: str = "Do it.", args: str = "") -> str:
    tail = f"\n\nARGUMENTS: {args}" if args else ""
    return f'<skill name="{name}" source="bundled" dir="/skills/{name}">\n{body}{tail}\n</skill>'


def kinds(items: list[Item]) -> list[str]:
    return [i.kind for i in items]


def test_heading_then_each_message_of_a_short_session() -> None:
    history = [
        user("fix the flaky test"),
        answer("Looking.", ("c1", "Bash", {"command": "pytest -x"})),
        result("c1", "exit code 1\nFAILED"),
        answer("It was the clock."),
    ]
    items = resume_view(history, "20261201-120000-abcd1234", NOON)
    assert items == [
        Item("heading", "resumed session 20261201-120000-abcd1234 from 2026-12-01 12:00"),
        Item("user", "fix the flaky test"),
        Item("assistant", "Looking."),
        Item("tool", "Bash pytest -x", "error"),  # exit code 1: as it was shown when it ran
        Item("assistant", "It was the clock."),
    ]


def test_no_start_time_gives_a_heading_without_one() -> None:
    assert resume_view([], "s1", None) == [Item("heading", "resumed session s1")]


def test_only_the_last_turns_are_shown_after_a_count_of_the_others() -> None:
    history = [m for i in range(8) for m in (user(f"question {i}"), answer(f"answer {i}"))]
    items = resume_view(history, "s", NOON)
    assert items[1] == Item("note", "… 3 earlier turns (see `codebot sessions`)")
    assert [i.text for i in items if i.kind == "user"] == [f"question {i}" for i in range(3, 8)]
    assert kinds(resume_view(history, "s", NOON, last=1)) == [
        "heading",
        "note",
        "user",
        "assistant",
    ]
    assert resume_view(history[:2], "s", NOON, last=5)[1:] == [
        Item("user", "question 0"),
        Item("assistant", "answer 0"),
    ]


def test_a_compacted_history_says_so_and_hides_the_summary() -> None:
    preamble = {
        "role": "user",
        "content": '<conversation-summary messages="40" at="2026-12-01 11:50">\nThe '
        "conversation so far was compacted: …\n</conversation-summary>\n\n"
        "<system-reminder>\nSkills in "
        f"force\n</system-reminder>\n\n{skill_block('review')}",
    }
    items = resume_view([preamble, answer("kept answer"), user("next"), answer("ok")], "s", NOON)
    assert items[1] == Item(
        "note",
        "(the conversation before was compacted: 40 messages summarized at "
        "2026-12-01 11:50; skills re-attached: review; the transcript keeps it all)",
    )
    assert "conversation-summary" not in " ".join(i.text for i in items)
    assert [i.text for i in items[2:]] == [
        "kept answer",
        "next",
        "ok",
    ]  # the cut turn's end counts as a turn
    failed = {
        "role": "user",
        "content": '<conversation-summary messages="9" at="x">\n[9 earlier messages were '
        "dropped to fit the context window, without a summary (boom).]",
    }
    assert "9 messages dropped without a summary" in resume_view([failed], "s", NOON)[1].text


def test_a_typed_skill_is_shown_as_the_command() -> None:
    assert user_text(REMINDER + skill_block("review", args="src/")) == "/review src/"
    assert (
        user_text(REMINDER + skill_block("deploy", "Deploy to staging.")) == "/deploy"
    )  # args went into the text
    stacked = skill_block("review", args="src/") + "\n\n" + skill_block("test", args="src/")
    assert user_text(stacked) == "/review /test src/"
    loaded = (
        '[skill "review" is already loaded in this conversation with exactly this text '
        "(same file); ok]"
    )
    assert user_text(REMINDER + loaded) == "/review"
    assert (
        user_text("look at this\n" + skill_block("a&amp;b")) == "look at this\n[skill a&b loaded]"
    )


def test_content_as_a_list_of_parts() -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "hello"}, {"type": "image_url"}]}
    ]
    assert resume_view(history, "s", NOON)[1] == Item("user", "hello")


def test_tool_statuses_read_from_the_fixed_wordings() -> None:
    assert tool_status("Bash", "exit code 0\nok") == "ok"
    assert tool_status("Write", "denied by rule Write(*): no") == "denied"
    assert (
        tool_status("Write", "the person did not approve this Write call. needs approval")
        == "denied"
    )
    assert tool_status("Read", "Read failed: file not found: x") == "error"
    assert tool_status("Read", "Read: the arguments were not valid JSON") == "error"
    assert tool_status("Nope", "unknown tool 'Nope'; available tools: Read") == "error"
    assert tool_status("Bash", "[interrupted: this tool call did not finish]") == "interrupted"
    assert tool_status("Bash", None) == "interrupted"


def test_a_skill_called_by_the_model_is_a_tool_line() -> None:
    history = [
        user("debug it"),
        answer("", ("c1", "Skill", {"skill": "debug"})),
        result("c1", skill_block("debug")),
        answer("Found it."),
    ]
    assert resume_view(history, "s", NOON)[2] == Item(
        "tool", "Skill debug  [skill debug loaded]", "ok"
    )


def test_long_texts_are_clipped_to_a_number_of_lines() -> None:
    log = "\n".join(f"line {i}" for i in range(50))
    items = resume_view([user(log)], "s", NOON, max_lines=3)
    assert items[1].text == "line 0\nline 1\nline 2\n… (47 more lines)"
    assert resume_view([user(log)], "s", NOON, max_lines=None)[1].text == log


# -- from a real session, and the rows /resume offers ----------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


def run_session(project: Path, lines: str, replies: list[Any]) -> Controller:
    c = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel(replies), interactive=True
    )
    LineApp(c, input=io.StringIO(lines), output=io.StringIO(), watch=False).run()
    c.close()
    return c


def test_a_real_session_reads_back_as_typed(project: Path) -> None:
    replies = [
        "Reviewed.",
        {
            "text": "Let me look.",
            "tool_calls": [{"name": "Read", "arguments": {"path": "nope.txt"}}],
        },
        "Done.",
    ]
    c = run_session(project, "/review\nplease read nope.txt\n", replies)
    items = resume_view(c.session.history, c.session.id, NOON)
    assert [(i.kind, i.text, i.status) for i in items[1:]] == [
        ("user", "/review", ""),
        ("assistant", "Reviewed.", ""),
        ("user", "please read nope.txt", ""),
        ("assistant", "Let me look.", ""),
        ("tool", "Read nope.txt", "error"),
        ("assistant", "Done.", ""),
    ]


def test_session_rows_newest_first_without_the_one_in_use(project: Path) -> None:
    first = run_session(project, "/review src/\nthen this\n", ["a", "b"]).session.id
    second = run_session(project, "a second one\n", ["c"]).session.id
    third = run_session(project, "and a third\n", ["d"]).session.id
    sessions = load_settings(cwd=project).home / "sessions"
    for age, sid in ((30, first), (20, second), (10, third)):
        path = sessions / f"{sid}.jsonl"
        os.utime(path, (time.time() - age, time.time() - age))
    rows = session_rows(sessions, project.resolve(), exclude=third)
    assert [r.id for r in rows] == [second, first]
    assert [r.first_prompt for r in rows] == ["a second one", "/review src/"]
    assert rows[0].started == time.strftime(
        "%Y-%m-%d %H:%M",
        time.localtime(
            float(json.loads((sessions / f"{second}.jsonl").read_text().splitlines()[0])["created"])
        ),
    )
    assert session_rows(sessions, project.resolve(), limit=1)[0].id == third
    assert session_rows(sessions, project.resolve() / "elsewhere") == []


def test_first_prompt_of_a_transcript_without_turn_records(project: Path, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    head = {
        "type": "session",
        "format": 1,
        "id": "old-1",
        "project": str(project),
        "created": NOON,
        "model": None,
    }
    lines = [head, {"type": "message", "message": user(skill_block("review", args="src/"))}]
    (sessions / "old-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [(r.id, r.first_prompt, r.started) for r in session_rows(sessions, project)] == [
        ("old-1", "/review src/", "2026-12-01 12:00")
    ]


@pytest.mark.parametrize(
    "call",
    [
        {"function": "Bash"},
        {"function": None},
        {"function": {"name": "Bash", "arguments": "[1]"}},
        {"function": {"name": "Bash", "arguments": "{not json"}},
        {},
    ],
)
def test_a_damaged_tool_call_in_a_saved_session_is_shown_not_fatal(call: dict[str, Any]) -> None:
    """A transcript file is read as untrusted: a call whose `function` is not an object, or
    whose arguments are not a JSON object, is shown as it can be."""
    from codebot.ui.resume_view import call_parts, tool_item

    name, args = call_parts(call)
    assert isinstance(name, str) and isinstance(args, dict)
    assert tool_item(call, "ok").kind == "tool"
