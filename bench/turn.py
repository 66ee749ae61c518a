"""Per-turn overhead of the agent loop, excluding the model, and `codebot -p` end to end.

Prints ONE JSON object. The overhead is everything a turn costs besides the model call:
reminders (date, usage-ordered listing of 1,000 skills), policy filtering, building the
request, bookkeeping and the transcript write. The model is a client that answers at once.
Baseline in the same run: the same turn with an empty catalog (no skills at all).

    .venv/bin/python bench/turn.py
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.gen_skills import generate
from codebot.agent.model import Completion, ModelRequest, TextDelta


class InstantModel:
    """Answers every request at once: the loop's cost is all that is measured."""

    model = "instant"
    context_window = None
    offline = False

    async def stream(self, request: ModelRequest):
        yield TextDelta("ok")
        yield Completion("ok")


def measure_turns(n_skills: int, turns: int) -> dict:
    from codebot.agent.session import build_session
    from codebot.config import load_settings
    from codebot.workspace import open_catalog

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        os.environ["CODEBOT_HOME"] = str(tmp_path / "home")
        os.environ["HOME"] = str(tmp_path / "userhome")
        project = tmp_path / "proj"
        (project / ".git").mkdir(parents=True)
        if n_skills:
            generate(project / ".codebot" / "skills", n_skills, seed=1)
        settings = load_settings(cwd=project)
        catalog = open_catalog(settings)
        session = build_session(settings, catalog, client=InstantModel())
        times: list[float] = []

        async def run() -> None:
            for i in range(turns):
                t0 = time.perf_counter()
                await session.run_turn(f"turn {i}: please look at src/app.py")
                times.append((time.perf_counter() - t0) * 1000)
                if len(session.history) > 40:  # keep the conversation a realistic size
                    session.history[:] = session.history[-20:]

        asyncio.run(run())
        session.transcript.close()
        warm = times[3:]
        return {
            "skills": len(catalog.snapshot),
            "turns": turns,
            "p50_ms": round(statistics.median(warm), 3),
            "p95_ms": round(sorted(warm)[int(0.95 * (len(warm) - 1))], 3),
            "first_turn_ms": round(times[0], 3),
        }


def measure_print(runs: int = 5) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "CODEBOT_HOME": f"{tmp}/home", "HOME": f"{tmp}/userhome"}
        for k in (
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GEMINI_API_KEY",
            "CODEBOT_MODEL",
            "CODEBOT_API_BASE",
        ):
            env.pop(k, None)

        def timed(cmd: list[str]) -> float:
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, check=True)
            return (time.perf_counter() - t0) * 1000

        base = [timed([sys.executable, "-c", "pass"]) for _ in range(runs)]
        cmd = [sys.executable, "-m", "codebot", "-p", "please review my recent changes"]
        full = [timed(cmd) for _ in range(runs)]
    return {
        "offline_print_ms_best": round(min(full), 1),
        "offline_print_ms_median": round(statistics.median(full), 1),
        "python_startup_ms_best": round(min(base), 1),
        "ratio_to_python_startup": round(min(full) / min(base), 2),
    }


def main() -> None:
    with_skills = measure_turns(1000, 60)
    baseline = measure_turns(0, 60)
    printed = measure_print()
    out = {
        "turn_overhead_1000_skills": with_skills,
        "baseline_turn_overhead_no_skills": baseline,
        "ratio_p50": round(with_skills["p50_ms"] / max(baseline["p50_ms"], 1e-6), 2),
        "print_mode": printed,
        "targets": {"turn_overhead_p50_ms": 5.0, "offline_print_s": 1.0},
        "targets_met": {
            "turn_overhead": with_skills["p50_ms"] <= 5.0,
            "offline_print": printed["offline_print_ms_best"] <= 1000.0,
        },
        "python": sys.version.split()[0],
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
