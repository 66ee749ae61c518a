"""A session's servers on the loop its turns run on (codebot/mcp/host.py): calls without a
thread between, the fallback for callers on another loop, a loop that closes, closing on
the servers' own loop; and a server that goes away while idle (session_stdio.py). Real
processes: `raw_server.py`."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_session_servers import alive, raw, received, text_of

from codebot.mcp.config import ServerDef
from codebot.mcp.link import cut_calls
from codebot.mcp.live_servers import LiveServers
from codebot.mcp.session_servers import SessionServers


@pytest.fixture
def make(codebot_home: Path, project: Path) -> Iterator[object]:
    made: list[SessionServers] = []

    def build(*defs: ServerDef) -> LiveServers:
        s = LiveServers(list(defs), home=codebot_home, project=project)
        made.append(s)
        return s

    yield build
    for s in made:
        s.close()


def own_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "codebot-mcp"]


async def pid_of(s: SessionServers, server: str = "raw") -> int:
    return int(text_of(await s.call(server, "pid", {})))


async def up(make, tmp_path: Path, on_loop: bool = True) -> tuple[LiveServers, int]:
    """The raw server started (on this loop, or on a thread of its own) and its pid."""
    s = make(raw(tmp_path))
    s.start(asyncio.get_running_loop() if on_loop else None)
    return s, await pid_of(s)


async def test_servers_started_on_the_callers_loop_are_called_in_its_task(
    make, tmp_path: Path
) -> None:
    s = make(raw(tmp_path))
    loop = asyncio.get_running_loop()
    before = own_threads()
    s.start(loop)
    assert s.host.loop is loop and s.host.here()
    assert own_threads() == before  # no thread of their own
    assert text_of(await s.call("raw", "echo", {"text": "hi"})) == "hi"
    pid = await pid_of(s)
    assert alive(pid)
    # a line over connect.BIG_LINE is parsed in a thread, and arrives whole
    assert len(text_of(await s.call("raw", "huge", {}))) == 300_000
    await s.aclose()
    assert not alive(pid)  # aclose waited for the end
    assert s.status()[0]["status"] == "stopped"


async def test_a_cancelled_call_on_the_servers_loop_sends_notifications_cancelled(
    make, tmp_path: Path, async_wait_until
) -> None:
    s = make(raw(tmp_path))
    s.start(asyncio.get_running_loop())
    call = asyncio.ensure_future(s.call("raw", "hang", {}))
    await async_wait_until(lambda: any(m.get("method") == "tools/call" for m in received(tmp_path)))
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await async_wait_until(
        lambda: any(m.get("method") == "notifications/cancelled" for m in received(tmp_path)),
        timeout=10,
    )
    assert text_of(await s.call("raw", "echo", {"text": "still"})) == "still"


async def test_a_server_that_dies_mid_call_on_the_servers_loop_is_an_error_then_restarts(
    make, tmp_path: Path
) -> None:
    s, first = await up(make, tmp_path)
    out = await asyncio.wait_for(s.call("raw", "die", {}), 5)
    assert "exited during the call" in out.error
    assert asyncio.current_task().cancelling() == 0  # the cut did not leak into the turn
    assert await pid_of(s) != first  # the next use waits out the short backoff


async def test_a_turn_cancelled_as_the_server_goes_away_stays_cancelled(
    make, tmp_path: Path, async_wait_until
) -> None:
    s, _ = await up(make, tmp_path)
    call = asyncio.ensure_future(s.call("raw", "hang", {}))
    link = s._links["raw"]
    await async_wait_until(lambda: bool(link.calls))  # in flight, in the caller's task
    cut_calls(link)  # the connection ends (what the exit watcher does) ...
    call.cancel()  # ... and the person cancels the turn, in the same moment
    with pytest.raises(asyncio.CancelledError):
        await call  # not an error result that would let the turn go on


async def test_a_slow_server_starting_on_the_loop_never_holds_it(make, tmp_path: Path) -> None:
    s = make(raw(tmp_path, "quiet", "--silent", startup_timeout=3), raw(tmp_path))
    s.start(asyncio.get_running_loop())
    ticks = 0
    while s.starting():
        await asyncio.sleep(0.01)
        ticks += 1
    assert ticks > 10  # the loop kept turning while `quiet` said nothing
    rows = {r["name"]: r["status"] for r in s.status()}
    assert rows == {"quiet": "failed", "raw": "ready"}
    # blocking helpers called on the servers' own loop do not wait on it
    t0 = time.monotonic()
    assert s.wait_started(timeout=600)
    assert s.reconnect("quiet") is False  # begun, not waited for
    assert time.monotonic() - t0 < 60


def test_a_caller_on_another_loop_hops_and_its_cancel_reaches_the_server(
    make, tmp_path: Path, wait_until
) -> None:
    s = make(raw(tmp_path))
    home = asyncio.new_event_loop()
    thread = threading.Thread(target=home.run_forever, daemon=True)
    thread.start()
    try:
        s.start(home)
        assert s.wait_started() and s.host.loop is home
        assert text_of(asyncio.run(s.call("raw", "echo", {"text": "over"}))) == "over"

        async def cancel() -> None:
            call = asyncio.ensure_future(s.call("raw", "hang", {}))
            while not any(  # the call has reached the server: now cancel it
                m.get("method") == "tools/call" and m.get("params", {}).get("name") == "hang"
                for m in received(tmp_path)
            ):
                await asyncio.sleep(0.01)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call

        asyncio.run(asyncio.wait_for(cancel(), 10))
        wait_until(
            lambda: any(m.get("method") == "notifications/cancelled" for m in received(tmp_path))
        )
        pid = asyncio.run(pid_of(s))
        s.close()  # from this thread: waits for the end on the servers' loop
        assert not alive(pid)
    finally:
        home.call_soon_threadsafe(home.stop)
        thread.join(5)
        home.close()


def test_servers_whose_loop_closed_start_again_on_the_next(make, tmp_path: Path) -> None:
    s = make(raw(tmp_path))

    async def first() -> int:
        s.start(asyncio.get_running_loop())
        return await pid_of(s)

    async def again() -> tuple[int, bool]:
        new = await pid_of(s)  # the next loop's first call starts them there
        return new, alive(new)

    old = asyncio.run(first())  # its end cancels the connection: the group is killed
    assert not alive(old)
    new, was_alive = asyncio.run(again())
    assert new != old and was_alive and not alive(new)


async def test_close_on_the_servers_loop_returns_at_once_and_ends_them(
    make, tmp_path: Path, async_wait_until
) -> None:
    s, pid = await up(make, tmp_path)
    s.close()  # the loop cannot wait for itself: it begins the end
    await async_wait_until(lambda: not alive(pid), timeout=10)
    out = await s.call("raw", "echo", {"text": "x"})
    assert "not running" in out.error


# -- a server that goes away while idle -------------------------------------------------


@pytest.mark.parametrize("on_loop", [True, False], ids=["callers-loop", "own-thread"])
async def test_a_server_killed_while_idle_is_down_at_once_and_the_next_use_reconnects(
    make, tmp_path: Path, async_wait_until, on_loop: bool
) -> None:
    s, pid = await up(make, tmp_path, on_loop)
    os.kill(pid, signal.SIGKILL)  # idle: no call in flight
    await async_wait_until(lambda: s.status()[0]["status"] == "failed", timeout=10)
    row = s.status()[0]
    assert row["ever_ready"] and "exited (code -9)" in str(row["error"])  # /mcp: down
    out = await s.call("raw", "pid", {})  # at once: within its backoff
    assert out.error == "", out.error
    assert int(text_of(out)) != pid


async def test_a_server_that_closes_its_output_is_down_stopped_and_reconnected(
    make, tmp_path: Path, async_wait_until
) -> None:
    s, pid = await up(make, tmp_path)
    assert text_of(await s.call("raw", "hush", {})) == "hushed"
    await async_wait_until(lambda: s.status()[0]["status"] == "failed", timeout=10)
    assert "closed its output" in str(s.status()[0]["error"])
    await async_wait_until(lambda: not alive(pid), timeout=10)  # it was still running
    assert await pid_of(s) != pid


async def test_a_server_that_never_came_up_is_not_retried_within_its_backoff(
    make, tmp_path: Path
) -> None:
    s = make(raw(tmp_path, "quiet", "--silent", startup_timeout=1))
    s.start(asyncio.get_running_loop())
    while s.starting():
        await asyncio.sleep(0.01)
    out = await s.call("quiet", "echo", {"text": "x"})
    assert "is down" in out.error and "startup_timeout" in out.error
    assert s.status()[0]["status"] == "failed"  # not started again in a loop


async def test_a_call_past_its_timeout_on_the_servers_loop_is_an_error_and_cancelled(
    make, tmp_path: Path, async_wait_until
) -> None:
    s = make(raw(tmp_path, timeout=1))
    s.start(asyncio.get_running_loop())
    out = await asyncio.wait_for(s.call("raw", "hang", {}), 10)
    assert "did not answer within its timeout (1 s)" in out.error
    assert asyncio.current_task().cancelling() == 0  # the turn goes on
    await async_wait_until(
        lambda: any(m.get("method") == "notifications/cancelled" for m in received(tmp_path))
    )
    assert text_of(await s.call("raw", "echo", {"text": "next"})) == "next"
