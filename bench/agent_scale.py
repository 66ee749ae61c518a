"""A large catalog through the agent itself: `codebot -p "hello there"` as a whole process,
cold (no caches) and warm, against a floor script of the same folder; peak RSS; and the
listing's size against its budget. Issue 17's targets.

Prints ONE JSON object. For each size (synthetic skills from bench/gen_skills.py):

- `floor_s`: a whole process that walks the folder, reads every SKILL.md and YAML-parses
  its frontmatter (best of 3)
- `cold_s`: `codebot -p "hello there" --trust` with an empty $CODEBOT_HOME (no catalog or
  router index yet)
- `warm_s`: the same again, caches written by the run before (best of 3)
- `cold_over_floor`, `warm_over_floor`: the ratios; targets 3 and 1.6
- `cold_task_s`, `cold_task_over_floor`: a task instead of a greeting,
  `-p "write a changelog entry for the parser fix"` (issue 36), empty home: a greeting is
  known not to route from its words, a task must rank the whole catalog, so this one
  builds the router's index (median of `--repeat` runs, each with its own floor run just
  before it: the ratio is the median of those pairs' ratios)
- `cold_task_cpu_s`: its CPU time (user + sys, the helper process included), which the
  machine's other load moves far less than the wall time
- `cold_task_old_s`, `batch_speedup`: the same task with `CODEBOT_ROUTE_BATCH=0`
  (each body tokenized on its own, as before `route/index/batch.py`), and how many times
  slower that is
- `cold_task_alone_s`, `prefetch_speedup`: the same task with `CODEBOT_NO_PREFETCH=1`
  (every body tokenized in the one process, no helper process), and how many times
  slower that is
- with `--before DIR` (a checkout of an older tree, e.g. `git worktree add /tmp/before
  main`): `before_task_s`, `before_task_over_floor`, `before_task_cpu_s`, the same cold
  task run from that tree (`PYTHONPATH=DIR`) in each round, right after this tree's
- `rss_mb`: the warm run's peak resident memory (target 200)
- `listing_chars`: the listing's characters for a window unknown (8,000 budget), 128k and
  1M tokens

    .venv/bin/python bench/agent_scale.py [--sizes 1000,10000,50000] [--repeat 3] [--task-only]
        [--before DIR]

`--task-only`: only the floor and the cold-task runs (the 50,000 case's point). codebot's
own modules are byte-compiled first (`compileall`), and its router's regexes kept
(`codebot.regex_cache`), as an installed package has them after its first run: a
checkout run with PYTHONDONTWRITEBYTECODE would otherwise compile ~300 modules and ~820
regexes per run. Neither is a cache of the catalog, the skills or the router's index: a
cold task still starts from an empty $CODEBOT_HOME.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gen_skills import generate  # noqa: E402

FLOOR = r"""
import os, sys, yaml
n = 0
for dirpath, _dirs, files in os.walk(sys.argv[1]):
    if "SKILL.md" not in files:
        continue
    with open(os.path.join(dirpath, "SKILL.md"), "rb") as fh:
        text = fh.read().decode("utf-8")
    end = text.find("\n---", 3)
    if text.startswith("---") and end != -1:
        try:
            yaml.load(text[3:end], Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            pass
        n += 1
print(n)
"""


TASK = "write a changelog entry for the parser fix"


def run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """(seconds, peak RSS in MB, CPU seconds with its waited-for children) of one whole
    process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited with {proc.returncode}")
    return took, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def listing_chars(skills: Path) -> dict[str, int]:
    from codebot.skills.catalog import Catalog
    from codebot.skills.files import Root, Source
    from codebot.skills.prompt import ListingOptions, listing_for

    catalog = Catalog([Root(skills, Source.PROJECT, "extra", (0, 1, 0), explicit=True)])
    catalog.load()
    specs = list(catalog.snapshot)
    out = {}
    for label, window in (
        ("window_unknown", None),
        ("window_128k", 128_000),
        ("window_1m", 1_000_000),
    ):
        options = ListingOptions(context_window=window)
        listing = listing_for(specs, options=options)
        out[label] = listing.chars
        out[label + "_budget"] = options.total_budget
    return out


def _env(base: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEBOT_MODEL"
    }
    env.update(
        HOME=str(base / "userhome"), CODEBOT_NO_PROBE="1", LITELLM_LOCAL_MODEL_COST_MAP="True"
    )
    return env


def tasks(
    n: int, repeat: int, base: Path, project: Path, skills: Path, before: Path | None = None
) -> dict:
    """The cold task, interleaved with a floor run and the variants, `repeat` times: each
    round meets the same moment of the machine's load."""
    env = _env(base)
    floor_argv = [sys.executable, "-c", FLOOR, str(skills)]
    argv = [sys.executable, "-m", "codebot", "-p", TASK, "--trust"]
    floors, news, cpus, olds, alone = [], [], [], [], []
    befores: list[float] = []
    before_cpus: list[float] = []
    for i in range(repeat):
        floors.append(run(floor_argv, env, project)[0])
        env["CODEBOT_HOME"] = str(base / f"task{n}-{i}")  # empty: no catalog or router index
        took, _, cpu = run(argv, env, project)
        news.append(took)
        cpus.append(cpu)
        if before is not None:
            env["CODEBOT_HOME"] = str(base / f"before{n}-{i}")
            took, _, cpu = run(argv, env | {"PYTHONPATH": str(before)}, project)
            befores.append(took)
            before_cpus.append(cpu)
        env["CODEBOT_HOME"] = str(base / f"old{n}-{i}")
        olds.append(run(argv, env | {"CODEBOT_ROUTE_BATCH": "0"}, project)[0])
        env["CODEBOT_HOME"] = str(base / f"alone{n}-{i}")
        alone.append(run(argv, env | {"CODEBOT_NO_PREFETCH": "1"}, project)[0])
    med = statistics.median
    ratio = med(t / f for t, f in zip(news, floors, strict=True))
    target = 2.5 if n <= 10_000 else 3.0
    out = {
        "floor_s": round(med(floors), 3),
        "cold_task_s": round(med(news), 3),
        "cold_task_over_floor": round(ratio, 2),
        "cold_task_cpu_s": round(med(cpus), 3),
        "cold_task_old_s": round(med(olds), 3),
        "cold_task_old_over_floor": round(med(t / f for t, f in zip(olds, floors, strict=True)), 2),
        "batch_speedup": round(med(olds) / med(news), 2),
        "cold_task_alone_s": round(med(alone), 3),
        "prefetch_speedup": round(med(alone) / med(news), 2),
        "runs": {"floor": floors, "task": news, "old": olds, "alone": alone},
        "cold_task_target": target,
        "cold_task_target_met": ratio <= target,
    }
    if before is not None:
        out["before_task_s"] = round(med(befores), 3)
        out["before_task_over_floor"] = round(
            med(t / f for t, f in zip(befores, floors, strict=True)), 2
        )
        out["before_task_cpu_s"] = round(med(before_cpus), 3)
        out["runs"]["before"] = befores
    return out


def measure(n: int, repeat: int, base: Path, task_only: bool, before: Path | None = None) -> dict:
    project = base / f"p{n}"
    (project / ".git").mkdir(parents=True)
    skills = project / ".codebot" / "skills"
    generate(skills, n, seed=1)
    out: dict = {"skills": n, **tasks(n, repeat, base, project, skills, before)}
    if task_only:
        return out
    env = _env(base)
    floor = out["floor_s"]
    argv = [sys.executable, "-m", "codebot", "-p", "hello there", "--trust"]
    colds, warms, rss = [], [], 0.0
    for i in range(max(1, repeat - 1)):
        env["CODEBOT_HOME"] = str(base / f"home{n}-{i}")  # empty: no catalog index, no router index
        colds.append(run(argv, env, project)[0])
    for _ in range(repeat):
        took, peak, _ = run(argv, env, project)
        warms.append(took)
        rss = max(rss, peak)
    cold, warm = min(colds), min(warms)
    out.update(
        {
            "cold_s": round(cold, 3),
            "warm_s": round(warm, 3),
            "cold_over_floor": round(cold / floor, 2),
            "warm_over_floor": round(warm / floor, 2),
            "rss_mb": round(rss, 1),
            "listing_chars": listing_chars(skills),
            "targets_met": {
                "warm_le_1.6x_floor": warm <= 1.6 * floor,
                "cold_le_3x_floor": cold <= 3 * floor,
                "rss_le_200mb": rss <= 200,
            },
        }
    )
    return out


def installed(root: Path) -> None:
    """What an installed package has once it has run: its modules byte-compiled, and
    where the tree keeps compiled regexes (`codebot.regex_cache`), the router's (the
    first run writes them where bytecode may be written; this machine's
    PYTHONDONTWRITEBYTECODE would leave both to be made again at every run)."""
    compileall.compile_dir(root / "codebot", quiet=1)
    if (root / "codebot" / "regex_cache.py").is_file():
        keep = (
            "import codebot.skills.route.warmup; from codebot import regex_cache; "
            "regex_cache.save(True)"
        )
        env = {**os.environ, "PYTHONPATH": str(root)}
        subprocess.run([sys.executable, "-c", keep], env=env, cwd=root, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--task-only", action="store_true")
    parser.add_argument("--before", type=Path, help="an older tree to run the cold task from too")
    args = parser.parse_args()
    installed(ROOT)
    if args.before is not None:
        if not (args.before / "codebot" / "__main__.py").is_file():
            parser.error(f"--before {args.before}: no codebot/__main__.py there")
        installed(args.before)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.sizes.split(",")):
            print(f"… {n} skills", file=sys.stderr)
            out[str(n)] = measure(n, args.repeat, Path(tmp), args.task_only, args.before)
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
