"""Bash commands run in their own process group, and the whole group ends with the run:
on timeout and cancellation (SIGTERM, then SIGKILL after a grace), and by `kill_all()`."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from codebot.agent.tools import shell
from codebot.agent.tools.shell import kill_all, live_groups, run_process

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] == b"Z"
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _gone(pid)


async def _pid_from(path: Path) -> int:
    for _ in range(200):
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        await asyncio.sleep(0.05)
    raise AssertionError("the command never started")


# A child that ignores SIGTERM: only the SIGKILL after the grace ends it.
STUBBORN = "(trap '' TERM; sleep 300) & echo $! > {pid}; wait"


def test_timeout_kills_a_child_that_ignores_sigterm(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    result = asyncio.run(
        run_process(
            ["/bin/bash", "-c", STUBBORN.format(pid=pidfile)], cwd=tmp_path, timeout=1, cap=1000
        )
    )
    assert result.timed_out
    assert _wait_gone(int(pidfile.read_text()))


def test_cancellation_ends_the_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"

    async def main() -> int:
        task = asyncio.create_task(
            run_process(
                ["/bin/bash", "-c", STUBBORN.format(pid=pidfile)],
                cwd=tmp_path,
                timeout=60,
                cap=1000,
            )
        )
        pid = await _pid_from(pidfile)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(shell.KILL_GRACE + 0.3)  # the SIGKILL is scheduled on the loop
        return pid

    assert _wait_gone(asyncio.run(main()))


def test_kill_all_ends_every_live_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"

    async def main() -> int:
        task = asyncio.create_task(
            run_process(
                ["/bin/bash", "-c", STUBBORN.format(pid=pidfile)],
                cwd=tmp_path,
                timeout=60,
                cap=1000,
            )
        )
        pid = await _pid_from(pidfile)
        assert live_groups()
        kill_all(grace=0.2)  # what the SIGTERM handler and atexit do
        assert _wait_gone(pid)
        await asyncio.wait_for(task, 10)  # the run sees its process end
        return pid

    asyncio.run(main())
    assert not live_groups()


def test_a_finished_command_leaves_no_group_behind(tmp_path: Path) -> None:
    result = asyncio.run(
        run_process(["/bin/bash", "-c", "echo hi"], cwd=tmp_path, timeout=10, cap=1000)
    )
    assert result.exit_code == 0 and result.output == "hi\n"
    assert not live_groups()
    assert os.getpgrp() not in live_groups()


# A SIGTERM that lands after the child is started but before run_process has its pid (the
# await of subprocess_exec): the script below makes it land there every time.
GAP = r"""
import asyncio, os, signal, sys
from codebot.agent.tools import shell

async def main():
    loop = asyncio.get_running_loop()
    real = loop.subprocess_exec

    async def exec_then_signal(*a, **k):
        transport, protocol = await real(*a, **k)
        open(sys.argv[1], "w").write(str(transport.get_pid()))
        os.kill(os.getpid(), signal.SIGTERM)  # its handler runs before this returns
        return transport, protocol

    loop.subprocess_exec = exec_then_signal
    await shell.run_process(["sleep", "300"], cwd=".", timeout=60, cap=1000)

asyncio.run(main())
"""


def test_a_sigterm_while_the_command_starts_still_ends_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    pidfile = tmp_path / "pid"
    proc = subprocess.run(
        [sys.executable, "-c", GAP, str(pidfile)],
        cwd=tmp_path,
        timeout=60,
        capture_output=True,
        text=True,
    )
    child = int(pidfile.read_text())
    try:
        assert proc.returncode == -15, proc.stderr  # died of the signal, after deferring it
        assert _wait_gone(child), "sleep 300 outlived the process that started it"
    finally:
        if not _gone(child):
            os.kill(child, 9)
