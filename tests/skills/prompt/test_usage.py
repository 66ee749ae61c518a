"""Usage scores: decay, persistence, corruption, unwritable homes and concurrent writers."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import codebot.skills.prompt.usage as usage_mod
from codebot.skills.prompt import DAY, FLOOR, UsageTracker, default_path

NOW = 1_700_000_000.0


@pytest.fixture
def home(codebot_home: Path) -> Path:
    """CODEBOT_HOME inside the private HOME (tests/conftest.py)."""
    return codebot_home


def test_default_path(home: Path) -> None:
    assert default_path(home) == home / "skill-usage.json"


def test_one_use_decays_with_a_seven_day_half_life(home: Path) -> None:
    t = UsageTracker(default_path(home))
    t.record("review", now=NOW - 7 * DAY)
    assert t.score("review", now=NOW) == pytest.approx(0.5)
    assert t.score("review", now=NOW - 7 * DAY) == pytest.approx(1.0)
    assert t.score("review", now=NOW + 7 * DAY) == pytest.approx(0.25)


def test_sum_of_decayed_uses(home: Path) -> None:
    t = UsageTracker(default_path(home))
    t.record("review", now=NOW - 14 * DAY)
    t.record("review", now=NOW - 7 * DAY)
    t.record("review", now=NOW)
    assert t.score("review", now=NOW) == pytest.approx(0.25 + 0.5 + 1.0)


def test_a_late_older_use_is_counted_exactly(home: Path) -> None:
    t = UsageTracker(default_path(home))
    t.record("review", now=NOW)
    t.record("review", now=NOW - 7 * DAY)  # e.g. a slow process writing after a fast one
    assert t.score("review", now=NOW) == pytest.approx(1.5)


def test_floor_after_months(home: Path) -> None:
    t = UsageTracker(default_path(home))
    t.record("review", now=NOW - 180 * DAY)
    assert t.score("review", now=NOW) == FLOOR
    assert t.scores(now=NOW) == {"review": FLOOR}
    assert t.score("never-used", now=NOW) == 0.0


def test_custom_half_life(home: Path) -> None:
    t = UsageTracker(default_path(home), half_life_days=1.0)
    t.record("review", now=NOW - DAY)
    assert t.score("review", now=NOW) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        UsageTracker(default_path(home), half_life_days=0)


def test_roundtrip_across_instances(home: Path) -> None:
    path = default_path(home)
    a = UsageTracker(path)
    for _ in range(3):
        a.record("review", now=NOW)
    a.record("debug", now=NOW)
    b = UsageTracker(path)
    assert b.scores(now=NOW) == {"review": pytest.approx(3.0), "debug": pytest.approx(1.0)}
    b.record("debug", now=NOW)
    # `a` sees b's write: its cache follows the file's stamp.
    assert a.score("debug", now=NOW) == pytest.approx(2.0)
    assert a.warnings == [] and b.warnings == []


def test_file_is_compact(home: Path) -> None:
    path = default_path(home)
    t = UsageTracker(path)
    t.record("review", now=NOW)
    size = path.stat().st_size
    for i in range(50):
        t.record("review", now=NOW + i)
    assert path.stat().st_size <= size + 24  # one number per skill, not one per use
    doc = json.loads(path.read_text())
    assert set(doc["skills"]) == {"review"}
    assert set(doc["skills"]["review"]) == {"total", "at"}
    assert not list(home.glob("*.tmp")) and not list(home.glob(".*.tmp"))


def test_scores_reads_the_file_only_when_it_changed(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = default_path(home)
    UsageTracker(path).record("review", now=NOW)
    t = UsageTracker(path)
    calls = []
    real = usage_mod._parse

    def counting(data: bytes) -> object:
        calls.append(1)
        return real(data)

    monkeypatch.setattr(usage_mod, "_parse", counting)
    for _ in range(5):
        assert t.score("review", now=NOW) == pytest.approx(1.0)
    assert len(calls) == 1
    UsageTracker(path).record("review", now=NOW)  # another writer (parses once itself)
    before = len(calls)
    assert t.score("review", now=NOW) == pytest.approx(2.0)
    assert t.score("review", now=NOW) == pytest.approx(2.0)
    assert len(calls) == before + 1


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[1, 2, 3]",
        b'{"skills": []}',
        b'{"skills": {"review": {"total": "x", "at": 1}}}',
        b'{"format": 99, "skills": {}}',
        b"\xff\xfe\x00",
    ],
)
def test_corrupt_file_is_moved_aside_and_counting_restarts(
    home: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = default_path(home)
    path.write_bytes(content)
    t = UsageTracker(path)
    with caplog.at_level(logging.WARNING, logger="codebot.usage"):
        t.record("review", now=NOW)
    aside = list(home.glob("skill-usage.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content
    assert t.scores(now=NOW) == {"review": pytest.approx(1.0)}
    assert t.persistent
    assert len(t.warnings) == 1 and "corrupt-" in t.warnings[0]
    assert any("moved it to" in r.getMessage() for r in caplog.records)
    # The new file is good: another tracker reads it without complaint.
    fresh = UsageTracker(path)
    assert fresh.scores(now=NOW) == {"review": pytest.approx(1.0)}
    assert fresh.warnings == []


def test_corrupt_file_found_by_scores_is_moved_aside(home: Path) -> None:
    path = default_path(home)
    path.write_text("garbage")
    t = UsageTracker(path)
    assert t.scores(now=NOW) == {}
    assert len(list(home.glob("skill-usage.json.corrupt-*"))) == 1
    assert not path.exists()
    t.record("review", now=NOW)
    assert t.scores(now=NOW) == {"review": pytest.approx(1.0)}


def test_two_corrupt_files_get_distinct_names(home: Path) -> None:
    path = default_path(home)
    for _ in range(2):
        path.write_text("garbage")
        UsageTracker(path).record("x", now=NOW)
        path.unlink()
    assert len(list(home.glob("skill-usage.json.corrupt-*"))) == 2


def test_unwritable_location_falls_back_to_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a regular file where the home folder should be")
    t = UsageTracker(blocker / "home" / "skill-usage.json")
    with caplog.at_level(logging.WARNING, logger="codebot.usage"):
        for _ in range(3):
            t.record("review", now=NOW)
        t.record("debug", now=NOW - 7 * DAY)
        scores = t.scores(now=NOW)
    assert scores == {"review": pytest.approx(3.0), "debug": pytest.approx(0.5)}
    assert not t.persistent
    assert len(t.warnings) == 1 and "in memory" in t.warnings[0]
    assert sum("in memory" in r.getMessage() for r in caplog.records) == 1


def test_no_path_counts_in_memory(home: Path) -> None:
    t = UsageTracker(None)
    t.record("review", now=NOW)
    t.record("review", now=NOW)
    assert t.scores(now=NOW) == {"review": pytest.approx(2.0)}
    assert not t.persistent and len(t.warnings) == 1
    assert not list(home.iterdir())


def test_path_is_a_directory(home: Path) -> None:
    path = default_path(home)
    path.mkdir()
    t = UsageTracker(path)
    t.record("review", now=NOW)
    assert t.scores(now=NOW) == {"review": pytest.approx(1.0)}
    assert path.is_dir()  # not moved aside: it is not ours
    assert not t.persistent


def test_lock_timeout_falls_back_to_memory(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usage_mod, "LOCK_TIMEOUT", 0.05)
    path = default_path(home)
    UsageTracker(path).record("review", now=NOW)  # history the stuck lock does not hide
    t = UsageTracker(path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys, time, filelock
            with filelock.FileLock({str(path) + ".lock"!r}):
                print("locked", flush=True)
                sys.stdin.readline()
        """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        t.record("review", now=NOW)
        t.record("debug", now=NOW)
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=10)
    assert not t.persistent and "lock" in t.warnings[0]
    # File history plus the in-session uses.
    assert t.scores(now=NOW) == {"review": pytest.approx(2.0), "debug": pytest.approx(1.0)}
    assert UsageTracker(path).scores(now=NOW) == {"review": pytest.approx(1.0)}


def test_record_never_raises_on_unexpected_errors(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*a: object, **k: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(usage_mod, "_write_atomic", boom)
    t = UsageTracker(default_path(home))
    t.record("review", now=NOW)
    assert t.scores(now=NOW) == {"review": pytest.approx(1.0)}
    assert "disk on fire" in t.warnings[0]


def test_failed_write_leaves_no_temp_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def bad_replace(src: str, dst: object) -> None:
        raise OSError(28, "No space left on device")

    path = default_path(home)
    monkeypatch.setattr(usage_mod.os, "replace", bad_replace)
    t = UsageTracker(path)
    t.record("review", now=NOW)
    assert [p.name for p in home.iterdir() if p.name != "skill-usage.json.lock"] == []
    assert t.score("review", now=NOW) == pytest.approx(1.0)


_WORKER = """
import sys
from pathlib import Path
from codebot.skills.prompt.usage import UsageTracker
t = UsageTracker(Path(sys.argv[1]))
sys.stdin.readline()  # start together
for _ in range(int(sys.argv[2])):
    t.record(sys.argv[3], now=float(sys.argv[4]))
assert t.persistent, t.warnings
print("done")
"""


@pytest.mark.slow
def test_two_processes_lose_no_count(home: Path) -> None:
    path = default_path(home)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(path), "200", "review", repr(NOW)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.strip() == "done"
    t = UsageTracker(path)
    assert t.scores(now=NOW) == {"review": 400.0}  # exact: no decay with a fixed `now`
    assert t.warnings == []
