"""Routing quality on the dev set (tests/data/routing_dev.jsonl) over the shared corpus.

The same floors CI passes to `codebot skills eval`. Each repository folder of
../shared/corpus/skills is one `--skills-dir` root; skipped when the corpus is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codebot.skills import router as R
from codebot.skills.catalog import Catalog
from codebot.skills.policy import Actor
from codebot.skills.spec import Root, Source

pytestmark = pytest.mark.corpus

DEV = Path(__file__).resolve().parents[1] / "data" / "routing_dev.jsonl"
FLOORS = {"hit_at_1": 0.85, "abstain_rate_negatives": 0.90, "near_miss_accuracy": 0.75, "precision": 0.85}


@pytest.fixture(scope="module")
def corpus_roots(corpus_dir: Path) -> list[Root]:
    repos = sorted(d for d in corpus_dir.iterdir() if d.is_dir())
    return [Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True) for i, d in enumerate(repos)]


@pytest.fixture(scope="module")
def cases() -> list[R.Case]:
    cases, errors = R.parse_cases(DEV.read_text(encoding="utf-8").splitlines())
    assert errors == []
    return cases


def test_dev_set_is_big_enough(cases):
    kinds = [c.kind for c in cases]
    assert len(cases) >= 80
    assert kinds.count("near_miss") >= 20 and kinds.count("negative") >= 20


def test_dev_set_meets_the_floors(corpus_roots, cases):
    snap = Catalog(corpus_roots).load()
    router = R.Router()
    report = R.evaluate(cases, lambda p: router.route(p, snap, Actor.MODEL), repeat=2,
                        known=[s.name for s in snap])  # fmt: skip
    assert report["unknown_names"] == [], "every expected / also name must exist in the corpus"
    assert [r["prompt"] for r in report["results"]] == [c.prompt for c in cases]
    assert report["stability"] == 1.0
    misses = [f"{r['kind']}: {r['prompt']} -> {r['decision']} {r['selected'] or r['top']}"
              for r in report["results"] if not r["ok"]]  # fmt: skip
    for key, floor in FLOORS.items():
        assert report[key] >= floor, f"{key} {report[key]} < {floor}; misses:\n" + "\n".join(misses)
    assert report["latency_ms"]["p95"] < 50


def test_cli_eval_with_floors_in_process(corpus_dir, capsys):
    from codebot.cli import build_parser
    from codebot.commands.route import add_parsers, run_eval
    from codebot.commands.skills import settings_from

    parser = build_parser()
    skills_sub = next(a for a in parser._subparsers._group_actions).choices["skills"]  # type: ignore[union-attr]
    sub = next(a for a in skills_sub._subparsers._group_actions)  # type: ignore[union-attr]
    if "eval" not in sub.choices:  # until codebot/cli.py wires it
        from codebot.cli import _common

        add_parsers(sub, _common)
    argv = ["skills", "eval", str(DEV), "--only-dirs", "--json", "--min-hit-at-1", "0.85", "--min-abstain", "0.9",
            "--min-near-miss", "0.75", "--min-precision", "0.85"]  # fmt: skip
    for d in sorted(p for p in corpus_dir.iterdir() if p.is_dir()):
        argv += ["--skills-dir", str(d)]
    args = parser.parse_args(argv)
    code = run_eval(args, settings_from(args))
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report["floors_missed"]
    assert report["floors_missed"] == [] and report["cases"] >= 80
