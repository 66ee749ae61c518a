"""Streamable HTTP MCP servers in a session (codebot/mcp/session_http.py). Prints ONE JSON
object on stdout (progress goes to stderr); every number has its baseline from the same run.

    .venv/bin/python bench/mcp_http.py            # 3 rounds
    .venv/bin/python bench/mcp_http.py --rounds 5

- `per_call`: a tool call through codebot (the registry's check of the arguments, the hop
  to the servers' thread, the SDK's request over codebot's httpx2 client, the rendered
  result) against the same call on the SDK's own `ClientSession` over its own
  `streamable_http_client`, CALLS calls each, on the SDK's server under uvicorn
  (tests/mcp/http_session_server.py, SSE answers); target ratio <= 1.2.
- `lost_call`: the server is killed while a call waits on it (its `timeout` 120 s): how
  long until the call is an error result, against the connection's own start-up
  (`connect_ms`, the baseline: initialize and tools/list).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
SCRIPT = ROOT / "tests" / "mcp" / "http_session_server.py"
TOKEN = "bench-token"
CALLS = 200


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def summary(xs: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(xs), 1), "min": round(min(xs), 1)}


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    port_file, log = folder / "port", folder / "notes.log"
    port_file.unlink(missing_ok=True)
    cmd = [sys.executable, str(SCRIPT), str(port_file), TOKEN, str(log)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 60
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() > end:
            raise SystemExit("the server did not start")
        time.sleep(0.02)
    return proc, f"http://127.0.0.1:{port_file.read_text()}/mcp", log


async def sdk_calls(url: str) -> float:
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers) as client,
        streamable_http_client(url, http_client=client) as (r, w),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        await session.list_tools()
        for _ in range(20):
            await session.call_tool("add", {"a": 1, "b": 2})
        t0 = time.perf_counter()
        for _ in range(CALLS):
            await session.call_tool("add", {"a": 1, "b": 2})
        return (time.perf_counter() - t0) / CALLS * 1e6


def servers_for(url: str, **keys: object):
    from codebot.mcp.config import servers_from
    from codebot.mcp.session_servers import SessionServers

    home = Path(tempfile.mkdtemp(prefix="codebot-bench-mcp-http-"))
    entry = {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {TOKEN}"}}
    (d,), _ = servers_from(
        {"h": {**entry, **keys}}, source="user", path="b", prefix="s", environ={}
    )
    return SessionServers([d], home=home, project=home), home


def codebot_calls(url: str) -> float:
    from codebot.agent.tools import McpTools, ToolContext, ToolRegistry

    servers, home = servers_for(url)
    servers.start()
    assert servers.wait_started() and servers.status()[0]["status"] == "ready"
    registry = ToolRegistry()
    McpTools(servers, registry, window=lambda: 128_000, budget_percent=100).sync()
    ctx = ToolContext(project_dir=home)

    async def run() -> float:
        for _ in range(20):
            await registry.call("mcp__h__add", {"a": 1, "b": 2}, ctx)
        t0 = time.perf_counter()
        for _ in range(CALLS):
            result = await registry.call("mcp__h__add", {"a": 1, "b": 2}, ctx)
            assert result.ok, result.content
        return (time.perf_counter() - t0) / CALLS * 1e6

    try:
        return asyncio.run(run())
    finally:
        servers.close()


def lost_call(folder: Path) -> tuple[float, float]:
    """(ms from the kill to the call's error result, ms to connect)."""
    proc, url, log = start_server(folder)
    servers, _ = servers_for(url, timeout=120)
    try:
        t0 = time.perf_counter()
        servers.start()
        assert servers.wait_started()
        connect = (time.perf_counter() - t0) * 1000

        async def killed() -> float:
            task = asyncio.ensure_future(servers.call("h", "slow", {}))
            while "slow started" not in (log.read_text() if log.exists() else ""):
                await asyncio.sleep(0.005)
            t1 = time.perf_counter()
            proc.kill()
            out = await task
            assert "lost" in out.error, out.error
            return (time.perf_counter() - t1) * 1000

        return asyncio.run(asyncio.wait_for(killed(), 60)), connect
    finally:
        servers.close()
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="codebot-bench-mcp-http-srv-"))
    proc, url, _ = start_server(folder / "main")
    sdk, ours, lost, connect = [], [], [], []
    try:
        for k in range(args.rounds):
            say(f"round {k + 1}/{args.rounds}")
            sdk.append(asyncio.run(sdk_calls(url)))
            ours.append(codebot_calls(url))
            gone, up = lost_call(folder / f"lost{k}")
            lost.append(gone)
            connect.append(up)
    finally:
        proc.kill()
        proc.wait()
    ratio = statistics.median(ours) / statistics.median(sdk)
    print(
        json.dumps(
            {
                "per_call": {
                    "sdk_client_session_us": summary(sdk),
                    "codebot_us": summary(ours),
                    "ratio": round(ratio, 3),
                    "target_ratio": 1.2,
                    "within_target": ratio <= 1.2,
                },
                "lost_call": {
                    "error_after_kill_ms": summary(lost),
                    "connect_ms": summary(connect),
                    "ratio": round(statistics.median(lost) / statistics.median(connect), 3),
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
