"""Lifecycle traces: JSON lines, spans, the stats summary and unwritable locations."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codebot.skills.files import Source
from codebot.skills.invoke import Actor
from codebot.skills.trace import (
    EVENTS,
    FIELDS,
    Tracer,
    format_stats,
    percentile,
    summarize,
    trace_path,
    traces_dir,
)


@pytest.fixture
def home(codebot_home: Path) -> Path:
    """CODEBOT_HOME inside the private HOME (tests/conftest.py)."""
    return codebot_home


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_paths(home: Path) -> None:
    assert traces_dir(home) == home / "traces"
    assert (
        trace_path(home, "2024-06-01T10-00-00-ab12")
        == home / "traces" / "2024-06-01T10-00-00-ab12.jsonl"
    )
    assert trace_path(home, "../../etc/passwd").parent == home / "traces"


def test_events_are_json_lines_with_every_field(home: Path) -> None:
    path = trace_path(home, "s1")
    tracer = Tracer(path, "s1")
    before = time.time()
    for event in EVENTS:
        tracer.emit(event, actor=Actor.MODEL, skill="review", source=Source.PROJECT, mode="inline")
    tracer.emit(
        "denied",
        actor="human",
        skill="deploy",
        reason="user-invocable: false",
        decided_by="user-invocable",
    )
    assert path.parent.is_dir()
    recs = _lines(path)
    assert [r["event"] for r in recs] == [*EVENTS, "denied"]
    for r in recs:
        assert set(FIELDS) <= set(r)
        assert r["session"] == "s1"
        assert before <= r["time"] <= time.time()
    assert recs[0] | {"time": 0} == {
        "time": 0,
        "session": "s1",
        "event": "eligible",
        "actor": "model",
        "skill": "review",
        "source": "project",
        "mode": "inline",
        "duration_ms": None,
        "reason": None,
    }
    assert recs[-1]["reason"] == "user-invocable: false"
    assert recs[-1]["decided_by"] == "user-invocable"
    assert recs[-1]["source"] is None and recs[-1]["mode"] is None
    assert tracer.errors == []


def test_extra_fields_do_not_override_the_standard_ones(home: Path) -> None:
    tracer = Tracer(trace_path(home, "s"), "s")
    rec = tracer.emit("selected", actor="model", skill="review", session="forged", score=0.91)
    assert rec["session"] == "s" and rec["score"] == 0.91


def test_appends_to_an_existing_file(home: Path) -> None:
    path = trace_path(home, "s")
    Tracer(path, "s").emit("activated", actor="human", skill="a")
    Tracer(path, "s").emit("activated", actor="human", skill="b")
    assert [r["skill"] for r in _lines(path)] == ["a", "b"]


def test_span_completed_has_a_duration(home: Path) -> None:
    path = trace_path(home, "s")
    tracer = Tracer(path, "s")
    with tracer.span(Actor.HUMAN, "review", Source.USER, "fork") as info:
        time.sleep(0.02)
        info["turns"] = 3
    executing, completed = _lines(path)
    assert executing["event"] == "executing" and executing["duration_ms"] is None
    assert completed["event"] == "completed"
    assert completed["duration_ms"] >= 15
    assert (
        completed["actor"] == "human"
        and completed["source"] == "user"
        and completed["mode"] == "fork"
    )
    assert completed["turns"] == 3 and completed["reason"] is None


def test_span_failed_records_the_reason_and_reraises(home: Path) -> None:
    path = trace_path(home, "s")
    tracer = Tracer(path, "s")
    with (
        pytest.raises(RuntimeError, match="command exited 2"),
        tracer.span("model", "build", "project", "inline"),
    ):
        time.sleep(0.01)
        raise RuntimeError("command exited 2")
    executing, failed = _lines(path)
    assert executing["event"] == "executing"
    assert failed["event"] == "failed"
    assert failed["reason"] == "command exited 2"
    assert failed["duration_ms"] >= 5
    with pytest.raises(KeyError), tracer.span("model", "build"):
        raise KeyError
    assert _lines(path)[-1]["reason"] == "KeyError"


def test_span_extras_cannot_clash_with_standard_fields(home: Path) -> None:
    path = trace_path(home, "s")
    tracer = Tracer(path, "s")
    with (
        pytest.raises(OSError, match="disk"),
        tracer.span("model", "x", duration_ms=1, depth=2) as info,
    ):
        info.update(reason="command failed: exit 3", duration_ms=5, skill="other", exit_code=3)
        raise OSError("disk")
    executing, failed = _lines(path)
    assert executing["duration_ms"] is None and executing["depth"] == 2
    assert failed["reason"] == "command failed: exit 3" and failed["skill"] == "x"
    assert failed["exit_code"] == 3 and failed["depth"] == 2 and failed["duration_ms"] != 5


def test_no_path_records_nothing(home: Path) -> None:
    tracer = Tracer(None, "s")
    rec = tracer.emit("activated", actor="model", skill="review")
    assert rec["event"] == "activated"
    with tracer.span("model", "review"):
        pass
    assert tracer.errors == []
    assert not (home / "traces").exists()


def test_unwritable_path_does_not_raise(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    tracer = Tracer(blocker / "traces" / "s.jsonl", "s")
    tracer.emit("activated", actor="model", skill="review")
    with tracer.span("model", "review"):
        pass
    with pytest.raises(ValueError), tracer.span("model", "review"):
        raise ValueError("still re-raised")
    assert tracer.errors and tracer.dropped == 5
    assert "cannot write trace" in tracer.errors[0]


def test_unencodable_extra_does_not_raise(home: Path) -> None:
    path = trace_path(home, "s")
    tracer = Tracer(path, "s")
    tracer.emit("completed", actor="model", skill="x", duration_ms=float("nan"))
    tracer.emit("completed", actor="model", skill="x", obj=object())  # written with str()
    assert len(tracer.errors) == 1
    assert len(_lines(path)) == 1


def test_concurrent_writers_do_not_interleave(home: Path) -> None:
    path = trace_path(home, "shared")
    script = (
        "import sys; from pathlib import Path; from codebot.skills.trace import Tracer\n"
        "t = Tracer(Path(sys.argv[1]), 'shared')\n"
        "for i in range(300): t.emit('activated', actor='model', skill=sys.argv[2], reason='x' * "
        "500)\n"
        "assert not t.errors, t.errors\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(path), name], cwd=root)
        for name in ("a", "b", "c")
    ]
    for p in procs:
        assert p.wait(timeout=60) == 0
    recs = _lines(path)  # every line parses
    assert len(recs) == 900
    assert sorted({r["skill"] for r in recs}) == ["a", "b", "c"]


def test_percentile_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([7.0], 95) == 7.0
    values = [float(v) for v in range(1, 21)]  # 1..20
    assert percentile(values, 50) == 10.0
    assert percentile(values, 95) == 19.0
    assert percentile([15.0, 20.0, 35.0, 40.0, 50.0], 50) == 35.0
    assert percentile([3.0, 1.0, 2.0], 100) == 3.0


def _event(event: str, skill: str, **kw: object) -> str:
    rec = {
        "time": 1.0,
        "session": "s",
        "event": event,
        "actor": "model",
        "skill": skill,
        "source": "project",
        "mode": "inline",
        "duration_ms": None,
        "reason": None,
    }
    rec.update(kw)
    return json.dumps(rec)


def test_summarize_hand_made_traces(tmp_path: Path) -> None:
    d = tmp_path / "traces"
    d.mkdir()
    review = []
    for ms in (10, 20, 30, 40):
        review += [
            _event("eligible", "review"),
            _event("selected", "review"),
            _event("activated", "review"),
            _event("executing", "review"),
            _event("completed", "review", duration_ms=ms),
        ]
    review += [
        _event("activated", "review", actor="human", source="user"),
        _event("executing", "review"),
        _event("failed", "review", duration_ms=100, reason="boom"),
    ]
    (d / "one.jsonl").write_text("\n".join(review) + "\n")
    other = [
        _event("denied", "deploy", actor="model", reason="disable-model-invocation"),
        _event("denied", "deploy", actor="model"),
        "this is not json",
        "[1, 2]",
        "",
        # `build` is traced without `activated` (a span only): executing counts.
        _event("executing", "build", mode="fork"),
        _event("completed", "build", duration_ms=5.5, mode="fork"),
        _event("executing", "build", mode="fork"),
    ]
    (d / "two.jsonl").write_text(
        "\n".join(other) + "\n" + _event("completed", "build", duration_ms=9)[:40]
    )
    (d / "ignored.txt").write_text("not a trace")

    s = summarize(d)
    assert s["files"] == 2 and s["sessions"] == 1
    assert s["bad_lines"] == 3  # two bad lines and the truncated last one
    assert list(s["skills"]) == ["review", "build", "deploy"]  # most invocations first

    r = s["skills"]["review"]
    assert (
        r["invocations"] == 5 and r["completed"] == 4 and r["failures"] == 1 and r["denials"] == 0
    )
    assert r["p50_ms"] == 30 and r["p95_ms"] == 100  # durations 10,20,30,40,100
    assert r["sources"] == ["project", "user"] and r["actors"] == ["human", "model"]
    assert r["events"]["eligible"] == 4 and next(iter(r["events"])) == "eligible"

    b = s["skills"]["build"]
    assert (
        b["invocations"] == 2 and b["completed"] == 1 and b["p50_ms"] == 5.5 and b["p95_ms"] == 5.5
    )

    dep = s["skills"]["deploy"]
    assert dep["invocations"] == 0 and dep["denials"] == 2 and dep["p50_ms"] is None

    t = s["totals"]
    assert (
        t["invocations"] == 7 and t["completed"] == 5 and t["failures"] == 1 and t["denials"] == 2
    )
    assert t["skills"] == 3
    assert t["p50_ms"] == 20 and t["p95_ms"] == 100  # 5.5,10,20,30,40,100
    assert s["events"] == 28
    json.dumps(s)  # --json can print it as is

    table = format_stats(s)
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["skill", "runs", "ok"]
    row = next(line for line in lines if line.startswith("review"))
    assert row.split()[:7] == ["review", "5", "4", "1", "0", "30.0", "100"]
    assert any(line.startswith("total") for line in lines)
    assert "3 bad line(s) skipped" in table


def test_summarize_since(tmp_path: Path) -> None:
    d = tmp_path / "traces"
    d.mkdir()
    (d / "s.jsonl").write_text(
        _event("activated", "old", time=10.0) + "\n" + _event("activated", "new", time=99.0) + "\n"
    )
    assert list(summarize(d, since=50.0)["skills"]) == ["new"]


def test_summarize_missing_or_empty_folder(tmp_path: Path) -> None:
    s = summarize(tmp_path / "nope")
    assert s["skills"] == {} and s["totals"]["invocations"] == 0 and s["files"] == 0
    assert "No skill traces yet" in format_stats(s)


def test_roundtrip_tracer_to_summary(home: Path) -> None:
    tracer = Tracer(trace_path(home, "abc"), "abc")
    for _ in range(3):
        tracer.emit(
            "activated", actor=Actor.MODEL, skill="review", source=Source.BUNDLED, mode="inline"
        )
        with tracer.span(Actor.MODEL, "review", Source.BUNDLED, "inline"):
            pass
    s = summarize(traces_dir(home))
    assert s["skills"]["review"]["invocations"] == 3
    assert s["skills"]["review"]["completed"] == 3
    assert s["skills"]["review"]["sources"] == ["bundled"]
    assert s["skills"]["review"]["p95_ms"] is not None
