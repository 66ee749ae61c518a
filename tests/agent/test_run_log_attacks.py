"""`codebot skills runs` / `skills stats` over hostile files in `$CODEBOT_HOME/sessions`
and `traces` (issue 35 hardening): a FIFO, links to devices or other files, one endless
line, malformed and out-of-range records. Nothing hangs, crashes or is shown raw; the good
records are still counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codebot.agent.session.run_log import read_runs

NOW = time.time()


def header(sid: str = "s1") -> str:
    return json.dumps({"type": "session", "id": sid, "created": NOW, "project": "/p"}) + "\n"


def record(**kw: object) -> str:
    rec = {"type": "skill_outcome", "time": NOW, "name": "good", "status": "success", "ms": 5.0}
    rec.update(kw)
    return json.dumps(rec) + "\n"


@pytest.fixture
def sessions(codebot_home: Path) -> Path:
    folder = codebot_home / "sessions"
    folder.mkdir(exist_ok=True)
    (folder / "ok.jsonl").write_text(header() + record())
    return folder


def cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "skills", *args]
    # The limit only ends a run that hangs (the old code, on a FIFO: for ever).
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=project)


def test_a_fifo_among_the_sessions_does_not_hang(sessions: Path, project: Path) -> None:
    os.mkfifo(sessions / "trap.jsonl")
    log = read_runs(sessions)
    assert [r.name for r in log.runs] == ["good"]
    for args in (("runs", "--json"), ("stats", "--json")):
        done = cli(project, *args)
        assert done.returncode == 0, done.stderr
    assert json.loads(cli(project, "runs", "--json").stdout)[0]["name"] == "good"


def test_links_are_not_followed(sessions: Path, tmp_path: Path) -> None:
    """A link to `/dev/zero` would be one endless line; a link to a transcript elsewhere
    is not one of ours."""
    os.symlink("/dev/zero", sessions / "zero.jsonl")
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text(header("s2") + record(name="linked"))
    os.symlink(elsewhere, sessions / "linked.jsonl")
    assert [r.name for r in read_runs(sessions).runs] == ["good"]


def test_one_endless_line_is_skipped_without_being_kept(sessions: Path) -> None:
    huge = '{"type": "skill_outcome", "summary": "' + "x" * 3_000_000 + '"}\n'
    (sessions / "huge.jsonl").write_text(header("s3") + huge + record(name="after"))
    log = read_runs(sessions)
    assert sorted(r.name for r in log.runs) == ["after", "good"]
    assert log.bad == 1


@pytest.mark.parametrize(
    "line",
    [
        record(time=1e300),
        record(time=-1e300),
        record(time=-5),
        record(ms=float("inf")).replace("Infinity", "1e999"),
        record(status="hacked\x1b[2J"),
        record(name=["x"]),
        "[" * 100_000 + "\n",
        '{"type": "skill_outcome", "time": \n',
        record(tries=1e308),
    ],
    ids=[
        "far-future",
        "far-past",
        "negative",
        "infinite-ms",
        "escape-status",
        "list-name",
        "deep-json",
        "cut-off",
        "huge-tries",
    ],
)
def test_malformed_records_are_skipped_or_bounded(sessions: Path, project: Path, line: str) -> None:
    (sessions / "bad.jsonl").write_text(header("s4") + line)
    log = read_runs(sessions)
    assert all(r.tries <= 1000 for r in log.runs)
    for args in (("runs",), ("stats",), ("runs", "--json"), ("stats", "--json")):
        done = cli(project, *args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert "\x1b" not in done.stdout


def test_a_transcript_of_another_user_is_not_read(
    sessions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen as another user (our uid shifted): no transcript is ours, none is read."""
    real = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real + 1)
    assert read_runs(sessions).runs == []


def test_hostile_trace_files_do_not_hang_stats(codebot_home: Path, project: Path) -> None:
    traces = codebot_home / "traces"
    traces.mkdir(exist_ok=True)
    os.mkfifo(traces / "fifo.jsonl")
    os.symlink("/dev/zero", traces / "zero.jsonl")
    (traces / "long.jsonl").write_text("x" * 3_000_000 + "\n")
    done = cli(project, "stats", "--json")
    assert done.returncode == 0, done.stderr
