"""The router's numbers (issue 36 §3): exactly the documented set, one source of defaults,
and config that names the key of a bad value."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pytest

import codebot.skills.route as R
from codebot.skills.route.config import GROUPS, numbers

DOC = Path(__file__).resolve().parents[3] / "docs" / "routing.md"
MARK = "<!-- numbers-table:"


def documented() -> dict[str, tuple[str, str]]:
    """number -> (group, default) from docs/routing.md's table of the router's numbers."""
    text = DOC.read_text(encoding="utf-8")
    assert MARK in text, f"{DOC}: the numbers table's marker is gone"
    rows: dict[str, tuple[str, str]] = {}
    for line in text[text.index(MARK) :].splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        m = re.fullmatch(r"`([a-z0-9_]+)`", cells[0])
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} twice in the table"
            rows[m.group(1)] = (cells[1], cells[2])
    return rows


def test_the_numbers_are_exactly_the_documented_set():
    doc = documented()
    ours = {**numbers(), "top": R.RouterConfig().top}
    assert set(doc) == set(ours)
    for name, value in ours.items():
        group, default = doc[name]
        assert float(default) == float(value), name
        where = "(RouterConfig)" if name == "top" else group
        assert name == "top" or getattr(R.RouterConfig(), where) is not None, name
    # issue 36 §3: 38 before, 25 after the first pass; 15 tuned numbers now, and `top`,
    # an output size (docs/routing.md says why semantic_threshold came back)
    assert len(numbers()) <= 15 and len(ours) <= 16


def test_the_fixed_constants_are_read_where_the_settings_were():
    """k1, b, rrf_k, body_chars and the listing depth are constants, not settings: the index
    and the ranking read them by the same names, and the index key still holds them."""
    import codebot.skills.route.config as C

    cfg = R.RouterConfig()
    got = (cfg.bm25.k1, cfg.bm25.b, cfg.bm25.body_chars, C.RRF_K)
    assert got == (C.K1, C.B, C.BODY_CHARS, C.RRF_K) == (1.2, 0.75, 5000, 60)
    assert cfg.rerank.rerank_depth == C.LISTING_DEPTH == 40
    assert {C.K1, C.B, C.BODY_CHARS} <= set(cfg.index_key)
    warnings: list[str] = []
    same = R.config_from_mapping({"k1": 2.0, "bm25": {"body_chars": 10}, "rrf_k": 1}, warnings)
    assert dataclasses.asdict(same) == dataclasses.asdict(cfg)
    assert len(warnings) == 3 and all("removed (" in w for w in warnings)


def test_each_group_is_a_frozen_dataclass_with_numbers_only():
    cfg = R.RouterConfig()
    for name, cls in GROUPS.items():
        group = getattr(cfg, name)
        assert isinstance(group, cls) and dataclasses.is_dataclass(group)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(group, dataclasses.fields(cls)[0].name, 0)
        for f in dataclasses.fields(cls):
            # numbers, and the second stage's switch
            assert type(getattr(group, f.name)) in (int, float, bool), f.name
            assert type(getattr(group, f.name)) is not bool or f.name == "second_stage"
    # one name per number across the groups, so a flat key in config is never ambiguous
    names = [f.name for cls in GROUPS.values() for f in dataclasses.fields(cls)]
    assert len(names) == len(set(names))
    # the JSON is the dataclass's: no hand-written copy to drift
    assert json.loads(json.dumps(dataclasses.asdict(cfg)))["decision"]["threshold"] == 0.3
    assert not hasattr(cfg, "to_json")


def test_flat_and_grouped_keys_and_the_old_names_are_read():
    warnings: list[str] = []
    cfg = R.config_from_mapping(
        {
            "threshold": 0.4,
            "bm25": {"field_mix": 0.25},
            "rerank": {"crowd_decay": 0.25},
            "anchor_worth": 0.7,  # the old name of rare_worth
            "weights": {"body": 0.2},  # the old place of body_weight
        },
        warnings,
    )
    assert warnings == []
    assert (cfg.decision.threshold, cfg.bm25.field_mix, cfg.rerank.crowd_decay) == (0.4, 0.25, 0.25)
    assert (cfg.decision.rare_worth, cfg.bm25.body_weight, cfg.weights["body"]) == (0.7, 0.2, 0.2)
    assert cfg.index_key != R.RouterConfig().index_key  # field_mix and the body weight rebuild
    same = R.config_from_mapping({"threshold": 0.9}).index_key
    assert same == R.RouterConfig().index_key  # a decision number does not


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"margin": "wide"}, "skills.router.margin"),
        ({"margin": -0.1}, "skills.router.margin"),
        ({"margin": True}, "skills.router.margin"),
        ({"margin": math.inf}, "skills.router.margin"),
        ({"margin": math.nan}, "skills.router.margin"),
        ({"min_terms": 1.5}, "skills.router.min_terms"),
        ({"rare_worth": 1.2}, "skills.router.rare_worth"),
        ({"decision": {"threshold": "\x1b[31mred"}}, "skills.router.decision.threshold"),
        ({"bm25": {"nope": 1}}, "skills.router.bm25.nope"),
        ({"weights": {"name": 3}}, "skills.router.weights.name"),
        ({"weights": [1, 2]}, "skills.router.weights"),
        ({"fusion": "max"}, "skills.router.fusion"),
        ({"top": -1}, "skills.router.top"),
        ({"anchor_lead": 2}, "skills.router.anchor_lead"),
        ({"semantic_weight": 2}, "skills.router.semantic_weight"),
        ({"question_penalty": 0.1}, "skills.router.question_penalty"),
        ({"rerank": {"coverage_power": 1}}, "skills.router.rerank.coverage_power"),
        ({"second_stage": 0}, "skills.router.second_stage"),
        ({"second_stage": "no"}, "skills.router.second_stage"),
    ],
)
def test_a_bad_or_removed_value_names_its_key_and_keeps_the_default(raw, key):
    warnings: list[str] = []
    cfg = R.config_from_mapping(raw, warnings)
    assert len(warnings) == 1 and warnings[0].startswith(f"config {key}:"), warnings
    assert dataclasses.asdict(cfg) == dataclasses.asdict(R.RouterConfig())


def test_a_removed_key_says_what_the_router_does_instead():
    warnings: list[str] = []
    R.config_from_mapping({"howto_penalty": 0.2, "rerank_max": 150}, warnings)
    assert "removed (how-to questions are scored as tasks" in warnings[0]
    assert "removed (rerank_share is not capped" in warnings[1]
    assert all("docs/routing.md" in w for w in warnings)


def test_settings_from_config_yaml_reach_the_router(tmp_path: Path):
    import os

    from codebot.config import load_settings
    from codebot.skills.route import router_from_settings

    home = Path(os.environ["CODEBOT_HOME"])  # the private one of conftest
    (home / "config.yaml").write_text(
        "skills:\n  router:\n    decision: {margin: 0.2}\n    crowd_decay: 7\n"
    )
    settings = load_settings(cwd=tmp_path)
    warnings: list[str] = []
    rt = router_from_settings(settings, warnings)
    assert rt.config.decision.margin == 0.2
    assert rt.config.rerank.crowd_decay == 0.5
    assert any("skills.router.crowd_decay" in w and "over 1" in w for w in warnings)
