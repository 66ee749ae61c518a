"""One print-mode task through real processes, once on the direct path and once through
litellm (`CODEBOT_WIRE=litellm`): the router's choice, the skill listing, the point where
the conversation is compacted and every request that reaches the server must be the same,
and so must what the person reads (the answer, the JSON result's usage and cost)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/gpt-4o-mini"  # in litellm's table: a window, prices, tiktoken's o200k


def run(project: Path, home: Path, url: str, wire: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), CODEBOT_HOME=str(home), CODEBOT_WIRE=wire)
    home.mkdir(parents=True, exist_ok=True)
    # A small window, so that the file the model reads pushes the turn into compaction.
    (home / "config.yaml").write_text(
        "model_context_window: {openai/gpt-4o-mini: 9000}\n", encoding="utf-8"
    )
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust"]
    cmd += ["--api-base", url, "--model", MODEL, "--output-format", "json"]
    cmd += ["-p", "write a dockerfile for this python web app", "--allow", "Read"]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=project, env=env, timeout=180)


def _undated(request: dict[str, Any]) -> str:
    """The request as JSON with a conversation summary's `at="YYYY-MM-DD HH:MM"` blanked."""
    return re.sub(
        r'at=\\"\d{4}-\d\d-\d\d \d\d:\d\d\\"', 'at=""', json.dumps(request, sort_keys=True)
    )


SCRIPT: list[dict[str, Any]] = [
    {"match": "Summarize the conversation so far", "text": "SUMMARY: read app.py."},
    {"tool_calls": [{"name": "Read", "arguments": {"path": "app.py"}, "id": "call_1"}]},
    {"text": "FROM python:3.12-slim", "usage": {"prompt_tokens": 2100, "completion_tokens": 9}},
]


@pytest.fixture
def project(project: Path, write_skill: Any) -> Path:
    skills = project / ".codebot" / "skills"
    write_skill(
        skills,
        "dockerfile-writer",
        "name: dockerfile-writer\ndescription: Write a Dockerfile for an application. Use "
        "when asked to containerise an app or write a dockerfile. Not for Kubernetes.",
        "Read the entry point, pick a slim base image, copy only what runs.\n",
    )
    for name, what in (
        ("release-notes", "Write release notes from git history"),
        ("sql-review", "Review SQL migrations for locking problems"),
    ):
        write_skill(skills, name, f"name: {name}\ndescription: {what}.", "Steps.\n")
    lines = [
        f"def handler_{i}(request):\n    return {{'n': {i}, 'ok': True}}\n" for i in range(700)
    ]
    (project / "app.py").write_text("".join(lines), encoding="utf-8")
    return project


def test_one_task_reads_the_same_on_both_paths(
    fake_openai: Any, project: Path, tmp_path: Path
) -> None:
    seen: dict[str, list[dict[str, Any]]] = {}
    results: dict[str, dict[str, Any]] = {}
    for wire in ("direct", "litellm"):
        start = len(fake_openai.requests)
        fake_openai.script([dict(r) for r in SCRIPT])
        proc = run(project, tmp_path / f"home-{wire}", fake_openai.url, wire)
        assert proc.returncode == 0, proc.stderr
        results[wire] = json.loads(proc.stdout)
        seen[wire] = fake_openai.requests[start:]
        with fake_openai._lock:
            fake_openai._queue.clear()
    direct, via_litellm = seen["direct"], seen["litellm"]
    # the skill was chosen, the conversation compacted, and the task finished
    first_system = json.dumps(direct[0]["messages"][:2])
    assert "dockerfile-writer" in first_system
    assert any("Summarize the conversation so far" in json.dumps(r["messages"]) for r in direct)
    assert "FROM python" in results["direct"]["result"]
    # ... in the same way on both paths: every request, in order, byte for byte but for the
    # minute a compaction summary was made (the two runs may straddle a minute)
    assert len(direct) == len(via_litellm) >= 3
    for a, b in zip(direct, via_litellm, strict=True):
        assert _undated(a) == _undated(b)
    for key in ("result", "usage", "stop_reason", "is_error"):
        assert results["direct"].get(key) == results["litellm"].get(key), key
    assert results["direct"]["usage"]["cost"]  # gpt-4o-mini has a price
