"""Are the timing-sensitive tests calm under load? Prints ONE JSON object on stdout.

    .venv/bin/python bench/calm.py              # 20 runs, a busy loop on every core
    .venv/bin/python bench/calm.py --runs 5 --no-load

Runs the TUI and streaming tests (the ones that wait on a terminal, a stream or a clock)
`--runs` times in a row, each run as one pytest process on every core (`-n auto`), while
one busy-looping process per core competes for the CPU. A test that sleeps and then
asserts, or asserts a wall-clock figure, fails here sooner or later; one that polls does
not. The figure is the number of runs that passed, and the tests that failed in any run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = [
    "tests/ui/test_tui.py",
    "tests/ui/test_tui_turns.py",
    "tests/ui/test_tui_transcript.py",
    "tests/ui/test_tui_snapshots.py",
    "tests/ui/test_tui_big_start.py",
    "tests/ui/test_tui_bash_stream.py",
    "tests/ui/test_tui_toasts.py",
    "tests/ui/test_line_bash_stream.py",
    "tests/ui/test_stream_json.py",
    "tests/agent/test_bash_streaming.py",
    "tests/agent/model/test_stream_cancel.py",
    "tests/agent/model/test_model.py",
    "tests/e2e/test_tmux.py",
    "tests/e2e/test_tmux_session.py",
]


def spin() -> None:
    while True:
        pass


def one_run(tests: list[str]) -> tuple[bool, list[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-n",
            "auto",
            "--dist",
            "loadfile",
            "-p",
            "no:cacheprovider",
            *tests,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, re.M)
    return done.returncode == 0, failed, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-load", action="store_true", help="no busy loops (a control)")
    args = parser.parse_args()
    tests = [t for t in TESTS if (ROOT / t).exists()]
    cores = os.cpu_count() or 1
    loops = (
        []
        if args.no_load
        else [multiprocessing.Process(target=spin, daemon=True) for _ in range(cores)]
    )
    for loop in loops:
        loop.start()
    passed, failures, seconds = 0, {}, []
    try:
        for i in range(args.runs):
            ok, failed, took = one_run(tests)
            passed += ok
            seconds.append(round(took, 1))
            for name in failed:
                failures[name] = failures.get(name, 0) + 1
            print(
                f"run {i + 1}/{args.runs}: {'pass' if ok else 'FAIL ' + ' '.join(failed)} "
                f"({took:.0f} s)",
                file=sys.stderr,
            )
    finally:
        for loop in loops:
            loop.terminate()
    print(
        json.dumps(
            {
                "runs": args.runs,
                "passed": passed,
                "busy_loops": len(loops),
                "cores": cores,
                "test_files": tests,
                "failures": failures,
                "seconds_per_run": seconds,
            },
            indent=2,
        )
    )
    return 0 if passed == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
