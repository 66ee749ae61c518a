"""Running one hook command: `/bin/bash -c` in the project folder, the event's JSON on
stdin, stdout and stderr kept apart and capped, in its own process group.

Like the Bash tool (`tools/shell.py`), it runs inside the sandbox when the session has
one (`sandbox.wrap`: project writable, network off, denied paths masked), with the
environment less the person's secrets (`environment.command_env`). The run ends when the
hook exits (plus a short grace for the last output) or its timeout passes; then, and on
cancellation, its whole group gets SIGTERM and, after a grace, SIGKILL, so a hook that
backgrounds a child or never reads stdin cannot hang the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.agent.hooks.output import HookRun
from codebot.agent.tools.shell import track_group, untrack_group

if TYPE_CHECKING:
    from codebot.agent.tools.sandbox import SandboxPolicy

#: Bytes of stdout and of stderr kept from one hook.
OUTPUT_CAP = 64 * 1024
EXIT_GRACE = 0.25
KILL_GRACE = 0.5


class _Capped(asyncio.SubprocessProtocol):
    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.out = {1: bytearray(), 2: bytearray()}
        self.over = {1: False, 2: False}
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed = {1: loop.create_future(), 2: loop.create_future()}

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        buf = self.out.get(fd)
        if buf is None:
            return
        room = OUTPUT_CAP - len(buf)
        if len(data) > room:
            self.over[fd] = True
        buf += bytes(data[: max(room, 0)])

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in self.closed and not self.closed[fd].done():
            self.closed[fd].set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def text(self, fd: int) -> str:
        text = self.out[fd].decode("utf-8", "replace")
        return text + ("\n[... output truncated ...]" if self.over[fd] else "")


def _signal(pgid: int, sig: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pgid, sig)


async def _wait(future: Awaitable[object], seconds: float) -> bool:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await asyncio.shield(future)
            return True
    return False


async def run_hook(
    command: str,
    payload: bytes,
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    sandbox: SandboxPolicy | str | None = None,
) -> HookRun:
    """Run `command` with `payload` on stdin. `sandbox`: the session's `SandboxPolicy`
    (None: no sandbox, as the Bash tool runs then; a string: required but unavailable)."""
    argv = ["/bin/bash", "-c", command]
    if isinstance(sandbox, str):
        return HookRun(None, "", "", error="not run: the sandbox is required but cannot run here")
    if sandbox is not None:
        from codebot.agent.tools.sandbox import wrap

        argv = wrap(argv, sandbox, cwd=cwd)
    loop = asyncio.get_running_loop()
    try:
        transport, proto = await loop.subprocess_exec(
            _Capped,
            *argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd),
            env=dict(env),
            start_new_session=True,
        )
    except OSError as exc:
        return HookRun(None, "", "", error=f"could not start: {exc}")
    pid = transport.get_pid()
    track_group(pid)  # codebot's exit ends it too (tools/shell.py kill_all)
    try:
        stdin = transport.get_pipe_transport(0)
        if stdin is not None:
            # A hook that never reads stdin must not block us: the pipe buffer takes the
            # payload or the transport holds it; it is closed either way.
            with contextlib.suppress(OSError, RuntimeError):
                stdin.write(payload)  # type: ignore[attr-defined]
                stdin.write_eof()  # type: ignore[attr-defined]
        finished = await _wait(proto.exited, timeout)
        if not finished:
            _signal(pid, signal.SIGTERM)
            await _wait(proto.exited, KILL_GRACE)
            _signal(pid, signal.SIGKILL)
        else:
            for fd in (1, 2):
                await _wait(proto.closed[fd], EXIT_GRACE)
            _signal(pid, signal.SIGKILL)  # what it left in the background ends with it
    except BaseException:
        _signal(pid, signal.SIGTERM)
        with contextlib.suppress(RuntimeError):
            loop.call_later(KILL_GRACE, _signal, pid, signal.SIGKILL)
        transport.close()
        raise
    code = transport.get_returncode()
    transport.close()
    untrack_group(pid)
    if not finished:
        return HookRun(None, proto.text(1), proto.text(2), timed_out=True)
    return HookRun(code, proto.text(1), proto.text(2))
