"""`-p --output-format stream-json`: an `init` line first and a `result` line last, both
with the session id; `--output-format json` carries the usage by model too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codebot.config import load_settings
from codebot.ui.print_mode import run_print

ROOT = Path(__file__).resolve().parents[2]


def stream_json(
    project: Path, prompt: str, capsys: pytest.CaptureFixture[str], **kw: Any
) -> tuple[int, list[dict]]:
    code = run_print(
        prompt, load_settings(cwd=project, trust=True), output_format="stream-json", **kw
    )
    lines = capsys.readouterr().out.splitlines()
    return code, [json.loads(ln) for ln in lines]


def test_stream_json_begins_with_init_and_ends_with_result(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events = stream_json(project, "please review my recent changes", capsys)
    assert code == 0
    init, result = events[0], events[-1]
    assert init["type"] == "init" and result["type"] == "result"
    assert init["session_id"] and init["session_id"] == result["session_id"]
    assert init["model"] == "offline" and init["cwd"] == str(project.resolve())
    assert {"Read", "Bash", "Skill", "SkillSearch", "Task"} <= set(init["tools"])
    assert init["skills"] == 5  # the bundled ones
    assert result["is_error"] is False and "offline" in result["result"]
    assert result["result"] == next(e["text"] for e in events if e["type"] == "TurnEnded")
    assert set(result["usage"]) >= {"prompt_tokens", "completion_tokens", "total_tokens", "cost"}
    assert list(result["usage_by_model"]) == ["offline"]
    assert [e["type"] for e in events].count("init") == 1 and [e["type"] for e in events].count(
        "result"
    ) == 1


def test_stream_json_result_of_a_failed_turn_is_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events = stream_json(project, "/no-such-skill", capsys)
    assert code == 1
    assert events[0]["type"] == "init" and events[-1]["type"] == "result"
    assert events[-1]["is_error"] is True and events[-1]["error"]["kind"] == "skill"


def test_stream_json_compact_only_has_init_and_result(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, events = stream_json(project, "/compact", capsys)
    assert code == 0
    assert [events[0]["type"], events[-1]["type"]] == ["init", "result"]
    assert events[-1]["result"] == "nothing to compact yet" and events[-1]["is_error"] is False


def test_json_has_usage_by_model(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_print("hello", load_settings(cwd=project, trust=True), output_format="json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["usage_by_model"]["offline"] == out["usage"]


def test_stream_json_from_the_command_line(project: Path) -> None:
    env = dict(os.environ)  # provider keys are already cleared (tests/conftest.py)
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "codebot",
            "-p",
            "hello there",
            "--output-format",
            "stream-json",
            "--trust",
        ],
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert events[0]["type"] == "init" and events[-1]["type"] == "result"
    assert events[0]["session_id"] == events[-1]["session_id"]
    assert (Path(env["CODEBOT_HOME"]) / "sessions" / f"{events[0]['session_id']}.jsonl").exists()
