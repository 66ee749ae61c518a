"""Benchmark the hook machinery. Prints ONE JSON object on stdout.

    .venv/bin/python bench/hooks.py

* `per_call_ms`: what PreToolUse + PostToolUse cost one tool call when no hook is
  configured (and when hooks exist but none matches the tool), next to a whole Read call
  through `ToolRunner.run` measured in the same run (the baseline). Hooks' own run time is
  not in it: no hook process starts.
* `load_ms`: `collect_hooks` at session setup, with no hook files and with a person's
  config, a project's `.claude/settings.json` and a plugin (10 hooks), next to
  `load_settings` (the baseline).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

TARGETS = {"per_call_ms_max": 5.0, "load_ms_max": 20.0}


def median_ms(fn: Callable[[], Any], n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _hooks_json(command: str, n: int) -> dict[str, Any]:
    return {
        "hooks": {
            "PreToolUse": [
                {"matcher": f"Write|Edit{i}", "hooks": [{"type": "command", "command": command}]}
                for i in range(n)
            ]
        }
    }


def setup(base: Path, with_hooks: bool) -> tuple[Path, Path]:
    import os

    home, project = base / "home", base / "proj"
    (home / "plugins").mkdir(parents=True)
    (project / ".git").mkdir(parents=True)
    (project / "small.txt").write_text("hello\n")
    os.environ.update({"CODEBOT_HOME": str(home), "HOME": str(base / "user")})
    if with_hooks:
        (home / "config.yaml").write_text(json.dumps(_hooks_json("true", 4)))
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(json.dumps(_hooks_json("true", 4)))
        plugin = home / "plugins" / "p"
        (plugin / ".claude-plugin").mkdir(parents=True)
        (plugin / ".claude-plugin" / "plugin.json").write_text("{}")
        (plugin / "hooks").mkdir()
        (plugin / "hooks" / "hooks.json").write_text(json.dumps(_hooks_json("true", 2)))
    return home, project


async def per_call(project: Path, n: int) -> dict[str, float]:
    from codebot.agent.model import ScriptedModel, ToolCall
    from codebot.agent.session.hook_calls import post_tool, pre_tool
    from codebot.agent.session.setup import build_session
    from codebot.agent.session.turn import TurnRecord, TurnState
    from codebot.agent.tools import ToolResult
    from codebot.config import load_settings
    from codebot.workspace import open_catalog

    settings = load_settings(cwd=project, trust=True)
    session = build_session(settings, open_catalog(settings), client=ScriptedModel([]))
    hooks = session.state.hooks
    call = ToolCall("c1", "Read", json.dumps({"path": "small.txt"}))
    turn, record = TurnState(), TurnRecord()
    result = ToolResult("hello")
    args = {"path": "small.txt"}

    async def timed(fn: Callable[[], Any], reps: int) -> float:
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            await fn()
            times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times)

    async def hooks_only() -> None:
        await pre_tool(hooks, "Read", args, turn)
        await post_tool(hooks, "Read", args, result, turn)

    return {
        "read_call_ms": await timed(lambda: session.tools.run(call, turn, record), n),
        "hook_machinery_ms": await timed(hooks_only, n * 10),
        "active_hooks": len(hooks.active),
    }


def main() -> None:
    out: dict[str, Any] = {"targets": TARGETS}
    for label, with_hooks in (("no_hooks", False), ("hooks_not_matching", True)):
        with tempfile.TemporaryDirectory() as tmp:
            home, project = setup(Path(tmp), with_hooks)
            from codebot.agent.hooks import collect_hooks
            from codebot.config import load_settings

            load_settings(cwd=project, trust=True)  # warm imports
            collect_hooks(home, project, trusted=True)
            out[f"load_{label}"] = {
                "collect_hooks_ms": median_ms(
                    lambda h=home, p=project: collect_hooks(h, p, trusted=True), 50
                ),
                "load_settings_ms_baseline": median_ms(
                    lambda p=project: load_settings(cwd=p, trust=True), 20
                ),
            }
            out[f"per_call_{label}"] = asyncio.run(per_call(project, 200))
    labels = ("no_hooks", "hooks_not_matching")
    worst_call = out["per_call_no_hooks"]["hook_machinery_ms"]
    worst_load = max(out[f"load_{k}"]["collect_hooks_ms"] for k in labels)
    out["per_call_ms"] = worst_call
    out["load_ms"] = worst_load
    out["ok"] = worst_call <= TARGETS["per_call_ms_max"] and worst_load <= TARGETS["load_ms_max"]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
