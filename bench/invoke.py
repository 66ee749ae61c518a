"""process_invocation without shell injections: policy, arguments, expansion, wrapping.

Prints ONE JSON object. Baseline in the same run: reading the same skill body from disk
(the floor any invocation pays, since bodies are read fresh for hot edits).

    .venv/bin/python bench/invoke.py
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.gen_skills import generate
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor, Request, process_invocation


def timed(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "skills"
        generate(root, 1000, seed=3)
        specs = Catalog([Root(root, Source.PROJECT, "extra", (0,))]).load().skills
        names = [s.name for s in specs.values() if "!`" not in s.read_body()][:200]
        reqs = [
            Request(
                skill=n,
                args="src/app.py --fast",
                actor=Actor.MODEL,
                session_id="bench",
                project_dir=Path(tmp),
                shell="list",
            )
            for n in names
        ]
        i = iter(range(10**9))
        inv = timed(lambda: process_invocation(reqs[next(i) % len(reqs)], specs), 2000)
        j = iter(range(10**9))
        base = timed(lambda: specs[reqs[next(j) % len(reqs)].skill].read_body(), 2000)
    p = lambda xs, q: round(sorted(xs)[int(q * (len(xs) - 1))], 4)  # noqa: E731
    out = {
        "catalog_skills": len(specs),
        "process_invocation_ms": {
            "p50": p(inv, 0.5),
            "p95": p(inv, 0.95),
            "mean": round(statistics.mean(inv), 4),
        },
        "baseline_read_body_ms": {"p50": p(base, 0.5), "p95": p(base, 0.95)},
        "ratio_p50": round(p(inv, 0.5) / max(p(base, 0.5), 1e-6), 2),
        "target_ms": 1.0,
        "targets_met": {"process_invocation_p50": p(inv, 0.5) <= 1.0},
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
