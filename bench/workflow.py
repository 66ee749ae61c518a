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

- `session` / `session_direct` (with `--session`): the same through a real session: a
  project with a workflow of `--steps` fork skills, `/flow` run as a turn (the session's
  glue: each step invoked as a skill, its events emitted), against the same steps invoked
  one by one with `invoke_skill(fork=True)` and handed to the same sub-agent stub.

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


def runner_of(sleep_s: float) -> Callable[[str, str, float | None, int], Awaitable[Outcome]]:
    async def run(skill: str, args: str, timeout: float | None, attempt: int = 1) -> Outcome:
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


class _Stub:
    """The session's sub-agents, answering every fork at once (no model)."""

    async def run_fork(self, parent: object, inv: object) -> str:
        return "done"

    async def run_fork_outcome(
        self, parent: object, inv: object, *, timeout: float | None = None, attempt: int = 1
    ) -> Outcome:
        return DONE

    async def run_task(
        self, parent: object, prompt: str, agent_name: str, description: str = ""
    ) -> str:
        return "done"


def session_cases(n: int, tmp: Path) -> dict[str, Callable[[], Awaitable[None]]]:
    """A project with `n` fork skills and a workflow of them; the two session cases."""
    import os

    from codebot.agent.model import ScriptedModel
    from codebot.agent.session import build_session
    from codebot.agent.session.turn import TurnRecord, TurnState
    from codebot.config import load_settings
    from codebot.skills.invoke import Actor
    from codebot.workspace import open_catalog

    os.environ["CODEBOT_HOME"] = str(tmp / "home")
    project = tmp / "proj"
    (project / ".git").mkdir(parents=True)
    skills = project / ".codebot" / "skills"
    steps = []
    for i in range(n):
        (skills / f"s{i}").mkdir(parents=True)
        (skills / f"s{i}" / "SKILL.md").write_text(
            f"---\ndescription: Step {i} of the bench workflow. Not for use.\ncontext: fork\n"
            f"---\nDo step {i} for $ARGUMENTS.\n"
        )
        steps.append(f'  - id: s{i}\n    skill: s{i}\n    args: "{{{{ args }}}} {i}"\n')
    (skills / "flow").mkdir()
    (skills / "flow" / "SKILL.md").write_text(
        "---\ndescription: The bench workflow of many steps. Not for use.\nsteps:\n"
        + "".join(steps)
        + "---\nA workflow.\n"
    )
    settings = load_settings(cwd=project, trust=True)
    catalog = open_catalog(settings)

    def session():
        s = build_session(settings, catalog, client=ScriptedModel([]), emit=lambda e: None)
        s.subagents = _Stub()
        if s.transcript is not None:
            s.transcript.close()
            s.transcript = None
            s.skills.transcript = None
        return s

    async def whole() -> None:
        rec = await session().run_turn("/flow go")
        assert "[workflow flow: success]" in rec.text, rec.text

    async def one_by_one() -> None:
        s = session()
        record = TurnRecord()
        for i in range(n):
            inv = await s.skills.invoke_skill(
                f"s{i}", f"go {i}", Actor.SKILL, TurnState(), record, fork=True
            )
            await s.subagents.run_fork_outcome(s, inv, timeout=600.0)

    return {"session": whole, "session_direct": one_by_one}


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
    ap.add_argument("--session", action="store_true", help="also through a real session")
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
    if a.session:
        import tempfile

        tmp = Path(tempfile.mkdtemp(prefix="codebot-bench-workflow-"))
        cases.update(session_cases(n, tmp))
        asyncio.run(cases["session"]())  # warm: catalog, jinja2
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
    ratio = {
        "sequential": round(b["engine"] / b["direct"], 1),
        "parallel": round(b["parallel"] / b["direct_parallel"], 1),
        "sleepy": round(b["sleepy_engine"] / b["sleepy_direct"], 3),
    }
    if a.session:
        over["session"] = (b["session"] - b["session_direct"]) / n
        ratio["session"] = round(b["session"] / b["session_direct"], 3)
    print(
        json.dumps(
            {
                "steps": n,
                "runs": a.runs,
                "sleep_ms": a.sleep_ms,
                "best_ms": {k: round(v, 2) for k, v in b.items()},
                "overhead_ms_per_step": {k: round(v, 3) for k, v in over.items()},
                "ratio": ratio,
                "limit_ms": LIMIT_MS,
                "ok": all(v <= LIMIT_MS for v in over.values()),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
