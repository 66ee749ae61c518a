"""Nothing hangs, nothing crashes, nothing is lost: text that is not valid UTF-8, a disk
that cannot be written, two processes on one session, damaged session files, and a
prompt that starts with a path."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session import ResumeChoice, SetupError, build_session, load_messages
from codebot.agent.session import events as ev
from codebot.agent.session import transcript as tr
from codebot.agent.session.transcript import Transcript, repair
from codebot.config import load_settings
from codebot.workspace import open_catalog


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    write_skill(
        proj / ".codebot" / "skills",
        "review",
        "description: Review code. Not for edits.",
        "Review $ARGUMENTS.",
    )
    (proj / "src").mkdir()
    return proj


def make(project: Path, replies: list[Any], events: list | None = None, **kw: Any):
    settings = load_settings(cwd=project, trust=True)
    model = ScriptedModel(replies)
    sink = events if events is not None else []
    session = build_session(settings, open_catalog(settings), client=model, emit=sink.append, **kw)
    return session, model


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": args}]}


def strictly_valid(messages: list[dict[str, Any]]) -> bool:
    """What OpenAI-style providers insist on: tool results directly after the assistant
    message that asked, one per tool call id, and nothing else."""
    i = 0
    while i < len(messages):
        m = messages[i]
        if m["role"] == "tool":
            return False  # a tool message no assistant message asked for
        i += 1
        if m["role"] == "assistant" and m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            got = []
            while i < len(messages) and messages[i]["role"] == "tool":
                got.append(messages[i]["tool_call_id"])
                i += 1
            if sorted(got) != sorted(ids):
                return False
    return True


def sessions_dir() -> Path:
    from codebot.home import codebot_home

    return codebot_home() / "sessions"


def utf8(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")  # raises on a lone surrogate


# -- 1. text --------------------------------------------------------------------------------


async def test_prompt_with_an_undecodable_byte_is_a_normal_turn(project: Path) -> None:
    session, model = make(project, ["fine"])
    rec = await session.run_turn("hello \udcff")  # what Python makes of argv b"hello \xff"
    assert rec.error is None and rec.text == "fine"
    utf8(model.requests[0].messages)
    session.transcript.close()
    assert load_messages(session.transcript.path)[0]["content"].endswith("hello \ufffd")


async def test_glob_over_a_file_name_with_an_undecodable_byte(project: Path) -> None:
    (project / "src" / "bad\udcffname.py").write_text(
        "x = 1\n"
    )  # the name's bytes: b"bad\xffname.py"
    events: list[Any] = []
    session, model = make(project, [call("Glob", pattern="**/*.py"), "found it"], events)
    rec = await session.run_turn("find python files")
    assert rec.error is None and rec.text == "found it"
    tool = next(m for m in model.requests[1].messages if m["role"] == "tool")
    assert "bad\ufffdname.py" in tool["content"]
    utf8(model.requests[1].messages)
    finished = next(e for e in events if isinstance(e, ev.ToolFinished))
    assert "\udcff" not in finished.content
    session.transcript.close()
    assert [m["role"] for m in load_messages(session.transcript.path)] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_a_lone_surrogate_escaped_in_a_transcript_loads_as_valid_text(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type": "session", "id": "s", "project": "/p", "created": 1}\n'
        '{"type": "message", "message": {"role": "user", "content": "a\\udcffb"}}\n'
    )
    assert load_messages(path) == [{"role": "user", "content": "a\ufffdb"}]


# -- 2a. a transcript that cannot be written -------------------------------------------------


def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every transcript write goes to /dev/full: the write is buffered, the flush fails
    with ENOSPC, exactly as on a full disk."""
    monkeypatch.setattr(tr, "private_open", lambda p, mode, **kw: open("/dev/full", "w", **kw))  # noqa: SIM115 - returned open, like private_open


def test_print_mode_on_a_full_disk_still_prints_the_answer(
    project: Path, monkeypatch, capsys
) -> None:
    from codebot.ui.print_mode import run_print

    full_disk(monkeypatch)
    code = run_print(
        "/review src", load_settings(cwd=project, trust=True, model="offline"), output_format="json"
    )
    out, err = capsys.readouterr()
    assert code == 0
    result = json.loads(out)
    assert [{k: e[k] for k in ("name", "actor", "mode")} for e in result["skills"]] == [
        {"name": "review", "actor": "human", "mode": "inline"}
    ]
    assert err.count("cannot write transcript") == 1 and "No space left on device" in err


async def test_a_failed_write_is_said_once_and_the_turns_go_on(project: Path, monkeypatch) -> None:
    full_disk(monkeypatch)
    events: list[Any] = []
    session, _ = make(project, [call("Glob", pattern="*"), "one", "two"], events)
    assert (await session.run_turn("first")).text == "one"
    assert (await session.run_turn("second")).text == "two"
    session.transcript.close()  # must not raise either
    said = [e for e in events if isinstance(e, ev.Notice) and "cannot write transcript" in e.text]
    assert len(said) == 1 and said[0].level == "warning"
    assert "No space left on device" in session.transcript.error


def test_close_after_enospc_never_raises(tmp_path: Path) -> None:
    t = Transcript(tmp_path, "s", tmp_path)
    t.append({"role": "user", "content": "x"})
    t._fh = open("/dev/full", "w")  # noqa: SIM115 - the file the transcript now fails to write
    t._fh.write("buffered\n")
    t.close()
    assert t._fh is None


def test_fsync_failure_is_reported(tmp_path: Path, monkeypatch) -> None:
    said: list[str] = []
    t = Transcript(tmp_path, "s", tmp_path)
    t.on_error = said.append
    t.append({"role": "user", "content": "x"})

    def fail(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tr.os, "fsync", fail)
    t.sync()
    t.append({"role": "user", "content": "y"})
    t.close()
    assert len(said) == 1 and "No space left" in said[0]


# -- 2b. one writer per session -------------------------------------------------------------


async def test_second_continue_starts_a_new_session_and_says_so(project: Path) -> None:
    first, _ = make(project, ["one"])
    await first.run_turn("hello")
    first.transcript.close()
    a, _ = make(project, ["a"], resume=ResumeChoice(continue_latest=True))
    assert a.id == first.id and a.history
    b, _ = make(project, ["b"], resume=ResumeChoice(continue_latest=True))
    assert b.id != first.id and b.history == []
    assert any("in use by another codebot" in n and b.id in n for n in b.transcript.notices)
    with pytest.raises(SetupError, match="in use"):
        make(project, [], resume=ResumeChoice(session_id=first.id))
    await a.run_turn("go on")
    await b.run_turn("elsewhere")
    a.transcript.close()
    b.transcript.close()
    c, _ = make(project, [], resume=ResumeChoice(session_id=first.id))  # free again
    assert strictly_valid(c.history)
    c.transcript.close()


def test_repair_drops_duplicate_and_orphaned_tool_messages() -> None:
    ask = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "Read", "arguments": "{}"}},
        ],
    }
    res = [{"role": "tool", "tool_call_id": i, "content": i} for i in ("c1", "c2")]
    history = [
        {"role": "user", "content": "u"},
        ask,
        res[0],
        res[1],
        res[1],  # a duplicate (two writers)
        {"role": "tool", "tool_call_id": "zz", "content": "orphan"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "again"},
        res[0],  # answers a call of an earlier turn: an orphan here
        dict(ask),
        res[1],
    ]  # c1 of the second ask never got its result
    fixed = repair(history)
    assert strictly_valid(fixed)
    assert [m.get("tool_call_id") for m in fixed if m["role"] == "tool"] == ["c1", "c2", "c2", "c1"]
    assert fixed[-1]["content"].startswith("[interrupted")


def test_two_writers_interleaved_in_one_file_resume_valid(tmp_path: Path) -> None:
    """What two `--continue` at once used to leave behind."""
    path = tmp_path / "s.jsonl"
    call_msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
        ],
    }
    lines = [
        {"type": "session", "id": "s", "project": "/p", "created": 1.0},
        *(
            {"type": "message", "message": m}
            for m in [
                {"role": "user", "content": "a"},
                call_msg,
                {"role": "user", "content": "b"},
                {"role": "tool", "tool_call_id": "t1", "content": "r"},
                {"role": "tool", "tool_call_id": "t1", "content": "r"},
                {"role": "assistant", "content": "x"},
            ]
        ),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert strictly_valid(load_messages(path))


# -- 2c. damaged session files --------------------------------------------------------------


def write_session(sid: str, project: str, created: Any, messages: list[Any]) -> Path:
    d = sessions_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{sid}.jsonl"
    recs = [
        {
            "type": "session",
            "format": 1,
            "id": sid,
            "project": project,
            "created": created,
            "model": "m",
        }
    ]
    recs += [{"type": "message", "message": m} for m in messages]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


async def test_continue_skips_damaged_files_with_a_warning(project: Path) -> None:
    good, _ = make(project, ["one"])
    await good.run_turn("hello")
    good.transcript.close()
    write_session("20990101-000000-other", "/somewhere/else", None, [])  # another project's
    write_session("20990101-000001-mine", str(project), None, [])  # this project's, newest
    write_session(
        "20990101-000002-calls",
        str(project),
        5.0,
        [{"role": "assistant", "content": None, "tool_calls": 5}],
    )
    resumed, _ = make(project, ["two"], resume=ResumeChoice(continue_latest=True))
    assert resumed.id == good.id
    notes = " | ".join(resumed.transcript.notices)
    assert "20990101-000001-mine" in notes and "created" in notes
    assert "20990101-000002-calls" in notes and "tool_calls" in notes
    assert "other" not in notes


def test_resume_of_a_damaged_file_is_a_clear_error(project: Path) -> None:
    write_session(
        "bad-calls", str(project), 1.0, [{"role": "assistant", "content": None, "tool_calls": 5}]
    )
    write_session("bad-created", str(project), None, [])
    with pytest.raises(SetupError, match=r"bad-calls cannot be resumed: line 2: 'tool_calls' is 5"):
        make(project, [], resume=ResumeChoice(session_id="bad-calls"))
    with pytest.raises(SetupError, match=r"bad-created cannot be resumed.*created"):
        make(project, [], resume=ResumeChoice(session_id="bad-created"))
    with pytest.raises(SetupError, match="codebot sessions"):
        make(project, [], resume=ResumeChoice(session_id="missing"))


def test_continue_with_only_damaged_files_is_a_clear_error(project: Path) -> None:
    write_session("only-bad", str(project), "yesterday", [])
    with pytest.raises(SetupError, match="only-bad"):
        make(project, [], resume=ResumeChoice(continue_latest=True))


# -- 4. a prompt that starts with a path ----------------------------------------------------


async def test_a_prompt_starting_with_a_path_is_a_prompt(project: Path) -> None:
    session, model = make(project, ["looking"])
    rec = await session.run_turn("/tmp/app.py crashes")
    assert rec.error is None and rec.text == "looking"
    assert model.requests[0].messages[-1]["content"].endswith("/tmp/app.py crashes")


async def test_skill_with_a_path_argument_still_runs(project: Path) -> None:
    session, model = make(project, ["reviewed"])
    rec = await session.run_turn("/review src/")
    assert [{k: e[k] for k in ("name", "actor", "mode")} for e in rec.skills] == [
        {"name": "review", "actor": "human", "mode": "inline"}
    ]
    assert "Review src/." in model.requests[0].messages[-1]["content"]
    rec = await session.run_turn("/nosuch thing")
    assert rec.error_kind == "skill" and "nosuch" in rec.error
