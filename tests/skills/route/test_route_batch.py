"""Bodies tokenized a chunk at a time (skills/route/index/batch.py): the same terms, counts,
postings and scores as the one-text way, on hostile texts, synthetic skills and the real
corpus; a helper killed or a body that cannot be read loses no skill and leaves no
process behind."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.route import router as R
from codebot.skills.route import warmup
from codebot.skills.route.config import RouterConfig
from codebot.skills.route.index import prefetch as P
from codebot.skills.route.index.tokens import TokenCache
from codebot.skills.route.warmup import prefetch_bodies

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "skills"

HOSTILE = [
    "",
    "the and of to a",  # stop words only
    "Write end-to-end tests. End to end to end. end ## to #end",
    "#node ## js, Node.js, next.js and +#next +js; node# js is not one",
    "pull-requests, Pull Request, pull\x01request, continuous integration, CI",
    "machine learning with large language models (a large language model); A/B tests, a b",
    "## Heading\n### Steps\n#### #### ++ c++ c# #c# ++x x++ #",
    "versión Größe café naïve 镜像构建 Docker イメージ 빌드 ＤＯＣＫＥＲ",
    "emoji 🚀 ship it → done ✓ \u200b zero width \x00 nul \x1c sep",
    "k8s kube postgres pg js ts py repo db prs gh golang tf yml env config auth docs",
    "2024 12 007 v1.2.3 0x1f 1e9",
    "word " * 70_000,  # a count over 65,535: capped the same way
    "a\x01b \x01 \x01\x01 end\x01to\x01end",  # the batch separator inside a text
]


def as_terms(tc: TokenCache, bag) -> tuple[dict[str, int], int, bool]:
    ids = list(bag.ids)
    counts = dict(zip((tc.terms[i] for i in ids), bag.counts, strict=True))
    return counts, bag.length, ids == sorted(ids)


@pytest.mark.parametrize("stemmer", ["auto", "none"])
def test_a_batch_of_texts_gives_the_bags_each_text_gives_alone(stemmer):
    cfg = RouterConfig(stemmer=stemmer)
    one, many = TokenCache(), TokenCache()
    alone = [as_terms(one, one._bag(t, cfg)) for t in HOSTILE]
    # in one chunk, in chunks of two (the word memo carried from chunk to chunk), reversed
    for chunk in (len(HOSTILE), 2):
        got = []
        for a in range(0, len(HOSTILE), chunk):
            got += [as_terms(many, b) for b in many.bags_many(HOSTILE[a : a + chunk], cfg)]
        assert got == alone
    fresh = TokenCache()
    assert [as_terms(fresh, b) for b in fresh.bags_many(HOSTILE[::-1], cfg)] == alone[::-1]
    if stemmer == "auto":  # phrases across marks and punctuation, as the one-text way folds them
        assert alone[2][0]["e2e"] == 3 and alone[3][0]["nodej"] == 2 and alone[4][0]["pr"] == 3
    assert alone[11][0] == {"word": 65535} and alone[11][1] == 70_000


def roots_of(path: Path) -> list[Root]:
    return [Root(path, Source.PROJECT, "codebot", (0,))]


def postings_by_term(rt: R.Router, snap) -> dict[str, list[tuple[str, float]]]:
    idx, _ = rt.index(snap)
    terms = rt.indexes.tokens.terms
    out = {}
    for t in range(idx.n_terms):
        a, b = int(idx.indptr[t]), int(idx.indptr[t + 1])
        if b > a:
            out[terms[t]] = [
                (idx.specs[d].key, round(float(w), 5))
                for d, w in zip(idx.indices[a:b].tolist(), idx.tf[a:b].tolist(), strict=True)
            ]
    return out


REQUESTS = [
    "write a changelog entry for the parser fix",
    "review my recent changes",
    "write a dockerfile for this app",
    "fix the flaky pytest fixture",
    "set up end-to-end tests with playwright",
    "review this pull request",
    "构建 Docker 镜像",
    "escribe pruebas unitarias para el analizador",
]


def ranking(rt: R.Router, snap) -> list[list[tuple[str, float]]]:
    return [[(c.name, round(c.score, 6)) for c in rt.route(q, snap).candidates] for q in REQUESTS]


def both_ways(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple:
    snap = Catalog(roots_of(root)).load()
    monkeypatch.setenv("CODEBOT_ROUTE_BATCH", "0")
    old = R.Router()
    old_post, old_rank = postings_by_term(old, snap), ranking(old, snap)
    monkeypatch.delenv("CODEBOT_ROUTE_BATCH")
    new = R.Router()
    new_post, new_rank = postings_by_term(new, snap), ranking(new, snap)
    assert new.stats["bodies_read"] == old.stats["bodies_read"] == len(snap)
    return snap, (old_post, old_rank), (new_post, new_rank)


def test_synthetic_skills_get_the_same_postings_and_scores(tmp_path, monkeypatch):
    generate(tmp_path / "skills", 400, seed=5)
    _, (old_post, old_rank), (new_post, new_rank) = both_ways(tmp_path / "skills", monkeypatch)
    assert new_post == old_post
    assert new_rank == old_rank
    assert any(old_rank) and "e2e" in new_post  # phrases were folded in bodies too


@pytest.mark.skipif(not CORPUS.is_dir(), reason="needs ../shared/corpus/skills")
def test_the_real_corpus_gets_the_same_postings_and_scores(tmp_path, monkeypatch):
    sample = tmp_path / "sample"
    sample.mkdir()
    for i, f in enumerate(sorted(CORPUS.rglob("SKILL.md"))):
        if i % 3 == 0:  # copied flat: the catalog does not follow symlinks out of its folder
            (sample / f"s{i}").mkdir()
            (sample / f"s{i}" / "SKILL.md").write_bytes(f.read_bytes())
    snap, (old_post, old_rank), (new_post, new_rank) = both_ways(sample, monkeypatch)
    assert len(snap) > 300
    assert new_post == old_post
    assert new_rank == old_rank


def test_a_body_that_cannot_be_read_loses_no_skill(tmp_path, monkeypatch, write_skill):
    root = tmp_path / "skills"
    words = ["ruff", "mypy", "black", "isort", "pylint", "flake"]
    for i, w in enumerate(words):
        write_skill(root, f"tool-{i}", f"name: tool-{i}\ndescription: Lint python with {w}.", "x\n")
    snap = Catalog(roots_of(root)).load()
    gone = root / "tool-3" / "SKILL.md"
    gone.unlink()
    gone.mkdir()  # reading its body now fails (IsADirectoryError)
    rt = R.Router()
    idx, _ = rt.index(snap)
    assert idx.n == 6 and rt.stats["bodies_read"] == 6
    assert [c.name for c in rt.route("lint python with isort", snap).candidates][:1] == ["tool-3"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_killed_helper_costs_only_time_and_leaves_nothing_behind(tmp_path, monkeypatch):
    root = tmp_path / "skills"
    generate(root, 300, seed=7)
    monkeypatch.setattr(warmup, "PREFETCH_MIN", 1)
    alone = R.Router()
    snap = Catalog(roots_of(root)).load()
    expected = ranking(alone, snap)
    rt = R.Router()
    cat = Catalog(roots_of(root))
    feed = prefetch_bodies(roots_of(root), rt)
    assert feed is not None
    feed.attach(cat)
    snap2 = cat.load()
    pf = rt.indexes.tokens.prefetch
    assert pf is not None
    pid = pf.proc.pid
    pf.proc.kill()  # mid-way (or before it began): its frames stop
    idx, _ = rt.index(snap2)
    s = rt.stats
    assert idx.n == len(snap2) == len(snap)
    assert s["bodies_prefetched"] + s["bodies_read"] == len(snap2)
    assert ranking(rt, snap2) == expected
    end = time.monotonic() + 10
    while (P._LIVE or _alive(pid)) and time.monotonic() < end:
        time.sleep(0.01)
    assert not P._LIVE and not _alive(pid)


RAISING_HELPER = (
    "import sys; sys.path.insert(0, sys.argv[1])\n"
    "from codebot.skills.route.index import tokens as T\n"
    "real, calls = T.TokenCache.bags_many, []\n"
    "def bags_many(self, texts, cfg):\n"
    "    calls.append(1)\n"
    "    if len(calls) > 1:\n"
    "        raise RuntimeError('a skill that raises')\n"
    "    return real(self, texts, cfg)\n"
    "T.TokenCache.bags_many = bags_many\n"
    "from codebot.skills.route.index.body_worker import main; raise SystemExit(main())\n"
)


def test_a_helper_that_raises_on_a_skill_loses_none_of_them(tmp_path, monkeypatch):
    """The helper sends one frame, then raises on its next chunk: the build takes the
    frame, tokenizes every other body itself and ranks as a build alone does."""
    root = tmp_path / "skills"
    generate(root, 300, seed=11)
    monkeypatch.setattr(warmup, "PREFETCH_MIN", 1)
    monkeypatch.setattr(P, "_BOOT", RAISING_HELPER)
    snap = Catalog(roots_of(root)).load()
    expected = ranking(R.Router(), snap)
    rt = R.Router()
    cat = Catalog(roots_of(root))
    feed = prefetch_bodies(roots_of(root), rt)
    assert feed is not None
    feed.attach(cat)
    snap2 = cat.load()
    pf = rt.indexes.tokens.prefetch
    assert pf is not None
    pid = pf.proc.pid
    pf._reader.join(30)  # until the helper's output ends (it raised)
    assert not pf._reader.is_alive() and pf.error
    rt.index(snap2)
    s = rt.stats
    assert 0 < s["bodies_prefetched"] < len(snap2)  # its one frame was used, not more
    assert s["bodies_prefetched"] + s["bodies_read"] == len(snap2) == len(snap)
    assert ranking(rt, snap2) == expected
    end = time.monotonic() + 10
    while (P._LIVE or _alive(pid)) and time.monotonic() < end:
        time.sleep(0.01)
    assert not P._LIVE and not _alive(pid)
