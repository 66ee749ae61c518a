"""This checkout against an older commit, in one run. Prints ONE JSON object on stdout
(progress goes to stderr).

    .venv/bin/python bench/house.py                       # 9 pairs per measure (~5 min)
    .venv/bin/python bench/house.py --quick               # 3 pairs
    .venv/bin/python bench/house.py --baseline-rev HEAD~3 --runs 15
    .venv/bin/python bench/house.py --baseline /some/other/checkout

Three numbers a refactoring must not move by more than 5 %:

- `first_paint_from_spawn_ms`: the TUI's first frame, from just before `python -m codebot`
  is spawned in a pseudo-terminal (120x40) with CODEBOT_EXIT_AFTER_PAINT=1, in a fresh
  empty project each run (`bench/startup.py`'s own functions);
- `print_hello_there_ms`: `codebot -p "hello there" --trust`, the whole process, offline,
  in a project holding `--skills` (1,000) generated skills, caches warm (the warm run of
  `bench/agent_scale.py`);
- `route_per_query_ms`: one `route()` call on the same catalog, timed around the call in
  a child process that loads settings, catalog and router through public names only
  (`codebot.config.load_settings`, `codebot.workspace.open_catalog`,
  `codebot.skills.route.router_from_settings`, `codebot.skills.invoke.Actor`); the
  median over the dev-set prompts and generated ones, each routed `--route-repeat` times.

The baseline is `git archive --baseline-rev` (default ae73b0f) extracted to a temporary
folder, or `--baseline DIR`. Both sides run with this interpreter and PYTHONPATH=<their
root>, from a working folder outside both trees (so the current folder never shadows
PYTHONPATH), each with its own CODEBOT_HOME, HOME and project copy; provider keys and
every CODEBOT_* variable of the caller are dropped. Bytecode of both trees is compiled
first, and every side warms its caches once before timing. The sides run in pairs,
baseline and current back to back, and the side that goes first alternates, so a busy
moment of the machine falls on both; a pair's ratio is current / baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import startup  # noqa: E402  (its PROJECTS folder is made at import; removed in main)
from gen_skills import DOMAINS, generate  # noqa: E402

DEFAULT_REV = "ae73b0f"
TOLERANCE = 0.05
DEV_CASES = ROOT / "tests" / "data" / "routing_dev.jsonl"
HELLO = ["-m", "codebot", "-p", "hello there", "--trust"]
ROUTE_SNIPPET = """
import json, statistics, sys, time
from pathlib import Path
import codebot
from codebot.config import load_settings
from codebot.skills.invoke import Actor
from codebot.skills.route import router_from_settings
from codebot.workspace import open_catalog

queries, repeat = json.loads(sys.stdin.read())
settings = load_settings(cwd=Path.cwd(), trust=True)
snap = open_catalog(settings).snapshot
router = router_from_settings(settings, [])
for q in queries[:5]:  # loads the index from CODEBOT_HOME/cache/router
    router.route(q, snap, Actor.MODEL, settings.overrides)
outer, inner = [], []
for _ in range(repeat):
    for q in queries:
        t0 = time.perf_counter()
        r = router.route(q, snap, Actor.MODEL, settings.overrides)
        outer.append((time.perf_counter() - t0) * 1000)
        inner.append(r.latency_ms)
print(json.dumps({"file": codebot.__file__, "skills": len(snap), "routes": len(outer),
                  "per_query_ms": statistics.median(outer),
                  "route_latency_ms": statistics.median(inner)}))
"""


def log(msg: str) -> None:
    print(f"[house] {msg}", file=sys.stderr, flush=True)


@dataclass
class Side:
    name: str  # "baseline" or "current"
    root: Path  # the checkout: PYTHONPATH
    home: Path  # CODEBOT_HOME
    project: Path  # a throwaway project holding the generated skills; the working folder
    env: dict[str, str]


# -- setting up ------------------------------------------------------------------------


def git(*args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def extract(rev: str, into: Path) -> Path:
    """`git archive rev | tar -x` into a fresh folder of `into`."""
    tree = into / "baseline-tree"
    tree.mkdir()
    tar = into / "baseline.tar"
    git("archive", "--format=tar", "-o", str(tar), rev)
    subprocess.run(["tar", "-xf", str(tar), "-C", str(tree)], check=True)
    tar.unlink()
    return tree


def compile_tree(root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(root / "codebot")],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode:
        log(f"compileall {root}: some files did not compile\n{proc.stdout}{proc.stderr}")


def base_env() -> dict[str, str]:
    """The caller's environment without provider keys, CODEBOT_* or PYTHONPATH."""
    drop = set(startup.PROVIDER_KEYS) | {"PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "NO_COLOR"}
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in drop and not k.endswith("_API_KEY") and not k.startswith("CODEBOT_")
    }
    env.setdefault("TERM", "xterm-256color")
    env.update(CODEBOT_NO_PROBE="1", LITELLM_LOCAL_MODEL_COST_MAP="True")
    return env


def make_side(name: str, root: Path, folder: Path, skills: Path) -> Side:
    """A side with its own home, user home and copy of the project (same path length)."""
    folder.mkdir()
    project = folder / "proj"
    (project / ".git").mkdir(parents=True)
    shutil.copytree(skills, project / ".codebot" / "skills")
    env = base_env() | {
        "PYTHONPATH": str(root),
        "CODEBOT_HOME": str(folder / "home"),
        "HOME": str(folder / "userhome"),
    }
    (folder / "userhome").mkdir()
    return Side(name, root.resolve(), folder / "home", project, env)


def verify(side: Side) -> str:
    """Which codebot the side imports; exits when it is not the side's own."""
    proc = subprocess.run(
        [sys.executable, "-c", "import codebot; print(codebot.__file__)"],
        cwd=side.project,
        env=side.env,
        capture_output=True,
        text=True,
        check=False,
    )
    got = proc.stdout.strip()
    check_file(side, got, proc.stderr)
    log(f"{side.name} imports {got}")
    return got


def check_file(side: Side, got: str, detail: str = "") -> None:
    want = side.root / "codebot" / "__init__.py"
    if not got or Path(got).resolve() != want:
        raise SystemExit(f"{side.name}: imports codebot from {got or '?'}, not {want}\n{detail}")


def queries() -> list[str]:
    """The dev-set prompts (read as plain JSON lines) and generated ones, as in route.py."""
    out = []
    if DEV_CASES.is_file():
        lines = DEV_CASES.read_text(encoding="utf-8").splitlines()
        out = [json.loads(line)["prompt"] for line in lines if line.strip()]
    rng = random.Random(3)
    for d in DOMAINS.values():
        for _ in range(4):
            verb, obj, lang = (
                rng.choice(d["verbs"]),
                rng.choice(d["objects"]),
                rng.choice(d["langs"]),
            )
            out.append(f"{verb} {obj} in our {lang} project")
    return out


# -- the three measures ----------------------------------------------------------------


def failed(side: Side, what: str, proc: subprocess.CompletedProcess) -> RuntimeError:
    tail = (proc.stderr or "")[-2000:]
    return RuntimeError(f"{side.name}: {what} exited with {proc.returncode}\n{tail}")


def paint(side: Side) -> dict[str, float]:
    env = side.env | {"CODEBOT_EXIT_AFTER_PAINT": "1"}
    got = startup.first_paint([sys.executable, "-m", "codebot"], env, side.home)
    if got is None:
        raise RuntimeError(f"{side.name}: the TUI did not report a first paint")
    return {"from_spawn_ms": got["from_spawn_ms"], "in_app_ms": got["first_paint_ms"]}


def hello(side: Side) -> dict[str, float]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, *HELLO],
        cwd=side.project,
        env=side.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
        check=False,
    )
    took = (time.perf_counter() - t0) * 1000
    if proc.returncode:
        raise failed(side, "codebot -p", proc)
    return {"wall_ms": took}


def router_run(side: Side, qs: list[str], repeat: int) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", ROUTE_SNIPPET],
        input=json.dumps([qs, repeat]),
        cwd=side.project,
        env=side.env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode:
        raise failed(side, "the routing snippet", proc)
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    check_file(side, data["file"])
    return {
        "per_query_ms": data["per_query_ms"],
        "route_latency_ms": data["route_latency_ms"],
        "skills": data["skills"],
        "routes": data["routes"],
    }


# -- pairs and summaries ---------------------------------------------------------------

Measure = Callable[[Side], dict[str, float]]


def pairs(label: str, key: str, sides: list[Side], fn: Measure, runs: int) -> list[dict]:
    """`runs` pairs; the side that goes first alternates. Each item: {side name: result}."""
    out = []
    for i in range(runs):
        order = sides if i % 2 == 0 else sides[::-1]
        got = {s.name: fn(s) for s in order}
        b, c = got["baseline"][key], got["current"][key]
        log(f"{label} {i + 1}/{runs}: baseline {b:.2f}, current {c:.2f} ({c / b:.3f}x)")
        out.append(got)
    return out


def stats(values: list[float], digits: int) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
    }


def summarize(results: list[dict], key: str, extra: tuple[str, ...], digits: int) -> dict:
    base = [r["baseline"][key] for r in results]
    cur = [r["current"][key] for r in results]
    ratios = [c / b for b, c in zip(base, cur, strict=True)]
    ratio = statistics.median(ratios)
    out = {
        "unit": "ms",
        "runs": len(results),
        "baseline": stats(base, digits),
        "current": stats(cur, digits),
        "ratio_median": round(ratio, 3),
        "ratio_min": round(min(ratios), 3),
        "ratio_max": round(max(ratios), 3),
        # A refactor may make a figure faster; only a slowdown past the tolerance fails.
        "within_5_percent": ratio <= 1 + TOLERANCE,
    }
    for name in extra:
        b = statistics.median(r["baseline"][name] for r in results)
        c = statistics.median(r["current"][name] for r in results)
        out[name] = {"baseline_median": round(b, digits), "current_median": round(c, digits)}
    return out


# -- the run ---------------------------------------------------------------------------


def warm(sides: list[Side], qs: list[str]) -> None:
    """Trust the paint projects, then one untimed run of each measure per side: the
    catalog index, the router's index and the bytecode of anything not compiled yet."""
    for side in sides:
        log(f"warming {side.name}…")
        startup.trust_projects(side.env)
        paint(side)
        hello(side)
        router_run(side, qs[:5], 1)


def measure_all(sides: list[Side], runs: int, route_repeat: int) -> dict[str, dict]:
    qs = queries()
    warm(sides, qs)
    painted = pairs("first paint", "from_spawn_ms", sides, paint, runs)
    printed = pairs("-p hello there", "wall_ms", sides, hello, runs)
    routed = pairs("route", "per_query_ms", sides, lambda s: router_run(s, qs, route_repeat), runs)
    route = summarize(routed, "per_query_ms", ("route_latency_ms",), 4)
    route["skills_in_catalog"] = {s.name: routed[0][s.name]["skills"] for s in sides}
    route["routes_per_run"] = routed[0]["current"]["routes"]
    return {
        "first_paint_from_spawn_ms": summarize(painted, "from_spawn_ms", ("in_app_ms",), 1),
        "print_hello_there_ms": summarize(printed, "wall_ms", (), 1),
        "route_per_query_ms": route,
    }


def describe(opts: argparse.Namespace, baseline_root: Path) -> dict:
    dirty = git("status", "--porcelain", "--untracked-files=no").splitlines()
    if opts.baseline is None:
        rev, where = git("rev-parse", opts.baseline_rev), f"git archive {opts.baseline_rev}"
    else:
        rev, where = checkout_rev(baseline_root), str(baseline_root)
    return {
        "baseline_rev": rev,
        "baseline_root": where,
        "current_rev": git("rev-parse", "HEAD"),
        "current_dirty": bool(dirty),
        "current_dirty_files": len(dirty),
        "python": sys.version.split()[0],
        "skills": opts.skills,
        "route_repeat": opts.route_repeat,
        "order": "pairs, baseline and current back to back; the side going first alternates",
    }


def checkout_rev(root: Path) -> str | None:
    """HEAD of a `--baseline` folder when it is a git checkout."""
    proc = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() or None


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9, help="pairs per measure (default 9)")
    parser.add_argument("--quick", action="store_true", help="3 pairs per measure")
    parser.add_argument("--baseline-rev", default=DEFAULT_REV, metavar="REV")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="a checkout to compare with")
    parser.add_argument("--skills", type=int, default=1000, help="generated skills (default 1000)")
    parser.add_argument("--route-repeat", type=int, default=3, metavar="N")
    opts = parser.parse_args()
    if opts.quick:
        opts.runs = 3
    if opts.baseline is not None:
        opts.baseline = opts.baseline.resolve()  # before main changes the working folder
    if opts.runs < 1:
        parser.error("--runs must be at least 1")
    return opts


def setup(opts: argparse.Namespace, work: Path) -> list[Side]:
    if opts.baseline is not None:
        baseline_root = opts.baseline
    else:
        log(f"extracting {opts.baseline_rev}…")
        baseline_root = extract(opts.baseline_rev, work)
    for root in (baseline_root, ROOT):
        log(f"compiling {root}…")
        compile_tree(root)
    log(f"generating {opts.skills} skills…")
    skills = work / "skills"
    generate(skills, opts.skills, seed=1)
    sides = [
        make_side("baseline", baseline_root, work / "a", skills),
        make_side("current", ROOT, work / "b", skills),
    ]
    return sides


def main() -> int:
    opts = parse_args()
    work = Path(tempfile.mkdtemp(prefix="codebot-bench-house-"))
    os.chdir(work)  # a child's working folder comes before PYTHONPATH in sys.path
    load = [round(os.getloadavg()[0], 2)]
    try:
        sides = setup(opts, work)
        files = {s.name: verify(s) for s in sides}
        results = measure_all(sides, opts.runs, opts.route_repeat)
        info = describe(opts, sides[0].root)
    finally:
        os.chdir(ROOT)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(startup.PROJECTS, ignore_errors=True)
    load.append(round(os.getloadavg()[0], 2))
    out = info | {"runs": opts.runs, "codebot_imported_from": files} | results
    out["within_5_percent"] = {k: v["within_5_percent"] for k, v in results.items()}
    out["all_within_5_percent"] = all(out["within_5_percent"].values())
    out["loadavg_1m_start_end"] = load
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
