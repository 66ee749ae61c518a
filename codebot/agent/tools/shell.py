"""The Bash tool, and `run_process`, the subprocess runner it shares with Grep.

`run_process` uses `loop.subprocess_exec` with its own protocol, not
`asyncio.create_subprocess_exec`, whose `wait()` also waits for the output pipe to close:
a backgrounded child (`sleep 30 &`) holding it would hang the call. Here the run ends when
the process exits (plus a short grace for the last output), whatever its children do.

Every command runs in its own process group, in `_LIVE` until it is gone. Cancellation, a
timeout and the output cap end a group with SIGTERM and, after `KILL_GRACE`, SIGKILL.
`kill_all()` does the same for every live group, at exit (atexit) and from a SIGTERM/SIGHUP
handler installed with the first command (where the default is still in place), so
`kill <codebot>` does not leave `sleep 300` running with PID 1 as its parent.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import math
import os
import signal
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from codebot.agent.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema
from codebot.agent.tools.live_output import LiveOutput
from codebot.environment import command_env

if TYPE_CHECKING:
    from codebot.agent.tools.sandbox import SandboxPolicy

__all__ = [
    "MAX_BASH_TIMEOUT",
    "BashTool",
    "ProcessOutput",
    "install_handlers",
    "kill_all",
    "live_groups",
    "run_process",
    "track_group",
    "untrack_group",
]

MAX_BASH_TIMEOUT = 600.0
#: After the process exits, how long to wait for output its children still hold open.
EXIT_GRACE = 0.25
#: Between SIGTERM and SIGKILL: time for a command to clean up (remove its temp files).
KILL_GRACE = 0.5


@dataclass(frozen=True)
class ProcessOutput:
    exit_code: int | None  # None when killed for a timeout or the output cap
    output: str  # capped, with a note in the middle when truncated
    truncated: bool
    timed_out: bool


class _Collector:
    """Keeps the head and the tail of a byte stream, at most about `cap` characters."""

    def __init__(self, cap: int) -> None:
        self.cap = max(cap, 200)
        self.buf = bytearray()
        self.head: bytes | None = None  # set once the stream is too big to keep whole
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        self.buf += data
        if self.head is None:
            if len(self.buf) > 4 * self.cap:
                self.head = bytes(self.buf[: self.cap])
                del self.buf[: len(self.buf) - self.cap]
        elif len(self.buf) > 2 * self.cap:
            del self.buf[: len(self.buf) - self.cap]

    def head_text(self) -> str:
        """The first `cap` characters, cut at the last complete line."""
        data = self.head if self.head is not None else bytes(self.buf)
        text = data.decode("utf-8", "replace")[: self.cap]
        if self.total > self.cap and "\n" in text:
            text = text[: text.rfind("\n") + 1]
        return text

    @property
    def over(self) -> bool:
        return self.total > self.cap

    def text(self) -> tuple[str, bool]:
        cap = self.cap
        half = cap // 2
        if self.head is None:
            text = self.buf.decode("utf-8", "replace")
            if len(text) <= cap:
                return text, False
            omitted = len(text) - 2 * half
            head, tail = text[:half], text[-half:]
            unit = "characters"
        else:
            head = self.head.decode("utf-8", "replace")[:half]
            tail = self.buf.decode("utf-8", "replace")[-half:]
            omitted = self.total - len(head.encode()) - len(tail.encode())
            unit = "bytes"
        note = (
            f"\n[... output truncated: {omitted:,} {unit} omitted; the output is capped at {cap:,} "
            "characters ...]\n"
        )
        return head + note + tail, True


class _Protocol(asyncio.SubprocessProtocol):
    def __init__(
        self, collector: _Collector, stop_when_over: bool, live: LiveOutput | None = None
    ) -> None:
        loop = asyncio.get_running_loop()
        self.collector = collector
        self.stop_when_over = stop_when_over
        self.live = live
        self.exited: asyncio.Future[None] = loop.create_future()
        self.eof: asyncio.Future[None] = loop.create_future()
        self.over: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        data = bytes(data)
        self.collector.add(data)
        if self.live is not None:
            self.live.feed(data)
        if self.stop_when_over and self.collector.over and not self.over.done():
            self.over.set_result(None)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.eof.done():
            self.eof.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


# Process groups started by run_process and not yet known to be gone (pgid == leader pid).
_LIVE: set[int] = set()
# Reentrant: the SIGTERM handler may run kill_all inside a `with _LIVE_LOCK` block below.
_LIVE_LOCK = threading.RLock()
_handlers_installed = False
_exit_registered = False
# run_process calls between fork (the child runs) and _LIVE.add: a SIGTERM there would miss
# the child, so the handler defers it (once) and run_process sends it again once added.
_spawning, _deferred = 0, None


def live_groups() -> frozenset[int]:
    """The process groups of commands that are still running (for tests and diagnostics)."""
    with _LIVE_LOCK:
        return frozenset(_LIVE)


def track_group(pgid: int) -> None:
    """Count a process group started elsewhere (a hook, `agent/hooks/runner.py`) among the
    live ones, so `kill_all` ends it at exit and on SIGTERM too."""
    _install_handlers()
    with _LIVE_LOCK:
        _LIVE.add(pgid)


def install_handlers() -> None:
    """Set the exit and SIGTERM/SIGHUP handlers now (from the main thread) for groups that
    will be tracked from another (the MCP servers' thread)."""
    _install_handlers()


def untrack_group(pgid: int) -> None:
    with _LIVE_LOCK:
        _LIVE.discard(pgid)


def _signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: the pgid was reused by someone else's process; leave it alone
        return False
    return True


def _kill_group(pgid: int) -> None:
    """SIGKILL for what is left of the group, and forget it."""
    _signal_group(pgid, signal.SIGKILL)
    with _LIVE_LOCK:
        _LIVE.discard(pgid)


def kill_all(grace: float = KILL_GRACE) -> None:
    """End every live command group: SIGTERM, up to `grace` seconds, then SIGKILL.

    Synchronous and safe to call from a signal handler or atexit; safe to call twice.
    """
    with _LIVE_LOCK:
        groups = list(_LIVE)
    alive = [g for g in groups if _signal_group(g, signal.SIGTERM)]
    deadline = time.monotonic() + grace
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [g for g in alive if _signal_group(g, 0) and not _only_zombies(g)]
    for g in groups:
        _kill_group(g)


def _only_zombies(pgid: int) -> bool:
    """Whether the group's leader has exited but is not yet reaped (then killpg(0) still
    succeeds; waiting the whole grace for it would only slow the exit down)."""
    try:
        with open(f"/proc/{pgid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] == b"Z"
    except (OSError, IndexError):
        return False


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _deferred
    with _LIVE_LOCK:
        if _spawning and _deferred is None:  # a second signal is not deferred again
            _deferred = signum
            return
    kill_all()
    # Then die of the same signal, as if no handler had been there (exit status 143 ...).
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_handlers() -> None:
    """atexit + SIGTERM/SIGHUP handlers, once. A handler someone else installed (a UI that
    shuts down on its own) is kept; atexit still ends the groups when that exit is clean."""
    global _handlers_installed, _exit_registered
    if _handlers_installed:
        return
    if not _exit_registered:
        _exit_registered = True
        atexit.register(kill_all)
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set there: the next call from it sets them
    _handlers_installed = True
    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(sig) == signal.SIG_DFL:
                signal.signal(sig, _on_signal)


def _forget_finished() -> None:
    """Drop groups with no process left, so _LIVE does not grow with every command."""
    with _LIVE_LOCK:
        groups = list(_LIVE)
    gone = [g for g in groups if not _signal_group(g, 0)]
    with _LIVE_LOCK:
        _LIVE.difference_update(gone)


async def wait_at_most(future: Awaitable[object], seconds: float) -> None:
    """Wait for `future` (never cancelling it) for at most `seconds`.

    Not `asyncio.wait_for`: on Python 3.11 it drops a cancellation (Esc) that lands in the
    same loop step as the future finishing, and the turn would go on. `asyncio.timeout`
    awaits in the caller's own task, where a cancellation is never lost.
    """
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await asyncio.shield(future)


async def _end_group(pgid: int, exited: asyncio.Future[None]) -> None:
    """SIGTERM, wait up to KILL_GRACE for the leader, then SIGKILL the rest of the group."""
    _signal_group(pgid, signal.SIGTERM)
    await wait_at_most(exited, KILL_GRACE)
    _kill_group(pgid)


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path | str,
    timeout: float,
    cap: int,
    env: Mapping[str, str] | None = None,
    stop_when_over: bool = False,
    progress: Callable[[str], None] | None = None,
) -> ProcessOutput:
    """Run `argv` in its own session (process group), stdin from /dev/null, stderr merged.
    On timeout, cancellation (re-raised) or, with `stop_when_over`, output past `cap`, the
    whole group is killed. `progress` is shown the output as it arrives (`LiveOutput`)."""
    global _spawning, _deferred
    loop = asyncio.get_running_loop()
    _install_handlers()
    _forget_finished()
    collector = _Collector(cap)
    live = LiveOutput(progress) if progress is not None else None
    with _LIVE_LOCK:
        _spawning += 1
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: _Protocol(collector, stop_when_over, live),
            *argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=str(cwd),
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
        pid = transport.get_pid()
        with _LIVE_LOCK:
            _LIVE.add(pid)
    finally:
        with _LIVE_LOCK:
            _spawning -= 1
            again, _deferred = (_deferred, None) if not _spawning else (None, _deferred)
        if again is not None:  # the handler (main thread) now finds the child in _LIVE
            os.kill(os.getpid(), again)
    timed_out = stopped = False
    try:
        waiters = {protocol.exited, protocol.over}
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if not protocol.exited.done():
            timed_out = not done
            stopped = bool(done)
            await _end_group(pid, protocol.exited)
            await wait_at_most(protocol.exited, 5)
        # The output of the last moments (and of children that still hold the pipe).
        await wait_at_most(protocol.eof, EXIT_GRACE)
    except BaseException:  # CancelledError above all: end the group, then re-raise
        # No awaiting here (a second cancellation would cut it short): SIGTERM now, SIGKILL
        # after the grace from the loop; the group stays in _LIVE, so kill_all at exit
        # still catches it if the loop closes first.
        _signal_group(pid, signal.SIGTERM)
        with contextlib.suppress(RuntimeError):
            loop.call_later(KILL_GRACE, _kill_group, pid)
        transport.close()
        if live is not None:
            live.close(flush=False)
        raise
    # A background child (`server &`) may outlive the command on purpose; its group stays
    # in _LIVE only while something of it is left, so kill_all at exit still ends it.
    if not timed_out and not stopped and not _signal_group(pid, 0):
        with _LIVE_LOCK:
            _LIVE.discard(pid)
    code = transport.get_returncode()
    transport.close()
    if live is not None:
        live.close()
    if stopped:
        return ProcessOutput(None, collector.head_text(), True, False)
    text, truncated = collector.text()
    return ProcessOutput(None if timed_out else code, text, truncated, timed_out)


def sandboxed(argv: list[str], ctx: ToolContext, cwd: Path) -> tuple[list[str], SandboxPolicy]:
    """The bwrap argv for this command, the denied paths found now masked; a ToolError when
    they may not all be found (`sandbox_scan.with_masks`, which the session asks about first)."""
    from codebot.agent.tools.sandbox import SandboxPolicy, wrap
    from codebot.agent.tools.sandbox_scan import with_masks

    ctx, gap = with_masks(ctx)
    if gap:
        raise ToolError(gap)
    policy = ctx.sandbox
    assert isinstance(policy, SandboxPolicy)  # the caller runs here only with a policy
    return wrap(argv, policy, cwd=cwd), policy


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"exit code {code} (killed by {signal.Signals(-code).name})"
        except ValueError:
            return f"exit code {code}"
    return f"exit code {code}"


def bash_timeout(value: object, default: float) -> float:
    """The timeout a Bash call asked for: a finite number of seconds above 0, at most
    MAX_BASH_TIMEOUT. NaN would disable the deadline (every comparison with it is false)
    and inf would never end, so both are refused with an error the model can act on."""
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolError(f"timeout must be a number of seconds, not {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ToolError(
            f"timeout must be a finite number of seconds above 0 (at most {MAX_BASH_TIMEOUT:g}), "
            f"not {value!r}"
        )
    return min(float(value), MAX_BASH_TIMEOUT)


class BashTool(Tool):
    name = "Bash"
    description = (
        "Run a shell command with /bin/bash -c in the project folder and return its exit code "
        "and combined stdout/stderr. There is no stdin and no terminal: do not start interactive "
        "programs or editors. `timeout` is in seconds (default 120, at most 600); on timeout the "
        "command and everything it started is killed. Long output is truncated in the middle. "
        "Prefer the Read, Grep, Glob and Edit tools for reading, searching and editing files."
    )
    parameters = object_schema(
        {
            "command": {
                "type": "string",
                "minLength": 1,
                "description": "The bash command to run.",
            },
            "timeout": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": "Seconds before the command is killed (default 120, max 600).",
            },
        },
        required=["command"],
    )
    read_only = False

    def approval_subject(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> str:
        command = args.get("command", "")
        return command.strip() if isinstance(command, str) else ""

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command: str = args["command"]
        if not command.strip():
            raise ToolError("command must not be empty")
        timeout = bash_timeout(args.get("timeout"), ctx.bash_timeout)
        env = command_env(
            os.environ, set={"PAGER": "cat", "GIT_PAGER": "cat", **ctx.env}
        )  # no secrets
        cwd = Path(ctx.project_dir)
        if not cwd.is_dir():
            raise ToolError(f"the project folder {cwd} does not exist")
        argv, policy = ["/bin/bash", "-c", command], None
        if isinstance(ctx.sandbox, str):  # required (sandbox.mode: on) but bwrap cannot run here
            raise ToolError(
                "the sandbox is required (sandbox.mode: on) but cannot run here; see /sandbox"
            )
        if ctx.sandbox is not None:
            argv, policy = await asyncio.to_thread(sandboxed, argv, ctx, cwd)
        result = await run_process(
            argv, cwd=cwd, timeout=timeout, cap=ctx.output_cap, env=env, progress=ctx.progress
        )
        output = result.output if result.output else "(no output)"
        if result.timed_out:
            return ToolResult(
                f"command timed out after {timeout:g}s and was killed\n{output}", "error"
            )
        assert result.exit_code is not None
        if policy is not None:
            from codebot.agent.tools import sandbox, sandbox_failure

            why = sandbox.explain_failure(
                result.exit_code, result.output, policy
            )  # for the model; a run outside needs checked facts
            if why:
                return ToolResult(
                    f"{_describe_exit(result.exit_code)}\n{output}\n[sandbox: {why}]",
                    "error",
                    sandbox_failure=sandbox_failure.checked_failure(
                        result.exit_code, result.output, policy, cwd
                    ),
                )
        return ToolResult(
            f"{_describe_exit(result.exit_code)}\n{output}",
            "ok" if result.exit_code == 0 else "error",
        )
