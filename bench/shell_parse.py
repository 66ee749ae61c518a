"""Benchmark the Bash parser behind the permission rules. Prints ONE JSON object on stdout.

    .venv/bin/python bench/shell_parse.py               # 200 rounds over 30 commands
    .venv/bin/python bench/shell_parse.py --rounds 50

- `first_call_ms`: the first `analyze()` of the process, which imports tree_sitter and
  tree_sitter_bash and builds the parser (measured here, before any other call), and
  `first_call_fresh_process_ms`: the same in 3 fresh child processes (median), with the
  module import time (`import_ms`, which must not load tree_sitter) on its own.
- `analyze_us`: p50/p95/max microseconds of `analyze()` over ~30 typical commands, each
  round in a shuffled order; `shlex_us`: `shlex.split` of the same commands in the same run,
  interleaved with them; `ratio`: analyze over shlex at p50 and p95.
- `decide_us`: `codebot.shell.decide.decide()` with two prefix allow rules and one deny rule (it
  parses once and matches the rules), for scale.
- `hostile_max_ms`: the slowest of a few hostile inputs (quadratic tree-sitter error
  recovery, deep nesting, 64 KiB of words), which the budgets in `codebot.shell.parse` bound.

Target (from the issue): analyze p95 < 1 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COMMANDS = [
    "git status",
    "ls -la src",
    "npm test",
    "git diff HEAD~1 -- src/a.py",
    "pytest -q tests/x.py && ruff check .",
    "git log --oneline -n 20",
    "cat README.md",
    "grep -rn 'def main' src/",
    "rg --files -g '*.py'",
    "find . -name '*.py' -not -path './.venv/*'",
    "python -m pytest -q -k 'parse and not slow'",
    "ruff check --fix codebot/agent",
    "git add -A && git commit -m 'Fix the parser'",
    "head -n 40 src/main.py",
    "wc -l src/*.py",
    'echo "hello world"',
    "mkdir -p build/out",
    "npm run build -- --watch=false",
    "cargo test --all-features",
    "go test ./...",
    "docker ps --format '{{.Names}}'",
    "sed -n '1,80p' codebot/cli.py",
    "git diff HEAD -- a.py | head -5",
    "make -j4 all",
    "uv pip list",
    "tail -f logs/app.log | grep ERROR",
    "git checkout -b feature/shell-parse",
    "python3 -c 'import sys; print(sys.version)'",
    "ls -la ~/.config",
    "cd src && ls",
]
HOSTILE = {
    "closers": ")" * 1024,
    "open_arrays": "x=(" * 1024,
    "open_pipes": "a|" * 1024,
    "nested_substitutions": "$(" * 2000 + ")" * 2000,
    "many_words": "echo " + "a " * 30000,
    "nested_bash_c": "bash -c " + "'bash -c \"bash -c x\"' " * 100,
}


def _percentiles(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {
        "p50": round(statistics.median(s), 1),
        "p95": round(s[int(0.95 * (len(s) - 1))], 1),
        "max": round(s[-1], 1),
    }


def _fresh_first_call() -> dict[str, float]:
    code = (
        "import sys, time; t0 = time.perf_counter()\n"
        "from codebot.shell.parse import analyze\n"
        "t1 = time.perf_counter(); loaded = 'tree_sitter' in sys.modules\n"
        "analyze('git status'); t2 = time.perf_counter()\n"
        "print((t1 - t0) * 1e3, (t2 - t1) * 1e3, loaded)\n"
    )
    imports, firsts, loaded = [], [], False
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
        )
        i, f, lo = out.stdout.split()
        imports.append(float(i))
        firsts.append(float(f))
        loaded = loaded or lo == "True"
    return {
        "import_ms": round(statistics.median(imports), 2),
        "first_call_fresh_process_ms": round(statistics.median(firsts), 2),
        "import_loads_tree_sitter": loaded,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()

    t0 = time.perf_counter()
    from codebot.shell.parse import analyze

    t1 = time.perf_counter()
    analyze("git status")
    first_ms = (time.perf_counter() - t1) * 1e3
    import_ms = (t1 - t0) * 1e3
    from codebot.shell.decide import decide

    rng = random.Random(0)
    ours: list[float] = []
    base: list[float] = []
    dec: list[float] = []
    allow = [("prefix", "git diff"), ("prefix", "pytest")]
    deny = [("prefix", "rm")]
    plain = sum(analyze(c).plain for c in COMMANDS)
    for _ in range(args.rounds):
        order = COMMANDS[:]
        rng.shuffle(order)
        for c in order:
            t = time.perf_counter()
            analyze(c)
            ours.append((time.perf_counter() - t) * 1e6)
            t = time.perf_counter()
            shlex.split(c)
            base.append((time.perf_counter() - t) * 1e6)
    for _ in range(max(1, args.rounds // 4)):
        for c in COMMANDS:
            t = time.perf_counter()
            decide(c, allow, deny, False)
            dec.append((time.perf_counter() - t) * 1e6)
    hostile = {}
    for name, text in HOSTILE.items():
        t = time.perf_counter()
        analyze(text)
        hostile[name] = round((time.perf_counter() - t) * 1e3, 1)

    a, b = _percentiles(ours), _percentiles(base)
    result = {
        "commands": len(COMMANDS),
        "plain_commands": plain,
        "rounds": args.rounds,
        # PYTHONDONTWRITEBYTECODE=1 makes every import compile its modules again
        "bytecode_cache": not sys.dont_write_bytecode,
        "first_call_ms": round(first_ms, 2),
        "import_ms_in_process": round(import_ms, 2),
        **_fresh_first_call(),
        "analyze_us": a,
        "shlex_us": b,
        "ratio": {"p50": round(a["p50"] / b["p50"], 1), "p95": round(a["p95"] / b["p95"], 1)},
        "decide_us": _percentiles(dec),
        "hostile_ms": hostile,
        "hostile_max_ms": max(hostile.values()),
        "target_p95_under_1ms": a["p95"] < 1000,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
