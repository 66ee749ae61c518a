"""`codebot sessions`: the saved sessions of this project (or of every project), newest
first, with what `--continue` and `--resume ID` need to pick one.

Reads only the transcripts in `$CODEBOT_HOME/sessions/`; a damaged one is listed on
stderr as a warning and skipped, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HELP = "list saved sessions (id, time, turns, first prompt) for --continue / --resume"
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.S)
_SKILL = re.compile(r'\s*<skill name="([^"]+)"')


def add_parser(subparsers: Any, common: Callable[..., None] | None = None) -> argparse.ArgumentParser:
    p = subparsers.add_parser("sessions", help=HELP, description=HELP)
    if common is not None:
        common(p, suppress=True)
    p.add_argument("--all", action="store_true", help="every project's sessions, not only this one's")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def summarize(path: Path) -> tuple[str, int]:
    """(first prompt, turns) of a transcript. A `turn` mark records what was typed;
    transcripts written before those marks fall back to the user messages, with the
    system reminders taken off."""
    first, turns, users, first_user = "", 0, 0, ""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                # Cheap prefix tests first: a long session has many large tool results.
                if line.startswith('{"type": "turn"'):
                    rec = _json(line)
                    turns += 1
                    if not first and isinstance(rec.get("text"), str):
                        first = rec["text"]
                elif line.startswith('{"type": "message", "message": {"role": "user"'):
                    users += 1
                    if not first_user:
                        content = _json(line).get("message", {}).get("content")
                        first_user = _typed(content) if isinstance(content, str) else ""
    except OSError:
        pass
    return (first, turns) if turns else (first_user, users)


def _json(line: str) -> dict[str, Any]:
    try:
        rec = json.loads(line)
    except ValueError:
        return {}
    return rec if isinstance(rec, dict) else {}


def _typed(content: str) -> str:
    body = _REMINDER.sub("", content)
    skill = _SKILL.match(body)
    return f"/{skill.group(1)}" if skill else body


def run(args: argparse.Namespace) -> int:
    from codebot.agent.session.transcript import find_sessions
    from codebot.commands.args import settings_from

    settings = settings_from(args)
    project = None if args.all else settings.project_dir
    damaged: list[tuple[Path, str]] = []
    found = find_sessions(settings.home / "sessions", project, damaged)
    for path, why in damaged:
        print(f"codebot: warning: skipped damaged session file {path}: {why}", file=sys.stderr)
    rows = []
    for info in found:
        prompt, turns = summarize(info.path)
        rows.append({"id": info.path.stem, "project": info.project, "created": info.created,
                     "started": time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created)),
                     "turns": turns, "first_prompt": prompt, "model": info.model, "path": str(info.path)})  # fmt: skip
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        where = "any project" if args.all else str(settings.project_dir)
        print(f"no saved sessions for {where}" + ("" if args.all else " ('codebot sessions --all' lists every project's)"))
        return 0
    print(f"{'ID':<26} {'STARTED':<16} {'TURNS':>5}  {'PROJECT  ' if args.all else ''}FIRST PROMPT")
    for r in rows:
        line = " ".join(r["first_prompt"].split())  # one line, whatever the prompt held
        line = line if len(line) <= 60 else line[:59] + "…"
        where = f"{r['project']}  " if args.all else ""
        print(f"{r['id']:<26} {r['started']:<16} {r['turns']:>5}  {where}{line}")
    print("\nresume one with: codebot --resume ID   (or the newest: codebot --continue)")
    return 0
