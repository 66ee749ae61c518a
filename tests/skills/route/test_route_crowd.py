"""Crowding in the second stage: in a folder of more than `folder_cap` skills (one machine-made
pack, an aggregate), a skill that matches the same request words as j of its folder
shown above it counts crowd_decay**j, so hundreds of variations of one skill cannot fill the
ranking and push another source's skill out of the first five. A folder within the cap is
never crowded, so a catalog of published packs ranks exactly as without it."""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor
from codebot.skills.route.rank import crowd_counts, crowd_order, crowded, word_bits

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate
from test_route_rerank import FILL, add, prompts

ADR = (
    "we picked kafka over rabbitmq after a long fight, write an ADR in docs/adr so nobody reopens "
    "it"
)


def cfg(**kw) -> R.RouterConfig:
    warnings: list[str] = []
    got = R.config_from_mapping(kw, warnings)
    assert not warnings, warnings
    return got


def names(r: R.Route) -> list[str]:
    return [c.name for c in r.candidates]


# -- the pure functions ---------------------------------------------------------------


def test_word_bits_is_a_set_per_row():
    present = np.asarray([[1, 0, 1], [0, 0, 0], [1, 1, 1]], dtype=bool)
    assert word_bits(present).tolist() == [0b101, 0, 0b111]
    assert word_bits(np.zeros((2, 0), dtype=bool)).tolist() == [0, 0]
    # past 62 words a word shares a bit: sets may look alike, never unlike
    wide = np.zeros((1, 70), dtype=bool)
    wide[0, 64] = True
    assert word_bits(wide).tolist() == [1 << 2]


def test_crowd_counts_counts_the_same_words_of_the_same_group_above():
    key = [5.0, 4.0, 3.0, 2.0, 1.0, 0.5]
    group = [7, 7, 7, 8, 7, -6]  # -6: a folder within the cap, a group of its own
    words = [0b11, 0b11, 0b01, 0b11, 0b11, 0b11]
    j = crowd_counts(key, group, words, [False] * 6)
    assert j.tolist() == [0, 1, 0, 0, 2, 0]
    # a held row (the decision's front) comes first in its group, whatever its key
    j = crowd_counts(key, group, words, [False, False, False, False, True, False])
    assert j.tolist() == [1, 2, 0, 0, 0, 0]
    # ties in row order
    assert crowd_counts([1.0, 1.0, 1.0], [0, 0, 0], [1, 1, 1], [False] * 3).tolist() == [0, 1, 2]


def test_crowded_weighs_by_decay_and_never_lifts_a_penalised_key():
    out = crowded([4.0, 4.0, 4.0, -1.0, -1.0], [0] * 5, [1] * 5, [False] * 5, 0.5)
    assert out.tolist() == [4.0, 2.0, 1.0, -1.0, -1.0]


def naive_order(front, rows, key, group, words, decay, k):
    """The definition, step by step: each time, the best re-weighed key of what is left."""
    shown = list(front)
    left = [i for i in rows if i not in front]
    out, js = [], {}
    while left and len(out) < k:

        def j_of(i):
            if group[i] < 0 or key[i] <= 0:
                return 0
            return sum(1 for s in shown if group[s] == group[i] and words[s] & words[i] == words[i])

        best = max(left, key=lambda i: (key[i] * decay ** j_of(i), -rows.index(i)))
        js[best] = j_of(best)
        out.append(best)
        shown.append(best)
        left.remove(best)
    return out, {i: j for i, j in js.items() if j}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-1, 2), st.integers(1, 7), st.integers(-2, 20)),
        min_size=1,
        max_size=25,
    ),
    st.integers(0, 2),
    st.integers(1, 12),
    st.sampled_from([0.0, 0.3, 0.5, 0.9]),
)
def test_the_lazy_greedy_order_is_the_definition(spec, n_front, k, decay):
    rows = list(range(len(spec)))
    key = {i: float(s[2]) for i, s in zip(rows, spec, strict=True)}
    rows.sort(key=lambda i: -key[i])  # as the second stage hands them over: best first
    group = {i: s[0] for i, s in enumerate(spec)}
    words = {i: s[1] for i, s in enumerate(spec)}
    front = rows[:n_front]
    assert crowd_order(front, rows, key, group, words, decay, k) == naive_order(
        front, rows, key, group, words, decay, k
    )


# -- through the router -----------------------------------------------------------------


@pytest.fixture(scope="module")
def crowd(tmp_path_factory):
    """A project folder of 40 skills with the one that writes ADRs, and a pack of 300
    machine-made skills, 120 of them variations named after ADRs that match the request's
    words in their names and say little else."""
    base = tmp_path_factory.mktemp("crowd")
    rng = random.Random(1)
    for i in range(39):
        w = rng.sample(FILL, 3)
        add(base / "mine", f"mine-{w[0]}-{i}", f"Plan {w[1]} and {w[2]} chores.")
    add(
        base / "mine",
        "architecture-decision-records",
        "Write and maintain architecture decision records (ADRs) that capture a technical choice, "
        "the options weighed and why, kept under docs.",
    )
    for i in range(120):
        add(
            base / "pack",
            f"adr-docs-{i}",
            f"Summarize {rng.choice(FILL)} docs and {rng.choice(FILL)} notes.",
            "Write the docs. Keep an ADR.\n",
        )
    for i in range(180):
        w = rng.sample(FILL, 3)
        add(base / "pack", f"pack-{w[0]}-{i}", f"Handle {w[1]} and {w[2]} work.")
    return Catalog(
        [
            Root(base / "mine", Source.PROJECT, "codebot", (0,)),
            Root(base / "pack", Source.PROJECT, "extra", (1,)),
        ]
    ).load()


BIG = dict(folder_cap=100, rerank_share=0.1)  # the pack (300) is over the cap


def test_a_big_folders_variations_do_not_push_another_sources_skill_out(crowd):
    off = R.Router(cfg(crowd_decay=1.0, **BIG)).route(ADR, crowd, Actor.MODEL, top=5)
    on = R.Router(cfg(**BIG)).route(ADR, crowd, Actor.MODEL, top=5)
    assert "architecture-decision-records" not in names(off)  # the variations fill all five
    assert all(n.startswith("adr-docs-") for n in names(off))
    assert "architecture-decision-records" in names(on)
    assert (on.decision, on.selected) == (off.decision, off.selected)
    held = {"select": 1, "ask": 2}.get(on.decision, 0)
    assert names(on)[:held] == names(off)[:held]  # what the decision keeps in front stays
    # each variation counts 0.5**j, j the variations shown above it (all match the same words);
    # its uncrowded number, from a second stage that reorders every skill without crowding
    every = R.Router(cfg(crowd_decay=1.0, **(BIG | {"rerank_share": 1.0})))
    base = {c.name: c.ordered_by for c in every.route(ADR, crowd, Actor.MODEL, top=400).candidates}
    variations = [c for c in on.candidates if c.name.startswith("adr-docs-")]
    assert [c.crowded for c in variations] == [0] * held + list(range(held, len(variations)))
    for c in variations:
        if c.crowded:
            assert "crowd_decay^" in c.why and c.to_json()["crowded"] == c.crowded
            assert c.ordered_by == pytest.approx(base[c.name] * 0.5**c.crowded)
    real = next(c for c in on.candidates if c.name == "architecture-decision-records")
    assert real.crowded == 0 and "crowd_decay" not in real.why and "crowded" not in real.to_json()


def test_the_shown_order_follows_the_crowded_numbers(crowd):
    r = R.Router(cfg(**BIG)).route(ADR, crowd, Actor.MODEL, top=20)
    held = {"select": 1, "ask": 2}.get(r.decision, 0)
    tail = [c.ordered_by for c in r.candidates[held:]]
    assert None not in tail and tail == sorted(tail, reverse=True)
    # the first-stage ranks shown are the first stage's
    plain = R.Router(cfg(crowd_decay=1.0, second_stage=False, **BIG)).route(
        ADR, crowd, Actor.MODEL, top=300
    )
    first = {c.name: n + 1 for n, c in enumerate(plain.candidates)}
    assert all(c.rank_lexical == first[c.name] for c in r.candidates)


def test_a_folder_within_the_cap_is_never_crowded(crowd):
    """The same catalog with the pack within the cap: the ranking is exactly the one
    without crowding, and nothing says it was crowded."""
    a = R.Router(cfg(folder_cap=300, rerank_share=0.1)).route(ADR, crowd, Actor.MODEL, top=40)
    b = R.Router(cfg(folder_cap=300, rerank_share=0.1, crowd_decay=1.0)).route(
        ADR, crowd, Actor.MODEL, top=40
    )
    assert names(a) == names(b) and all(c.crowded == 0 for c in a.candidates)
    assert [c.why for c in a.candidates] == [c.why for c in b.candidates]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen")
    generate(root, 600, seed=3)
    return Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()


def test_published_sized_folders_rank_as_without_crowding(generated):
    """600 skills in one folder is within the default cap (600, above the largest pack of
    the shared corpus): every case-file prompt ranks exactly as with crowding off."""
    on, off = R.Router(), R.Router(cfg(crowd_decay=1.0))
    for p in prompts()[::3]:
        assert names(on.route(p, generated, Actor.MODEL, top=40)) == names(
            off.route(p, generated, Actor.MODEL, top=40)
        ), p


def test_crowd_decay_is_read_from_config():
    warnings: list[str] = []
    assert R.RouterConfig().rerank.crowd_decay == 0.5
    one = R.config_from_mapping({"crowd_decay": 1}, warnings).rerank.crowd_decay
    assert one == 1.0 and warnings == []
    assert R.config_from_mapping({"crowd_decay": 0.2}, warnings).rerank.crowd_decay == 0.2
    for bad in (2.5, "lots", -0.1, True):
        warnings.clear()
        assert R.config_from_mapping({"crowd_decay": bad}, warnings).rerank.crowd_decay == 0.5
        assert len(warnings) == 1 and "skills.router.crowd_decay" in warnings[0], bad
    warnings.clear()
    R.config_from_mapping({"crowd_decay": 3}, warnings)
    assert "over 1" in warnings[0] and "0..1" in warnings[0]
    assert dataclasses.asdict(R.RouterConfig())["rerank"]["crowd_decay"] == 0.5
