"""Where a session's MCP servers run (`Host`): on the event loop of the front end whose
turns call them, or, when none is given, on a loop of their own in one daemon thread
(docs/mcp.md, "Servers in a session").

Why: a call made on the loop the servers run on is the SDK's own call, in the caller's
task, with no thread in between; a call from another loop hops there and back, one
wake-up each way (50-90 microseconds on a loaded machine, about half the SDK's whole
call: bench/mcp_session.py). The TUI, line mode and `-p` each run every turn on one loop, which
they give their session's servers, so their calls never hop.

Nothing slow runs on a front end's loop because of the servers: the SDK is imported in a
thread first (`preload`, about 0.35 s), every read and write is asynchronous (a server
that hangs or dies costs the loop nothing), a very long line is parsed in a thread
(`connect._read_lines`), and nothing here blocks: the blocking helpers (`wait`) refuse
to wait on the servers' own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import Future
from typing import TypeVar

__all__ = ["Host", "import_now", "loaded", "preload", "running_loop"]

T = TypeVar("T")

#: What a connection imports (the SDK, the transports), loaded off the servers' loop.
SDK_MODULES = (
    "anyio",
    "mcp_types",
    "mcp.client.session",
    "mcp.shared.message",
    "codebot.mcp.connect",
    "codebot.mcp.session_stdio",
    "codebot.mcp.server_skills",
    "codebot.skills.catalog",
)
HTTP_MODULES = ("httpx2", "mcp.client.streamable_http", "codebot.mcp.http_transport")


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


_IMPORTING = threading.Lock()


def import_now(names: Iterable[str]) -> None:
    """Import `names` in this thread, one importer at a time: the SDK's modules import each
    other in circles, and two threads importing them at once can find one half made (an
    ImportError); such a failure is tried again once the other import is through."""
    with _IMPORTING:
        for name in names:
            for attempt in range(3):
                try:
                    importlib.import_module(name)
                    break
                except ImportError:
                    if attempt == 2:
                        raise
                    time.sleep(0.05)


def preload(names: Iterable[str]) -> Future[None]:
    """Import `names` in a daemon thread; the future is done when they are (at once when
    they were). A connection awaits it (`loaded`) before it imports anything itself."""
    done: Future[None] = Future()
    missing = [n for n in names if n not in sys.modules]
    if not missing:
        done.set_result(None)
        return done

    def run() -> None:
        try:
            import_now(missing)
        except BaseException as exc:  # said by the connection that waits for it
            done.set_exception(exc)
        else:
            done.set_result(None)

    threading.Thread(target=run, name="codebot-mcp-import", daemon=True).start()
    return done


async def loaded(done: Future[None]) -> None:
    """Wait for `preload` without blocking the loop; its ImportError is raised here."""
    if not done.done():
        await asyncio.wrap_future(done)
    done.result()


class Host:
    """The loop a session's servers run on (see the module docstring)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None  # the loop's own thread, if it has one

    def bind(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """Run on `loop` from now on (None or a closed one: a loop of their own)."""
        if loop is None or loop.is_closed():
            self._own_thread()
        else:
            self.loop, self.thread = loop, None

    def usable(self) -> bool:
        """Bound to a loop that is not closed."""
        loop = self.loop
        return loop is not None and not loop.is_closed()

    def here(self) -> bool:
        """Whether this code runs on the servers' loop (its thread, while it runs)."""
        loop = self.loop
        return loop is not None and running_loop() is loop

    def soon(self, fn: Callable[..., object], *args: object) -> bool:
        """`fn(*args)` on the servers' loop, from any thread; False when it is closed."""
        loop = self.loop
        if loop is None:
            return False
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # closed
            return False
        return True

    async def run(
        self, make: Callable[[], Coroutine[object, object, T]], gone: Callable[[], T]
    ) -> T:
        """`await make()` on the servers' loop, from any loop. On that loop: in the caller's
        task, nothing added. From another: handed over with one wake-up each way (cheaper
        than run_coroutine_threadsafe and wrap_future); cancelling the caller cancels it
        there. `gone()` (its value or its exception) when that loop cannot take it."""
        loop = self.loop
        caller = asyncio.get_running_loop()
        if loop is caller:
            return await make()
        if loop is None or loop.is_closed() or not loop.is_running():
            return gone()
        done: asyncio.Future[T] = caller.create_future()
        running: list[asyncio.Task[T]] = []

        def settle(task: asyncio.Task[T]) -> None:  # on the caller's loop
            if done.done():
                return
            if task.cancelled():
                done.cancel()
            elif (exc := task.exception()) is not None:
                done.set_exception(exc)
            else:
                done.set_result(task.result())

        def begin() -> None:  # on the servers' loop
            task = loop.create_task(make())
            running.append(task)
            task.add_done_callback(lambda t: caller.call_soon_threadsafe(settle, t))

        if not self.soon(begin):
            return gone()
        try:
            return await done
        except asyncio.CancelledError:
            self.soon(lambda: [t.cancel() for t in running])  # FIFO: after `begin`
            raise

    def wait(self, make: Callable[[], Coroutine[object, object, object]], timeout: float) -> bool:
        """Run `make()` on the servers' loop and block this thread until it ends, at most
        `timeout` seconds; whether it ended. On the servers' own loop it is only started
        (that loop cannot wait for itself); on a loop that is not running, it is run here
        when this thread runs no loop."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return False
        if self.here():
            loop.create_task(make())
            return False
        if loop.is_running():
            future = asyncio.run_coroutine_threadsafe(make(), loop)
            try:
                future.result(timeout)
            except Exception:  # timed out, or what it raised: it is over either way
                future.cancel()
                return False
            return True
        if running_loop() is not None:
            return False
        with contextlib.suppress(Exception):
            loop.run_until_complete(asyncio.wait_for(make(), timeout))
            return True
        return False

    def end(self) -> None:
        """Stop the loop's own thread, if it has one (a front end's loop is its to stop)."""
        loop, thread = self.loop, self.thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError):  # closed already
            loop.call_soon_threadsafe(loop.stop)
        thread.join(1.0)

    def _own_thread(self) -> None:
        ready = threading.Event()
        made: list[asyncio.AbstractEventLoop] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            made.append(loop)
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)  # once it runs: `wait` and `run` see it running
            try:
                loop.run_forever()
            finally:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        thread = threading.Thread(target=run, name="codebot-mcp", daemon=True)
        thread.start()
        ready.wait()
        self.loop, self.thread = made[0], thread
