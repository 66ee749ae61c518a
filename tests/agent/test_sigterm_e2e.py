"""`codebot -p` killed with SIGTERM while Bash runs `sleep 300`: the sleep dies with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _gone(pid: int) -> bool:
    """No such process, or only a zombie waiting for a reaper (it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] == b"Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_sigterm_ends_the_running_bash_command(fake_openai, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    pidfile = proj / "sleep.pid"
    command = f"sleep 300 & echo $! > {pidfile}; wait"
    fake_openai.script(
        [
            {
                "tool_calls": [{"name": "Bash", "arguments": json.dumps({"command": command})}],
                "split": True,
            },
            {"text": "done"},
        ]
    )
    cmd = [
        sys.executable,
        "-m",
        "codebot",
        "--cwd",
        str(proj),
        "--trust",
        "-p",
        "sleep please",
        "--allow",
        "Bash",
        "--api-base",
        fake_openai.url,
        "--model",
        "openai/test-model",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=proj)
    try:
        deadline = time.monotonic() + 60
        while (
            not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline
        ):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        sleep_pid = int(pidfile.read_text())
        assert not _gone(sleep_pid)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while not _gone(sleep_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(sleep_pid), "sleep 300 outlived codebot"
        assert proc.returncode == -signal.SIGTERM  # still dies of the signal
    finally:
        if proc.poll() is None:
            proc.kill()
        if pidfile.exists() and pidfile.read_text().strip():
            try:
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
