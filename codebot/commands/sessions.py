"""`codebot sessions`: the saved sessions of this project (or of every project), newest
first, with what `--continue` and `--resume ID` need to pick one.

Reads only the transcripts in `$CODEBOT_HOME/sessions/`; a damaged one is listed on
stderr as a warning and skipped, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codebot.commands.args import Subparsers

HELP = "list saved sessions (id, time, turns, first prompt) for --continue / --resume"


def add_parser(
    subparsers: Subparsers, common: Callable[..., None] | None = None
) -> argparse.ArgumentParser:
    p = subparsers.add_parser("sessions", help=HELP, description=HELP)
    if common is not None:
        common(p, suppress=True)
    p.add_argument(
        "--all", action="store_true", help="every project's sessions, not only this one's"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def summarize(path: Path) -> tuple[str, int]:
    """(first prompt, turns) of a transcript, shown as the resumed view shows it."""
    from codebot.agent.session.transcript import summarize as read
    from codebot.ui.resume_view import user_text

    text, turns, typed = read(path)
    return (text if typed else user_text(text)), turns


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
        rows.append(
            {
                "id": info.path.stem,
                "project": info.project,
                "created": info.created,
                "started": time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created)),
                "turns": turns,
                "first_prompt": prompt,
                "model": info.model,
                "path": str(info.path),
            }
        )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        where = "any project" if args.all else str(settings.project_dir)
        print(
            f"no saved sessions for {where}"
            + ("" if args.all else " ('codebot sessions --all' lists every project's)")
        )
        return 0
    print(f"{'ID':<26} {'STARTED':<16} {'TURNS':>5}  {'PROJECT  ' if args.all else ''}FIRST PROMPT")
    for r in rows:
        line = " ".join(r["first_prompt"].split())  # one line, whatever the prompt held
        line = line if len(line) <= 60 else line[:59] + "…"
        where = f"{r['project']}  " if args.all else ""
        print(f"{r['id']:<26} {r['started']:<16} {r['turns']:>5}  {where}{line}")
    print("\nresume one with: codebot --resume ID   (or the newest: codebot --continue)")
    return 0
