"""Benchmark the router's persisted index (issue 17 §2). Prints ONE JSON object on stdout.

    .venv/bin/python bench/route_warm.py                          # 1,000 and 10,000 skills
    .venv/bin/python bench/route_warm.py --sizes 1000,10000,50000 # + 50,000 (~10 min, 750 MB)
    .venv/bin/python bench/route_warm.py --data /tmp/skills       # keep the generated skills

For each size, real SKILL.md files from bench/gen_skills.py, and two fresh processes
sharing one `$CODEBOT_HOME`:

  cold   the catalog loads, then `Router(store=...).index(snapshot)` with an empty cache:
         tokenize every skill, build the postings, save them (`cold_build_s`, of which
         `cold_save_s` is the save). This is the baseline: what every process paid before.
  warm   a second process, same catalog: `index(snapshot)` maps the saved index
         (`warm_load_s`; `warm_rows_tokenized` must be 0); `warm_total_s` adds what
         `route.warm()` does besides (eligibility, importing bm25s' scoring). Then, five
         times, one SKILL.md is edited (description and body) and
         `catalog.reload(paths=[it])` + `index(new snapshot)` run in-process:
         `edit_reload_ms` (catalog), `edit_router_ms` (router), `edit_usable_ms` (both:
         the target is <= 50 ms at 10,000). Baseline in the same
         process: the postings built again from the same rows (`rebuild_from_rows_ms`),
         which is what a reload cost without patching, tokenization aside.
  check  the patched index routes the dev-set prompts like a cold build of the same
         snapshot (`patched_vs_cold`: queries with the same decision, with the same
         candidates in the same order, and the largest relative score difference).
         Patching keeps the average field lengths of the last build (`avg_drift`: how far
         they are from the current ones); past `postings.MAX_DRIFT` a background build
         swaps in exact postings (`refreshes`).

Ratios: `warm_speedup` = cold_build_s / warm_load_s; `edit_speedup` =
rebuild_from_rows_ms / edit_router_ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_skills import generate  # noqa: E402

TARGETS = {"edit_usable_ms_10000_max": 50.0}


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def skills_root(data: Path, n: int) -> Path:
    root = data / f"s{n}"
    if not (root / ".done").exists():
        log(f"generating {n} skills in {root}")
        generate(root, n, seed=1)
        (root / ".done").write_text("")
    return root


def _open(root: Path):
    from codebot.skills.catalog import Catalog, discover
    from codebot.skills.files import Root, Source

    discover.MAX_DIRS = 10**7  # one root of 50,000 skills: scan it all
    return Catalog([Root(root, Source.PROJECT, "extra", (0, 1, 0), explicit=True)])


def queries() -> list[str]:
    from codebot.skills.route import parse_cases

    cases, _ = parse_cases(
        (HERE.parent / "tests" / "data" / "routing_dev.jsonl").read_text().splitlines()
    )
    return [c.prompt for c in cases]


def cold(root: Path) -> dict[str, Any]:
    import codebot.skills.route as R
    from codebot.skills.route.index.store import IndexStore

    t0 = time.perf_counter()
    snap = _open(root).load()
    load_s = time.perf_counter() - t0
    store = IndexStore()
    rt = R.Router(store=store)
    t0 = time.perf_counter()
    rt.index(snap)
    total = time.perf_counter() - t0
    files = [p for p in store.folder.rglob("*") if p.is_file()]
    return {
        "skills": len(snap),
        "catalog_load_s": round(load_s, 3),
        "cold_build_s": round(total, 3),
        "cold_save_s": round(total - rt.stats["last_build_ms"] / 1000, 3),
        "cold_how": rt.stats["last"],
        "cold_rows_tokenized": rt.stats["rows_tokenized"],
        "saved": rt.stats["saves"] == 1,
        "cache_mb": round(sum(p.stat().st_size for p in files) / 2**20, 1),
    }


def _warm_start(rt: Any, snap: Any) -> dict[str, Any]:
    """Map the saved index (`warm_load_s`), then the rest of what `warm()` does."""
    from codebot.skills.route.warmup import warm as warm_up

    t0 = time.perf_counter()
    rt.index(snap)
    load_s = time.perf_counter() - t0
    out: dict[str, Any] = {
        "warm_load_s": round(load_s, 4),
        "warm_how": rt.stats["last"],
        "warm_rows_tokenized": rt.stats["rows_tokenized"],
        "warm_bodies_read": rt.stats["bodies_read"],
    }
    # the rest of what `warm()` does ahead of the first request: eligibility, bm25s' import
    t0 = time.perf_counter()
    warm_up(lambda: snap, rt)
    out["warm_total_s"] = round(load_s + time.perf_counter() - t0, 4)
    return out


def _edit_five(cat: Any, rt: Any, specs: list[Any], originals: dict[Path, str]) -> dict[str, Any]:
    """Edit a SKILL.md of `specs` five times (its text saved in `originals` first), reload
    the catalog and patch the router's index each time; the timings and the index's state."""
    from codebot.skills.route.index import postings
    from codebot.skills.route.index.index import Index

    reload_ms, router_ms, rebuild_ms = [], [], []
    for k in range(5):
        spec = specs[(k * 7919) % len(specs)]
        originals[spec.path] = text = spec.path.read_text(encoding="utf-8")
        edited = (
            text.replace("description: ", f"description: Quokka{k} workflow. ", 1)
            + f"\nQuokka{k} notes.\n"
        )
        spec.path.write_text(edited, encoding="utf-8")
        t0 = time.perf_counter()
        cat.reload(paths=[spec.path])
        t1 = time.perf_counter()
        idx, _ = rt.index(cat.snapshot)
        t2 = time.perf_counter()
        reload_ms.append((t1 - t0) * 1000)
        router_ms.append((t2 - t1) * 1000)
        t0 = time.perf_counter()
        again = postings.build(idx.rows, idx.n_terms, idx.config)
        Index(idx.specs, again, idx.lexicon, idx.config)
        rebuild_ms.append((time.perf_counter() - t0) * 1000)
    med = statistics.median
    return {
        "edit_how": rt.stats["last"],
        "rows_tokenized_by_edits": rt.stats["rows_tokenized"],
        "refreshes": rt.stats["refreshes"],
        "avg_drift": float(f"{idx.postings.drift():.2e}"),
        "edit_reload_ms": round(med(reload_ms), 2),
        "edit_router_ms": round(med(router_ms), 2),
        "edit_router_ms_all": [round(x, 1) for x in router_ms],
        "edit_usable_ms": round(med([a + b for a, b in zip(reload_ms, router_ms, strict=True)]), 2),
        "rebuild_from_rows_ms": round(med(rebuild_ms), 1),
    }


def _patched_vs_cold(rt: Any, snap: Any, qs: list[str]) -> dict[str, Any]:
    """The patched index against a cold build of the same snapshot."""
    import numpy as np

    import codebot.skills.route as R
    from codebot.skills.invoke import Actor

    cold_rt = R.Router()
    decided = ranked = 0
    worst = 0.0
    for q in qs:
        a, b = rt.route(q, snap, Actor.MODEL), cold_rt.route(q, snap, Actor.MODEL)
        decided += (a.decision, a.selected and a.selected.key) == (
            b.decision,
            b.selected and b.selected.key,
        )
        ranked += [c.name for c in a.candidates] == [c.name for c in b.candidates]
        by_name = {c.name: c.score for c in b.candidates}
        for x in a.candidates:
            if x.name in by_name:
                worst = max(worst, abs(x.score - by_name[x.name]) / max(abs(by_name[x.name]), 1e-9))
    return {
        "queries": len(qs),
        "same_decision": decided,
        "same_candidates": ranked,
        "max_score_rel_diff": float(np.format_float_scientific(worst, 2)),
    }


def warm(root: Path) -> dict[str, Any]:
    import codebot.skills.route as R
    from codebot.skills.invoke import Actor
    from codebot.skills.route.index.store import IndexStore

    cat = _open(root)
    snap = cat.load()
    rt = R.Router(store=IndexStore())
    out = _warm_start(rt, snap)
    qs = queries()
    t0 = time.perf_counter()
    rt.route(qs[0], snap, Actor.MODEL)
    out["first_route_ms"] = round((time.perf_counter() - t0) * 1000, 2)

    specs = list(snap)
    originals: dict[Path, str] = {}
    try:
        out |= _edit_five(cat, rt, specs, originals)
        out["patched_vs_cold"] = _patched_vs_cold(rt, cat.snapshot, qs)
    finally:
        for path, text in originals.items():
            path.write_text(text, encoding="utf-8")
    return out


def child(mode: str, root: Path, home: Path) -> dict[str, Any]:
    env = {**os.environ, "CODEBOT_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, __file__, "--one", mode, "--root", str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} {root} failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument(
        "--data", type=Path, help="where generated skills are kept (default: a temporary folder)"
    )
    ap.add_argument("--one", choices=("cold", "warm"), help=argparse.SUPPRESS)
    ap.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        json.dump(cold(args.root) if args.one == "cold" else warm(args.root), sys.stdout)
        return
    out: dict[str, Any] = {
        "python": sys.version.split()[0],
        "cpu_count": os.cpu_count(),
        "loadavg_1m": os.getloadavg()[0],
        "targets": TARGETS,
        "sizes": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or Path(tmp)
        for n in (int(x) for x in args.sizes.split(",") if x):
            root = skills_root(data, n)
            home = Path(tmp) / f"home{n}"
            c = child("cold", root, home)
            w = child("warm", root, home)
            row = {**c, **w}
            row["warm_speedup"] = round(c["cold_build_s"] / max(w["warm_load_s"], 1e-9), 1)
            row["edit_speedup"] = round(
                w["rebuild_from_rows_ms"] / max(w["edit_router_ms"], 1e-9), 1
            )
            out["sizes"][str(n)] = row
            log(f"{n}: {row}")
    ten = out["sizes"].get("10000")
    out["targets_met"] = (
        {"edit_usable_10000": ten["edit_usable_ms"] <= TARGETS["edit_usable_ms_10000_max"]}
        if ten
        else {}
    )
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
