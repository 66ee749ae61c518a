"""Skill outcomes end to end (issue 35 §1): `codebot -p` as a real process against the
scripted OpenAI-compatible server. A fork's sub-agent reports through SkillOutcome, its
`data` is checked against the skill's `outputs:`, and the result reaches the JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

OUTPUTS = (
    "outputs:\n"
    "  type: object\n"
    "  properties:\n"
    "    count: {type: integer, minimum: 1}\n"
    "  required: [count]\n"
)


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    skills = project / ".codebot" / "skills"
    write_skill(
        skills,
        "counter",
        "description: Count the widgets in a fork. Not for edits.\ncontext: fork\n" + OUTPUTS,
        "COUNT-BODY: count the widgets in $ARGUMENTS.",
    )
    write_skill(
        skills,
        "plain",
        "description: Look around in a fork. Not for edits.\ncontext: fork",
        "PLAIN-BODY: look around.",
    )
    write_skill(
        skills,
        "tidy",
        "description: Tidy the notes inline. Not for code.\noutcome: required",
        "TIDY-BODY: tidy the notes.",
    )
    return project


def codebot(project: Path, *args: str, url: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust", *args]
    cmd += ["--api-base", url, "--model", "openai/test-model"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project)


def outcome_call(**arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": "SkillOutcome", "arguments": json.dumps(arguments)}]}


def tool_results(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def offered(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or ()]


def test_outputs_errors_go_back_to_the_sub_agent_and_its_second_try_passes(
    fake_openai, project: Path
) -> None:
    fake_openai.script(
        [
            outcome_call(status="success", summary="counted", data={"count": 0}),
            # loosely parsed: data as a JSON string, the status in capitals
            outcome_call(status="SUCCESS", summary="3 widgets", data='{"count": 3}'),
        ]
    )
    r = codebot(project, "-p", "/counter shed", "--output-format", "json", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    first, second = fake_openai.requests
    assert "COUNT-BODY" in json.dumps(first["messages"]) and "SkillOutcome" in offered(first)
    task = str(first["messages"][-1]["content"])
    assert '"minimum": 1' in task  # the schema is in the task
    errors = tool_results(second)[-1]
    assert "not recorded" in errors and "data.count" in errors and "1 try left" in errors
    out = json.loads(r.stdout)
    (skill,) = out["skills"]
    assert skill["name"] == "counter" and skill["mode"] == "fork" and skill["actor"] == "human"
    assert skill["status"] == "success" and skill["summary"] == "3 widgets"
    assert skill["data"] == {"count": 3} and skill["ms"] > 0
    assert "[skill outcome: success] 3 widgets" in out["result"]
    assert len(fake_openai.requests) == 2  # the sub-agent stopped once its outcome was in


def test_two_bad_tries_end_as_partial_with_the_errors(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            outcome_call(status="success", summary="one", data={"count": "x"}),
            outcome_call(status="success", summary="two", data={}),
        ]
    )
    r = codebot(project, "-p", "/counter", "--output-format", "json", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    (skill,) = json.loads(r.stdout)["skills"]
    assert skill["status"] == "partial" and skill["summary"] == "two"
    assert len(fake_openai.requests) == 2


def test_a_sub_agent_that_stops_without_an_outcome_is_partial(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            {"text": "noted"},
            {"tool_calls": [{"name": "Skill", "arguments": json.dumps({"skill": "plain"})}]},
            {"match": "PLAIN-BODY", "text": "looked: all quiet"},
            {"text": "done"},
        ]
    )
    codebot(project, "-p", "hello", url=fake_openai.url)
    r = codebot(project, "-p", "look", "--continue", "--output-format", "json", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    (skill,) = json.loads(r.stdout)["skills"]
    assert skill["status"] == "partial" and skill["note"] == "no outcome reported"
    assert skill["summary"] == "looked: all quiet" and skill["actor"] == "model"
    # what the model reads is the answer, as before
    assert tool_results(fake_openai.requests[-1])[-1] == "looked: all quiet"


def test_needs_confirmation_exits_3_with_the_question_in_the_json(
    fake_openai, project: Path
) -> None:
    question = "Delete the 3 stale widgets?"
    fake_openai.script(
        [outcome_call(status="needs_confirmation", summary=question, data={"count": 3})]
    )
    r = codebot(project, "-p", "/counter", "--output-format", "json", url=fake_openai.url)
    assert r.returncode == 3, r.stderr
    out = json.loads(r.stdout)
    assert out["needs_confirmation"] == {"skill": "counter", "question": question}
    assert "needs confirmation" in r.stderr and question in r.stderr
    fake_openai.script(
        [outcome_call(status="needs_confirmation", summary=question, data={"count": 3})]
    )
    r = codebot(project, "-p", "/counter", "--output-format", "stream-json", url=fake_openai.url)
    assert r.returncode == 3, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    ended = [x for x in lines if x["type"] == "SkillEnded"]
    assert ended and ended[0]["status"] == "needs_confirmation" and ended[0]["name"] == "counter"
    assert lines[-1]["type"] == "result" and lines[-1]["needs_confirmation"]["question"] == question


def test_an_inline_skill_that_must_report_is_reminded_once(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            {"text": "tidied"},
            outcome_call(status="partial", summary="half the notes"),
            {"text": "tidied, half"},
        ]
    )
    r = codebot(project, "-p", "/tidy", "--output-format", "json", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    first, second, _ = fake_openai.requests
    assert "SkillOutcome" in offered(first) and "call the SkillOutcome tool" in json.dumps(
        first["messages"]
    )
    assert "needs its outcome" in json.dumps(second["messages"][-1])
    (skill,) = json.loads(r.stdout)["skills"]
    assert skill["status"] == "partial" and skill["summary"] == "half the notes"


def test_an_ordinary_turn_offers_no_skill_outcome(fake_openai, project: Path) -> None:
    fake_openai.script([{"text": "hi"}])
    r = codebot(project, "-p", "hello", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    assert "SkillOutcome" not in offered(fake_openai.requests[0])


def test_hostile_summary_is_escaped_and_huge_data_is_refused(fake_openai, project: Path) -> None:
    fake_openai.script(
        [
            outcome_call(status="success", summary="x", data={"count": 1, "pad": "y" * 70_000}),
            outcome_call(status="success", summary="ok\x1b[2J\x07done", data={"count": 2}),
        ]
    )
    r = codebot(project, "-p", "/counter a\x1b]0;t\x07b", url=fake_openai.url)
    assert r.returncode == 0, r.stderr
    assert "characters as JSON; at most" in tool_results(fake_openai.requests[1])[-1]
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr
    assert "[skill counter ended: success" in r.stderr and "ok\\x1b[2J\\x07done" in r.stderr


def cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=project)


def test_skills_stats_and_runs_count_what_ran(fake_openai, project: Path, codebot_home) -> None:
    fake_openai.script(
        [
            outcome_call(status="success", summary="bad", data={"count": -1}),
            outcome_call(status="success", summary="three", data={"count": 3}),
            outcome_call(status="failed", summary="broke\x1b[31m", data={"count": 1}),
            outcome_call(status="needs_confirmation", summary="sure?", data={"count": 2}),
            {"text": "looked around"},
        ]
    )
    assert codebot(project, "-p", "/counter a", url=fake_openai.url).returncode == 0
    assert codebot(project, "-p", "/counter b", url=fake_openai.url).returncode == 0
    assert codebot(project, "-p", "/counter c\x07d", url=fake_openai.url).returncode == 3
    assert codebot(project, "-p", "/plain", url=fake_openai.url).returncode == 0
    sessions = sorted((codebot_home / "sessions").glob("*.jsonl"))
    with sessions[0].open("a") as fh:  # damaged records are skipped, never fatal
        fh.write('{"type": "skill_outcome", "name": 3}\n{"type": "skill_outcome", "ti\n')

    stats = cli(project, "skills", "stats", "--json", "--since", "1h")
    assert stats.returncode == 0, stats.stderr
    outcomes = json.loads(stats.stdout)["outcomes"]
    counter, plain = outcomes["counter"], outcomes["plain"]
    assert counter["calls"] == 3 and counter["retries"] == 1 and counter["timeouts"] == 0
    assert counter["outcomes"] == {
        "success": 1,
        "failed": 1,
        "partial": 0,
        "needs_confirmation": 1,
    }
    assert counter["last_failure"]["summary"] == "broke\x1b[31m"
    assert counter["p50_ms"] > 0 and counter["p95_ms"] >= counter["p50_ms"]
    assert plain["calls"] == 1 and plain["outcomes"]["partial"] == 1
    table = cli(project, "skills", "stats")
    assert "Outcomes (from the transcripts)" in table.stdout and "\x1b" not in table.stdout
    assert "broke\\x1b[31m" in table.stdout

    runs = json.loads(cli(project, "skills", "runs", "--json").stdout)
    assert [(r["name"], r["status"], r["args"]) for r in runs] == [
        ("plain", "partial", ""),
        ("counter", "needs_confirmation", "c\x07d"),
        ("counter", "failed", "b"),
        ("counter", "success", "a"),
    ]
    assert all(r["actor"] == "human" and r["ms"] > 0 for r in runs)
    failed = cli(project, "skills", "runs", "counter", "--failed")
    assert failed.returncode == 0 and "broke\\x1b[31m" in failed.stdout
    assert "three" not in failed.stdout and "2 unreadable" in failed.stdout
    shown = cli(project, "skills", "runs").stdout
    assert "c\\x07d" in shown and "\x07" not in shown
    assert (
        cli(project, "skills", "runs", "--since", "1h", "--json").stdout
        == json.dumps(runs, indent=2, ensure_ascii=False) + "\n"
    )
    assert (
        json.loads(cli(project, "skills", "stats", "--json", "--since", "0s").stdout)["outcomes"]
        == {}
    )


def test_a_bad_since_is_refused_with_how_to_write_it(project: Path) -> None:
    for command in (("skills", "runs"), ("skills", "stats")):
        r = cli(project, *command, "--since", "last week")
        assert r.returncode == 2 and "--since 'last week'" in r.stderr and "7d" in r.stderr


def test_skills_validate_names_a_bad_outputs_schema(project: Path, write_skill) -> None:
    write_skill(
        project / ".codebot" / "skills",
        "broken",
        "description: A broken outputs schema. Not for use.\ncontext: fork\n"
        "outputs:\n  type: objectx\noutcome: sometimes",
        "BODY",
    )
    r = cli(project, "skills", "validate", str(project / ".codebot" / "skills" / "broken"))
    assert r.returncode != 0
    assert "error bad-outputs [outputs]" in r.stdout and "not a valid JSON Schema" in r.stdout
    assert "error bad-outcome [outcome]" in r.stdout and "SKILL.md:" in r.stdout


def test_a_question_posing_as_something_else_is_escaped_and_marked(
    fake_openai, project: Path
) -> None:
    """A bidi override, a C1 control and Cyrillic look-alikes in the question: the JSON
    holds them as `\\u` escapes (it reads back the same), stderr escapes and marks them,
    and `skills runs` (table and --json) shows none raw."""
    question = "Allow? \u0443es \u202eslaw\u202c \u009b2Kcodebot approved"
    fake_openai.script(
        [outcome_call(status="needs_confirmation", summary=question, data={"count": 3})]
    )
    r = codebot(project, "-p", "/counter", "--output-format", "json", url=fake_openai.url)
    assert r.returncode == 3, r.stderr
    for raw in ("\u202e", "\u009b"):
        assert raw not in r.stdout and raw not in r.stderr
    assert "\\u202e" in r.stdout and "\\u009b" in r.stdout and "\u0443es" in r.stdout
    assert json.loads(r.stdout)["needs_confirmation"]["question"] == question
    assert "look-alike characters" in r.stderr and "'yes'" in r.stderr
    runs = cli(project, "skills", "runs", "--json").stdout
    assert "\u202e" not in runs and "\\u202e" in runs
    assert json.loads(runs)[0]["summary"] == question
    table = cli(project, "skills", "runs").stdout
    assert "\u202e" not in table and "[look-alike: '\u0443es' ~ 'yes']" in table
