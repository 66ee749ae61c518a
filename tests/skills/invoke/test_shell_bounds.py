"""A skill's !`cmd` output is read in bounded chunks: a command that prints without end
is stopped at the cap (its whole process group), quickly, with a marker, and reading it
costs no more memory than the cap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codebot.skills.invoke.expand import (
    OUTPUT_CAP,
    READ_LIMIT,
    ShellError,
    ShellPolicy,
    read_bounded,
    run_shell,
)

ROOT = Path(__file__).resolve().parents[3]


def group_gone(pgid: int, within: float = 3.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        time.sleep(0.02)
    return False


def test_endless_output_is_cut_and_its_process_group_killed(tmp_path: Path) -> None:
    # More than the cap, then the command (and a background child) would go on for minutes.
    command = "echo $$ > pgid; (sleep 300 &); head -c 1000000 /dev/zero | tr '\\0' x; sleep 300"
    t0 = time.monotonic()
    text = run_shell(command, ShellPolicy(cwd=tmp_path, timeout=30))
    took = time.monotonic() - t0
    assert took < 10, f"took {took:.1f} s: the command was not stopped at the cap"
    assert text.startswith("x" * 100) and "[output truncated" in text and "was stopped" in text
    assert len(text) < OUTPUT_CAP + 200
    assert group_gone(int((tmp_path / "pgid").read_text()))  # the sleeps are gone too


def test_two_hundred_megabytes_cost_no_memory(tmp_path: Path) -> None:
    """Peak RSS of a fresh process running the command: +300 MB read whole before; now
    at most the cap (the children's memory is their own)."""
    script = (
        "import json, resource, sys, time\n"
        "from pathlib import Path\n"
        "from codebot.skills.invoke.expand import ShellPolicy, run_shell\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "t0 = time.monotonic()\n"
        "text = run_shell('yes | head -c 300000000', ShellPolicy(cwd=Path(sys.argv[1]), "
        "timeout=60))\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "unit = 1 if sys.platform == 'darwin' else 1024\n"
        "print(json.dumps({'grew': (after - before) * unit, 'took': time.monotonic() - t0,\n"
        "                  'length': len(text), 'marked': '[output truncated' in text}))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["marked"] and out["length"] < OUTPUT_CAP + 200
    assert out["grew"] < 100 * 1024 * 1024, f"peak RSS grew by {out['grew'] / 2**20:.0f} MB"
    assert out["took"] < 10


def test_the_reading_loop_never_holds_more_than_the_limit() -> None:
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)
        written = 0
        try:
            while written < 1_000_000:
                written += os.write(w, b"y" * 65536)
        except BlockingIOError:
            pass  # the pipe is full; the reader drains it below
        data, over, timed_out = read_bounded(r, 1000, time.monotonic() + 5)
        assert (len(data), over, timed_out) == (1001, True, False)
    finally:
        os.close(r)
        os.close(w)


def test_the_reading_loop_stops_at_the_deadline_and_at_the_end() -> None:
    r, w = os.pipe()
    try:
        os.write(w, b"partial")
        t0 = time.monotonic()
        data, over, timed_out = read_bounded(r, READ_LIMIT, t0 + 0.3)
        assert (data, over, timed_out) == (b"partial", False, True) and time.monotonic() - t0 < 2
        os.close(w)
        w = -1
        assert read_bounded(r, READ_LIMIT, time.monotonic() + 5) == (b"", False, False)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


# -- controls: what worked before still does -------------------------------------------------


def test_small_output_is_whole_and_a_failure_still_fails(tmp_path: Path) -> None:
    assert run_shell("printf 'a\\nb\\n'", ShellPolicy(cwd=tmp_path)) == "a\nb"
    with pytest.raises(ShellError) as info:
        run_shell("echo oops; exit 3", ShellPolicy(cwd=tmp_path))
    assert info.value.code == 3 and info.value.output == "oops"


def test_output_under_the_read_limit_but_over_the_cap_says_its_length(tmp_path: Path) -> None:
    text = run_shell("head -c 50000 /dev/zero | tr '\\0' x", ShellPolicy(cwd=tmp_path))
    assert text.endswith("[output truncated: 50,000 characters, showing 30,000]")


def test_a_command_that_keeps_running_after_closing_its_output_times_out(tmp_path: Path) -> None:
    t0 = time.monotonic()
    with pytest.raises(ShellError) as info:
        run_shell(
            "echo $$ > pgid; echo hi; exec >&-; sleep 300", ShellPolicy(cwd=tmp_path, timeout=0.5)
        )
    assert "timed out" in info.value.reason and info.value.output == "hi"
    assert time.monotonic() - t0 < 5 and group_gone(int((tmp_path / "pgid").read_text()))
