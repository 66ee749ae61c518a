"""What the workflow engine adds to each step, beyond the step runner's own time. Prints
ONE JSON object.

    .venv/bin/python bench/workflow.py                 # 50 steps, best of 15
    .venv/bin/python bench/workflow.py --steps 200 --runs 25

Issue 35 §2 asks that the engine add at most 5 ms per step beyond the sub-agent's own
time. The sub-agent is replaced by a step runner that returns its outcome at once (and,
in `sleepy`, after `--sleep-ms`), so what is left is the engine: rendering each step's
`args` and `when` in the jinja2 sandbox, the timeout around each call, the outcome
bookkeeping, the events. Measured in one process, interleaved run by run:

- `direct`: the same runner awaited once per step in a plain loop (the baseline);
- `engine`: a workflow of `--steps` steps, each with `args: "{{ steps.<prev>.summary }}"`
  and `when: "{{ steps.<prev>.status == 'success' }}"`, events delivered to a callback;
- `parallel`: one `parallel:` group of `--steps` members (at most 32; 4 at once), against
  the same runner gathered under a semaphore of 4;
- `sleepy_direct` / `sleepy_engine`: as direct and engine with a runner that sleeps.

Each is the best of `--runs`; `overhead_ms_per_step` is (engine - direct) / steps, and
`ratio` is engine / direct. `ok` says whether every overhead is within `limit_ms`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codebot.skills.outcome import Outcome, Status
from codebot.skills.workflow import Engine, StepEvent, StepSkill, Workflow
from codebot.skills.workflow.model import MAX_MEMBERS
from codebot.skills.workflow.parse import parse_steps

LIMIT_MS = 5.0
DONE = Outcome(Status.SUCCESS, "done", {"n": 1})


def runner_of(sleep_s: float) -> Callable[[str, str, float | None], Awaitable[Outcome]]:
    async def run(skill: str, args: str, timeout: float | None) -> Outcome:
        if sleep_s:
            await asyncio.sleep(sleep_s)
        return DONE

    return run


def chain(n: int) -> Workflow:
    steps: list[dict[str, object]] = [{"id": "s0", "skill": "work", "args": "{{ args }}"}]
    for i in range(1, n):
        steps.append(
            {
                "id": f"s{i}",
                "skill": "work",
                "args": f"{{{{ steps.s{i - 1}.summary }}}}",
                "when": f"{{{{ steps.s{i - 1}.status == 'success' }}}}",
            }
        )
    wf, problems = parse_steps("bench", "bench", steps)
    assert wf is not None, problems
    return wf


def group(n: int) -> Workflow:
    members = [{"skill": "work", "args": str(i)} for i in range(min(n, MAX_MEMBERS))]
    wf, problems = parse_steps("bench", "bench", [{"id": "g", "parallel": members}])
    assert wf is not None, problems
    return wf


def lookup(name: str) -> StepSkill:
    return StepSkill(name, name, False, 60.0)


async def direct(n: int, sleep_s: float) -> None:
    run = runner_of(sleep_s)
    for _ in range(n):
        await run("work", "x", 60.0)


async def direct_parallel(n: int, sleep_s: float) -> None:
    run = runner_of(sleep_s)
    gate = asyncio.Semaphore(4)

    async def one() -> Outcome:
        async with gate:
            return await run("work", "x", 60.0)

    await asyncio.gather(*(one() for _ in range(n)))


async def engine(wf: Workflow, sleep_s: float) -> None:
    seen: list[StepEvent] = []
    out = await Engine(runner_of(sleep_s), lookup, on_event=seen.append).run(wf, "go")
    assert out.status is Status.SUCCESS, out.summary


def best(fn: Callable[[], Awaitable[None]], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        asyncio.run(fn())
        times.append(time.perf_counter() - t0)
    return min(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sleep-ms", type=float, default=5.0)
    a = ap.parse_args()
    n, sleep_s = a.steps, a.sleep_ms / 1000
    flow, fan = chain(n), group(n)
    asyncio.run(engine(flow, 0))  # warm: jinja2 imported, templates compiled once
    cases: dict[str, Callable[[], Awaitable[None]]] = {
        "direct": lambda: direct(n, 0),
        "engine": lambda: engine(flow, 0),
        "direct_parallel": lambda: direct_parallel(min(n, MAX_MEMBERS), 0),
        "parallel": lambda: engine(fan, 0),
        "sleepy_direct": lambda: direct(n, sleep_s),
        "sleepy_engine": lambda: engine(flow, sleep_s),
    }
    ms = {k: [] for k in cases}
    for i in range(a.runs):  # interleaved: the machine's noise hits every case alike
        for k in cases if i % 2 == 0 else reversed(list(cases)):
            ms[k].append(best(cases[k], 1))
    b = {k: min(v) for k, v in ms.items()}
    over = {
        "sequential": (b["engine"] - b["direct"]) / n,
        "parallel": (b["parallel"] - b["direct_parallel"]) / min(n, MAX_MEMBERS),
        "sleepy": (b["sleepy_engine"] - b["sleepy_direct"]) / n,
    }
    print(
        json.dumps(
            {
                "steps": n,
                "runs": a.runs,
                "sleep_ms": a.sleep_ms,
                "best_ms": {k: round(v, 2) for k, v in b.items()},
                "overhead_ms_per_step": {k: round(v, 3) for k, v in over.items()},
                "ratio": {
                    "sequential": round(b["engine"] / b["direct"], 1),
                    "parallel": round(b["parallel"] / b["direct_parallel"], 1),
                    "sleepy": round(b["sleepy_engine"] / b["sleepy_direct"], 3),
                },
                "limit_ms": LIMIT_MS,
                "ok": all(v <= LIMIT_MS for v in over.values()),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
