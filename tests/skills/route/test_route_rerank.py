"""The second stage of the ranking: after the decision has taken its first two, the first
`rerank_depth` candidates are ordered by score x coverage (the share of the request
words' worth a skill matches), so a skill matching one rare word of its short name does
not sit above one that matches most of the request. The decision does not change, nor,
below 4,000 skills, does the set an over-budget listing holds for the turn."""

from __future__ import annotations

import itertools
import json
import random
import sys
from pathlib import Path

import pytest

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate

DATA = Path(__file__).resolve().parents[2] / "data"
WORDS = [
    "cache",
    "queue",
    "schema",
    "lint",
    "format",
    "upload",
    "token",
    "parser",
    "metrics",
    "alert",
    "graph",
    "socket",
    "thread",
    "widget",
    "cluster",
    "bucket",
    "ledger",
    "invoice",
    "tensor",
    "shader",
]
ADR = (
    "we picked kafka over rabbitmq after a long fight, write an architecture decision record "
    "in docs/adr so nobody reopens it"
)


def cfg(**kw) -> R.RouterConfig:
    warnings: list[str] = []
    got = R.config_from_mapping(kw, warnings)
    assert not warnings, warnings
    return got


@pytest.fixture
def snap(tmp_path: Path, write_skill):
    root = tmp_path / "skills"
    root.mkdir()

    def add(name: str, desc: str, body: str = "Steps.\n") -> None:
        write_skill(root, name, f"name: {name}\ndescription: {json.dumps(desc)}", body)

    rng = random.Random(0)
    for i in range(40):  # a realistic spread of how common words are
        w = rng.sample(WORDS, 4)
        add(
            f"filler-{w[3]}-{i}",
            f"Handle {w[0]} and {w[1]} work for {w[2]} projects, and write docs about them.",
        )
    add(
        "adr-writer",
        "Write an architecture decision record in docs/adr: the options weighed, the choice and "
        "why.",
    )
    # the request's topic, but only in its body (weighed 0.4): a low score, most of the request
    add(
        "broker-notes",
        "Notes on message brokers.",
        "Compare kafka and rabbitmq, then record the decision and why nobody should reopen it.\n",
    )
    # one rare word of the request, in a short name (weighed 2): a higher score, little else
    add("fight-club", "Organize a fight night.")
    return Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()


def names(r: R.Route) -> list[str]:
    return [c.name for c in r.candidates]


def test_more_of_the_request_ranks_above_one_rare_name_word(snap):
    plain = R.Router(cfg(second_stage=False)).route(ADR, snap, Actor.MODEL, top=5)
    ours = R.Router().route(ADR, snap, Actor.MODEL, top=5)
    assert names(plain)[:3] == ["adr-writer", "fight-club", "broker-notes"]  # by score alone
    assert names(ours)[:3] == ["adr-writer", "broker-notes", "fight-club"]
    assert (ours.decision, ours.selected) == (plain.decision, plain.selected)
    assert ours.decision == "select" and ours.selected.name == "adr-writer"
    by = {c.name: c for c in ours.candidates}
    assert by["broker-notes"].score < by["fight-club"].score  # the scores are the first stage's
    assert (by["fight-club"].rank_lexical, by["broker-notes"].rank_lexical) == (
        2,
        3,
    )  # and the ranks
    assert by["broker-notes"].coverage > 3 * by["fight-club"].coverage
    assert "of what the request's words are worth" in by["broker-notes"].why
    assert by["broker-notes"].to_json()["coverage"] == round(by["broker-notes"].coverage, 4)
    assert all(c.coverage is None and c.ordered_by is None for c in plain.candidates)
    assert (
        "coverage" not in plain.candidates[0].to_json()
        and "ordered_by" not in plain.candidates[0].to_json()
    )
    # the second stage's number is shown, and is what put broker-notes above fight-club
    assert by["broker-notes"].ordered_by > by["fight-club"].ordered_by
    assert by["broker-notes"].ordered_by == pytest.approx(
        by["broker-notes"].score * by["broker-notes"].coverage
    )
    assert f"second stage {by['broker-notes'].ordered_by:.3f}" in by["broker-notes"].why
    assert "second stage" not in by["adr-writer"].why  # placed first by the decision, not by it
    assert by["broker-notes"].to_json()["ordered_by"] == round(by["broker-notes"].ordered_by, 4)


def test_off_by_config_and_read_from_config():
    warnings: list[str] = []
    c = R.config_from_mapping({"second_stage": False}, warnings).rerank
    assert (c.second_stage, c.rerank_depth, warnings) == (False, 40, [])
    bad = R.config_from_mapping({"second_stage": "off", "rerank_depth": 10}, warnings).rerank
    assert (bad.second_stage, bad.rerank_depth) == (True, 40)
    assert len(warnings) == 2 and all("skills.router." in w for w in warnings)


def test_an_ask_keeps_both_offered_skills_in_front(snap):
    """A margin nothing can clear makes the router ask between its first two by score:
    fight-club stays second, though the second stage puts it third when the router selects."""
    ask = cfg(margin=10.0)
    r = R.Router(ask).route(ADR, snap, Actor.MODEL)
    plain = R.Router(cfg(margin=10.0, second_stage=False)).route(ADR, snap, Actor.MODEL)
    assert r.decision == plain.decision == "ask"
    n = 2 if r.decision == "ask" else 1
    assert names(r)[:n] == names(plain)[:n] == ["adr-writer", "fight-club"]
    assert [x.name for x in r.options] == [x.name for x in plain.options]
    assert names(R.Router().route(ADR, snap, Actor.MODEL))[:3] == [
        "adr-writer",
        "broker-notes",
        "fight-club",
    ]


def test_an_abstention_keeps_nothing_in_front(snap):
    """With nothing chosen, the whole ranking is the second stage's: the first stage's best
    (fight-club, on one rare name word) is not held first, as a pick would be, and the
    reason still names it as the best match by score."""
    req = (
        "after a long fight, compare kafka and rabbitmq and record the decision so nobody reopens "
        "it"
    )
    strict = cfg(threshold=50.0)  # nothing clears it
    r = R.Router(strict).route(req, snap, Actor.MODEL)
    plain = R.Router(cfg(threshold=50.0, second_stage=False)).route(req, snap, Actor.MODEL)
    assert r.decision == plain.decision == "abstain"
    assert names(plain)[0] == "fight-club" and "best match fight-club" in r.reason
    assert names(r)[0] != "fight-club"
    order = [c.ordered_by for c in r.candidates]
    assert None not in order and all(x >= y for x, y in itertools.pairwise(order))
    assert all("second stage" in c.why for c in r.candidates)  # each one placed by it, shown
    deep = R.Router(cfg(threshold=50.0, second_stage=False)).route(req, snap, Actor.MODEL, top=40)
    assert set(names(r)) <= set(names(deep))  # reordered from the first stage's, none added


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen")
    generate(root, 600, seed=3)
    return Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()


def prompts() -> list[str]:
    out = []
    for name in ("dev", "holdout", "paraphrase"):
        cases, _ = R.parse_cases(
            (DATA / f"routing_{name}.jsonl").read_text(encoding="utf-8").splitlines()
        )
        out += [c.prompt for c in cases]
    return out


def test_the_decision_and_the_listed_set_do_not_change(generated):
    """On every case-file prompt against 600 generated skills: the same decision, the same
    first (and offered second), and the same first 40 as a set; a short ranking is the head
    of a long one, so SkillSearch's five are the listing's first five."""
    plain, ours = R.Router(cfg(second_stage=False)), R.Router()
    moved = staged = 0
    for p in prompts():
        a = plain.route(p, generated, Actor.MODEL, top=40)
        b = ours.route(p, generated, Actor.MODEL, top=40)
        assert (b.decision, b.selected) == (a.decision, a.selected), p
        n = {"select": 1, "ask": 2}.get(b.decision, 0)  # an abstention chose nothing to keep
        assert names(b)[:n] == names(a)[:n], p
        assert set(names(b)) == set(names(a)), p
        assert names(ours.route(p, generated, Actor.MODEL, top=5)) == names(b)[:5], p
        # what follows the decision's pick is in the order of the number each one shows
        # (none shows one when the stage did not run: a request of one known word)
        tail = [c.ordered_by for c in b.candidates[n:]]
        if any(x is not None for x in tail):
            staged += 1
            assert None not in tail, p
            assert all(x >= y for x, y in itertools.pairwise(tail)), p
        moved += names(b) != names(a)
    assert moved > 50  # it does reorder: a test that cannot fail would pass with it off
    assert staged > 250  # of 406 prompts


def test_a_large_catalog_is_reordered_deeper(generated):
    """In a large catalog the second stage reorders `rerank_share` of it instead of the
    first 40: the listing's 40 may then take skills from below the first stage's 40, never
    from below that depth, and the decision stays. By default (1%) that starts above 4,000
    skills; here the share is raised so that 600 generated skills reach it."""
    plain, deep = R.Router(cfg(second_stage=False)), R.Router(cfg(rerank_share=0.25))
    capped = R.Router(cfg(rerank_share=0.1))
    came_up = 0
    for p in prompts():
        a = plain.route(p, generated, Actor.MODEL, top=150)
        a40 = plain.route(p, generated, Actor.MODEL, top=40)
        b = deep.route(p, generated, Actor.MODEL, top=40)
        assert (b.decision, b.selected) == (a40.decision, a40.selected), p
        assert set(names(b)) <= set(names(a)), p  # from the first 150 (25% of 600)
        came_up += bool(set(names(b)) - set(names(a)[:40]))
        assert set(names(capped.route(p, generated, Actor.MODEL, top=40))) <= set(names(a)[:60]), p
    assert came_up > 20


def test_the_rerank_depth_is_the_listing_depth():
    """Below 4,000 skills the second stage reorders exactly what an over-budget listing
    ranks for a turn, so the listing's set of skills is the first stage's."""
    from codebot.agent.session.prompting import RANKED

    assert R.RouterConfig().rerank.rerank_depth == RANKED


def test_the_folder_cap_and_depth_keys_are_read_from_config():
    warnings: list[str] = []
    d = R.RouterConfig().rerank
    assert (d.folder_cap, d.rerank_share) == (600, 0.01)
    c = R.config_from_mapping({"rerank_share": 0}, warnings).rerank
    assert (c.rerank_share, warnings) == (0.0, [])
    got = R.config_from_mapping({"folder_cap": 0}, warnings).rerank.folder_cap
    assert (got, warnings) == (0, [])
    assert R.config_from_mapping({"folder_cap": "big"}, warnings).rerank.folder_cap == 600
    assert len(warnings) == 1 and "skills.router.folder_cap" in warnings[0]
    R.config_from_mapping({"rerank_max": 80}, warnings)  # removed: said, and ignored
    assert "skills.router.rerank_max: removed" in warnings[-1]


# One folder of a thousand like skills (a big pack) beside a folder of 43 of one's own.
# A twentieth of the pack mentions "widget yaml"; a fifth of one's own, "zebra parade".
PARADE = "check the widget yaml before the zebra parade"
FILL = [
    "cache",
    "queue",
    "schema",
    "token",
    "parser",
    "metrics",
    "alert",
    "graph",
    "socket",
    "thread",
    "cluster",
    "bucket",
    "ledger",
    "invoice",
    "tensor",
    "shader",
    "banner",
    "cursor",
    "folder",
    "kernel",
]


def add(root: Path, name: str, desc: str, body: str = "Steps.\n") -> None:
    """One skill folder, written directly (module-scoped fixtures cannot use write_skill)."""
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {json.dumps(desc)}\n---\n{body}"
    )


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    base = tmp_path_factory.mktemp("pack")
    rng = random.Random(0)
    for i in range(1000):
        w = rng.sample(FILL, 3)
        add(
            base / "pack",
            f"pack-{w[0]}-{i}",
            f"Handle {w[1]} and {w[2]} work{' for widget yaml files' if i % 20 == 0 else ''}.",
        )
    for i in range(40):
        w = rng.sample(FILL, 3)
        add(
            base / "mine",
            f"mine-{w[0]}-{i}",
            f"Plan {w[1]} and {w[2]} chores{' before a zebra parade' if i % 5 == 0 else ''}.",
        )
    add(base / "mine", "widget-checker", "Check widget yaml files.")
    add(base / "mine", "zebra-parade", "Plan a zebra parade.")
    add(base / "mine", "zebra-widget-parade", "Check widget yaml files before a zebra parade.")
    two = Catalog(
        [
            Root(base / "mine", Source.PROJECT, "codebot", (0,)),
            Root(base / "pack", Source.PROJECT, "extra", (1,)),
        ]
    ).load()
    return base, two


def test_a_big_folder_does_not_make_its_words_cheap_for_everyone_else(pack):
    """In the whole catalog "widget" is in 52 of 1,043 skills and "zebra" in 10, so plain
    idf makes zebra "worth" more than widget. Counting the pack as 100 skills, widget is
    in 7 of 143 and zebra in 10: widget-checker, which checks the widget yaml the request
    is about, moves above it. The decision and the set of the first 40 stay the same."""
    _, two = pack
    plain = R.Router(cfg(folder_cap=0)).route(PARADE, two, Actor.MODEL, top=40)
    capped = R.Router(cfg(folder_cap=100)).route(PARADE, two, Actor.MODEL, top=40)
    # (plain idf put zebra-parade second while a name match counted twice; with every
    # field weighing 1, widget-checker is second either way: the cap still lifts its coverage)
    assert names(capped)[:3] == ["zebra-widget-parade", "widget-checker", "zebra-parade"]
    assert (capped.decision, capped.selected) == (plain.decision, plain.selected)
    assert set(names(capped)) == set(names(plain))
    by_plain, by_capped = ({c.name: c for c in r.candidates} for r in (plain, capped))
    assert by_capped["widget-checker"].coverage > by_plain["widget-checker"].coverage
    assert (
        by_capped["widget-checker"].score == by_plain["widget-checker"].score
    )  # shown: the first stage's


def test_folder_idf_is_the_formula_and_plain_within_the_cap(pack):
    import numpy as np

    from codebot.skills.route.index.index import idf_lucene

    base, two = pack
    rt = R.Router()
    idx, _ = rt.index(two)
    term = {w: idx.lexicon[rt.tokenizer.term(w)] for w in ("widget", "zebra")}
    ids = list(term.values())
    got = idx.folder_idf(ids, 100)
    # counted by hand: widget in 50 pack skills (each worth 100/1000) and 2 of one's own,
    # zebra in 10 of one's own; the catalog counts as 100 + 43
    want = idf_lucene(np.asarray([50 * 0.1 + 2, 10.0]), 143.0)
    assert np.allclose(got, want, rtol=1e-6)
    # widget keeps its worth (2.99 -> 2.95), zebra loses much of its (4.6 -> 2.6)
    assert got[1] < 0.6 * idx.idf[term["zebra"]] and got[0] > 0.95 * idx.idf[term["widget"]]
    # the default cap (1,000) holds both folders: the plain idf, exactly
    assert np.array_equal(idx.folder_idf(ids, 1000), idx.idf[ids].astype(np.float64))
    assert np.array_equal(idx.folder_idf(ids, 0), idx.idf[ids].astype(np.float64))
    # one folder of any size is only scaled, never reweighed: the plain idf
    one = Catalog([Root(base / "pack", Source.PROJECT, "extra", (1,))]).load()
    idx1, _ = R.Router().index(one)
    w1 = [idx1.lexicon[rt.tokenizer.term("widget")]]
    assert np.array_equal(idx1.folder_idf(w1, 10), idx1.idf[w1].astype(np.float64))
