"""The second stage of the ranking: after the decision has taken its first two, the first
`rerank_depth` candidates are ordered by score x coverage (the share of the request
words' worth a skill matches), so a skill matching one rare word of its short name does
not sit above one that matches most of the request. The decision, and the set an
over-budget listing holds for the turn, do not change."""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor
from codebot.skills.route import router as R

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate

DATA = Path(__file__).resolve().parents[2] / "data"
WORDS = ["cache", "queue", "schema", "lint", "format", "upload", "token", "parser", "metrics", "alert", "graph",
         "socket", "thread", "widget", "cluster", "bucket", "ledger", "invoice", "tensor", "shader"]  # fmt: skip
ADR = ("we picked kafka over rabbitmq after a long fight, write an architecture decision record "
       "in docs/adr so nobody reopens it")  # fmt: skip


def cfg(**kw) -> R.RouterConfig:
    return dataclasses.replace(R.RouterConfig(), **kw)


@pytest.fixture
def snap(tmp_path: Path, write_skill):
    root = tmp_path / "skills"
    root.mkdir()

    def add(name: str, desc: str, body: str = "Steps.\n") -> None:
        write_skill(root, name, f"name: {name}\ndescription: {json.dumps(desc)}", body)

    rng = random.Random(0)
    for i in range(40):  # a realistic spread of how common words are
        w = rng.sample(WORDS, 4)
        add(f"filler-{w[3]}-{i}", f"Handle {w[0]} and {w[1]} work for {w[2]} projects, and write docs about them.")
    add("adr-writer", "Write an architecture decision record in docs/adr: the options weighed, the choice and why.")
    # the request's topic, but only in its body (weighed 0.4): a low score, most of the request
    add("broker-notes", "Notes on message brokers.",
        "Compare kafka and rabbitmq, then record the decision and why nobody should reopen it.\n")
    # one rare word of the request, in a short name (weighed 2): a higher score, little else
    add("fight-club", "Organize a fight night.")
    return Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()


def names(r: R.Route) -> list[str]:
    return [c.name for c in r.candidates]


def test_more_of_the_request_ranks_above_one_rare_name_word(snap):
    plain = R.Router(cfg(coverage_power=0.0)).route(ADR, snap, Actor.MODEL, top=5)
    ours = R.Router().route(ADR, snap, Actor.MODEL, top=5)
    assert names(plain)[:3] == ["adr-writer", "fight-club", "broker-notes"]  # by score alone
    assert names(ours)[:3] == ["adr-writer", "broker-notes", "fight-club"]
    assert (ours.decision, ours.selected) == (plain.decision, plain.selected)
    assert ours.decision == "select" and ours.selected.name == "adr-writer"
    by = {c.name: c for c in ours.candidates}
    assert by["broker-notes"].score < by["fight-club"].score  # the scores are the first stage's
    assert (by["fight-club"].rank_lexical, by["broker-notes"].rank_lexical) == (2, 3)  # and the ranks
    assert by["broker-notes"].coverage > 3 * by["fight-club"].coverage
    assert "of what the request's words are worth" in by["broker-notes"].why
    assert by["broker-notes"].to_json()["coverage"] == round(by["broker-notes"].coverage, 4)
    assert all(c.coverage is None for c in plain.candidates)
    assert "coverage" not in plain.candidates[0].to_json()


def test_off_by_config_and_read_from_config():
    warnings: list[str] = []
    c = R.config_from_mapping({"coverage_power": 0, "rerank_depth": 10}, warnings)
    assert (c.coverage_power, c.rerank_depth, warnings) == (0.0, 10, [])
    bad = R.config_from_mapping({"coverage_power": -1, "rerank_depth": "deep"}, warnings)
    assert (bad.coverage_power, bad.rerank_depth) == (1.0, 40)
    assert len(warnings) == 2 and all("skills.router." in w for w in warnings)


def test_an_ask_keeps_both_offered_skills_in_front(snap):
    """A margin nothing can clear makes the router ask between its first two by score:
    fight-club stays second, though the second stage puts it third when the router selects."""
    ask = cfg(margin=10.0)
    r = R.Router(ask).route(ADR, snap, Actor.MODEL)
    plain = R.Router(dataclasses.replace(ask, coverage_power=0.0)).route(ADR, snap, Actor.MODEL)
    assert r.decision == plain.decision == "ask"
    n = 2 if r.decision == "ask" else 1
    assert names(r)[:n] == names(plain)[:n] == ["adr-writer", "fight-club"]
    assert [x.name for x in r.options] == [x.name for x in plain.options]
    assert names(R.Router().route(ADR, snap, Actor.MODEL))[:3] == ["adr-writer", "broker-notes", "fight-club"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen")
    generate(root, 600, seed=3)
    return Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()


def prompts() -> list[str]:
    out = []
    for name in ("dev", "holdout", "paraphrase"):
        cases, _ = R.parse_cases((DATA / f"routing_{name}.jsonl").read_text(encoding="utf-8").splitlines())
        out += [c.prompt for c in cases]
    return out


def test_the_decision_and_the_listed_set_do_not_change(generated):
    """On every case-file prompt against 600 generated skills: the same decision, the same
    first (and offered second), and the same first 40 as a set; a short ranking is the head
    of a long one, so SkillSearch's five are the listing's first five."""
    plain, ours = R.Router(cfg(coverage_power=0.0)), R.Router()
    moved = 0
    for p in prompts():
        a = plain.route(p, generated, Actor.MODEL, top=40)
        b = ours.route(p, generated, Actor.MODEL, top=40)
        assert (b.decision, b.selected) == (a.decision, a.selected), p
        n = 2 if b.decision == "ask" else 1
        assert names(b)[:n] == names(a)[:n], p
        assert set(names(b)) == set(names(a)), p
        assert names(ours.route(p, generated, Actor.MODEL, top=5)) == names(b)[:5], p
        moved += names(b) != names(a)
    assert moved > 50  # it does reorder: a test that cannot fail would pass with it off


def test_the_rerank_depth_is_the_listing_depth():
    """The second stage reorders exactly what an over-budget listing ranks for a turn, so
    the listing's set of skills is the first stage's."""
    from codebot.agent.session.prompting import RANKED

    assert R.RouterConfig().rerank_depth == RANKED
