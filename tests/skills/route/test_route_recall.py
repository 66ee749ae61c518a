"""recall@k and MRR of the ranking (`skills eval`), pinned on hand-made cases whose ranks
are known: over positive cases only, whatever the decision."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import codebot.skills.route as R
from codebot.skills.invoke import Actor
from codebot.skills.route import first_rank, ranking_summary
from codebot.skills.route.result import Candidate, Route


def fake_routes(specs, orders: dict[str, list[str]], decision: str = "abstain"):
    """A route_fn whose ranking for each prompt is the given list of skill names."""
    by_name = {s.name: s for s in specs}

    def route(prompt: str) -> Route:
        cands = tuple(
            Candidate(by_name[n], 1.0 - k / 100, 1.0, {}) for k, n in enumerate(orders[prompt])
        )
        return Route(
            prompt, decision, None, cands, (), "fake", (), "task", 0.3, 0.05, 0.1, Actor.MODEL
        )

    return route


def case(
    prompt: str, expected: str | None, kind: str = "positive", also: tuple[str, ...] = ()
) -> R.Case:
    return R.Case(prompt, expected, kind, also)


def test_recall_at_k_and_mrr_are_pinned(disk):
    specs = list(disk.load())
    names = [s.name for s in specs if s.name.startswith("filler-")][:12]
    target = "sql-tuning"
    at = {"r1": 1, "r2": 2, "r4": 4, "r7": 7}  # the rank `target` is put at
    orders = {p: [*names[: r - 1], target, *names[r - 1 : 11]] for p, r in at.items()}
    orders["missing"] = names[:10]  # not among the first ten
    orders["deep"] = [*names[:10], target]  # 11th: past the deepest k
    orders["also"] = [names[0], "docker-slim", target]  # an `also` name at rank 2 counts
    orders["negative"] = [target]  # negatives and near misses do not count
    orders["near"] = [names[0]]
    cases = [case(p, target) for p in (*at, "missing", "deep")]
    cases += [
        case("also", "release-notes", also=("docker-slim",)),
        case("negative", None, "negative"),
        case("near", target, "near_miss"),
    ]
    rep = R.evaluate(cases, fake_routes(specs, orders))
    # ranks of the 7 positives: 1, 2, 4, 7, none, none (11th), 2
    assert rep["recall_at_k"] == {
        "1": round(1 / 7, 4),
        "3": round(3 / 7, 4),
        "5": round(4 / 7, 4),
        "10": round(5 / 7, 4),
    }
    assert rep["mrr"] == round((1 + 1 / 2 + 1 / 4 + 1 / 7 + 1 / 2) / 7, 4)
    assert [r["rank"] for r in rep["results"]] == [1, 2, 4, 7, None, None, 2, None, None]
    assert rep["hit_at_1"] == 0.0  # every decision here is abstain: hit@1 is about decisions


def test_the_ranking_can_be_read_deeper_than_the_decision(disk):
    specs = list(disk.load())
    names = [s.name for s in specs if s.name.startswith("filler-")][:9]
    ranked = {"p": [*names[:6], "pdf-forms", *names[6:]]}  # rank 7
    shallow = {"p": ranked["p"][:5]}
    cases = [case("p", "pdf-forms")]
    assert R.evaluate(cases, fake_routes(specs, shallow))["recall_at_k"]["10"] == 0.0
    rep = R.evaluate(cases, fake_routes(specs, shallow), rank_fn=fake_routes(specs, ranked))
    assert rep["recall_at_k"] == {"1": 0.0, "3": 0.0, "5": 0.0, "10": 1.0}
    assert rep["mrr"] == round(1 / 7, 4)


def test_no_positive_cases_give_no_numbers():
    assert ranking_summary([]) == {
        "recall_at_k": {"1": None, "3": None, "5": None, "10": None},
        "mrr": None,
    }
    assert first_rank(["a", "b"], {"b"}) == 2 and first_rank(["a"], {"z"}) is None


def _parser():
    from codebot.commands.args import common_options
    from codebot.commands.route import add_parsers

    p = argparse.ArgumentParser()
    add_parsers(p.add_subparsers(dest="skills_command"), common_options)
    return p


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(c)
            for c in [
                {
                    "prompt": "shrink our docker image with multi-stage builds",
                    "expected": "docker-slim",
                    "kind": "positive",
                },
                {
                    "prompt": "fix the flaky pytest fixture race",
                    "expected": "flaky-tests",
                    "kind": "positive",
                },
                # no word of it is in release-notes: not in the ranking at all
                {
                    "prompt": "speed up this slow sql query with an index",
                    "expected": "release-notes",
                    "kind": "positive",
                },
                {"prompt": "what is the capital of France?", "expected": None, "kind": "negative"},
            ]
        )
        + "\n"
    )
    return path


def test_skills_eval_reports_recall_and_mrr(disk, cases_file, tmp_path, capsys):
    from codebot.commands.route import run_eval
    from codebot.config import load_settings

    disk.load()
    settings = load_settings(cwd=tmp_path, skills_dirs=(disk.root,))
    args = _parser().parse_args(["eval", str(cases_file), "--json", "--only-dirs", "--baseline"])
    assert run_eval(args, settings) == 0
    rep = json.loads(capsys.readouterr().out)
    third = round(2 / 3, 4)
    assert rep["recall_at_k"] == {"1": third, "3": third, "5": third, "10": third}
    assert rep["mrr"] == third
    assert set(rep["baseline"]["recall_at_k"]) == {"1", "3", "5", "10"} and "mrr" in rep["baseline"]
    args = _parser().parse_args(["eval", str(cases_file), "--only-dirs"])
    assert run_eval(args, settings) == 0
    out = capsys.readouterr().out
    assert (
        f"recall@1 {2 / 3:.3f} @3 {2 / 3:.3f} @5 {2 / 3:.3f} @10 {2 / 3:.3f}  mrr {2 / 3:.3f}"
        in out
    )
