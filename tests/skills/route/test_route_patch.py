"""The router's index after a catalog reload: only the rows of changed skills are made
again, the patched postings are exactly a build with the same average lengths, and
routing reflects the edit as a cold build would."""

from __future__ import annotations

import time

import numpy as np
import pytest

import codebot.skills.route as R
from codebot.skills.invoke import Actor
from codebot.skills.route.index import cache as cache_mod
from codebot.skills.route.index import index as index_mod
from codebot.skills.route.index import postings as P
from codebot.skills.route.index.rows import assemble, fingerprint, pieces_for
from codebot.skills.route.index.tokens import TokenCache

pytestmark = pytest.mark.usefixtures("patching")

REQUESTS = [
    "shrink the docker image with multi-stage builds",
    "fix the flaky pytest fixture race",
    "write kubernetes manifests and roll out with kubectl",
    "extract fields from a fillable pdf form",
    "speed up this slow sql query with an index",
    "write the changelog since the last tag",
]


def ranking(rt: R.Router, snap, request: str) -> list[tuple[str, float]]:
    return [(c.name, round(c.score, 4)) for c in rt.route(request, snap, Actor.MODEL).candidates]


def patched_once(rt: R.Router) -> bool:
    """The change was patched into the index, once. A patch that moves the average field
    lengths past `postings.MAX_DRIFT` also starts an exact rebuild in the background,
    which may have swapped in (and set `last` to "refresh") by the time a test looks."""
    return rt.stats["patches"] == 1 and rt.stats["last"] in ("patch", "refresh")


def same_postings(a: P.Postings, b: P.Postings) -> None:
    assert a.n_terms == b.n_terms
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.tf, b.tf)


def test_one_edit_tokenizes_one_skill_and_routes_like_a_cold_build(disk):
    snap = disk.load()
    rt = R.Router()
    rt.route("anything about docker", snap)
    assert rt.stats["rows_tokenized"] == len(snap) and rt.stats["bodies_read"] == len(snap)
    disk.edit(
        "sql-tuning", "Tune slow Postgres queries and read zeppelin plans.", "More about vacuum.\n"
    )
    new = disk.reload()
    r = rt.route("read the zeppelin plans of this query", new)
    assert patched_once(rt) and rt.stats["full_builds"] == 1
    assert rt.stats["rows_tokenized"] == len(snap) + 1 and rt.stats["bodies_read"] == len(snap) + 1
    assert (
        r.candidates[0].name == "sql-tuning"
        and "zeppelin" in r.candidates[0].matched["description"]
    )
    assert "vacuum" in ranking_words(rt, new, "vacuum the tables")
    cold = R.Router()
    for q in REQUESTS:
        assert rt.route(q, new).decision == cold.route(q, new).decision
        got, want = ranking(rt, new, q), ranking(cold, new, q)
        assert [n for n, _ in got] == [n for n, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want], rtol=0.02)


def ranking_words(rt: R.Router, snap, request: str) -> set[str]:
    return {w for c in rt.route(request, snap).candidates for w in c.words()}


def test_add_and_remove_patch_the_index(disk):
    snap = disk.load()
    rt = R.Router()
    rt.index(snap)
    disk.add(
        "mermaid-diagrams",
        "Draw mermaid diagrams of a system's architecture.",
        "Use flowchart syntax.\n",
    )
    disk.remove("docker-slim")
    new = disk.reload()
    r = rt.route("draw a mermaid diagram of our architecture", new)
    assert patched_once(rt) and rt.stats["rows_tokenized"] == len(snap) + 1
    assert r.selected is not None and r.selected.name == "mermaid-diagrams"
    assert "docker-slim" not in {
        c.name for c in rt.route("shrink the docker image", new).candidates
    }
    idx, _ = rt.index(new)
    assert idx.n == len(new) and [s.key for s in idx.specs] == [s.key for s in new]


@pytest.mark.parametrize("change", ["edits", "edit, add and remove"])
def test_patch_equals_a_build_with_the_same_averages(disk, change, monkeypatch):
    """The exact claim of `postings.patch`: built from the same rows with the same
    average lengths, a build gives the very same arrays (both ways of finding the old
    entries: edits in place, and a renumbering)."""
    cfg = R.RouterConfig()
    tokens = TokenCache()
    specs = list(disk.load())
    rows = assemble([[tokens.row(s, cfg) for s in specs]])
    base = P.build(rows, len(tokens.terms), cfg)
    disk.edit(
        "flaky-tests", "Quarantine flaky tests and bisect the seed.", "New words: quarantine.\n"
    )
    in_place: list[int] = []
    if change == "edits":
        disk.edit("docker-slim", "Docker images, slimmer.")
        real = P._entries_of
        monkeypatch.setattr(P, "_entries_of", lambda *a: in_place.append(1) or real(*a))
    else:
        disk.add("aaa-new", "A brand new quokka workflow.", "quokka quokka\n")
        disk.remove("release-notes")
    specs2 = list(disk.reload())
    old_fp = {fingerprint(s): i for i, s in enumerate(specs)}
    old_rows = np.asarray([old_fp.get(fingerprint(s), -1) for s in specs2], dtype=np.int64)
    fresh = {i: tokens.row(s, cfg) for i, s in enumerate(specs2) if old_rows[i] < 0}
    assert len(fresh) == 2  # two edited skills, or the edited one and the new one
    rows2 = assemble(pieces_for(old_rows, rows, fresh))
    old_to_new = np.full(len(specs), -1, dtype=np.int32)
    old_to_new[old_rows[old_rows >= 0]] = np.nonzero(old_rows >= 0)[0]
    patched = P.patch(base, rows2, old_to_new, np.asarray(sorted(fresh)), len(tokens.terms), cfg)
    same_postings(patched, P.build(rows2, len(tokens.terms), cfg, avgs=base.avgs))
    assert patched.patches == 1 and patched.avgs == base.avgs
    assert in_place == ([1] if change == "edits" else [])
    # and the rows themselves are those a fresh tokenization gives
    again = assemble([[tokens.row(s, cfg) for s in specs2]])
    for name in ("ptr", "ids", "counts", "lengths", "neg_ptr", "neg_ids", "fps"):
        np.testing.assert_array_equal(getattr(rows2, name), getattr(again, name))


def test_many_fresh_rows_take_the_vectorised_insert(disk, monkeypatch):
    """Past LOOP_INSERTS new entries `patch` finds insertion points with one searchsorted:
    the same arrays either way."""
    cfg = R.RouterConfig()
    tokens = TokenCache()
    specs = list(disk.load())
    rows = assemble([[tokens.row(s, cfg) for s in specs]])
    base = P.build(rows, len(tokens.terms), cfg)
    old_rows = np.arange(len(specs), dtype=np.int64)
    old_rows[::3] = -1  # a third of the catalog changed
    fresh = {i: tokens.row(specs[i], cfg) for i in range(len(specs)) if old_rows[i] < 0}
    rows2 = assemble(pieces_for(old_rows, rows, fresh))
    old_to_new = np.full(len(specs), -1, dtype=np.int32)
    old_to_new[old_rows[old_rows >= 0]] = np.nonzero(old_rows >= 0)[0]
    loop = P.patch(base, rows2, old_to_new, np.asarray(sorted(fresh)), len(tokens.terms), cfg)
    monkeypatch.setattr(P, "LOOP_INSERTS", 0)
    vec = P.patch(base, rows2, old_to_new, np.asarray(sorted(fresh)), len(tokens.terms), cfg)
    same_postings(loop, vec)
    same_postings(loop, base)  # the same rows came back: the same matrix


def test_eligibility_is_carried_over_for_unchanged_skills(disk, monkeypatch):
    snap = disk.load()
    rt = R.Router()
    rt.route("shrink the docker image", snap)
    calls: list[str] = []
    real = index_mod.decide
    monkeypatch.setattr(index_mod, "decide", lambda s, *a: calls.append(s.name) or real(s, *a))
    disk.edit("docker-slim", "Shrink Docker images; no more than one base.")
    new = disk.reload()
    rt.route("shrink the docker image", new)
    assert calls == ["docker-slim"]


def test_a_reordered_list_is_built_not_patched(disk):
    specs = list(disk.load())
    rt = R.Router()
    rt.index(specs)
    backwards = specs[::-1]
    r = rt.route("fix the flaky pytest fixture race", backwards)
    assert rt.stats["last"] == "build" and rt.stats["rows_tokenized"] == len(
        specs
    )  # rows reused, not re-tokenized
    assert (
        r.candidates[0].name
        == R.Router().route("fix the flaky pytest fixture race", backwards).candidates[0].name
    )


def test_a_spec_listed_twice_gets_two_rows(disk):
    specs = list(disk.load())
    rt = R.Router()
    rt.index(specs[:20])
    pdf = next(s for s in specs if s.name == "pdf-forms")
    twice = [*specs, pdf]  # not a subset of the index: made anew, the repeat tokenized again
    idx, mask = rt.index(twice)
    assert mask is None and idx.n == idx.rows.n == len(twice)
    assert rt.stats["rows_tokenized"] == len(specs) + 1
    r = rt.route("extract fields from a fillable pdf form", twice, top=2)
    assert [c.name for c in r.candidates] == ["pdf-forms", "pdf-forms"]
    assert r.candidates[0].score == pytest.approx(r.candidates[1].score)


def test_drift_past_the_limit_swaps_in_an_exact_build(disk, monkeypatch):
    monkeypatch.setattr(cache_mod, "MAX_DRIFT", 0.0)
    snap = disk.load()
    rt = R.Router()
    rt.index(snap)
    disk.edit("pdf-forms", body_extra="A much longer body. " * 200)
    new = disk.reload()
    patched, _ = rt.index(new)
    assert patched.postings.patches == 1 and patched.postings.drift() > 0
    deadline = time.monotonic() + 10
    while rt.stats["refreshes"] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    exact, _ = rt.index(new)
    assert rt.stats["refreshes"] == 1 and exact is not patched and exact.postings.patches == 0
    # what the other tests see when this race goes the refresh's way
    assert rt.stats["last"] == "refresh" and patched_once(rt) and rt.stats["builds"] == 2
    same_postings(exact.postings, P.build(exact.rows, exact.n_terms, exact.config))
    cold_rt = R.Router()
    cold, _ = cold_rt.index(new)
    for q in [*REQUESTS, "a much longer body"]:  # the two lexicons number words differently
        np.testing.assert_allclose(
            raw_scores(rt, exact, q), raw_scores(cold_rt, cold, q), rtol=1e-5
        )


def raw_scores(rt: R.Router, idx, text: str):
    ids = [
        idx.lexicon[t]
        for t in rt.tokenizer(text)
        if t in idx.lexicon and idx.lexicon[t] < idx.n_terms
    ]
    return idx.scores(ids, [], 0.0)


@pytest.mark.parametrize("n_terms", [300, 70_000])
def test_by_term_is_a_stable_sort(n_terms):
    rng = np.random.default_rng(1)
    terms = rng.integers(0, n_terms, 5000).astype(np.int32)
    np.testing.assert_array_equal(P._by_term(terms, n_terms), np.argsort(terms, kind="stable"))


def test_a_small_catalog_is_built_again_exactly(disk, monkeypatch):
    monkeypatch.setattr(cache_mod, "PATCH_MIN", 1000)
    snap = disk.load()
    rt = R.Router()
    rt.index(snap)
    disk.edit("docker-slim", "Shrink Docker images; the walrus way.", "Walrus.\n")
    new = disk.reload()
    idx, _ = rt.index(new)
    assert rt.stats["last"] == "build" and rt.stats["patches"] == 0
    assert rt.stats["rows_tokenized"] == len(snap) + 1  # still only the edited skill tokenized
    assert idx.postings.patches == 0 and idx.postings.avgs == P.average_lengths(idx.rows)
    cold_rt = R.Router()
    cold, _ = cold_rt.index(new)
    for q in [*REQUESTS, "the walrus way"]:
        np.testing.assert_array_equal(raw_scores(rt, idx, q), raw_scores(cold_rt, cold, q))


def test_lookup_tables_after_an_edit_are_those_of_a_fresh_index(disk, patching):
    snap = disk.load()
    rt = R.Router()
    rt.index(snap)
    disk.add("sql-tuning", "Speed up slow SQL queries.", "Steps.\n", extra='paths: ["*.sql"]\n')
    disk.add("docker-slim", "Shrink Docker images.")  # had no paths, has none
    new = disk.reload()
    idx, _ = rt.index(new)
    assert patched_once(rt)
    specs = list(new)
    assert idx.pos == {id(s): i for i, s in enumerate(specs)}
    assert idx.by_key == {s.key: i for i, s in enumerate(specs)}
    assert idx.conditional.tolist() == [i for i, s in enumerate(specs) if s.paths] != []
    assert "sql-tuning" not in {
        c.name for c in rt.route("speed up slow sql", new, active=set()).candidates
    }


def test_an_edit_keeps_the_folder_table_and_an_add_makes_it_again(disk):
    """The second stage's folder table (row -> folder, folder sizes) is made once per index;
    an index patched for an edit takes its parent's, one with a skill added counts again."""
    snap = disk.load()
    rt = R.Router()
    idx, _ = rt.index(snap)
    table = idx.folders()
    assert table is idx.folders() and table[1].tolist() == [len(snap)]
    disk.edit("sql-tuning", "Tune slow Postgres queries and read zeppelin plans.")
    patched, _ = rt.index(disk.reload())
    assert patched is not idx and patched.folders() is table
    disk.add("zz-new-skill", "Something new about zeppelins.")
    grown, _ = rt.index(disk.reload())
    assert grown.folders() is not table and grown.folders()[1].tolist() == [len(snap) + 1]
