"""MCP benchmark (issue 34): 5 stdio servers x 40 tools each. Prints ONE JSON object on
stdout (progress goes to stderr); every number has its baseline from the same run.

    .venv/bin/python bench/mcp_session.py            # 5 runs of each start-up measure
    .venv/bin/python bench/mcp_session.py --runs 3

- `first_paint`: the TUI's first frame (from spawn, `bench/startup.py`'s pty harness)
  with the 5 servers in the person's config against none. The servers start after the
  session is built, in the background; target: within +30 ms of none.
- `print_turn`: `codebot -p hi` against a scripted local model (tests/agent/fake_openai.py),
  wall time, with and without the servers. `-p` waits for the starts (each bounded by its
  startup_timeout) before its first request, so this is the servers' start-up cost.
- `per_call`: a tool call through codebot (the registry's check of the arguments, the
  SDK's request, the rendered result) with the servers on the calling loop, as every
  front end runs them, against the same call on the SDK's own `ClientSession` over its
  own `stdio_client`: all connected at once, 40 alternating batches of 25 calls each;
  `ratio` is the median over the batches of each one's time against the SDK's batch
  next to it (so a load spike on the shared machine slows both sides of a pair), with
  `ratio_of_medians` beside it; target ratio <= 1.2. `codebot_other_loop_us` is the fallback for a
  caller on another loop: the servers on their own thread, one hop each way.
- `definitions`: the 200 tools' definitions in tokens (4 characters a token) against 10%
  of a 128,000-token window, and what is sent instead once they are deferred (the
  ToolSearch definition with one line per tool).

The servers are one generated raw JSON-RPC script (no SDK; ~30 ms to start).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This file is named like the SDK's package: its own folder must not shadow `mcp`.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests" / "agent"))  # fake_openai
sys.path.insert(0, str(ROOT))  # bench.startup

SERVERS, TOOLS, CALLS = 5, 40, 300
WINDOW = 128_000

SERVER = r"""
import json, sys
N = int(sys.argv[1])
tools = [{
    "name": f"tool_{k}",
    "description": f"Generated tool {k}: it does one thing with care. " + "Details. " * 20,
    "inputSchema": {"type": "object", "properties": {
        f"arg_{j}": {"type": "string", "description": f"value {j} of tool {k}: " + "text " * 3}
        for j in range(6)}},
} for k in range(N)]
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    i, meth = m["id"], m["method"]
    if meth == "initialize":
        v = m["params"]["protocolVersion"]
        send({"jsonrpc": "2.0", "id": i, "result": {"protocolVersion": v,
              "capabilities": {"tools": {}}, "serverInfo": {"name": "gen", "version": "1"}}})
    elif meth == "tools/list":
        send({"jsonrpc": "2.0", "id": i, "result": {"tools": tools}})
    elif meth == "tools/call":
        a = m["params"].get("arguments") or {}
        send({"jsonrpc": "2.0", "id": i, "result": {"content": [
            {"type": "text", "text": "ok " + str(a.get("arg_0", ""))}], "isError": False}})
    else:
        send({"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "no"}})
"""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def summary(values: list[float], brief: bool = False) -> dict[str, object]:
    out: dict[str, object] = {
        "median": round(statistics.median(values), 1),
        "best": round(min(values), 1),
    }
    if not brief:
        out["runs"] = [round(v, 1) for v in values]
    return out


def servers_yaml(script: Path) -> str:
    lines = ["mcp:", "  servers:"]
    for s in range(SERVERS):
        entry = {"command": sys.executable, "args": [str(script), str(TOOLS)]}
        lines.append(f"    gen{s}: {json.dumps(entry)}")
    return "\n".join(lines) + "\n"


def paint_runs(runs: int, env: dict[str, str], home: Path, config: str) -> list[float]:
    from bench import startup

    (home / "config.yaml").write_text(config)
    argv = [sys.executable, "-m", "codebot"]
    out = []
    for _ in range(runs):
        r = startup.first_paint(argv, env, home)
        if r is None:
            raise RuntimeError("the TUI did not report a first paint")
        out.append(r["from_spawn_ms"])
    return out


def first_paint(runs: int, script: Path) -> dict[str, object]:
    from bench import startup

    home = Path(tempfile.mkdtemp(prefix="codebot-bench-mcp-home-"))
    env = {k: v for k, v in os.environ.items() if k not in startup.PROVIDER_KEYS}
    env.update(
        CODEBOT_HOME=str(home),
        CODEBOT_EXIT_AFTER_PAINT="1",
        CODEBOT_NO_PROBE="1",
        TERM=env.get("TERM", "xterm-256color"),
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    env.pop("NO_COLOR", None)
    startup.trust_projects({k: v for k, v in env.items() if k != "CODEBOT_EXIT_AFTER_PAINT"})
    plain, with_servers = (
        "sandbox:\n  mode: off\n",
        "sandbox:\n  mode: off\n" + servers_yaml(script),
    )
    paint_runs(1, env, home, plain)  # warm-up: the skill index
    none, some = [], []
    for _ in range(runs):  # interleaved, so both see the same machine
        none += paint_runs(1, env, home, plain)
        some += paint_runs(1, env, home, with_servers)
    delta = statistics.median(some) - statistics.median(none)
    return {
        "without_ms": summary(none),
        "with_ms": summary(some),
        "delta_median_ms": round(delta, 1),
        "target_delta_ms": 30,
        "within_target": delta <= 30,
    }


def print_turn(runs: int, script: Path) -> dict[str, object]:
    from fake_openai import FakeOpenAI

    home = Path(tempfile.mkdtemp(prefix="codebot-bench-mcp-p-"))
    project = Path(tempfile.mkdtemp(prefix="codebot-bench-mcp-proj-"))
    (project / ".git").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(CODEBOT_HOME=str(home), PYTHONPATH=str(ROOT))
    fake = FakeOpenAI().start()

    def once(config: str) -> float:
        (home / "config.yaml").write_text(config)
        fake.script([{"text": "hello"}])
        argv = [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", "hi"]
        argv += ["--api-base", fake.url, "--model", "openai/x"]
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True, timeout=120)
        return (time.perf_counter() - t0) * 1000

    plain, with_servers = (
        "sandbox:\n  mode: off\n",
        "sandbox:\n  mode: off\n" + servers_yaml(script),
    )
    once(plain)
    none, some = [], []
    for _ in range(runs):
        none.append(once(plain))
        some.append(once(with_servers))
    fake.stop()
    return {
        "without_ms": summary(none),
        "with_ms": summary(some),
        "delta_median_ms": round(statistics.median(some) - statistics.median(none), 1),
    }


BATCHES, BATCH = 40, 25  # per_call: 40 rounds of 25 calls each way, interleaved


def codebot_side(script: Path, name: str, loop: asyncio.AbstractEventLoop | None):
    """codebot's servers (one generated server), its registry and a call through it."""
    from codebot.agent.tools import McpTools, ToolContext, ToolRegistry
    from codebot.mcp.config import servers_from
    from codebot.mcp.session_servers import SessionServers

    home = Path(tempfile.mkdtemp(prefix="codebot-bench-mcp-call-"))
    entry = {"command": sys.executable, "args": [str(script), str(TOOLS)]}
    (d,), _ = servers_from({name: entry}, source="user", path="bench", prefix="s", environ={})
    servers = SessionServers([d], home=home, project=home)
    servers.start(loop)  # None: a loop of their own, in a thread
    registry = ToolRegistry()
    mcp = McpTools(servers, registry, window=lambda: WINDOW, budget_percent=100)
    ctx = ToolContext(project_dir=home)

    async def call() -> None:
        result = await registry.call(f"mcp__{name}__tool_1", {"arg_0": "x"}, ctx)
        assert result.ok, result.content

    return servers, mcp, call


async def timed(call, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        await call()
    return (time.perf_counter() - t0) / n * 1e6


async def interleaved(script: Path) -> dict[str, list[float]]:
    """The SDK's own client, codebot with its servers on this loop (as every front end
    runs them) and codebot with them on a thread of their own (the fallback for a caller
    on another loop), all connected at once and called in alternating batches, so that a
    machine shared with others slows all three alike."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=[str(script), str(TOOLS)])
    here, here_mcp, ours = codebot_side(script, "gen", asyncio.get_running_loop())
    away, away_mcp, hop = codebot_side(script, "far", None)
    times: dict[str, list[float]] = {"sdk": [], "codebot": [], "other_loop": []}
    try:
        async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            await session.list_tools()

            async def sdk() -> None:
                await session.call_tool("tool_1", {"arg_0": "x"})

            for mcp in (here_mcp, away_mcp):
                await mcp.ready()
                mcp.sync()
            sides = {"sdk": sdk, "codebot": ours, "other_loop": hop}
            for call in sides.values():  # warm-up
                await timed(call, 20)
            for b in range(BATCHES):
                order = list(sides) if b % 2 == 0 else list(reversed(sides))
                for key in order:
                    times[key].append(await timed(sides[key], BATCH))
    finally:
        await here.aclose()
        away.close()
    return times


def per_call(script: Path) -> dict[str, object]:
    times = asyncio.run(interleaved(script))
    sdk, ours, hop = times["sdk"], times["codebot"], times["other_loop"]
    # each batch against the SDK's batch next to it (same moment, same load), the median
    ratio = statistics.median(o / s for o, s in zip(ours, sdk, strict=True))
    return {
        "batches": f"{BATCHES} x {BATCH} calls each, interleaved",
        "sdk_client_session_us": summary(sdk, brief=True),
        "codebot_us": summary(ours, brief=True),
        "codebot_other_loop_us": summary(hop, brief=True),
        "ratio": round(ratio, 3),
        "ratio_of_medians": round(statistics.median(ours) / statistics.median(sdk), 3),
        "other_loop_ratio": round(
            statistics.median(h / s for h, s in zip(hop, sdk, strict=True)), 3
        ),
        "target_ratio": 1.2,
        "within_target": ratio <= 1.2,
    }


def definitions(script: Path) -> dict[str, object]:
    from codebot.agent.tools import McpTools, ToolRegistry
    from codebot.mcp.config import servers_from
    from codebot.mcp.session_servers import SessionServers

    home = Path(tempfile.mkdtemp(prefix="codebot-bench-mcp-defs-"))
    entries = {
        f"gen{s}": {"command": sys.executable, "args": [str(script), str(TOOLS)]}
        for s in range(SERVERS)
    }
    defs, _ = servers_from(entries, source="user", path="bench", prefix="s", environ={})
    servers = SessionServers(defs, home=home, project=home)
    servers.start()
    servers.wait_started()
    registry = ToolRegistry()
    mcp = McpTools(servers, registry, window=lambda: WINDOW, budget_percent=10)
    mcp.sync()
    full = sum(len(json.dumps(t.schema())) for t in mcp.tools.values()) // 4
    sent = [t.schema() for t in registry if t.name not in mcp.hidden()]
    sent_tokens = sum(len(json.dumps(s)) for s in sent) // 4
    servers.close()
    return {
        "tools": len(mcp.tools),
        "definitions_tokens": full,
        "budget_tokens": int(WINDOW * 0.10),
        "deferred": len(mcp.deferred),
        "sent_when_deferred_tokens": sent_tokens,
        "within_budget": sent_tokens <= WINDOW * 0.10,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--only", choices=("definitions", "per_call", "print_turn", "first_paint"), default=None
    )
    opts = parser.parse_args()
    script = Path(tempfile.mkdtemp(prefix="codebot-bench-mcp-")) / "server.py"
    script.write_text(SERVER)
    out: dict[str, object] = {"servers": SERVERS, "tools_per_server": TOOLS}
    parts = {
        "definitions": lambda: definitions(script),
        "per_call": lambda: per_call(script),
        "print_turn": lambda: print_turn(opts.runs, script),
        "first_paint": lambda: first_paint(opts.runs, script),
    }
    for name, measure in parts.items():
        if opts.only in (None, name):
            log(f"{name}…")
            out[name] = measure()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
