"""The cold task's build (issue 36 §4): what it leaves out must change nothing it makes.

- bm25s' term-frequency formula is restated in `postings.tf_part`: the same bits as
  bm25s', and a cold task in print mode no longer imports bm25s at all.
- print mode starts the body-tokenizing helper before its imports (`prefetch.prestart`,
  for a task, when no router index is saved at all): the scan takes that very process,
  the postings and rankings are those built without a helper, and a spare nobody takes
  is ended once the catalog is loaded.
- print mode freezes what it holds once the catalog is loaded (`print_mode.run_print`) and
  again before exit (`cli._no_final_collection`): the answer and both caches are still
  there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.route import router as R
from codebot.skills.route import warmup
from codebot.skills.route.index import prefetch as P
from codebot.skills.route.index.store import any_saved
from codebot.skills.route.warmup import prefetch_bodies

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate


@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.0, 0.0), (2.0, 1.0), (1.5, 0.3)])
def test_tf_part_is_bm25s_lucene_tf_bit_for_bit(k1, b):
    from bm25s.scoring import _score_tfc_lucene

    from codebot.skills.route.index.postings import tf_part

    rng = np.random.default_rng(7)
    tf = rng.integers(1, 70_000, 5_000).astype(np.float32)
    lens = rng.integers(0, 3_000, 5_000).astype(np.float32)
    for avg in (1.0, 37.25, 812.123456789):
        want = _score_tfc_lucene(tf, lens, avg, k1, b).astype(np.float32)
        got = tf_part(tf, lens, avg, k1, b).astype(np.float32)
        assert got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()


SPY = """
from codebot.skills.route.index import cache
seen = []  # how many objects were frozen when the router's build started
derive = cache.IndexCache._derive
def spy(self, *a, **k):
    seen.append(gc.get_freeze_count())
    return derive(self, *a, **k)
cache.IndexCache._derive = spy
"""
REPORT = """
got = {m: m in sys.modules for m in ('numpy', 'bm25s', 'tqdm')}
got['frozen_before_the_build'] = bool(seen) and seen[0] > 0
got['frozen_at_exit'] = gc.get_freeze_count() > seen[0] if seen else False
"""


def _env(home: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEBOT_MODEL"
    }
    env["CODEBOT_HOME"] = str(home)
    return env


def test_a_cold_task_builds_the_router_index_without_bm25s(tmp_path, print_probe):
    """A task from an empty $CODEBOT_HOME builds and saves the router's index (numpy is
    loaded: the probe can tell) and never imports bm25s (nor its tqdm)."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    generate(project / ".codebot" / "skills", 300, seed=2)
    home = tmp_path / "home"
    task = "write a changelog entry for the parser fix"
    out, loaded = print_probe(SPY, REPORT, task, project, home)
    # frozen: no collection of the turn walks the loaded catalog, and the interpreter's
    # last collection at exit skips what the turn made
    assert loaded == {
        "numpy": True,
        "bm25s": False,
        "tqdm": False,
        "frozen_before_the_build": True,
        "frozen_at_exit": True,
    }
    assert "changelog" in out.stdout
    assert any((home / "cache" / "router").glob("*.json")), "the router index was not saved"
    assert (home / "cache" / "skill-index.bin").is_file()


# -- a helper started before the scan (`prefetch.prestart`, `warmup.prestart_for`) ----------


def roots_of(path: Path) -> list[Root]:
    return [Root(path, Source.PROJECT, "codebot", (0,))]


REQUESTS = [
    "write a changelog entry for the parser fix",
    "review my recent changes",
    "write a dockerfile for this app",
    "set up end-to-end tests with playwright",
    "构建 Docker 镜像",
]


def ranking(rt: R.Router, snap) -> list[list[tuple[str, float]]]:
    return [[(c.name, round(c.score, 9)) for c in rt.route(q, snap).candidates] for q in REQUESTS]


def postings_by_term(rt: R.Router, snap) -> dict[str, list[tuple[str, float]]]:
    idx, _ = rt.index(snap)
    terms = rt.indexes.tokens.terms
    out = {}
    for t in range(idx.n_terms):
        a, b = int(idx.indptr[t]), int(idx.indptr[t + 1])
        if b > a:
            out[terms[t]] = list(
                zip(
                    (idx.specs[d].key for d in idx.indices[a:b].tolist()),
                    idx.tf[a:b].tolist(),
                    strict=True,
                )
            )
    return out


def rows_by_key(rt: R.Router, snap) -> dict[str, list[list[tuple[str, int]]]]:
    """Each skill's row as (term, count) per field; every field's ids must be ascending
    (a Bag's order, which the helper's bags must keep once mapped onto this lexicon)."""
    idx, _ = rt.index(snap)
    terms, r = rt.indexes.tokens.terms, idx.rows
    out = {}
    for i, spec in enumerate(idx.specs):
        fields = []
        for f in range(r.ptr.shape[0]):
            a, b = int(r.ptr[f, i]), int(r.ptr[f, i + 1])
            ids = r.ids[a:b].tolist()
            assert ids == sorted(set(ids)), (spec.key, f)
            fields.append(sorted(zip((terms[t] for t in ids), r.counts[a:b].tolist(), strict=True)))
        out[spec.key] = fields
    return out


@pytest.fixture
def no_spare():
    P.drop_spare()
    yield
    P.drop_spare()


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cold") / "skills"
    generate(root, 240, seed=4)
    return root


def test_a_prestarted_helper_is_the_one_the_scan_uses_and_changes_no_posting(
    skills, monkeypatch, no_spare
):
    monkeypatch.setattr(warmup, "PREFETCH_MIN", 1)
    monkeypatch.delenv("CODEBOT_NO_PREFETCH", raising=False)
    snap = Catalog(roots_of(skills)).load()
    alone = R.Router()
    want_post, want_rank = postings_by_term(alone, snap), ranking(alone, snap)
    want_rows = rows_by_key(alone, snap)
    assert alone.stats["bodies_read"] == len(snap) and any(want_rank)

    assert P.prestart()
    spare = P._SPARE[0]
    assert not P.prestart()  # one at a time
    helped = R.Router()
    cat = Catalog(roots_of(skills))
    feed = prefetch_bodies(roots_of(skills), helped)
    assert feed is not None
    feed.attach(cat)
    snap2 = cat.load()
    # terms already known here in another order than the helper met them: its ids, sorted
    # in its lexicon, are not sorted once mapped onto this one
    words = " ".join(sorted({s.name for s in snap2}, reverse=True))
    helped.indexes.tokens.bags_many([words], helped.config)
    pf = helped.indexes.tokens.prefetch
    assert pf is not None and pf.proc is spare and not P._SPARE  # taken, not a second one
    pf._reader.join(60)
    assert not pf.error, pf.error
    assert postings_by_term(helped, snap2) == want_post
    assert rows_by_key(helped, snap2) == want_rows
    assert ranking(helped, snap2) == want_rank
    assert helped.stats["bodies_prefetched"] == len(snap2)
    assert spare.poll() is not None  # stopped once its bodies were in


def test_a_spare_nobody_takes_is_ended_when_the_catalog_is_loaded(
    skills, tmp_path, monkeypatch, no_spare, wait_until
):
    from codebot.config import load_settings
    from codebot.workspace import open_catalog

    monkeypatch.setenv("CODEBOT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEBOT_NO_PREFETCH", raising=False)
    monkeypatch.setattr(R, "_DEFAULT", None)
    settings = load_settings(cwd=tmp_path, skills_dirs=(skills,))
    assert P.prestart()
    spare = P._SPARE[0]
    # 240 files: under PREFETCH_MIN, so the scan starts no helper and takes none
    cat = open_catalog(settings, prefetch=True)
    assert len(cat.snapshot) >= 240
    assert not P._SPARE and spare.poll() is not None and spare not in P._LIVE


def test_prestart_is_for_a_task_with_no_router_index_saved_at_all(tmp_path, monkeypatch, no_spare):
    started: list[bool] = []
    monkeypatch.setattr(P, "prestart", lambda: started.append(True) or True)
    home = tmp_path / "home"
    monkeypatch.setenv("CODEBOT_HOME", str(home))
    for prompt in ("hello there", "thanks!", "/help", "  /changelog write it"):
        assert not warmup.prestart_for(prompt)
    assert warmup.prestart_for("write a changelog entry for the parser fix")
    folder = home / "cache" / "router"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("not a manifest")
    assert warmup.prestart_for("review my recent changes")
    (folder / "0123456789abcdef.json").write_text("{}")  # any manifest: maybe this catalog's
    assert not warmup.prestart_for("review my recent changes")
    assert len(started) == 2
    # a file or a FIFO where the folder should be: nothing saved there, a helper may help
    (home / "cache" / "router2").write_text("x")
    assert not any_saved(home / "cache" / "router2")
    os.mkfifo(tmp_path / "fifo")
    assert not any_saved(tmp_path / "fifo")


def test_prestart_is_off_where_a_helper_is(monkeypatch, no_spare):
    monkeypatch.setenv("CODEBOT_NO_PREFETCH", "1")
    assert not P.prestart() and not P._SPARE
    monkeypatch.delenv("CODEBOT_NO_PREFETCH")
    monkeypatch.setattr(P, "_cpus", lambda: 1)
    assert not P.prestart() and not P._SPARE


def test_print_mode_answers_the_same_with_a_prestarted_helper(tmp_path):
    """The whole program, cold, over 1,200 skills (a helper is used from 1,000 files):
    with the helper started before the scan, and with no helper at all."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    generate(project / ".codebot" / "skills", 1200, seed=6)
    outs = []
    for i, off in enumerate(("", "1")):
        env = _env(tmp_path / f"h{i}")
        env.update(HOME=str(tmp_path / "uh"), CODEBOT_NO_PROBE="1")
        env.pop("CODEBOT_NO_PREFETCH", None)
        if off:
            env["CODEBOT_NO_PREFETCH"] = off
        got = subprocess.run(
            [sys.executable, "-m", "codebot", "-p", REQUESTS[0], "--trust"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert got.returncode == 0, got.stderr
        outs.append(got.stdout)
        assert any((tmp_path / f"h{i}" / "cache" / "router").glob("*.json"))
    assert outs[0] == outs[1]
    assert "changelog" in outs[0]
