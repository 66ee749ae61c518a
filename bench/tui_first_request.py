"""The first request in the real TUI (tmux) with a large catalog and caches warm from an
earlier run: from Enter, pressed once the screen is painted, to the chosen skill's line on
screen. Issue 17's target: ≤ 500 ms at 10,000 skills.

Prints ONE JSON object. The baseline in the same run is the same request typed a second
time in the same session (everything loaded: what the first one costs beyond it is what
warming did not cover).

`--cold`: an empty `$CODEBOT_HOME` for every run instead (no catalog index, no router
index), and a request in plain words that the router must rank the catalog for; timed
from Enter to the offline model's answer, with the body-tokenizing helper process and,
as the baseline in the same run, without it (`CODEBOT_NO_PREFETCH=1`).

    .venv/bin/python bench/tui_first_request.py [--skills 10000] [--repeat 3] [--cold]
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gen_skills import generate  # noqa: E402


def tmux(socket: str, env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        ["tmux", "-L", socket, *args], capture_output=True, text=True, env=env, timeout=20
    ).stdout


def wait_for(socket: str, env: dict[str, str], text: str, timeout: float = 60.0) -> float:
    """Seconds until `text` is on screen (polled every 5 ms)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if text in tmux(socket, env, "capture-pane", "-p", "-t", "s"):
            return time.perf_counter() - t0
        time.sleep(0.005)
    raise TimeoutError(f"{text!r} did not appear in {timeout}s")


def one_run(project: Path, env: dict[str, str], skill: str) -> dict[str, float]:
    socket = f"bench-{uuid.uuid4().hex[:8]}"
    cmd = f"cd {project} && exec {sys.executable} -m codebot --trust"
    tmux(socket, env, "new-session", "-d", "-s", "s", "-x", "120", "-y", "40", cmd)
    try:
        wait_for(socket, env, "Ctrl+P", timeout=60)
        time.sleep(0.3)  # painted and attached: the person starts typing
        tmux(socket, env, "send-keys", "-t", "s", "-l", f"/{skill} first")
        time.sleep(0.2)
        tmux(socket, env, "send-keys", "-t", "s", "Enter")
        first = wait_for(socket, env, f"skill {skill} ·")
        time.sleep(1.0)
        line = f"skill {skill} ·"
        tmux(socket, env, "send-keys", "-t", "s", "-l", f"/{skill} second")
        time.sleep(0.2)
        t0 = time.perf_counter()
        tmux(socket, env, "send-keys", "-t", "s", "Enter")
        while (
            line
            not in tmux(socket, env, "capture-pane", "-p", "-t", "s").rpartition(
                f"/{skill} second"
            )[2]
        ):
            if time.perf_counter() - t0 > 30:
                raise TimeoutError("the second request did not show")
            time.sleep(0.005)
        second = time.perf_counter() - t0
        return {"first_ms": first * 1000, "second_ms": second * 1000}
    finally:
        tmux(socket, env, "kill-server")


COLD_REQUEST = "write a dockerfile for this app"
# the offline model's answer: the skill it chose, or the closest ones (its "Connect a
# model" hint is no marker: the TUI shows it as soon as the session is up)
ANSWERED = ("Closest skills", " · inline", " · fork")


def cold_run(project: Path, env: dict[str, str], home: Path) -> float:
    """Enter (pressed once the screen is painted, with nothing cached) to the answer, in ms."""
    socket = f"bench-{uuid.uuid4().hex[:8]}"
    env = env | {"CODEBOT_HOME": str(home)}
    cmd = f"cd {project} && exec {sys.executable} -m codebot --trust"
    tmux(socket, env, "new-session", "-d", "-s", "s", "-x", "120", "-y", "40", cmd)
    try:
        wait_for(socket, env, "Ctrl+P", timeout=60)
        time.sleep(0.3)
        tmux(socket, env, "send-keys", "-t", "s", "-l", COLD_REQUEST)
        time.sleep(0.2)
        tmux(socket, env, "send-keys", "-t", "s", "Enter")
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 120:
            screen = tmux(socket, env, "capture-pane", "-p", "-t", "s").rpartition(COLD_REQUEST)[2]
            if any(m in screen for m in ANSWERED):
                return (time.perf_counter() - t0) * 1000
            time.sleep(0.005)
        raise TimeoutError("no answer on screen in 120 s")
    finally:
        tmux(socket, env, "kill-server")


def main_cold(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "proj"
        (project / ".git").mkdir(parents=True)
        generate(project / ".codebot" / "skills", args.skills, seed=1)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and not k.startswith("TMUX")
        }
        env.update(
            HOME=str(base / "userhome"),
            CODEBOT_NO_PROBE="1",
            TERM="xterm-256color",
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            CODEBOT_MODEL="offline",
        )
        helped, alone = [], []
        for i in range(args.repeat):  # interleaved, so that a noisy moment hits both
            helped.append(cold_run(project, env, base / f"h{i}"))
            alone.append(cold_run(project, env | {"CODEBOT_NO_PREFETCH": "1"}, base / f"a{i}"))
    a, b = statistics.median(helped), statistics.median(alone)
    print(
        json.dumps(
            {
                "skills": args.skills,
                "request": COLD_REQUEST,
                "cold_ms": [round(x) for x in helped],
                "cold_alone_ms": [round(x) for x in alone],
                "cold_first_request_ms": round(a),
                "cold_alone_first_request_ms": round(b),
                "prefetch_speedup": round(b / a, 2) if a else None,
            },
            indent=2,
        )
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--cold", action="store_true", help="empty $CODEBOT_HOME, a request the router ranks"
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print(json.dumps({"error": "tmux is not installed"}))
        return 1
    if args.cold:
        return main_cold(args)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "proj"
        (project / ".git").mkdir(parents=True)
        paths = generate(project / ".codebot" / "skills", args.skills, seed=1)
        skill = paths[len(paths) // 2].parent.name
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and not k.startswith("TMUX")
        }
        env.update(
            HOME=str(base / "userhome"),
            CODEBOT_HOME=str(base / "home"),
            CODEBOT_NO_PROBE="1",
            TERM="xterm-256color",
            LITELLM_LOCAL_MODEL_COST_MAP="True",
        )
        # An earlier run writes the catalog index and the router's index.
        subprocess.run(
            [sys.executable, "-m", "codebot", "-p", f"/{skill} warm", "--trust"],
            cwd=project,
            env=env,
            capture_output=True,
            timeout=300,
            check=True,
        )
        runs = [one_run(project, env, skill) for _ in range(args.repeat)]
    first = statistics.median(r["first_ms"] for r in runs)
    second = statistics.median(r["second_ms"] for r in runs)
    print(
        json.dumps(
            {
                "skills": args.skills,
                "runs": [{k: round(v) for k, v in r.items()} for r in runs],
                "first_request_ms": round(first),
                "same_request_again_ms": round(second),
                "first_over_again": round(first / second, 2) if second else None,
                "target_ms": 500,
                "target_met": first <= 500,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
