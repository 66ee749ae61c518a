"""Start-up benchmark. Prints ONE JSON object on stdout (progress goes to stderr).

    .venv/bin/python bench/startup.py            # 5 runs each
    .venv/bin/python bench/startup.py --runs 9

- First paint of the TUI: `python -m codebot` runs in a pseudo-terminal (120x40) with
  CODEBOT_EXIT_AFTER_PAINT=1, so it quits right after its first frame and prints
  `{"first_paint_ms": N, "ready_ms": R, "painted_at": T}`. N counts from the first import
  of codebot; `first_paint_from_spawn_ms` counts from just before the process was spawned
  (T minus the spawn time; `time.monotonic()` is system-wide on Linux), so it includes
  starting Python. Target: median from spawn <= 600 ms. `ready_in_app_ms` is when the
  session exists too (it is built in a thread right after the first frame), and
  `exit_after_paint_wall_ms` the whole run including shutting the terminal down.
- `codebot --help` wall time against `python -c pass` (best of N each).
  Target: help <= 3 x baseline + 120 ms.

Each run uses a fresh throwaway project and the same throwaway CODEBOT_HOME, with no
provider keys (offline model). If `python -m codebot` does not start the TUI yet (the CLI
is not wired to `run_tui`), the same code path is started through a small shim instead
and `entry` says so.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAINT_TARGET_MS = 600
PROVIDER_KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "MISTRAL_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
    "XAI_API_KEY",
    "CODEBOT_MODEL",
    "CODEBOT_API_BASE",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
)
SHIM = (
    "import sys; from codebot.cli import build_parser; from codebot.commands.args import "
    "settings_from; "
    "from codebot.ui.tui import run_tui; a = build_parser().parse_args([]); "
    "sys.exit(run_tui(settings_from(a), allow=a.allow, deny=a.deny))"
)
RESULT = re.compile(rb'\{"first_paint_ms": [^}]*\}')


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run_in_pty(
    argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 30.0
) -> tuple[bytes, float, float]:
    """Run argv on a fresh pty of 120x40; (all output, spawn time, seconds to exit)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    spawned = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    out = bytearray()
    deadline = spawned + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    chunk = b""
                if not chunk and proc.poll() is not None:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
        else:
            proc.kill()
            raise RuntimeError(f"{argv} did not exit within {timeout} s")
        proc.wait()
        return bytes(out), spawned, time.monotonic() - spawned
    finally:
        os.close(master)


#: Every run's throwaway project lives here; the folder is trusted once in the throwaway
#: CODEBOT_HOME, so the TUI starts without the trust question (measured is the app itself).
PROJECTS = Path(tempfile.mkdtemp(prefix="codebot-bench-projects-"))


def trust_projects(env: dict[str, str]) -> None:
    """`codebot trust` on the projects folder (a tree without the command ignores it)."""
    subprocess.run(
        [sys.executable, "-m", "codebot", "trust", str(PROJECTS)],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )


def first_paint(argv: list[str], env: dict[str, str], home: Path) -> dict[str, float] | None:
    project = Path(tempfile.mkdtemp(prefix="proj-", dir=PROJECTS))
    (project / ".git").mkdir()
    try:
        out, spawned, wall = run_in_pty(argv, env, project)
    finally:
        shutil.rmtree(project, ignore_errors=True)
    m = RESULT.search(out)
    if not m:
        return None
    data = json.loads(m.group(0))
    return {
        "first_paint_ms": float(data["first_paint_ms"]),
        "ready_ms": float(data.get("ready_ms") or 0),
        "from_spawn_ms": (data["painted_at"] - spawned) * 1000,
        "wall_ms": wall * 1000,
    }


def wall(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
    )
    return (time.perf_counter() - t0) * 1000


def summary(values: list[float]) -> dict[str, float]:
    return {
        "best": round(min(values), 1),
        "median": round(statistics.median(values), 1),
        "runs": [round(v, 1) for v in values],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="codebot-bench-home-"))
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_KEYS}
    env.update(
        CODEBOT_HOME=str(home),
        CODEBOT_EXIT_AFTER_PAINT="1",
        TERM=env.get("TERM", "xterm-256color"),
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    env.pop("NO_COLOR", None)
    try:
        trust_projects({k: v for k, v in env.items() if k != "CODEBOT_EXIT_AFTER_PAINT"})
        entry, argv = "python -m codebot", [sys.executable, "-m", "codebot"]
        log("warming up (first run writes the skill index)…")
        if first_paint(argv, env, home) is None:
            entry, argv = "shim (the CLI does not start the TUI yet)", [sys.executable, "-c", SHIM]
            if first_paint(argv, env, home) is None:
                log("the TUI did not report a first paint")
                return 1
        paints = []
        for i in range(opts.runs):
            result = first_paint(argv, env, home)
            if result is None:
                log("the TUI did not report a first paint")
                return 1
            log(f"paint {i + 1}: {result['from_spawn_ms']:.0f} ms from spawn")
            paints.append(result)
        plain_env = {k: v for k, v in env.items() if k != "CODEBOT_EXIT_AFTER_PAINT"}
        wall([sys.executable, "-c", "pass"], plain_env)
        baseline = [wall([sys.executable, "-c", "pass"], plain_env) for _ in range(opts.runs)]
        helps = [
            wall([sys.executable, "-m", "codebot", "--help"], plain_env) for _ in range(opts.runs)
        ]
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(PROJECTS, ignore_errors=True)
    spawn = summary([p["from_spawn_ms"] for p in paints])
    base, help_best = min(baseline), min(helps)
    budget = 3 * base + 120
    print(
        json.dumps(
            {
                "entry": entry,
                "runs": opts.runs,
                "first_paint_from_spawn_ms": spawn,
                "first_paint_in_app_ms": summary([p["first_paint_ms"] for p in paints]),
                "ready_in_app_ms": summary([p["ready_ms"] for p in paints]),
                "exit_after_paint_wall_ms": summary([p["wall_ms"] for p in paints]),
                "first_paint_target_ms": PAINT_TARGET_MS,
                "first_paint_ok": spawn["median"] <= PAINT_TARGET_MS,
                "python_pass_ms": round(base, 1),
                "help_ms": round(help_best, 1),
                "help_ratio": round(help_best / base, 2),
                "help_budget_ms": round(budget, 1),
                "help_ok": help_best <= budget,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
