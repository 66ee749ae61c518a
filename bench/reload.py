"""Benchmark hot reload (codebot.skills.watch.watcher). Prints ONE JSON object on stdout.

    .venv/bin/python bench/reload.py                  # about 30-60 s
    .venv/bin/python bench/reload.py --edits 10 --burst 100

What is measured, all on real files in a temporary folder holding `--skills` generated skills:

* latency: time from just before a SKILL.md is rewritten to the `on_reload` callback that
  reports it changed, over `--edits` single edits spaced `--gap-ms` apart (a person saving
  files). Targets: p50 <= 150 ms, p95 <= 300 ms.
* burst: `--burst` new skill folders written in one go (a git checkout); how many reload
  callbacks that becomes (target <= 5) and whether the final catalog equals a fresh load.
* noisy: the same single edits while a script in another skill's folder writes a new
  file every 5 ms -- the case where watchfiles' debounce cap decides the latency.
* baseline, measured in the same run: a plain `watchfiles.watch(root)` loop with its
  defaults (debounce 1,600 ms, step 50 ms) calling `catalog.reload(paths=...)` per batch,
  on the same edits; the ratios compare the two.

See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import watchfiles  # noqa: E402
from gen_skills import generate  # noqa: E402

from codebot.skills.catalog import Catalog, Change  # noqa: E402
from codebot.skills.files import Root, Source  # noqa: E402
from codebot.skills.watch import SkillWatcher  # noqa: E402

TARGETS = {"p50_ms_max": 150, "p95_ms_max": 300, "burst_reloads_max": 5}


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q / 100 * (len(s) - 1))))
    return s[k]


def summary(lat: list[float], misses: int) -> dict[str, Any]:
    return {
        "n": len(lat),
        "missed": misses,
        "p50_ms": round(pct(lat, 50), 1),
        "p95_ms": round(pct(lat, 95), 1),
        "mean_ms": round(statistics.fmean(lat), 1) if lat else None,
        "max_ms": round(max(lat), 1) if lat else None,
    }


class Seen:
    """on_reload: when each key was last reported, and how many callbacks came."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.at: dict[str, float] = {}
        self.calls = 0
        self.last_call = 0.0

    def __call__(self, change: Change) -> None:
        now = time.perf_counter()
        with self.cond:
            self.calls += 1
            self.last_call = now
            for k in (*change.added, *change.changed, *change.removed):
                self.at[k] = now
            self.cond.notify_all()

    def wait_key(self, key: str, after: float, timeout: float) -> float | None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.at.get(key, 0.0) < after:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.at[key]


class PlainWatch:
    """The baseline: watchfiles.watch with its defaults, one catalog.reload per batch."""

    def __init__(self, catalog: Catalog, on_reload: Callable[[Change], None], root: Path) -> None:
        self.catalog, self.on_reload, self.root = catalog, on_reload, root
        self.stop_event = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        class Flag:  # marks the watch as armed on Rust's first is_set() call
            def is_set(inner) -> bool:
                self.ready.set()
                return self.stop_event.is_set()

        for changes in watchfiles.watch(self.root, stop_event=Flag()):
            change = self.catalog.reload(paths=[Path(p) for _c, p in changes])
            if change:
                self.on_reload(change)

    def start(self) -> PlainWatch:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(5)


def edit(path: Path, i: int) -> None:
    """Rewrite the description; the length varies so the file's stamp always changes."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for j, line in enumerate(lines):
        if line.startswith("description:"):
            lines[j] = f"description: Edited by the reload benchmark, pass {i}{'.' * (i % 7 + 1)}"
            break
    path.write_text("\n".join(lines), encoding="utf-8")


def noise_writer(folder: Path, stop: threading.Event) -> None:
    """A script beside a skill writing a new output file every 5 ms (new paths keep
    watchfiles' batch growing, so only its debounce cap ends the batch)."""
    target = folder / "scripts" / "out"
    target.mkdir(parents=True, exist_ok=True)
    n = 0
    while not stop.is_set():
        (target / f"frame-{n:06d}.txt").write_text("tick\n")
        n += 1
        time.sleep(0.005)


def latency_run(
    kind: str, root: Path, edits: int, gap: float, offset: int, noisy: bool
) -> dict[str, Any]:
    cat = Catalog([Root(root, Source.PROJECT, "codebot", (0,))])
    cat.load()
    seen = Seen()
    watcher: Any = SkillWatcher(cat, seen) if kind == "codebot" else PlainWatch(cat, seen, root)
    watcher.start()
    if not watcher.ready.wait(10):
        raise RuntimeError(f"{kind} watcher never became ready")
    specs = sorted(cat.snapshot, key=lambda s: s.key)
    stop = threading.Event()
    noise = None
    if noisy:
        noise = threading.Thread(target=noise_writer, args=(specs[0].dir, stop), daemon=True)
        noise.start()
    lat: list[float] = []
    misses = 0
    try:
        time.sleep(gap)
        for i in range(edits):
            spec = specs[1 + (offset + i) % (len(specs) - 1)]
            t0 = time.perf_counter()
            edit(spec.path, offset + i)
            got = seen.wait_key(spec.key, t0, timeout=10)
            if got is None:
                misses += 1
            else:
                lat.append((got - t0) * 1000)
            time.sleep(gap)
    finally:
        stop.set()
        if noise is not None:
            noise.join()
        watcher.stop()
        shutil.rmtree(specs[0].dir / "scripts" / "out", ignore_errors=True)
    return summary(lat, misses)


def burst_run(kind: str, root: Path, texts: list[str], tag: str) -> dict[str, Any]:
    roots = [Root(root, Source.PROJECT, "codebot", (0,))]
    cat = Catalog(roots)
    cat.load()
    before = len(cat.snapshot)
    seen = Seen()
    watcher: Any = SkillWatcher(cat, seen) if kind == "codebot" else PlainWatch(cat, seen, root)
    watcher.start()
    if not watcher.ready.wait(10):
        raise RuntimeError(f"{kind} watcher never became ready")
    t0 = time.perf_counter()
    for i, text in enumerate(texts):  # what a checkout does: mkdir, write, next
        d = root / f"{tag}-{i:03d}"
        d.mkdir()
        (d / "SKILL.md").write_text(text, encoding="utf-8")
    written = time.perf_counter()
    want = before + len(texts)
    deadline = time.monotonic() + 30
    while len(cat.snapshot) < want and time.monotonic() < deadline:
        time.sleep(0.005)
    complete = time.perf_counter()
    # then stay until no callback came for a second, to count trailing reloads too
    while time.monotonic() < deadline and time.perf_counter() - max(seen.last_call, complete) < 1.0:
        time.sleep(0.02)
    watcher.stop()
    fresh = Catalog(roots).load()
    same = {k: (s.path, s.stamp) for k, s in cat.snapshot.skills.items()} == {
        k: (s.path, s.stamp) for k, s in fresh.skills.items()
    } and set(cat.snapshot.diagnostics) == set(fresh.diagnostics)
    return {
        "new_skills": len(texts),
        "reloads": seen.calls,
        "write_ms": round((written - t0) * 1000, 1),
        "all_loaded_ms": round((complete - t0) * 1000, 1),
        "final_equals_fresh_load": same,
        "skills": len(cat.snapshot),
    }


def burst_texts(workdir: Path, n: int, tag: str) -> list[str]:
    """Realistic SKILL.md texts with unique names, read up front so the burst is only I/O."""
    staging = workdir / "staging"
    paths = generate(staging, n, seed=7)
    texts = []
    for i, p in enumerate(paths):
        lines = p.read_text(encoding="utf-8").split("\n")
        lines = [f"name: {tag}-skill-{i:03d}" if ln.startswith("name:") else ln for ln in lines]
        texts.append("\n".join(lines))
    shutil.rmtree(staging)
    return texts


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--skills", type=int, default=200, help="skills in the watched folder (default 200)"
    )
    ap.add_argument(
        "--edits", type=int, default=30, help="single edits per configuration (default 30)"
    )
    ap.add_argument("--gap-ms", type=int, default=300, help="pause between edits (default 300)")
    ap.add_argument(
        "--burst", type=int, default=300, help="new skills written at once (default 300)"
    )
    ap.add_argument(
        "--noisy-edits",
        type=int,
        default=10,
        help="edits while a script beside a skill writes a new file every 5 ms (default 10)",
    )
    args = ap.parse_args()
    t_start = time.perf_counter()
    gap = args.gap_ms / 1000
    with tempfile.TemporaryDirectory(prefix="codebot-reload-bench-") as tmp:
        work = Path(tmp)
        root = work / "skills"
        generate(root, args.skills, seed=0)
        texts = {tag: burst_texts(work, args.burst, tag) for tag in ("burst", "again")}
        log(f"{args.skills} skills in {root}; {args.edits} edits per configuration")

        result: dict[str, Any] = {
            "benchmark": "reload",
            "python": platform.python_version(),
            "watchfiles": watchfiles.__version__,
            "cpus": os.cpu_count(),
            "loadavg_1m": round(os.getloadavg()[0], 2),
            "skills": args.skills,
            "codebot_watch": {"debounce_ms": 50, "step_ms": 10},
            "baseline_watch": {
                "debounce_ms": 1600,
                "step_ms": 50,
                "what": "plain watchfiles.watch defaults",
            },
            "targets": TARGETS,
        }
        result["latency"] = latency_run("codebot", root, args.edits, gap, 0, noisy=False)
        log(f"latency codebot: {result['latency']}")
        result["baseline_latency"] = latency_run(
            "baseline", root, args.edits, gap, 1000, noisy=False
        )
        log(f"latency baseline: {result['baseline_latency']}")
        if args.noisy_edits:
            result["noisy_latency"] = latency_run(
                "codebot", root, args.noisy_edits, gap, 2000, noisy=True
            )
            log(f"noisy codebot: {result['noisy_latency']}")
            result["baseline_noisy_latency"] = latency_run(
                "baseline", root, args.noisy_edits, gap, 3000, noisy=True
            )
            log(f"noisy baseline: {result['baseline_noisy_latency']}")
        result["burst"] = burst_run("codebot", root, texts["burst"], "burst")
        log(f"burst codebot: {result['burst']}")
        result["baseline_burst"] = burst_run("baseline", root, texts["again"], "again")
        log(f"burst baseline: {result['baseline_burst']}")

    def ratio(a: str, b: str, q: str) -> float | None:
        x, y = result.get(a, {}).get(q), result.get(b, {}).get(q)
        return round(y / x, 2) if x and y else None

    result["ratios"] = {
        "baseline_over_codebot_p50": ratio("latency", "baseline_latency", "p50_ms"),
        "baseline_over_codebot_p95": ratio("latency", "baseline_latency", "p95_ms"),
        "noisy_baseline_over_codebot_p50": ratio(
            "noisy_latency", "baseline_noisy_latency", "p50_ms"
        ),
    }
    lat, burst = result["latency"], result["burst"]
    result["pass"] = {
        "p50": lat["p50_ms"] <= TARGETS["p50_ms_max"] and lat["missed"] == 0,
        "p95": lat["p95_ms"] <= TARGETS["p95_ms_max"],
        "burst_reloads": burst["reloads"] <= TARGETS["burst_reloads_max"],
        "burst_final_equals_fresh_load": burst["final_equals_fresh_load"],
    }
    result["elapsed_s"] = round(time.perf_counter() - t_start, 1)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
