"""`codebot skills watch [--json]`: run only the skill watcher, one line per reload.

With `--json` every line is one JSON object: first `{"event": "ready", "skills": N}`, then
`{"event": "reload", "added": [...], "removed": [...], "changed": [...], "ms": N}` after
every reload (`ms` is the catalog's reload time). Without it, short human-readable lines,
plus any new problem a reload found (a skill edited into broken YAML). Runs until Ctrl+C
or SIGTERM, both exit 0.

Kept cheap to import: cli.py may import it to build the parser.
"""

from __future__ import annotations

import argparse
import json
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codebot.commands.args import Subparsers
    from codebot.config import Settings
    from codebot.skills.catalog import Change
    from codebot.skills.files import Diagnostic

HELP = "watch the skill folders and print one line per reload (Ctrl+C stops)"


def add_parser(
    skills_subparsers: Subparsers, common: Callable[..., None]
) -> argparse.ArgumentParser:
    """Register `watch` under `codebot skills`; `common(p, suppress=True)` adds global options."""
    p = skills_subparsers.add_parser("watch", help=HELP, description=HELP)
    common(p, suppress=True)
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    return p


def _emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def run(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.skills.files import Severity
    from codebot.skills.watch import SkillWatcher
    from codebot.workspace import open_catalog

    as_json = bool(getattr(args, "json", False))
    catalog = open_catalog(settings)
    events: queue.Queue = queue.Queue()
    seen = {d for d in catalog.snapshot.diagnostics}

    def on_reload(change: Change) -> None:
        # Runs on the watcher thread: hand over to the main thread, which prints in order.
        nonlocal seen
        diags = catalog.snapshot.diagnostics
        fresh = [d for d in diags if d not in seen and d.severity is not Severity.INFO]
        seen = set(diags)
        events.put((change, fresh, len(catalog.snapshot)))

    watcher = SkillWatcher(catalog, on_reload)
    done = threading.Event()
    previous = _on_sigterm(done.set)
    watcher.start()
    try:
        while not watcher.ready.wait(0.1):
            if done.is_set():
                return 0
        n = len(catalog.snapshot)
        if as_json:
            _emit(json.dumps({"event": "ready", "skills": n}))
        else:
            plan = watcher.plan
            watched = len(plan.recursive) if plan else 0
            missing = sum(1 for r in catalog.roots if not r.path.is_dir())
            _emit(
                f"watching {n} skills in {watched} folders ({missing} more when they are created); "
                "Ctrl+C stops"
            )
        while not done.is_set():
            try:
                change, fresh, total = events.get(timeout=0.2)
            except queue.Empty:
                continue
            if as_json:
                _emit(
                    json.dumps(
                        {
                            "event": "reload",
                            "added": list(change.added),
                            "removed": list(change.removed),
                            "changed": list(change.changed),
                            "ms": round(change.ms, 1),
                        }
                    )
                )
            else:
                _emit(_human(change, fresh, total))
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:
        pass
    finally:
        watcher.stop(timeout=2)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0


def _human(change: Change, fresh: list[Diagnostic], total: int) -> str:
    parts = []
    for label, keys in (
        ("added", change.added),
        ("removed", change.removed),
        ("changed", change.changed),
    ):
        if keys:
            parts.append(f"{label} {', '.join(keys)}")
    what = "; ".join(parts) if parts else "diagnostics changed"
    lines = [f"{time.strftime('%H:%M:%S')} reloaded in {change.ms:.1f} ms ({total} skills): {what}"]
    lines += [f"  {d.format()}" for d in fresh]
    return "\n".join(lines)


def _on_sigterm(handler: Callable[[], None]) -> Any:
    """SIGTERM ends the watch like Ctrl+C; returns the previous handler (None off the main
    thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        return signal.signal(signal.SIGTERM, lambda signum, frame: handler())
    except (ValueError, OSError):
        return None


def main(argv: list[str] | None = None) -> int:
    """`python -m codebot.commands.watch [--json] [--skills-dir DIR]`, without cli.py wiring."""
    from codebot.commands.args import common_options, settings_from

    parser = argparse.ArgumentParser(prog="codebot skills watch", description=HELP)
    common_options(parser, suppress=False)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)
    return run(args, settings_from(args))


if __name__ == "__main__":
    raise SystemExit(main())
