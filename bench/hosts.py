"""What reading every host's skill folders costs at start. Prints ONE JSON object.

    .venv/bin/python bench/hosts.py               # 0 and 1,000 skills, best of 15
    .venv/bin/python bench/hosts.py --runs 25 --levels 4

The host table (`codebot/skills/catalog/hosts.py`) added six project folders per level of
the project and six user folders, none of which exist in most projects: each is a stat
(and, for the watcher, a nearest-existing-ancestor walk) on every start. This measures, in
one process and interleaved run by run:

- `old`: the roots of the first three families only (codebot, agents, claude: what was
  read before) — `default_roots` filtered to them;
- `all`: every root `default_roots` gives now.

For each, at 0 skills and at 1,000 skills (in `.claude/skills` at the project root):
`roots` (how many; `default_roots` itself stats none of them), `cold_ms` (a fresh
`Catalog(roots).load()`), `warm_ms` (a fresh catalog with the index a previous load
wrote, as an interactive start does) and `plan_ms` (the watcher's `make_plan`), each the
best of `--runs`. The working folder is `--levels` folders below the git root, so the
project part of the walk is repeated that many times (+1). `ratio` is all / old.
Bundled skills and plugins are left out: they are the same in both.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_skills import generate  # noqa: E402

from codebot.skills.catalog import Catalog, Index, default_roots  # noqa: E402
from codebot.skills.files import Root  # noqa: E402
from codebot.skills.watch import make_plan  # noqa: E402

OLD = {"codebot", "agents", "claude"}


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def roots_of(kind: str, cwd: Path, home: Path) -> list[Root]:
    roots = default_roots(cwd, home, home / ".codebot", include_bundled=False)
    roots = [r for r in roots if r.source.value != "plugin"]
    return roots if kind == "all" else [r for r in roots if r.family in OLD]


def timed(fn: Callable[[], object]) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(cwd: Path, home: Path, index_dir: Path, runs: int) -> dict[str, Any]:
    best: dict[str, dict[str, float]] = {k: {} for k in ("old", "all")}
    counts: dict[str, Any] = {}
    for kind in ("old", "all"):  # the index each warm start reads, written once
        roots = roots_of(kind, cwd, home)
        snap = Catalog(roots, index=Index(index_dir / kind)).load()
        counts[kind] = {"roots": len(roots), "skills": len(snap)}
    for i in range(runs):
        # interleaved, first one then the other: the machine's noise hits both alike
        for kind in ("old", "all") if i % 2 == 0 else ("all", "old"):
            roots = roots_of(kind, cwd, home)
            steps = {
                "cold_ms": lambda r=roots: Catalog(r).load(),
                "warm_ms": lambda r=roots, k=kind: Catalog(r, index=Index(index_dir / k)).load(),
                "plan_ms": lambda r=roots: make_plan(x.path for x in r),
            }
            for name, fn in steps.items():
                t = timed(fn)
                best[kind][name] = min(best[kind].get(name, t), t)
    out: dict[str, Any] = {}
    for kind in ("old", "all"):
        out[kind] = counts[kind] | {k: round(v * 1000, 3) for k, v in best[kind].items()}
    out["ratio"] = {
        k: round(best["all"][k] / best["old"][k], 2) if best["old"][k] else None
        for k in best["old"]
    }
    out["extra_ms"] = {k: round((best["all"][k] - best["old"][k]) * 1000, 3) for k in best["old"]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--levels", type=int, default=2, help="folders between cwd and git root")
    ap.add_argument("--sizes", default="0,1000")
    args = ap.parse_args()
    result: dict[str, Any] = {
        "bench": "hosts",
        "unit": "ms (best of runs); ratio = all / old",
        "runs": args.runs,
        "levels": args.levels,
    }
    with tempfile.TemporaryDirectory(prefix="codebot-bench-hosts-") as tmp:
        base = Path(tmp)
        for n in (int(s) for s in args.sizes.split(",")):
            top = base / f"repo-{n}"
            (top / ".git").mkdir(parents=True)
            cwd = top.joinpath(*[f"d{i}" for i in range(args.levels)])
            cwd.mkdir(parents=True, exist_ok=True)
            home = base / f"home-{n}"
            (home / ".codebot").mkdir(parents=True)
            if n:
                generate(top / ".claude" / "skills", n, seed=0)
            index_dir = base / f"index-{n}"
            index_dir.mkdir()
            log(f"{n} skills, cwd {args.levels} levels below the git root")
            result[f"skills_{n}"] = measure(cwd, home, index_dir, args.runs)
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
