"""The lifecycle trace of skill invocations, and the summary `codebot skills stats` shows.

Every invocation moves through

    eligible → selected → activated → executing → completed | failed | denied

and each step is one JSON line in `$CODEBOT_HOME/traces/<session>.jsonl`:

    {"time": 1718000000.123, "session": "…", "event": "completed", "actor": "model",
     "skill": "review", "source": "project", "mode": "inline", "duration_ms": 812.4,
     "reason": null}

When a run ends, an `outcome` event follows (issue 35): its `reason` is the outcome's
status (`success`, `failed`, `partial`, `needs_confirmation`), with `timed_out`.

Lines are appended with one `write()` on a file opened in append mode, so several
writers (the main agent, sub-agents, another window) never interleave inside a line.
A tracer never raises: an IO error is kept in `tracer.errors` and the event is dropped.

Only skill names, actors, sources, modes, timings and reasons are written; never the
arguments, the prompt or the skill's output.
"""

from __future__ import annotations

import contextlib
import enum
import json
import math
import os
import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NotRequired, TypedDict

from codebot.home import private_dir, private_fd

EVENTS = ("eligible", "selected", "activated", "executing", "completed", "failed", "denied")
FIELDS = ("time", "session", "event", "actor", "skill", "source", "mode", "duration_ms", "reason")
#: Most errors a tracer keeps (the first ones; later ones are only counted).
MAX_ERRORS = 20

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def traces_dir(home: Path) -> Path:
    """`<home>/traces`; pass `Settings.home` (that is, `$CODEBOT_HOME`)."""
    return Path(home) / "traces"


def trace_path(home: Path, session: str) -> Path:
    """`<home>/traces/<session>.jsonl`, with the session id made safe as a file name."""
    safe = _UNSAFE.sub("_", session).strip("._") or "session"
    return traces_dir(home) / f"{safe[:120]}.jsonl"


def _plain(value: object) -> object:
    """Enums (Actor, Source) as their values; everything else unchanged."""
    return value.value if isinstance(value, enum.Enum) else value


def _without_reserved(fields: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in fields.items() if k not in FIELDS}


class Tracer:
    """Appends lifecycle events for one session. `Tracer(None, ...)` records nothing."""

    def __init__(self, path: Path | None, session: str) -> None:
        self.path = Path(path) if path is not None else None
        self.session = session
        self.errors: list[str] = []
        self.dropped = 0  # events that could not be written
        self._dir_ready = False

    def emit(
        self,
        event: str,
        *,
        actor: object,
        skill: str,
        source: object = None,
        mode: str | None = None,
        duration_ms: float | None = None,
        reason: object = None,
        **extra: object,
    ) -> dict[str, object]:
        """Append one event; returns the record (also when it could not be written).
        `actor` and `source` are strings or enums (written as their values); every value
        is written as JSON, anything JSON does not know as its `str`."""
        record: dict[str, object] = {
            "time": time.time(),
            "session": self.session,
            "event": event,
            "actor": _plain(actor),
            "skill": skill,
            "source": _plain(source),
            "mode": _plain(mode),
            "duration_ms": None if duration_ms is None else round(float(duration_ms), 3),
            "reason": reason,
        }
        for k, v in extra.items():
            if k not in record:
                record[k] = _plain(v)
        if self.path is not None:
            self._append(record)
        return record

    @contextlib.contextmanager
    def span(
        self,
        actor: object,
        skill: str,
        source: object = None,
        mode: str | None = None,
        **extra: object,
    ) -> Iterator[dict[str, object]]:
        """`executing` on enter; `completed` or `failed` (re-raised) with the duration on exit.

        Yields a dict: keys put in it are added to the closing event (a `reason` put
        there replaces the exception text of a `failed` event).
        """

        def close(event: str, ms: float, reason: object, fields: dict[str, object]) -> None:
            self.emit(
                event,
                actor=actor,
                skill=skill,
                source=source,
                mode=mode,
                duration_ms=ms,
                reason=reason,
                **fields,
            )

        after: dict[str, object] = {}
        self.emit(
            "executing",
            actor=actor,
            skill=skill,
            source=source,
            mode=mode,
            duration_ms=None,
            **_without_reserved(extra),
        )
        t0 = time.perf_counter()
        try:
            yield after
        except BaseException as exc:
            ms = (time.perf_counter() - t0) * 1000
            fields = _without_reserved({**extra, **after})
            reason = after.get("reason") or str(exc) or type(exc).__name__
            close("failed", ms, str(reason), fields)
            raise
        ms = (time.perf_counter() - t0) * 1000
        close("completed", ms, after.get("reason"), _without_reserved({**extra, **after}))

    def _append(self, record: dict[str, object]) -> None:
        assert self.path is not None
        try:
            line = (
                json.dumps(record, ensure_ascii=False, default=str, allow_nan=False) + "\n"
            ).encode("utf-8")
        except (TypeError, ValueError) as exc:  # NaN, circular extras
            self._error(f"cannot encode trace event {record.get('event')!r}: {exc}")
            return
        try:
            if not self._dir_ready:
                private_dir(self.path.parent)
                self._dir_ready = True
            # 0600 from creation: reasons and skill names can quote what the person asked.
            fd = private_fd(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                written = os.write(fd, line)  # one write: appends never interleave
            finally:
                os.close(fd)
            if written != len(line):
                self._error(f"short write to {self.path} ({written} of {len(line)} bytes)")
        except OSError as exc:
            self._error(f"cannot write trace {self.path}: {exc.strerror or exc}")

    def _error(self, message: str) -> None:
        self.dropped += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(message)


# -- summary ------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile: the smallest value with at least p% of values at or below."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


class _Counts(TypedDict):
    """What `summarize` adds up for a skill (or for all) while it reads the events."""

    events: dict[str, int]
    completed: int
    failures: int
    denials: int
    _durations: list[float]
    sources: set[str]
    actors: set[str]


class SkillStats(TypedDict):
    """One skill's row of `summarize()` (`totals` also has `skills`)."""

    invocations: int
    completed: int
    failures: int
    denials: int
    p50_ms: float | None
    p95_ms: float | None
    timed: int
    sources: list[str]
    actors: list[str]
    events: dict[str, int]
    skills: NotRequired[int]


class Summary(TypedDict):
    """What `summarize()` returns (see there)."""

    dir: str
    files: int
    sessions: int
    events: int
    bad_lines: int
    unreadable: list[str]
    skills: dict[str, SkillStats]
    totals: SkillStats
    #: names asked for that are not skills (`codebot skills stats` moves them here)
    not_skills: NotRequired[dict[str, int]]


#: an event line read back: a JSON object with a string `event` and `skill`
Record = dict[str, object]


def _new_stats() -> _Counts:
    return {
        "events": {},
        "completed": 0,
        "failures": 0,
        "denials": 0,
        "_durations": [],
        "sources": set(),
        "actors": set(),
    }


def _finish(stats: _Counts) -> SkillStats:
    events: dict[str, int] = stats["events"]
    durations: list[float] = stats["_durations"]
    return {
        "invocations": events.get("activated", 0) or events.get("executing", 0),
        "completed": stats["completed"],
        "failures": stats["failures"],
        "denials": stats["denials"],
        "p50_ms": percentile(durations, 50),
        "p95_ms": percentile(durations, 95),
        "timed": len(durations),
        "sources": sorted(stats["sources"]),
        "actors": sorted(stats["actors"]),
        "events": dict(sorted(events.items(), key=lambda kv: _event_order(kv[0]))),
    }


def _event_order(event: str) -> tuple[int, str]:
    return (EVENTS.index(event) if event in EVENTS else len(EVENTS), event)


def summarize(traces_dir: Path, since: float | None = None) -> Summary:
    """Read every `*.jsonl` in `traces_dir` and summarize per skill.

    Per skill: `invocations` (activated events, or executing ones when a skill has no
    activated events), `completed`, `failures`, `denials`, `p50_ms`/`p95_ms`
    (nearest-rank, over completed and failed events with a duration), `sources`,
    `actors` and the count of each event. `totals` sums them over all skills.
    Lines that are not JSON objects with an `event` and a `skill` (a truncated last
    line, a hand edit) are skipped and counted in `bad_lines`. Never raises for bad
    content; a missing folder gives an empty summary.
    """
    traces_dir = Path(traces_dir)
    per_skill: dict[str, _Counts] = {}
    total = _new_stats()
    files = events = bad = 0
    sessions: set[str] = set()
    unreadable: list[str] = []
    try:
        paths = sorted(p for p in traces_dir.glob("*.jsonl") if p.is_file())
    except OSError:
        paths = []
    for path in paths:
        try:
            records = _read_lines(path)
        except OSError as exc:
            unreadable.append(f"{path.name}: {exc.strerror or exc}")
            continue
        files += 1
        for rec in records:
            if rec is None:
                bad += 1
                continue
            t = rec.get("time")
            if since is not None and isinstance(t, int | float) and t < since:
                continue
            events += 1
            session = rec.get("session")
            if isinstance(session, str):
                sessions.add(session)
            stats = per_skill.setdefault(str(rec["skill"]), _new_stats())  # a str (_read_lines)
            for s in (stats, total):
                _count(s, rec)
    skills = {name: _finish(s) for name, s in per_skill.items()}
    ordered = dict(sorted(skills.items(), key=lambda kv: (-kv[1]["invocations"], kv[0])))
    totals = _finish(total)
    totals["invocations"] = sum(s["invocations"] for s in skills.values())
    totals["skills"] = len(skills)
    return {
        "dir": str(traces_dir),
        "files": files,
        "sessions": len(sessions),
        "events": events,
        "bad_lines": bad,
        "unreadable": unreadable,
        "skills": ordered,
        "totals": totals,
    }


#: An event line is short; a longer line is not one (and is not kept in memory).
MAX_TRACE_LINE = 1024 * 1024


def _read_lines(path: Path) -> list[Record | None]:
    """Each non-blank line as an event record, or None for a line that is not one."""
    from codebot.skills.files.safe_read import bounded_lines, open_own

    out: list[Record | None] = []
    with open_own(path) as fh:  # a FIFO, a link, another user's file: OSError, skipped
        for raw in bounded_lines(fh, MAX_TRACE_LINE):
            if raw is None:  # longer than any event: not one
                out.append(None)
                continue
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except (ValueError, RecursionError):
                out.append(None)
                continue
            ok = (
                isinstance(rec, dict)
                and isinstance(rec.get("event"), str)
                and isinstance(rec.get("skill"), str)
            )
            out.append(rec if ok else None)
    return out


def _count(stats: _Counts, rec: Record) -> None:
    event = str(rec["event"])  # a str (_read_lines)
    stats["events"][event] = stats["events"].get(event, 0) + 1
    if event == "completed":
        stats["completed"] += 1
    elif event == "failed":
        stats["failures"] += 1
    elif event == "denied":
        stats["denials"] += 1
    if event in ("completed", "failed"):
        d = rec.get("duration_ms")
        if isinstance(d, int | float) and not isinstance(d, bool) and math.isfinite(d) and d >= 0:
            stats["_durations"].append(float(d))
    for key, bucket in (("source", "sources"), ("actor", "actors")):
        v = rec.get(key)
        if isinstance(v, str) and v:
            stats["sources" if bucket == "sources" else "actors"].add(v)


def _ms(v: float | None) -> str:
    if v is None:
        return "-"
    if v >= 10_000:
        return f"{v / 1000:.1f}s"
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def format_stats(summary: Summary) -> str:
    """A readable table of `summarize()`'s result, one row per skill and a total row."""
    skills: dict[str, SkillStats] = summary.get("skills", {})
    where = summary.get("dir", "the traces folder")
    if not skills:
        lines = [f"No skill traces yet in {where}."]
        if summary.get("bad_lines"):
            lines.append(f"({summary['bad_lines']} unreadable line(s) skipped)")
        return "\n".join(lines)
    header = ("skill", "runs", "ok", "failed", "denied", "p50 ms", "p95 ms", "sources", "actors")
    rows: list[tuple[str, ...]] = [header]
    for name, s in skills.items():
        rows.append(_row(name, s))
    totals = summary.get("totals", {})
    rows.append(_row("total", totals))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    numeric = {1, 2, 3, 4, 5, 6}

    def fmt(r: tuple[str, ...]) -> str:
        cells = [
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    out = [fmt(rows[0]), "  ".join("-" * w for w in widths)]
    out += [fmt(r) for r in rows[1:-1]]
    out += ["  ".join("-" * w for w in widths), fmt(rows[-1])]
    foot = (
        f"{summary.get('events', 0)} events from {summary.get('sessions', 0)} session(s) "
        f"in {summary.get('files', 0)} file(s), {where}"
    )
    if summary.get("bad_lines"):
        foot += f"; {summary['bad_lines']} bad line(s) skipped"
    if summary.get("unreadable"):
        foot += f"; {len(summary['unreadable'])} unreadable file(s)"
    out += ["", foot]
    return "\n".join(out)


def _row(name: str, s: SkillStats) -> tuple[str, ...]:
    return (
        name,
        str(s.get("invocations", 0)),
        str(s.get("completed", 0)),
        str(s.get("failures", 0)),
        str(s.get("denials", 0)),
        _ms(s.get("p50_ms")),
        _ms(s.get("p95_ms")),
        ", ".join(s.get("sources", ())) or "-",
        ", ".join(s.get("actors", ())) or "-",
    )
