"""Compaction's own overhead with a 200-message history, excluding the model call.

Prints ONE JSON object. A session is filled with 200 messages (50 rounds of a user message,
an assistant tool call, a 2 KB tool result and an answer) and 5 inline skills in force,
then `Session.compact()` runs against a model that answers the summary request at once;
the time spent inside the model's `stream()` is measured and subtracted. Two counters:
the estimate (offline and scripted models) and litellm's tokenizer (real models; its load
is not counted). Each is measured warm (message counts cached by the turns before, as in a
session) and cold (the first compaction of a resumed session counts every message).

Baseline in the same run: `json.dumps` of the same history (serializing it once, the
least any compaction that records the new view must do). Target: overhead < 50 ms.

    .venv/bin/python bench/compaction.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codebot.agent.model import Completion, ModelRequest

TARGET_MS = 50.0


class SummaryModel:
    """Answers every request at once; records how long its own stream() ran."""

    model = "bench"
    context_window = 32_000
    offline = False
    loaded = True

    def __init__(self, count) -> None:
        self.count_tokens = count
        self.model_s = 0.0

    async def stream(self, request: ModelRequest):
        t0 = time.perf_counter()
        text = (
            "Goals: bench.\nDecisions: none.\nFiles touched: src/mod_1.py\n"
            "Open tasks: none.\nAsked last: go on."
        )
        self.model_s += time.perf_counter() - t0
        yield Completion(text)


def history(rounds: int = 50) -> list[dict]:
    out: list[dict] = []
    for i in range(rounds):
        out.append(
            {
                "role": "user",
                "content": f"please look at src/mod_{i}.py and fix the failing test {i}",
            }
        )
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {
                            "name": "Read",
                            "arguments": json.dumps({"path": f"src/mod_{i}.py"}),
                        },
                    }
                ],
            }
        )
        out.append(
            {
                "role": "tool",
                "tool_call_id": f"c{i}",
                "content": "".join(
                    f"{n:4} def function_{n}(x):  return x * {n}  # line of code\n"
                    for n in range(40)
                ),
            }
        )
        out.append(
            {
                "role": "assistant",
                "content": f"Round {i}: the bug is an off-by-one in function_{i}; fixed.",
            }
        )
    return out


def measure(count, repeat: int, warm: bool) -> dict:
    from codebot.agent.session import build_session
    from codebot.agent.session.compact import InForce
    from codebot.config import load_settings
    from codebot.workspace import open_catalog

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        os.environ["CODEBOT_HOME"] = str(tmp_path / "home")
        os.environ["HOME"] = str(tmp_path / "userhome")
        project = tmp_path / "proj"
        (project / ".git").mkdir(parents=True)
        settings = load_settings(cwd=project)
        catalog = open_catalog(settings)
        times, model_times, base = [], [], []
        for _ in range(repeat):
            model = SummaryModel(count)
            session = build_session(settings, catalog, client=model)
            msgs = history()
            session.history[:] = msgs
            session.in_force[:] = [
                InForce(f"s{i}", f"s{i}", f'<skill name="s{i}">\n' + "Rule.\n" * 300 + "</skill>")
                for i in range(5)
            ]
            if warm:
                session.context_use()  # the turns before counted every message
            t0 = time.perf_counter()
            json.dumps(msgs, ensure_ascii=False)
            base.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            record = asyncio.run(session.compact())
            total = time.perf_counter() - t0
            assert record is not None and record.summarized > 150, record
            times.append(total - model.model_s)
            model_times.append(model.model_s)
            session.transcript.close()
        overhead = statistics.median(times) * 1000
        baseline = statistics.median(base) * 1000
        return {
            "overhead_ms": round(overhead, 2),
            "baseline_json_dumps_ms": round(baseline, 3),
            "overhead_over_baseline": round(overhead / baseline, 1) if baseline else None,
            "model_ms": round(statistics.median(model_times) * 1000, 3),
            "summarized": record.summarized,
            "kept": record.kept,
            "tokens_before": record.before,
            "tokens_after": record.after,
            "target_met": overhead < TARGET_MS,
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    from codebot.agent.model import estimate_tokens
    from codebot.agent.model.client import ProviderClient, warm_up

    out = {"messages": 200, "target_ms": TARGET_MS}
    out["estimate_warm"] = measure(estimate_tokens, args.repeat, warm=True)
    out["estimate_cold"] = measure(estimate_tokens, args.repeat, warm=False)
    warm_up()  # litellm's import is paid before any request, not by compaction
    counter = ProviderClient("gpt-4o-mini").count_tokens
    counter("warm the tokenizer")
    out["litellm_warm"] = measure(counter, args.repeat, warm=True)
    out["litellm_cold"] = measure(counter, args.repeat, warm=False)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
