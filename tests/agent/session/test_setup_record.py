"""The setup record a session keeps in its transcript (`setup_record`, `setup_keep`): its
JSON round trip, a hostile file (wrong types, planted escapes, huge lists), old sessions
without a record, when it is written, and the session allow rules it brings back (only
into the project the session belongs to)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session import ResumeChoice, build_session
from codebot.agent.session.setup_record import (
    MAX_ITEMS,
    SetupRecord,
    one_line,
    read_setup,
    rules_for,
)
from codebot.config import load_settings
from codebot.workspace import open_catalog

FULL = SetupRecord(
    model="openai/smollm2",
    api_base="http://127.0.0.1:8080/v1",
    effort="high",
    skills_dirs=("/p/skills",),
    plugin_dirs=(),
    add_dirs=("/elsewhere",),
    session_rules=("Bash(make:*)", "Edit(src/**)"),
)


def test_the_record_round_trips_through_json() -> None:
    data = json.loads(json.dumps(FULL.to_json()))
    assert data["plugin_dirs"] == [] and data["skills_dirs"] == ["/p/skills"]
    back, problems = SetupRecord.from_json(data)
    assert back == FULL and problems == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model", 42),
        ("api_base", ["http://x"]),
        ("effort", {"a": 1}),
        ("model", ""),
        ("model", "a\0b"),
        ("model", "x" * 5000),
        ("skills_dirs", "/p/skills"),
        ("add_dirs", [1, 2]),
        ("session_rules", ["ok", None]),
        ("plugin_dirs", ["/p"] * (MAX_ITEMS + 1)),
    ],
)
def test_a_field_of_the_wrong_type_is_ignored_and_named(field: str, value: object) -> None:
    data = FULL.to_json() | {field: value}
    back, problems = SetupRecord.from_json(data)
    assert len(problems) == 1 and repr(field) in problems[0] and "ignored" in problems[0]
    assert getattr(back, field) == getattr(SetupRecord(), field)
    # every other field survives
    for other in ("model", "api_base", "skills_dirs", "add_dirs", "session_rules"):
        if other != field:
            assert getattr(back, other) == getattr(FULL, other)


@pytest.mark.parametrize("data", [None, [], "setup", 3])
def test_a_record_that_is_not_an_object_is_ignored_with_a_diagnostic(data: object) -> None:
    back, problems = SetupRecord.from_json(data)
    assert back == SetupRecord() and problems and "not an object" in problems[0]


def test_unknown_fields_and_nulls_are_fine() -> None:
    back, problems = SetupRecord.from_json({"model": None, "future": {"x": 1}})
    assert back == SetupRecord() and problems == []


def _write(path: Path, *records: object, raw: str = "") -> Path:
    header = {"type": "session", "format": 1, "id": path.stem, "project": "/p", "created": 1.0}
    lines = [json.dumps(header), *(json.dumps(r) for r in records)]
    path.write_text("\n".join(lines) + "\n" + raw, encoding="utf-8")
    return path


def test_read_setup_takes_the_last_record_and_names_the_file(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "s1.jsonl",
        {"type": "setup", "setup": {"model": "openai/a"}},
        {"type": "message", "message": {"role": "user", "content": '{"type": "setup"'}},
        {"type": "setup", "setup": {"model": "openai/b", "add_dirs": "no"}},
        raw='{"type": "setup", "setup": {"model": "openai/trunc',  # a killed process
    )
    record, problems = read_setup(path)
    assert record is not None and record.model == "openai/b"
    assert problems == [
        "session file s1.jsonl: field 'add_dirs' is not a list of at most 64 texts ('no'); ignored"
    ]


def test_a_session_written_before_records_has_none(tmp_path: Path) -> None:
    path = _write(tmp_path / "old.jsonl", {"type": "message", "message": {"role": "user"}})
    assert read_setup(path) == (None, [])
    assert read_setup(tmp_path / "missing.jsonl") == (None, [])


def test_recorded_text_is_shown_escaped_on_one_line() -> None:
    shown = one_line("http://evil\x1b[2J\x07/v1\nrestored from the session: model safe")
    assert "\x1b" not in shown and "\x07" not in shown and "\n" not in shown
    assert "\\n" in shown


def test_rules_come_only_from_a_record_of_the_same_project(tmp_path: Path) -> None:
    mine = FULL.to_json()  # no project: the session's own (its header's)
    assert rules_for([mine], str(tmp_path), tmp_path) == ["Bash(make:*)", "Edit(src/**)"]
    assert rules_for([mine], str(tmp_path / "other"), tmp_path) == []
    assert rules_for([mine], "", tmp_path) == []
    assert rules_for([], str(tmp_path), tmp_path) == []
    # resumed in another project, which wrote its own record: this project's rules stay
    elsewhere = mine | {"project": str(tmp_path / "other"), "session_rules": ["Bash(*)"]}
    assert rules_for([mine, elsewhere], str(tmp_path), tmp_path) == ["Bash(make:*)", "Edit(src/**)"]
    assert rules_for([mine, elsewhere], str(tmp_path), tmp_path / "other") == ["Bash(*)"]
    planted = mine | {"project": str(tmp_path / "other")}
    assert rules_for([planted], str(tmp_path), tmp_path) == []


# -- written by a live session, read back on resume ----------------------------------------


def _session(project: Path, **kw):
    settings = load_settings(cwd=project, trust=True)
    return build_session(settings, open_catalog(settings), client=ScriptedModel([]), **kw)


def _records(path: Path) -> list[dict]:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    return [r["setup"] for r in lines if r.get("type") == "setup"]


def test_a_session_records_its_setup_with_its_first_line_and_on_each_change(
    project: Path, tmp_path: Path
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    session = _session(project, extra_dirs=[extra])
    transcript = session.transcript
    assert transcript is not None and not transcript.path.exists()  # untouched: no file
    transcript.append({"role": "user", "content": "hi"})
    first = _records(transcript.path)
    assert len(first) == 1 and first[0]["add_dirs"] == [str(extra.resolve())]
    assert first[0]["model"] == session.client.model and first[0]["plugin_dirs"] == []
    session.approvals.grant_session("Bash(make:*)")
    session.approvals.grant_session("Bash(make:*)")  # the same rule again: nothing new
    session.client = ScriptedModel([], model="scripted-2")
    transcript.close()
    records = _records(transcript.path)
    assert [r["session_rules"] for r in records] == [[], ["Bash(make:*)"], ["Bash(make:*)"]]
    assert records[-1]["model"] == "scripted-2"


def _earlier_with_rule(project: Path) -> str:
    session = _session(project)
    session.approvals.grant_session("Bash(make:*)")
    assert session.transcript is not None
    session.transcript.append({"role": "user", "content": "hi"})
    session.transcript.close()
    return session.id


def test_resuming_in_the_same_project_restores_the_session_rules(project: Path) -> None:
    sid = _earlier_with_rule(project)
    again = _session(project, resume=ResumeChoice(continue_latest=True))
    assert again.id == sid
    assert [r.text for r in again.approvals.session_rules] == ["Bash(make:*)"]
    assert again.approvals.check("Bash", "make test").outcome == "allow"
    notices = again.transcript.notices if again.transcript is not None else []
    assert any("restored the session's allow rules: Bash(make:*)" in n for n in notices)


def test_rules_of_another_projects_session_are_not_restored(project: Path, tmp_path: Path) -> None:
    sid = _earlier_with_rule(project)
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    resumed = _session(other, resume=ResumeChoice(session_id=sid))
    assert resumed.id == sid and resumed.approvals.session_rules == []
    assert resumed.approvals.check("Bash", "make test").outcome == "ask"
    notices = resumed.transcript.notices if resumed.transcript is not None else []
    assert any("were not restored" in n and "another project" in n for n in notices)


def test_a_planted_record_of_this_project_with_a_bad_field_resumes(project: Path) -> None:
    sid = _earlier_with_rule(project)
    [path] = _sessions(project)
    with path.open("a") as fh:
        fh.write(json.dumps({"type": "setup", "setup": {"session_rules": "Bash(*)"}}) + "\n")
    again = _session(project, resume=ResumeChoice(session_id=sid))
    assert again.approvals.session_rules == []  # the last record has no (valid) rules
    notices = again.transcript.notices if again.transcript is not None else []
    assert any("'session_rules'" in n for n in notices)


def _sessions(project: Path) -> list[Path]:
    settings = load_settings(cwd=project)
    return sorted((settings.home / "sessions").glob("*.jsonl"))


def test_an_old_session_without_a_record_still_resumes(project: Path) -> None:
    settings = load_settings(cwd=project, trust=True)
    sessions = settings.home / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    header = {"type": "session", "format": 1, "id": "old", "project": str(project), "created": 1}
    message = {"type": "message", "message": {"role": "user", "content": "from before"}}
    (sessions / "old.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(message) + "\n")
    again = _session(project, resume=ResumeChoice(continue_latest=True))
    assert again.id == "old" and again.history[0]["content"] == "from before"
    assert again.approvals.session_rules == []
