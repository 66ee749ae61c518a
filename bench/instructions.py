"""What instruction files and hooks cost. Prints ONE JSON object on stdout (progress goes
to stderr).

    .venv/bin/python bench/instructions.py            # 7 rounds (~2 min)
    .venv/bin/python bench/instructions.py --rounds 3

Four projects, made fresh in a temporary folder and trusted in a throwaway CODEBOT_HOME:

- `bare`: no instruction file, no hook (the baseline, measured in the same run);
- `instructions`: a root AGENTS.md of ~8 KB with two `@imports` (docs/style.md,
  docs/testing.md), a CLAUDE.md, and a nested pkg/AGENTS.md that applies once a tool works
  in pkg/;
- `hooks`: 10 hooks in `.claude/settings.json` (PreToolUse and PostToolUse) whose
  matchers do not match the Read tool, so none runs;
- `both`: the two together.

Measured, per round, each project in turn (the order rotates every round, so a busy
moment of the shared machine falls on all of them):

- `first_paint_from_spawn_ms`: the TUI's first frame, from just before `python -m codebot`
  is spawned in a 120x40 pseudo-terminal with CODEBOT_EXIT_AFTER_PAINT=1 (bench/startup.py's
  pty runner); `ready_in_app_ms` is when the session exists too;
- `print_turn_ms`: `codebot -p "hello there" --trust`, the whole process, offline model
  (its request carries the system prompt with the files);
- `per_tool_call_ms`, in one process per project with a scripted model: one Read call
  through `ToolRunner.run` (its hooks' matching, the nested-AGENTS.md check) plus what the
  next request does with the files (`context_use` and the system prompt: a stat of every
  instruction file and of the files that could appear). No hook process runs, so the
  hooks' own run time is not in it.

Each "added" figure is the median over rounds of (project − bare) in the same round; the
ratio is median(project) / median(bare). The issue's targets: instructions and hooks add
≤ 20 ms to first paint and ≤ 5 ms per tool call (hooks excluded).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import startup  # noqa: E402  (its PROJECTS folder is made at import; removed in main)

TARGETS = {"first_paint_added_ms_max": 20.0, "per_tool_call_added_ms_max": 5.0}
VARIANTS = ("bare", "instructions", "hooks", "both")
HELLO = ["-m", "codebot", "-p", "hello there", "--trust"]


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _rules(title: str, n: int) -> str:
    lines = [f"## {title}", ""]
    lines += [
        f"- Rule {i}: keep {title.lower()} changes small, named after what they do, and "
        f"covered by a test that fails without them (see the review notes, item {i})."
        for i in range(n)
    ]
    return "\n".join(lines) + "\n\n"


def _hooks() -> dict[str, Any]:
    matchers = ["Write", "Edit", "MultiEdit", "NotebookEdit", "mcp__github__.*"]
    entry = [{"type": "command", "command": "true"}]
    return {
        "hooks": {
            event: [{"matcher": m, "hooks": entry} for m in matchers]
            for event in ("PreToolUse", "PostToolUse")
        }
    }


def make_project(base: Path, name: str) -> Path:
    project = base / name
    (project / ".git").mkdir(parents=True)
    (project / "pkg").mkdir()
    (project / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (project / "small.txt").write_text("hello\n")
    if name in ("instructions", "both"):
        head = "# Project rules\n\nStyle: @docs/style.md\nTesting: @docs/testing.md\n\n"
        body = "".join(_rules(t, 12) for t in ("Layout", "Commands", "Reviews", "Releases"))
        (project / "AGENTS.md").write_text(head + body)  # ~8 KB
        (project / "docs").mkdir()
        (project / "docs" / "style.md").write_text(_rules("Style", 8))
        (project / "docs" / "testing.md").write_text(_rules("Testing", 8))
        (project / "CLAUDE.md").write_text(_rules("Claude", 6))
        (project / "pkg" / "AGENTS.md").write_text(_rules("Package", 6))
    if name in ("hooks", "both"):
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(json.dumps(_hooks()))
    return project


# -- in one process: one tool call and the next request's instruction check -----------------


def per_call(project: Path, reps: int) -> dict[str, float]:
    from codebot.agent.model import ScriptedModel, ToolCall
    from codebot.agent.session.hook_calls import post_tool, pre_tool
    from codebot.agent.session.instruction_source import InstructionSource
    from codebot.agent.session.setup import build_session
    from codebot.agent.session.turn import TurnRecord, TurnState
    from codebot.agent.tools import ToolResult
    from codebot.config import load_settings
    from codebot.workspace import open_catalog

    settings = load_settings(cwd=project, trust=True)
    session = build_session(settings, open_catalog(settings), client=ScriptedModel([]))
    call = ToolCall("c1", "Read", json.dumps({"path": "pkg/mod.py"}))
    turn, record = TurnState(), TurnRecord()
    args, result = {"path": "pkg/mod.py"}, ToolResult("x")
    hooks = session.state.hooks

    async def one_call() -> None:
        await session.tools.run(call, turn, record)
        session.context_use(turn)
        _ = session.system_prompt

    async def hooks_only() -> None:
        await pre_tool(hooks, "Read", args, turn)
        await post_tool(hooks, "Read", args, result, turn)

    def instructions_only() -> None:
        session.context_use(turn)
        _ = session.system_prompt

    async def timed(fn: Any, n: int, awaited: bool = True) -> float:
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            if awaited:
                await fn()
            else:
                fn()
            times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times)

    def first_read() -> None:  # what the status bar's first count after the paint reads
        source = session.toolset.instructions
        if source is not None:
            _ = InstructionSource(
                project_root=source.project_root,
                cwd=source.cwd,
                home=source.home,
                codebot_home=source.codebot_home,
                trusted=True,
            ).text

    async def run() -> dict[str, float]:
        first = await timed(first_read, 50, awaited=False)
        await one_call()  # the nested AGENTS.md joins; caches fill
        return {
            "tool_call_and_next_request_ms": await timed(one_call, reps),
            "hook_matching_ms": await timed(hooks_only, reps),
            "instruction_check_ms": await timed(instructions_only, reps, awaited=False),
            "first_read_ms": first,
            "active_hooks": len(hooks.active),
            "instruction_files": len(session.toolset.instructions.current().entries)
            if session.toolset.instructions
            else 0,
        }

    try:
        return asyncio.run(run())
    finally:
        if session.transcript is not None:
            session.transcript.close()


def setup_cost(project: Path, reps: int) -> tuple[float, float]:
    """Median ms to build the TUI's controller (settings, catalog, session: hooks read,
    instruction source made), what the setup thread does while textual paints the first
    frame; on one interpreter it competes with the paint, so what instructions and hooks
    add here bounds what they add to the first paint. (The first build, imports included
    as in a fresh process, and the median of the next `reps`.)"""
    from codebot.config import load_settings
    from codebot.ui.controller import Controller

    times = []
    for _ in range(reps + 1):
        t0 = time.perf_counter()
        ctrl = Controller(load_settings(cwd=project, trust=True), interactive=True)
        times.append((time.perf_counter() - t0) * 1000)
        ctrl.close()
    return times[0], statistics.median(times[1:])


PER_CALL_CHILD = """
import json, sys
sys.path.insert(0, {bench!r}); sys.path.insert(0, {root!r})
import instructions
project = __import__("pathlib").Path({project!r})
first, setup_ms = instructions.setup_cost(project, 15)
out = {{"setup_ms": setup_ms, "setup_first_ms": first}}
print(json.dumps(instructions.per_call(project, {reps}) | out))
"""


def per_call_child(project: Path, env: dict[str, str], reps: int) -> dict[str, float]:
    """`per_call` in a fresh process (each project its own session and caches)."""
    code = PER_CALL_CHILD.format(bench=str(HERE), root=str(ROOT), project=str(project), reps=reps)
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- whole processes ------------------------------------------------------------------------


def paint(project: Path, env: dict[str, str]) -> dict[str, float] | None:
    out, spawned, _ = startup.run_in_pty([sys.executable, "-m", "codebot"], env, project)
    found = startup.RESULT.search(out)
    if not found:
        return None
    data = json.loads(found.group(0))
    return {
        "from_spawn_ms": (data["painted_at"] - spawned) * 1000,
        "ready_ms": float(data.get("ready_ms") or 0),
    }


def print_turn(project: Path, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, *HELLO],
        env=env,
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
        timeout=120,
    )
    return (time.perf_counter() - t0) * 1000


def _summary(values: dict[str, list[float]], key: str) -> dict[str, Any]:
    """Medians per project, and per project the median of its per-round difference from
    `bare` and the ratio of medians."""
    out: dict[str, Any] = {}
    bare = values["bare"]
    for name in VARIANTS:
        row: dict[str, Any] = {
            f"median_{key}": round(statistics.median(values[name]), 3),
            "best": round(min(values[name]), 3),
        }
        if name != "bare":
            diffs = [a - b for a, b in zip(values[name], bare, strict=True)]
            row["added_median"] = round(statistics.median(diffs), 3)
            row["ratio"] = round(statistics.median(values[name]) / statistics.median(bare), 3)
        row["runs"] = [round(v, 3) for v in values[name]]
        out[name] = row
    return out


def _env(home: Path, user: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in startup.PROVIDER_KEYS}
    env.update(
        CODEBOT_HOME=str(home),
        HOME=str(user),
        CODEBOT_NO_PROBE="1",
        TERM=env.get("TERM", "xterm-256color"),
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        LITELLM_MODE="PRODUCTION",
    )
    env.pop("NO_COLOR", None)
    return env


SERIES = ("paint", "ready", "turn", "call", "setup", "setup_first")


def measure(projects: dict[str, Path], env: dict[str, str], rounds: int, reps: int) -> Any:
    """Every measure of every project, round by round: ({measure: {project: [values]}},
    {project: [per_call results]}); None when the TUI did not report a first paint."""
    paint_env = {**env, "CODEBOT_EXIT_AFTER_PAINT": "1"}
    log("warming up (caches, bytecode)…")
    for project in projects.values():
        print_turn(project, env)
        if paint(project, paint_env) is None:
            return None
    series: dict[str, dict[str, list[float]]] = {k: {n: [] for n in VARIANTS} for k in SERIES}
    parts: dict[str, list[dict[str, float]]] = {n: [] for n in VARIANTS}
    for r in range(rounds):
        for name in VARIANTS[r % 4 :] + VARIANTS[: r % 4]:
            got = paint(projects[name], paint_env)
            if got is None:
                return None
            measured = per_call_child(projects[name], env, reps)
            row = {
                "paint": got["from_spawn_ms"],
                "ready": got["ready_ms"],
                "turn": print_turn(projects[name], env),
                "call": measured["tool_call_and_next_request_ms"],
                "setup": measured["setup_ms"],
                "setup_first": measured["setup_first_ms"],
            }
            for key, value in row.items():
                series[key][name].append(value)
            parts[name].append(measured)
        log(
            f"round {r + 1}: "
            + "; ".join(
                f"{key} " + ", ".join(f"{n} {series[key][n][-1]:.3f}" for n in VARIANTS)
                for key in ("paint", "call", "setup")
            )
        )
    return series, parts


def report(series: dict[str, dict[str, list[float]]], parts: Any, rounds: int) -> dict[str, Any]:
    keys = ("hook_matching_ms", "instruction_check_ms", "first_read_ms", "active_hooks")
    component = {
        name: {key: round(statistics.median(p[key] for p in parts[name]), 4) for key in keys}
        | {"instruction_files": parts[name][0]["instruction_files"]}
        for name in VARIANTS
    }
    first, per = _summary(series["paint"], "ms"), _summary(series["call"], "ms")
    setup, first_setup = _summary(series["setup"], "ms"), _summary(series["setup_first"], "ms")
    out = {
        "rounds": rounds,
        "targets": TARGETS,
        "first_paint_from_spawn_ms": first,
        "ready_in_app_ms": _summary(series["ready"], "ms"),
        "session_setup_ms": setup,
        "session_setup_first_ms": first_setup,
        "print_turn_ms": _summary(series["turn"], "ms"),
        "per_tool_call_ms": per,
        "per_call_parts_ms": component,
        "first_paint_added_ms": first["both"]["added_median"],
        "first_paint_added_best_ms": round(first["both"]["best"] - first["bare"]["best"], 3),
        "setup_added_ms": setup["both"]["added_median"],
        "setup_first_added_ms": first_setup["both"]["added_median"],
        "per_tool_call_added_ms": per["both"]["added_median"],
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }
    # The end-to-end paint moves by hundreds of ms on a busy machine; the setup thread's
    # added work (no module is imported only because instructions or hooks exist) is the
    # steady bound of what reaches the paint (see `setup_cost`). Either one within the
    # target passes.
    out["first_paint_ok"] = (
        min(out["first_paint_added_ms"], out["setup_added_ms"])
        <= TARGETS["first_paint_added_ms_max"]
    )
    out["per_tool_call_ok"] = out["per_tool_call_added_ms"] <= TARGETS["per_tool_call_added_ms_max"]
    out["ok"] = out["first_paint_ok"] and out["per_tool_call_ok"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--reps", type=int, default=300, help="tool calls timed per project")
    opts = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="codebot-bench-instr-"))
    home, user = base / "codebot-home", base / "user"
    home.mkdir()
    user.mkdir()
    env = _env(home, user)
    try:
        projects = {name: make_project(base / "projects", name) for name in VARIANTS}
        subprocess.run(
            [sys.executable, "-m", "codebot", "trust", str(base / "projects")],
            env=env,
            capture_output=True,
            timeout=60,
            check=True,
        )
        measured = measure(projects, env, opts.rounds, opts.reps)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(startup.PROJECTS, ignore_errors=True)
    if measured is None:
        log("the TUI did not report a first paint")
        return 1
    print(json.dumps(report(*measured, opts.rounds), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
