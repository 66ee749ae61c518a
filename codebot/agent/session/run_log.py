"""Skill runs read back from the transcripts (issue 35 §3): every `skill_outcome` record
in `$CODEBOT_HOME/sessions/*.jsonl`, for `codebot skills runs` and the outcome columns of
`codebot skills stats`. Nothing is stored beyond those records.

A line is parsed only when it starts as a `skill_outcome` record, so a long session's
messages cost a prefix test each. Damaged lines and records with missing or wrong-typed
fields are skipped (counted in `RunLog.bad`); no file is ever written.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from codebot.skills.files.safe_read import bounded_lines
from codebot.skills.outcome import Status
from codebot.skills.trace import percentile

_PREFIX = '{"type": "skill_outcome"'
#: A record is far shorter (arguments, summary and data are cut when written).
MAX_RECORD_CHARS = 256 * 1024
#: The times `time.localtime` can show (year 1970 to 9999).
_LAST_TIME = 253_402_300_799.0


@dataclass(frozen=True)
class SkillRun:
    """One skill run as its transcript recorded it."""

    time: float
    session: str
    project: str
    name: str
    actor: str
    mode: str
    args: str
    status: str
    summary: str
    ms: float
    timed_out: bool = False
    tries: int = 1
    depth: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "time": self.time,
            "session": self.session,
            "project": self.project,
            "name": self.name,
            "actor": self.actor,
            "mode": self.mode,
            "args": self.args,
            "status": self.status,
            "summary": self.summary,
            "ms": self.ms,
            "timed_out": self.timed_out,
            "tries": self.tries,
        }


@dataclass
class RunLog:
    runs: list[SkillRun] = field(default_factory=list)
    bad: int = 0  # records that could not be read
    files: int = 0


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _run(rec: dict[str, object], session: str, project: str) -> SkillRun | None:
    t, ms = _number(rec.get("time")), _number(rec.get("ms"))
    name, status = rec.get("name"), rec.get("status")
    if t is None or ms is None or not isinstance(name, str) or status not in set(Status):
        return None
    if not 0 <= t <= _LAST_TIME:
        return None
    tries = _number(rec.get("tries")) or _number(rec.get("attempt")) or 1
    return SkillRun(
        t,
        session,
        project,
        name,
        str(rec.get("actor") or ""),
        str(rec.get("mode") or ""),
        str(rec.get("args") or ""),
        str(status),
        str(rec.get("summary") or ""),
        max(0.0, ms),
        rec.get("timed_out") is True,
        min(max(1, int(tries)), 1000),
        int(_number(rec.get("depth")) or 0),
    )


def _records(fh: IO[str]) -> tuple[list[str], int]:
    """The `skill_outcome` lines of an open transcript, and how many lines were too long
    to be one (`MAX_RECORD_CHARS`; skipped, never kept)."""
    found: list[str] = []
    long = 0
    for line in bounded_lines(fh, MAX_RECORD_CHARS):
        if line is None:
            long += 1
        elif line.startswith(_PREFIX):
            found.append(line)
    return found, long


def read_runs(sessions_dir: Path, since: float | None = None) -> RunLog:
    """Every recorded skill run in the sessions folder, oldest first."""
    import json

    from codebot.agent.session.transcript import find_sessions
    from codebot.skills.files.safe_read import open_own

    log = RunLog()
    for info in find_sessions(sessions_dir):
        log.files += 1
        try:
            with open_own(info.path) as fh:
                lines, long = _records(fh)
        except OSError:
            continue
        log.bad += long
        for line in lines:
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):
                log.bad += 1
                continue
            run = _run(rec, info.id, info.project) if isinstance(rec, dict) else None
            if run is None:
                log.bad += 1
            elif since is None or run.time >= since:
                log.runs.append(run)
    log.runs.sort(key=lambda r: r.time)
    return log


def outcome_stats(runs: Iterable[SkillRun]) -> dict[str, dict[str, object]]:
    """Per skill: calls, outcomes by status, timeouts, retries, p50/p95 duration (ms) and
    the last failure's summary and time; most called first."""
    by_skill: dict[str, list[SkillRun]] = {}
    for run in runs:
        by_skill.setdefault(run.name, []).append(run)
    out: dict[str, dict[str, object]] = {}
    for name, rs in sorted(by_skill.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        failures = [r for r in rs if r.status == Status.FAILED.value]
        last = max(failures, key=lambda r: r.time) if failures else None
        durations = [r.ms for r in rs]
        out[name] = {
            "calls": len(rs),
            "outcomes": {s.value: sum(r.status == s.value for r in rs) for s in Status},
            "timeouts": sum(r.timed_out for r in rs),
            "retries": sum(r.tries - 1 for r in rs),
            "p50_ms": percentile(durations, 50),
            "p95_ms": percentile(durations, 95),
            "last_failure": None
            if last is None
            else {"time": last.time, "summary": last.summary, "session": last.session},
        }
    return out
