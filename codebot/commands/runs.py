"""`codebot skills runs [NAME] [--json] [--failed] [--since 7d]`: recent skill runs read
from the transcripts (time, who invoked, arguments, outcome, duration), and the outcome
table `codebot skills stats` adds (issue 35 §3). Everything shown comes from files a
session wrote: arguments and summaries are shortened and their control characters escaped.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from codebot.display import json_text

if TYPE_CHECKING:
    from codebot.agent.session.run_log import SkillRun
    from codebot.commands.args import Subparsers
    from codebot.config import Settings

_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$", re.IGNORECASE)
_UNIT = {"": 86400, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
SHOWN_RUNS = 20


class SinceError(ValueError):
    pass


def parse_since(text: str | None) -> float | None:
    """`--since 7d` (s, m, h, d, w; a bare number is days) → the earliest time, or None."""
    if text is None:
        return None
    found = _SINCE.match(text)
    if not found:
        raise SinceError(f"--since {text!r}: write a number and a unit, e.g. 30m, 12h, 7d or 2w")
    return time.time() - float(found.group(1)) * _UNIT[found.group(2).lower()]


def _shown(text: str, limit: int) -> str:
    from codebot.agent.session.outcomes import shown

    return shown(text, limit)


def _ms(ms: object) -> str:
    if not isinstance(ms, int | float):
        return "-"
    return f"{ms / 1000:.1f}s" if ms >= 1000 else f"{ms:.0f}ms"


def run_runs(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.agent.session.run_log import read_runs
    from codebot.skills.files import normalize_name

    try:
        since = parse_since(args.since)
    except SinceError as exc:
        print(f"codebot: {exc}", file=sys.stderr)
        return 2
    log = read_runs(settings.home / "sessions", since)
    runs = log.runs
    if args.name:
        runs = [r for r in runs if normalize_name(r.name) == normalize_name(args.name)]
    if args.failed:
        runs = [r for r in runs if r.status == "failed"]
    runs = runs[-args.limit :] if args.limit > 0 else runs
    runs.reverse()  # newest first
    if args.json:
        print(json_text([r.to_json() for r in runs], indent=2))
        return 0
    if not runs:
        what = f" of {_shown(args.name, 80)}" if args.name else ""
        print(f"No recorded skill runs{what} in {settings.home / 'sessions'}.")
        return 0
    print(_table(runs))
    if log.bad:
        print(f"({log.bad} unreadable skill_outcome record(s) skipped)")
    return 0


def _table(runs: list[SkillRun]) -> str:
    rows: list[tuple[str, ...]] = [
        ("time", "by", "skill", "arguments", "outcome", "took", "summary")
    ]
    for r in runs:
        outcome = r.status + (" (timed out)" if r.timed_out else "")
        rows.append(
            (
                time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r.time)),
                _shown(r.actor, 8),
                _shown(r.name, 40),
                _shown(r.args, 40) or "-",
                outcome,
                _ms(r.ms),
                _shown(r.summary, 60),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def outcome_table(stats: dict[str, dict[str, object]]) -> str:
    """`skills stats`'s second table: per skill, how its runs ended."""
    head = ("skill", "calls", "ok", "failed", "partial", "confirm", "timeouts", "retries")
    rows: list[tuple[str, ...]] = [(*head, "p50", "p95", "last failure")]
    for name, s in stats.items():
        by = s["outcomes"]
        assert isinstance(by, dict)
        last = s.get("last_failure")
        rows.append(
            (
                _shown(name, 40),
                str(s["calls"]),
                str(by.get("success", 0)),
                str(by.get("failed", 0)),
                str(by.get("partial", 0)),
                str(by.get("needs_confirmation", 0)),
                str(s["timeouts"]),
                str(s["retries"]),
                _ms(s.get("p50_ms")),
                _ms(s.get("p95_ms")),
                _shown(str(last.get("summary", "")), 50) if isinstance(last, dict) else "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    numeric = range(1, 10)
    return "\n".join(
        "  ".join(
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    )


def add_parser(skills_subparsers: Subparsers, common: Callable[..., None]) -> None:
    p = skills_subparsers.add_parser(
        "runs", help="recent skill runs from the transcripts: who, arguments, outcome, time"
    )
    common(p, suppress=True)
    p.add_argument("name", nargs="?", help="only this skill's runs")
    p.add_argument("--json", action="store_true")
    p.add_argument("--failed", action="store_true", help="only runs that failed")
    p.add_argument("--since", metavar="AGE", help="only runs newer than this: 30m, 12h, 7d, 2w")
    p.add_argument(
        "--limit", type=int, default=SHOWN_RUNS, metavar="N", help="at most N runs (0: all)"
    )
