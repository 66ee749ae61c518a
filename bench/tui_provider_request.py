"""The first request of the real TUI (tmux) with a real provider: from Enter, pressed
0.5 s after the first paint, to the request's arrival at the provider (a scripted
OpenAI-compatible server on 127.0.0.1 that notes the moment each request comes in).
Issue 33's target: ≤ 300 ms.

Each round runs codebot twice, interleaved: on its default path (the direct client for an
OpenAI-compatible server) and with `CODEBOT_WIRE=litellm` (every request through litellm,
what every turn cost before) as the baseline in the same run. Also reported: the same
request typed a second time in the same session (everything loaded).

    .venv/bin/python bench/tui_provider_request.py [--repeat 3] [--skills 0]

Prints ONE JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "agent"))

from fake_openai import FakeOpenAI  # noqa: E402  (tests/agent/fake_openai.py, stdlib only)

from bench.gen_skills import generate  # noqa: E402

PAINTED = "Ctrl+P"  # in the footer once the screen is painted
AFTER_PAINT = 0.5


def tmux(socket: str, env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        ["tmux", "-L", socket, *args], capture_output=True, text=True, env=env, timeout=20
    ).stdout


def wait_for(check: Any, timeout: float, what: str) -> None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if check():
            return
        time.sleep(0.005)
    raise TimeoutError(f"{what} did not happen in {timeout} s")


class Server:
    """The fake, answering every request at once and noting when each arrived."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self.fake = FakeOpenAI()

        def answer(body: dict[str, Any]) -> dict[str, Any]:
            self.arrivals.append(time.perf_counter())
            return {"text": "hi from the fake"}

        self.fake.responder = answer

    def __enter__(self) -> Server:
        self.fake.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.fake.stop()


def one_run(project: Path, env: dict[str, str], server: Server) -> dict[str, float]:
    socket = f"bench-{uuid.uuid4().hex[:8]}"
    cmd = (
        f"cd {project} && exec {sys.executable} -m codebot --trust "
        f"--model openai/bench-model --api-base {server.fake.url}"
    )
    tmux(socket, env, "new-session", "-d", "-s", "s", "-x", "120", "-y", "40", cmd)
    screen = lambda: tmux(socket, env, "capture-pane", "-p", "-t", "s")  # noqa: E731
    try:
        wait_for(lambda: PAINTED in screen(), 60, "the first paint")
        time.sleep(AFTER_PAINT)
        out: dict[str, float] = {}
        for name in ("first", "second"):
            tmux(socket, env, "send-keys", "-t", "s", "-l", f"hello there {name}")
            time.sleep(0.2)
            before = len(server.arrivals)
            t0 = time.perf_counter()
            tmux(socket, env, "send-keys", "-t", "s", "Enter")
            wait_for(lambda n=before: len(server.arrivals) > n, 60, f"the {name} request")
            out[f"{name}_ms"] = (server.arrivals[before] - t0) * 1000
            wait_for(lambda: screen().count("hi from the fake") >= len(out), 60, "the answer")
            time.sleep(0.3)
        return out
    finally:
        tmux(socket, env, "kill-server")


def summary(values: list[float]) -> dict[str, float]:
    return {
        "min": round(min(values)),
        "median": round(statistics.median(values)),
        "max": round(max(values)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skills", type=int, default=0)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print(json.dumps({"skipped": "tmux is not installed"}))
        return 0
    runs: dict[str, list[dict[str, float]]] = {"direct": [], "litellm": []}
    with tempfile.TemporaryDirectory() as tmp, Server() as server:
        base = Path(tmp)
        project = base / "proj"
        (project / ".git").mkdir(parents=True)
        if args.skills:
            generate(project / ".codebot" / "skills", args.skills, seed=1)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.endswith(("_API_KEY", "_PROXY", "_proxy")) and not k.startswith("TMUX")
        }
        env.update(
            HOME=str(base / "userhome"),
            CODEBOT_HOME=str(base / "home"),
            CODEBOT_NO_PROBE="1",
            TERM="xterm-256color",
            LITELLM_LOCAL_MODEL_COST_MAP="True",
        )
        for _ in range(args.repeat):  # interleaved, so that a noisy moment hits both
            runs["direct"].append(one_run(project, env | {"CODEBOT_WIRE": "direct"}, server))
            runs["litellm"].append(one_run(project, env | {"CODEBOT_WIRE": "litellm"}, server))
    out: dict[str, Any] = {
        "skills": args.skills,
        "after_paint_s": AFTER_PAINT,
        "target_first_ms": 300,
        "machine": {"nproc": os.cpu_count(), "loadavg": os.getloadavg()},
    }
    for path, rows in runs.items():
        out[path] = {
            "first_request_ms": summary([r["first_ms"] for r in rows]),
            "second_request_ms": summary([r["second_ms"] for r in rows]),
        }
    direct = out["direct"]["first_request_ms"]["median"]
    out["litellm_over_direct"] = (
        round(out["litellm"]["first_request_ms"]["median"] / direct, 2) if direct else None
    )
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
