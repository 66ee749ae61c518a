"""`codebot skills route` and `codebot skills eval`: the router from the command line.

    codebot skills route "set up playwright in this repo" [--as model] [--top 5] [--json]
    codebot skills eval tests/data/routing_dev.jsonl [--json] [--repeat 3] [--min-hit-at-1 0.85]

Kept light at import time: the router (and numpy, bm25s) load inside the handlers.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # cli builds its parser from this module: keep --help light
    from codebot.commands.args import Subparsers
    from codebot.config import Settings
    from codebot.skills.route import Case, Router

ACTORS = ("human", "model", "agent", "application", "skill", "eval")
FLOORS = (  # (option, report key, label)
    ("min_hit_at_1", "hit_at_1", "hit@1 on positives"),
    ("min_abstain", "abstain_rate_negatives", "abstention on negatives"),
    ("min_near_miss", "near_miss_accuracy", "near-miss accuracy"),
    ("min_precision", "precision", "precision"),
    ("min_over_baseline", "hit_at_1_over_baseline", "hit@1 over the plain BM25 baseline"),
)


def _say(*parts: object, file: TextIO | None = None, sep: str = " ", end: str = "\n") -> None:
    """`print` for text output: names, descriptions, bodies and reasons come from skill
    files, so terminal escape sequences in them are removed and other controls shown
    escaped (`display.strip_escapes`); a hostile skill cannot clear its own line or write
    the clipboard. JSON output is printed with `print`/`json.dump`, exactly."""
    from codebot.display import strip_escapes

    print(strip_escapes(sep.join(str(p) for p in parts)), file=file, end=end)


def add_parsers(skills_subparsers: Subparsers, common: Callable[..., None]) -> None:
    """Add `route` and `eval` to the `codebot skills` subcommands."""
    p = skills_subparsers.add_parser("route", help="which skill a request would go to, and why")
    common(p, suppress=True)
    p.add_argument(
        "request", nargs="+", metavar="REQUEST", help="the request, as a person would type it"
    )
    p.add_argument(
        "--as",
        dest="actor",
        choices=ACTORS,
        default="model",
        help="whose eligibility applies (default: model, as for the Skill tool)",
    )
    p.add_argument(
        "--adapter",
        choices=("core", "extension"),
        default="extension",
        help="core: codebot config only; extension: also host fields (default)",
    )
    p.add_argument(
        "--top", type=int, default=None, metavar="K", help="candidates to show (default: config, 5)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = skills_subparsers.add_parser(
        "eval", help="run labeled routing cases (JSONL) and report quality and latency"
    )
    common(p, suppress=True)
    p.add_argument(
        "cases",
        type=Path,
        metavar="CASES.jsonl",
        help='one case per line: {"prompt", "expected": name|null, "kind": '
        'positive|near_miss|negative, "also": [names]}',
    )
    p.add_argument(
        "--as",
        dest="actor",
        choices=ACTORS,
        default="model",
        help="whose eligibility applies (default: model)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="route every case N times (stability, latency)",
    )
    p.add_argument(
        "--only-dirs",
        action="store_true",
        help="use only the --skills-dir folders (no project, user, bundled or plugin skills)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.add_argument(
        "--min-hit-at-1", type=float, metavar="X", help="exit 1 if hit@1 on positives is below X"
    )
    p.add_argument(
        "--min-abstain",
        type=float,
        metavar="X",
        help="exit 1 if abstention on negatives is below X",
    )
    p.add_argument(
        "--min-near-miss", type=float, metavar="X", help="exit 1 if near-miss accuracy is below X"
    )
    p.add_argument(
        "--min-precision", type=float, metavar="X", help="exit 1 if precision is below X"
    )
    p.add_argument(
        "--baseline",
        action="store_true",
        help="also run plain BM25 over name + description (top-1, no abstention) on the same cases",
    )
    p.add_argument(
        "--min-over-baseline",
        type=float,
        metavar="X",
        help="exit 1 if hit@1 is not at least X above the baseline's (implies --baseline)",
    )


def _router(settings: Settings):
    from codebot.skills.route import router_from_settings

    warnings: list[str] = []
    router = router_from_settings(settings, warnings)
    for w in warnings:
        _say(f"codebot: warning: {w}", file=sys.stderr)
    return router


def _semantic_note(router: Router) -> None:
    if router.semantic_error:
        _say(
            f"codebot: warning: semantic scorer switched off: {router.semantic_error}",
            file=sys.stderr,
        )


def _snapshot(settings: Settings, only_dirs: bool = False):
    if only_dirs:
        from codebot.skills.catalog import Catalog
        from codebot.skills.files import Root, Source

        roots = [
            Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True)
            for i, d in enumerate(settings.skills_dirs)
        ]
        return Catalog(roots).load()
    from codebot.workspace import open_catalog

    return open_catalog(settings).snapshot


def run_route(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.skills.catalog import active_keys
    from codebot.skills.invoke import Actor, Adapter

    request = " ".join(args.request).strip()
    if not request:
        _say(
            'codebot: give the request to route, e.g. codebot skills route "review my diff"',
            file=sys.stderr,
        )
        return 2
    if args.top is not None and args.top < 1:
        _say("codebot: --top must be at least 1", file=sys.stderr)
        return 2
    from codebot.commands.skill_servers import snapshot_with_servers

    snap = snapshot_with_servers(settings)  # with the MCP servers' skills
    router = _router(settings)
    r = router.route(
        request,
        snap,
        Actor(args.actor),
        settings.overrides,
        Adapter(args.adapter),
        top=args.top,
        active=active_keys(snap, settings.project_dir),
    )
    _semantic_note(router)
    out = r.to_json()
    out["skills"] = len(snap)
    if args.json:
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    head = {
        "select": f"select {out['selected']}",
        "ask": f"ask: {' or '.join(s.name for s in r.options)}?",
        "abstain": "abstain (no skill)",
    }[r.decision]
    _say(f"{head} — {r.reason}")
    if r.shape != "task":
        _say(f"  request shape: {r.shape}")
    if r.emphasized:
        _say(
            f"  written as names, counted x{router.config.decision.name_case_weight:g}: "
            f"{', '.join(r.emphasized)}"
        )
    if r.destination:
        _say(f"  moved to (can name the skill alone): {', '.join(r.destination)}")
    for c in r.candidates:
        # with the semantic extra the order is by fused score: show its parts
        extra = f" + sem {c.semantic:.2f}" if c.semantic is not None else ""
        _say(f"  {c.score:5.2f}{extra}  {c.name}  ({c.why})")
    for f in r.filtered:
        _say(f"  filtered {f.spec.name} [{f.decided_by}]: {f.reason}")
    how = {"load": "loading", "load+patch": "loading and patching", "patch": "patching"}.get(
        router.stats["last"], "building"
    )
    _say(
        f"# {len(snap)} skills; routed in {r.latency_ms:.1f} ms after {how} the index in "
        f"{r.index_ms:.0f} ms",
        file=sys.stderr,
    )
    return 0


def run_eval(args: argparse.Namespace, settings: Settings) -> int:
    from codebot.skills.invoke import Actor
    from codebot.skills.route import RANK_KS, evaluate

    cases = _eval_cases(args, settings)
    if cases is None:
        return 2
    snap = _snapshot(settings, args.only_dirs)
    router = _router(settings)
    actor = Actor(args.actor)
    depth = RANK_KS[-1]
    # recall@k reads the ranking RANK_KS[-1] deep; the decisions keep the configured `top`
    rank_fn = None
    if router.config.top < depth:
        rank_fn = lambda p: router.route(p, snap, actor, settings.overrides, top=depth)  # noqa: E731
    report = evaluate(
        cases,
        lambda p: router.route(p, snap, actor, settings.overrides),
        repeat=args.repeat,
        known=[s.name for s in snap],
        rank_fn=rank_fn,
    )
    _semantic_note(router)
    report["skills"] = len(snap)
    report["semantic"] = router.config.semantic if router.semantic is not None else None
    report["index_build_ms"] = round(router.stats["last_build_ms"], 1)
    report["config"] = dataclasses.asdict(router.config)
    if args.baseline or args.min_over_baseline is not None:
        from codebot.skills.route import Bm25Baseline, baseline_summary

        base = Bm25Baseline(list(snap))
        report["baseline"] = baseline_summary(
            evaluate(cases, base.route, known=[s.name for s in snap])
        )
        report["hit_at_1_over_baseline"] = round(
            _or_zero(report["hit_at_1"]) - _or_zero(report["baseline"]["hit_at_1"]), 4
        )
    missed = _floors_missed(args, report)
    report["floors_missed"] = missed
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _print_report(report)
    for m in missed:
        _say(f"codebot: floor missed: {m}", file=sys.stderr)
    return 1 if missed else 0


def _or_zero(value: object) -> float:
    """A share of the report (None when nothing was measured) as a number: `value or 0`."""
    return (value or 0) if isinstance(value, int | float) else 0


def _eval_cases(args: argparse.Namespace, settings: Settings) -> list[Case] | None:
    """The cases of `skills eval`, or None once what is wrong with them or with the
    options is reported."""
    from codebot.skills.route import parse_cases

    try:
        lines = args.cases.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        _say(f"codebot: {args.cases}: cannot read cases ({exc.strerror or exc})", file=sys.stderr)
        return None
    cases, errors = parse_cases(lines)
    for e in errors:
        _say(f"codebot: {args.cases}: {e}", file=sys.stderr)
    if errors or not cases:
        if not cases and not errors:
            _say(f"codebot: {args.cases}: no cases", file=sys.stderr)
        return None
    if args.repeat < 1:
        _say("codebot: --repeat must be at least 1", file=sys.stderr)
        return None
    if args.only_dirs and not settings.skills_dirs:
        _say("codebot: --only-dirs needs at least one --skills-dir", file=sys.stderr)
        return None
    return cases


def _floors_missed(args: argparse.Namespace, report: dict[str, Any]) -> list[str]:
    """The `--min-*` floors the report falls short of, as "label value < floor"."""
    missed = []
    for opt, key, label in FLOORS:
        floor = getattr(args, opt)
        if floor is None:
            continue
        value = report.get(key)
        if value is None or value < floor:
            missed.append(f"{label} {value if value is not None else 'n/a'} < {floor}")
    return missed


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _ranking(r: dict[str, Any]) -> str:
    """`recall@1 0.867 @3 0.933 ... mrr 0.900`: the ranking alone, whatever the decision."""
    ks = [f"@{k} {_fmt(v)}" for k, v in r["recall_at_k"].items()]
    return f"recall{' '.join(ks)}  mrr {_fmt(r['mrr'])}"


def _print_report(r: dict[str, Any]) -> None:
    c = r["counts"]
    _say(
        f"{r['cases']} cases ({c['positive']} positive, {c['near_miss']} near miss, "
        f"{c['negative']} negative) "
        f"over {r['skills']} skills"
    )
    _say(f"  hit@1 (positives)         {_fmt(r['hit_at_1'])}")
    _say(f"  precision / recall        {_fmt(r['precision'])} / {_fmt(r['recall'])}")
    _say(f"  offered / chose wrong     {_fmt(r['offered'])} / {_fmt(r['chose_wrong'])}")
    _say(f"  abstention on negatives   {_fmt(r['abstain_rate_negatives'])}")
    _say(f"  near-miss accuracy        {_fmt(r['near_miss_accuracy'])}")
    _say(f"  ranking, positives        {_ranking(r)}")
    _say(f"  stability (x{r['repeat']})           {_fmt(r['stability'])}")
    lat = r["latency_ms"]
    _say(f"  latency p50 / p95         {lat['p50']:.2f} / {lat['p95']:.2f} ms")
    for code, g in r.get("by_language", {}).items():
        _say(
            f"  {code:<4} hit@1 {_fmt(g['hit_at_1'])}, abstention "
            f"{_fmt(g['abstain_rate_negatives'])}, near-miss {_fmt(g['near_miss_accuracy'])}"
        )
    if "baseline" in r:
        b = r["baseline"]
        _say(
            f"plain BM25 baseline (name + description, top-1): hit@1 {_fmt(b['hit_at_1'])}, "
            f"precision {_fmt(b['precision'])}, abstention {_fmt(b['abstain_rate_negatives'])}, "
            f"near-miss {_fmt(b['near_miss_accuracy'])}; router hit@1 over it "
            f"{r['hit_at_1_over_baseline']:+.3f}"
        )
        _say(f"  baseline ranking          {_ranking(b)}")
    if r["unknown_names"]:
        _say(f"  unknown skill names in cases: {', '.join(r['unknown_names'])}")
    if r["confusion"]:
        _say("confusions (expected -> got):")
        for e in r["confusion"][:15]:
            _say(
                f"  {e['expected']} -> {e['got']}" + (f" (x{e['count']})" if e["count"] > 1 else "")
            )
    misses = [x for x in r["results"] if not x["ok"]]
    if misses:
        _say("misses:")
        for x in misses:
            got = x["selected"] or (" or ".join(x["options"]) if x["options"] else "(abstain)")
            _say(
                f"  line {x['line']} [{x['kind']}] {x['decision']}: {got} (expected "
                f"{x['expected']}) :: {x['prompt']}"
            )
