"""Routing quality over the shared corpus, on three case files:

- tests/data/routing_dev.jsonl: the calibration set. Its floors are the ones CI passes to
  `codebot skills eval`, including the margin over the plain BM25 baseline.
- tests/data/routing_holdout.jsonl: written blind and committed before tuning; never tuned
  on. Its floors only guard that what was learnt on the dev set carries over.
- tests/data/routing_paraphrase.jsonl: a stress set of heavy paraphrases; never tuned on.

The wording rules of each file are tests too, so a later edit cannot make a set easier by
copying the descriptions' words. Skipped when ../shared is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from route_case_files import (
    BLIND,
    DEV,
    DEV_MULTILINGUAL,
    EIGHTEENTH,
    EIGHTH,
    ELEVENTH,
    FIFTEENTH,
    FIFTH,
    FOURTEENTH,
    FOURTH,
    FRESH,
    HOLDOUT,
    NINETEENTH,
    NINTH,
    PARAPHRASE,
    SEVENTEENTH,
    SEVENTH,
    SIXTEENTH,
    SIXTH,
    TENTH,
    THIRTEENTH,
    THIRTIETH,
    THIRTYFIRST,
    TWELFTH,
    TWENTIETH,
    TWENTYEIGHTH,
    TWENTYFIFTH,
    TWENTYFIRST,
    TWENTYFOURTH,
    TWENTYNINTH,
    TWENTYSECOND,
    TWENTYSEVENTH,
    TWENTYSIXTH,
    TWENTYTHIRD,
)

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source, normalize_name
from codebot.skills.invoke import Actor
from codebot.skills.route import Bm25Baseline, Tokenizer

pytestmark = pytest.mark.corpus

#: (lowered by issue 36 §3 from 0.85 / 0.75 / 0.85: the numbers removed were tuned on this
#: set; removing them cost it 0.056 hit@1 and 0.13 near-miss while the held-out sets did not
#: get worse: docs/routing.md, "Numbers")
FLOORS = {
    "hit_at_1": 0.80,
    "abstain_rate_negatives": 0.90,
    "near_miss_accuracy": 0.60,
    "precision": 0.80,
}
#: hit@1 the router must keep above plain BM25 (name + description, top-1) on each set
OVER_BASELINE = {DEV: 0.10, HOLDOUT: 0.10, PARAPHRASE: 0.05}


def load(path: Path) -> list[R.Case]:
    cases, errors = R.parse_cases(path.read_text(encoding="utf-8").splitlines())
    assert errors == [], f"{path.name}: {errors}"
    return cases


@pytest.fixture(scope="module")
def snap(corpus_dir: Path):
    repos = sorted(d for d in corpus_dir.iterdir() if d.is_dir())
    return Catalog(
        [Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True) for i, d in enumerate(repos)]
    ).load()


@pytest.fixture(scope="module")
def router(snap) -> R.Router:
    rt = R.Router()
    rt.index(snap)
    return rt


@pytest.fixture(scope="module")
def cases() -> list[R.Case]:
    return load(DEV)


def test_dev_set_is_big_enough(cases):
    kinds = [c.kind for c in cases]
    assert len(cases) >= 80
    assert kinds.count("near_miss") >= 20 and kinds.count("negative") >= 20


def _shared_stems(snap, case: R.Case) -> tuple[set[str], set[str], set[tuple[str, ...]]]:
    """(prompt stems, stems shared with the skill's name + description, shared 3-word runs)."""
    tok = Tokenizer("builtin")
    spec = {s.key: s for s in snap}[normalize_name(case.expected or "")]
    d = tok(spec.name.replace("-", " ").replace("_", " ") + " " + spec.description)
    p = tok(case.prompt)

    def runs(ts: list[str]) -> set[tuple[str, ...]]:
        return {tuple(ts[i : i + 3]) for i in range(len(ts) - 2)}

    return set(p), set(p) & set(d), runs(p) & runs(d)


#: positives left out of the wording rule, by set and line, each for a reason: the
#: seventeenth set's writer named the very tools the skill's description lists ("PubMed,
#: bioRxiv and Semantic Scholar", "n8n, Temporal, Inngest", "an HTML landing page"), the
#: eighteenth's the framework's own names ("Next.js の App Router", "Server Component"), the
#: nineteenth's the technique's ("LC-MS/MS"), the twentieth's the products' ("Google Cloud",
#: "Cloud Run", "GKE"), the twenty-first's the trade's own words (an epic broken into
#: stories with acceptance criteria and points, velocity; C#'s "records and pattern
#: matching"), the twenty-third's a regulation's and a service's names ("MDR 2017/745",
#: "protocols.io の API"), the twenty-fourth's a service's and frameworks' ("Ginkgo's cloud
#: lab", "Next.js 14 App Router", "ASP.NET Core"), the twenty-fifth's the tools the choice is
#: between ("¿Nx, Turborepo o Bazel?"), the twenty-sixth's a skill's kind and the AWS
#: services it is built on ("project-guidelines skill", "Lambda + API Gateway + DynamoDB"),
#: the twenty-seventh's products, frameworks and standards ("AKS or App Service", "SOC 2 or
#: ISO 27001", "an MLflow model registry", "React Three Fiber", "ASP.NET Core", "MITRE
#: ATT&CK", "Obsidian Web Clipper") and one phrase of a description ("a one-page pre-read
#: tailored to her"), the twenty-eighth's a network's technical terms ("globales Load
#: Balancing, CDN davor … Zero Trust"), the twenty-ninth's a product's and an SDK's names
#: ("a GitHub Actions workflow", "the anthropic python SDK … which sonnet model"), the
#: thirtieth's a tool's own files and a framework's router ("product.md, workflow.md",
#: "Next.jsのApp Router"); each set was routed as written, so it is kept as written
NAMED_TOOLS = {
    SEVENTEENTH: frozenset({7, 11, 30}),
    EIGHTEENTH: frozenset({127}),
    NINETEENTH: frozenset({91}),
    TWENTIETH: frozenset({126}),
    TWENTYFIRST: frozenset({6, 64}),
    TWENTYTHIRD: frozenset({20, 87}),
    TWENTYFOURTH: frozenset({6, 26, 107}),
    TWENTYFIFTH: frozenset({43}),
    TWENTYSIXTH: frozenset({10, 31}),
    TWENTYSEVENTH: frozenset({2, 10, 12, 16, 82, 110, 128, 133}),
    TWENTYEIGHTH: frozenset({79}),
    TWENTYNINTH: frozenset({2, 11}),
    THIRTIETH: frozenset({101, 141}),
}


@pytest.mark.parametrize(
    "path",
    [
        DEV,
        HOLDOUT,
        DEV_MULTILINGUAL,
        BLIND,
        FRESH,
        FOURTH,
        FIFTH,
        SIXTH,
        SEVENTH,
        EIGHTH,
        NINTH,
        TENTH,
        ELEVENTH,
        TWELFTH,
        THIRTEENTH,
        FOURTEENTH,
        FIFTEENTH,
        SIXTEENTH,
        SEVENTEENTH,
        EIGHTEENTH,
        NINETEENTH,
        TWENTIETH,
        TWENTYFIRST,
        TWENTYSECOND,
        TWENTYTHIRD,
        TWENTYFOURTH,
        TWENTYFIFTH,
        TWENTYSIXTH,
        TWENTYSEVENTH,
        TWENTYEIGHTH,
        TWENTYNINTH,
        THIRTIETH,
        THIRTYFIRST,
    ],
    ids=[
        "dev",
        "holdout",
        "dev_multilingual",
        "blind",
        "fresh",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
        "twentieth",
        "twentyfirst",
        "twentysecond",
        "twentythird",
        "twentyfourth",
        "twentyfifth",
        "twentysixth",
        "twentyseventh",
        "twentyeighth",
        "twentyninth",
        "thirtieth",
        "thirtyfirst",
    ],
)
def test_positives_are_in_users_words(snap, path):
    """At most half of a positive's word stems come from its skill's name + description,
    and never three description words in a row."""
    bad = []
    for c in load(path):
        if c.kind == "positive" and c.line not in NAMED_TOOLS.get(path, ()):
            words, shared, runs = _shared_stems(snap, c)
            if len(shared) * 2 > len(words) or runs:
                bad.append(f"line {c.line}: {sorted(shared)} {sorted(runs)}: {c.prompt}")
    assert bad == [], "\n".join(bad)


def test_paraphrase_positives_share_at_most_two_stems(snap):
    bad = [
        f"line {c.line}: {sorted(shared)}: {c.prompt}"
        for c in load(PARAPHRASE)
        if c.kind == "positive"
        for _, shared, _ in [_shared_stems(snap, c)]
        if len(shared) > 2
    ]
    assert bad == [], "\n".join(bad)


def test_dev_set_meets_the_floors(snap, router, cases):
    report = R.evaluate(
        cases, lambda p: router.route(p, snap, Actor.MODEL), repeat=2, known=[s.name for s in snap]
    )
    assert report["unknown_names"] == [], "every expected / also name must exist in the corpus"
    assert [r["prompt"] for r in report["results"]] == [c.prompt for c in cases]
    assert report["stability"] == 1.0
    misses = [
        f"{r['kind']}: {r['prompt']} -> {r['decision']} {r['selected'] or r['top']}"
        for r in report["results"]
        if not r["ok"]
    ]
    for key, floor in FLOORS.items():
        assert report[key] >= floor, f"{key} {report[key]} < {floor}; misses:\n" + "\n".join(misses)
    # Latency is a figure, not a property: bench/route.py reports it (p50/p95 at 1k-80k).
    assert set(report["latency_ms"]) >= {"p50", "p95"}


@pytest.mark.parametrize("path", [DEV, HOLDOUT, PARAPHRASE], ids=["dev", "holdout", "paraphrase"])
def test_router_beats_plain_bm25(snap, router, path):
    cases = load(path)
    known = [s.name for s in snap]
    ours = R.evaluate(cases, lambda p: router.route(p, snap, Actor.MODEL), known=known)
    base = R.evaluate(cases, Bm25Baseline(list(snap)).route, known=known)
    assert ours["unknown_names"] == []
    assert base["abstain_rate_negatives"] == 0.0  # the baseline never abstains on a word it knows
    gain = ours["hit_at_1"] - base["hit_at_1"]
    assert gain >= OVER_BASELINE[path], f"hit@1 {ours['hit_at_1']} vs baseline {base['hit_at_1']}"
    assert ours["precision"] > base["precision"] + 0.3  # abstaining instead of guessing
    assert ours["abstain_rate_negatives"] >= 0.8


def test_cli_eval_with_floors_in_process(corpus_dir, capsys):
    from codebot.cli import build_parser
    from codebot.commands.args import settings_from
    from codebot.commands.route import add_parsers, run_eval

    parser = build_parser()
    skills_sub = next(a for a in parser._subparsers._group_actions).choices["skills"]  # type: ignore[union-attr]
    sub = next(a for a in skills_sub._subparsers._group_actions)  # type: ignore[union-attr]
    if "eval" not in sub.choices:  # until codebot/cli.py wires it
        from codebot.commands.args import common_options as _common

        add_parsers(sub, _common)
    argv = [
        "skills",
        "eval",
        str(DEV),
        "--only-dirs",
        "--json",
        "--min-hit-at-1",
        str(FLOORS["hit_at_1"]),
        "--min-abstain",
        "0.9",
        "--min-near-miss",
        str(FLOORS["near_miss_accuracy"]),
        "--min-precision",
        str(FLOORS["precision"]),
        "--min-over-baseline",
        "0.1",
    ]
    for d in sorted(p for p in corpus_dir.iterdir() if p.is_dir()):
        argv += ["--skills-dir", str(d)]
    args = parser.parse_args(argv)
    code = run_eval(args, settings_from(args))
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report["floors_missed"]
    assert report["floors_missed"] == [] and report["cases"] >= 80
    assert report["baseline"]["hit_at_1"] < report["hit_at_1"] - 0.1
    # and a floor that cannot be met fails the command, naming it
    args = parser.parse_args([*argv, "--min-over-baseline", "0.9"])
    assert run_eval(args, settings_from(args)) == 1
    assert "over the plain BM25 baseline" in capsys.readouterr().err
