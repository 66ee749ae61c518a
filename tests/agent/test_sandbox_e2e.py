"""`codebot -p` with the sandbox on and Bash allowed: what the model's commands can and
cannot do, through the real litellm path against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.tools.sandbox import probe

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not probe().ok, reason=f"no sandbox here: {probe().reason}"),
]


@pytest.fixture
def outside_home() -> Iterator[Path]:
    """A HOME outside /tmp (the sandbox's /tmp is private, so a HOME there proves nothing)."""
    home = Path(tempfile.mkdtemp(prefix="codebot-home-", dir="/var/tmp"))
    (home / ".codebot").mkdir()
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def project(project: Path) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    (proj / ".env").write_text("API_TOKEN=hunter2-secret\n")
    return proj


def bash(*commands: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "Bash", "arguments": json.dumps({"command": c})}], "split": True}
        for c in commands
    ]
    return [*steps, {"text": "done"}]


def codebot(project: Path, home: Path, url: str, *args: str) -> dict[str, Any]:
    env = {**os.environ, "HOME": str(home), "CODEBOT_HOME": str(home / ".codebot")}
    cmd = [
        sys.executable,
        "-m",
        "codebot",
        "--cwd",
        str(project),
        "-p",
        "go",
        "--output-format",
        "json",
        "--api-base",
        url,
        "--model",
        "openai/test-model",
        "--allow",
        "Bash",
        *args,
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def tool_outputs(server) -> list[str]:
    return [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]


def test_writes_outside_the_project_fail_and_inside_work(
    fake_openai, project: Path, outside_home: Path
) -> None:
    fake_openai.script(bash("touch ~/outside", "touch ./inside"))
    codebot(project, outside_home, fake_openai.url, "--sandbox")
    assert not (outside_home / "outside").exists()
    assert (project / "inside").exists()
    first = tool_outputs(fake_openai)[0]
    assert "Read-only file system" in first and "[sandbox:" in first


def test_without_the_sandbox_the_same_write_lands(
    fake_openai, project: Path, outside_home: Path
) -> None:
    fake_openai.script(bash("touch ~/outside"))
    codebot(project, outside_home, fake_openai.url, "--no-sandbox")
    assert (outside_home / "outside").exists()  # the control: the command itself works


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    got: list[bytes] = []
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(20)

    def serve() -> None:
        try:
            while True:
                conn, _ = srv.accept()
                got.append(conn.recv(100))
                conn.close()
        except OSError:
            return

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield srv.getsockname()[1], got
    finally:
        srv.close()


def test_no_connection_to_a_server_on_loopback(
    fake_openai, project: Path, outside_home: Path, listener
) -> None:
    port, got = listener
    send = (
        f"python3 -c \"import socket; s=socket.create_connection(('127.0.0.1', {port}), 3); "
        "s.sendall(b'leak')\""
    )
    fake_openai.script(bash(send))
    codebot(project, outside_home, fake_openai.url, "--sandbox")
    assert got == []
    assert "[sandbox:" in tool_outputs(fake_openai)[0]


def test_denied_env_file_prints_nothing_secret_even_with_bash_allowed(
    fake_openai, project: Path, outside_home: Path
) -> None:
    fake_openai.script(
        bash("cat .env", "grep -r API_TOKEN . || true", "cp .env leak.txt; cat leak.txt")
    )
    codebot(project, outside_home, fake_openai.url, "--sandbox", "--deny", "Read(.env)")
    outputs = "\n".join(tool_outputs(fake_openai))
    assert "hunter2" not in outputs
    assert (project / ".env").read_text() == "API_TOKEN=hunter2-secret\n"
    assert (
        "hunter2" not in (project / "leak.txt").read_text()
        if (project / "leak.txt").exists()
        else True
    )
