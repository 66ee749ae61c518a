"""Session-scoped MCP servers (codebot/mcp/session_servers.py) through real processes:
`raw_server.py` (raw JSON-RPC, written for these tests) and the reference `mcp-server-time`."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
import time
from pathlib import Path

import pytest

from codebot.mcp.config import ServerDef, servers_from
from codebot.mcp.session_servers import SessionServers

RAW = Path(__file__).with_name("raw_server.py")


def define(name: str, entry: dict) -> ServerDef:
    (d,), _ = servers_from({name: entry}, source="user", path="test", prefix="s", environ={})
    assert d.error == ""
    return d


def raw(tmp_path: Path, name: str = "raw", *extra: str, **keys: object) -> ServerDef:
    return define(
        name,
        {
            "command": sys.executable,
            "args": [str(RAW), str(tmp_path / f"{name}.log"), *extra],
            **keys,
        },
    )


def received(tmp_path: Path, name: str = "raw") -> list[dict]:
    path = tmp_path / f"{name}.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.fixture
def servers(codebot_home: Path, project: Path):
    made: list[SessionServers] = []

    def make(*defs: ServerDef) -> SessionServers:
        s = SessionServers(list(defs), home=codebot_home, project=project)
        made.append(s)
        s.start()
        return s

    yield make
    for s in made:
        s.close()


def text_of(outcome) -> str:
    assert outcome.error == "", outcome.error
    return "".join(getattr(c, "text", "") for c in outcome.result.content)


def test_a_server_starts_in_the_background_lists_its_tools_and_is_closed(
    servers, tmp_path: Path, wait_until
) -> None:
    s = servers(raw(tmp_path))
    assert s.wait_started()
    assert s.status()[0]["status"] == "ready"
    names = [t.name for t in s.tools()]
    assert names[:3] == ["echo", "pid", "die"]
    assert next(t for t in s.tools() if t.name == "echo").read_only_hint is True
    assert text_of(asyncio.run(s.call("raw", "echo", {"text": "hi"}))) == "hi"
    pid = int(text_of(asyncio.run(s.call("raw", "pid", {}))))
    assert alive(pid)
    s.close()
    wait_until(lambda: not alive(pid), timeout=5)
    assert s.status()[0]["status"] == "stopped"
    # the client says who it is
    assert received(tmp_path)[0]["params"]["clientInfo"]["name"] == "codebot"


def test_start_returns_at_once_and_a_silent_server_fails_at_its_startup_timeout(
    servers, tmp_path: Path
) -> None:
    t0 = time.monotonic()
    s = servers(raw(tmp_path, "quiet", "--silent", startup_timeout=1), raw(tmp_path))
    started_in = time.monotonic() - t0
    assert s.starting() or started_in < 0.5  # start() never waits for a server
    assert s.wait_started(timeout=30)
    rows = {r["name"]: r for r in s.status()}
    assert rows["quiet"]["status"] == "failed"
    assert "startup_timeout (1 s)" in str(rows["quiet"]["error"])
    assert rows["raw"]["status"] == "ready"  # one slow server does not hold the others
    out = asyncio.run(s.call("quiet", "echo", {"text": "x"}))
    assert "down" in out.error and "startup_timeout" in out.error


def test_a_server_that_dies_mid_call_is_an_error_and_restarts_on_next_use(
    servers, tmp_path: Path, wait_until
) -> None:
    s = servers(raw(tmp_path, timeout=30))
    assert s.wait_started()
    first = int(text_of(asyncio.run(s.call("raw", "pid", {}))))

    async def die() -> object:
        return await asyncio.wait_for(s.call("raw", "die", {}), 5)

    out = asyncio.run(die())  # within 5 s, or wait_for raises
    assert "exited during the call" in out.error
    assert s.status()[0]["status"] == "failed"
    # restarted on the next use once the backoff (1 s) has passed
    second: list[int] = []

    def restarted() -> bool:
        out = asyncio.run(s.call("raw", "pid", {}))
        if out.error:
            assert "started again" in out.error
            return False
        second.append(int(text_of(out)))
        return True

    wait_until(restarted, timeout=10, interval=0.3)
    assert second[0] != first and s.status()[0]["status"] == "ready"


def test_list_changed_refreshes_the_tools(servers, tmp_path: Path, wait_until) -> None:
    s = servers(raw(tmp_path))
    assert s.wait_started()
    before = s.generation
    assert "extra" not in [t.name for t in s.tools()]
    assert text_of(asyncio.run(s.call("raw", "grow", {}))) == "grown"
    wait_until(lambda: "extra" in [t.name for t in s.tools()], timeout=5)
    assert s.generation > before


def test_a_cancelled_call_sends_notifications_cancelled(
    servers, tmp_path: Path, wait_until
) -> None:
    s = servers(raw(tmp_path))
    assert s.wait_started()

    async def cancel() -> None:
        task = asyncio.ensure_future(s.call("raw", "hang", {}))
        await asyncio.sleep(0)
        async with asyncio.timeout(30):  # a poll with an end, never a hang
            while not any(m.get("params", {}).get("name") == "hang" for m in received(tmp_path)):
                await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(cancel(), 10))
    call_id = next(m["id"] for m in received(tmp_path) if m.get("params", {}).get("name") == "hang")
    wait_until(
        lambda: any(
            m.get("method") == "notifications/cancelled" and m["params"]["requestId"] == call_id
            for m in received(tmp_path)
        ),
        timeout=5,
    )
    assert text_of(asyncio.run(s.call("raw", "echo", {"text": "still"}))) == "still"


def test_a_call_past_its_timeout_is_an_error(servers, tmp_path: Path) -> None:
    s = servers(raw(tmp_path, timeout=1))
    assert s.wait_started()
    out = asyncio.run(asyncio.wait_for(s.call("raw", "hang", {}), 10))
    assert "did not answer within its timeout (1 s)" in out.error


def test_a_command_that_cannot_start_fails_with_why(servers, tmp_path: Path) -> None:
    s = servers(define("nope", {"command": str(tmp_path / "missing-binary")}))
    assert s.wait_started()
    (row,) = s.status()
    assert row["status"] == "failed" and "missing-binary" in str(row["error"])


def test_a_server_that_leaves_a_child_leaves_nothing_after_close(
    servers, tmp_path: Path, wait_until
) -> None:
    script = tmp_path / "spawner.py"
    marker = tmp_path / "child.pid"
    script.write_text(
        textwrap.dedent(
            f"""
            import subprocess, sys, runpy
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
            open({str(marker)!r}, "w").write(str(child.pid))
            sys.argv = [{str(RAW)!r}, {str(tmp_path / "sp.log")!r}]
            runpy.run_path({str(RAW)!r}, run_name="__main__")
            """
        )
    )
    s = servers(define("sp", {"command": sys.executable, "args": [str(script)]}))
    assert s.wait_started()
    child = int(marker.read_text())
    assert alive(child)
    s.close()
    wait_until(lambda: not alive(child), timeout=5)


def test_a_flood_of_list_changed_lists_the_tools_a_few_times_not_200(
    servers, tmp_path: Path, wait_until
) -> None:
    s = servers(raw(tmp_path))
    assert s.wait_started()
    assert text_of(asyncio.run(s.call("raw", "flood", {}))) == "flooded"

    def listings() -> int:
        return sum(m.get("method") == "tools/list" for m in received(tmp_path))

    wait_until(lambda: listings() >= 2, timeout=5)  # at least one refresh happened
    assert text_of(asyncio.run(s.call("raw", "echo", {"text": "after"}))) == "after"
    assert listings() <= 5
