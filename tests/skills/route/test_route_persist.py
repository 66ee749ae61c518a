"""The router's index persisted in `$CODEBOT_HOME/cache/router`: a second process maps it
instead of tokenizing; an edit re-tokenizes only its skill; a cache from other settings
is not used; files are private."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import codebot
import codebot.skills.route as R
from codebot.skills.route.index import cache as cache_mod
from codebot.skills.route.index import store as S
from codebot.skills.route.index.index import idf_lucene
from codebot.skills.route.index.store import IndexStore

CHILD = """
import json, sys
from pathlib import Path
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
import codebot.skills.route as R
from codebot.skills.route.index.store import IndexStore
snap = Catalog([Root(Path(sys.argv[1]), Source.PROJECT, "codebot", (0,))]).load()
rt = R.Router(store=IndexStore(Path(sys.argv[2])))
r = rt.route(sys.argv[3], snap)
route = [[c.name, c.score] for c in r.candidates]
print(json.dumps({"stats": rt.stats, "route": route, "decision": r.decision}))
"""
REQUEST = "fix the flaky pytest fixture race"


def child(root: Path, store: Path, request: str = REQUEST) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(store), request],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
        check=True,
    )
    return json.loads(out.stdout)


def test_a_second_process_maps_the_index_the_first_saved(disk, store_dir):
    disk.load()
    first = child(disk.root, store_dir)
    assert first["stats"]["last"] == "build" and first["stats"]["saves"] == 1
    assert first["stats"]["rows_tokenized"] == len(disk.paths)
    second = child(disk.root, store_dir)
    assert second["stats"]["last"] == "load" and second["stats"]["loads"] == 1
    assert second["stats"]["rows_tokenized"] == 0 and second["stats"]["bodies_read"] == 0
    assert second["stats"]["full_builds"] == 0 and second["stats"]["saves"] == 0
    assert second["route"] == first["route"] and second["decision"] == first["decision"] == "select"


def test_an_edit_between_processes_retokenizes_only_that_skill(
    disk, store_dir, patching, monkeypatch
):
    # no background refresh racing the counts
    monkeypatch.setattr(cache_mod, "MAX_DRIFT", float("inf"))
    snap = disk.load()
    R.Router(store=IndexStore(store_dir)).index(snap)
    disk.edit("release-notes", "Write release notes as a gazpacho digest.", "Gazpacho sections.\n")
    disk.add("brand-new", "Bake sourdough bread timers.")
    new = disk.reload()
    store = IndexStore(store_dir)
    rt = R.Router(store=store)
    r = rt.route("write the gazpacho digest", new)
    assert rt.stats["loads"] == 1 and rt.stats["patches"] == 1 and rt.stats["full_builds"] == 0
    assert (
        rt.stats["rows_tokenized"] == 2 and rt.stats["bodies_read"] == 2
    )  # the edited and the new one
    assert r.selected is not None and r.selected.name == "release-notes"
    assert rt.route("sourdough bread timers", new).candidates[0].name == "brand-new"
    store.flush()  # the patched index is saved a moment later (and at exit): now
    again = R.Router(store=IndexStore(store_dir))
    assert again.route("write the gazpacho digest", new).selected.name == "release-notes"
    assert again.stats["last"] == "load" and again.stats["rows_tokenized"] == 0


@pytest.mark.parametrize("change", ["weights", "stemmer", "version"])
def test_a_cache_made_with_other_settings_is_not_used(disk, store_dir, monkeypatch, change):
    snap = disk.load()
    R.Router(store=IndexStore(store_dir)).index(snap)
    cfg = R.RouterConfig()
    if change == "weights":
        cfg = R.config_from_mapping({"weights": {"body": 0.9}})
    elif change == "stemmer":
        cfg = R.config_from_mapping({"stemmer": "none"})
    else:
        monkeypatch.setattr(codebot, "__version__", codebot.__version__ + ".dev9")
    rt = R.Router(cfg, store=IndexStore(store_dir))
    rt.index(snap)
    assert rt.stats["last"] == "build" and rt.stats["loads"] == 0
    # each settings has its own slot: the first cache is still there for its own settings
    back = R.Router(store=IndexStore(store_dir))
    monkeypatch.setattr(codebot, "__version__", codebot.__version__.removesuffix(".dev9"))
    back.index(snap)
    assert back.stats["last"] == "load"


def test_the_shared_router_from_settings_persists_under_the_home(disk, tmp_path):
    from types import SimpleNamespace

    rt = R.router_from_settings(SimpleNamespace(home=tmp_path / "h", raw={}))
    rt.index(disk.load())
    assert (
        rt.indexes.store is not None
        and rt.indexes.store.folder == tmp_path / "h" / "cache" / "router"
    )
    assert len(list((tmp_path / "h" / "cache" / "router").glob("*.json"))) == 1


def test_cache_files_are_private_under_any_umask(disk, store_dir):
    old = os.umask(0)
    try:
        R.Router(store=IndexStore(store_dir)).index(disk.load())
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(store_dir).st_mode) == 0o700
    for p in store_dir.rglob("*"):
        assert stat.S_IMODE(os.stat(p).st_mode) == (0o700 if p.is_dir() else 0o600), p
    assert not [p for p in store_dir.iterdir() if p.name.startswith(".tmp-")]


def test_old_generations_are_removed(disk, store_dir, monkeypatch):
    monkeypatch.setattr(S, "GRACE", 0.0)
    snap = disk.load()
    store = IndexStore(store_dir)
    rt = R.Router(store=store)
    rt.index(snap)
    for k in range(3):
        disk.edit("docker-slim", f"Shrink Docker images, round {k}.")
        rt.index(disk.reload())
        store.flush()
    (manifest,) = store_dir.glob("*.json")
    gens = [p.name for p in store_dir.iterdir() if p.is_dir()]
    assert gens == [json.loads(manifest.read_text())["dir"]]


def test_an_unwritable_cache_leaves_routing_alone(disk, tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    store = IndexStore(blocker / "router")
    rt = R.Router(store=store)
    r = rt.route(REQUEST, disk.load())
    assert r.selected is not None and r.selected.name == "flaky-tests"
    assert rt.stats["saves"] == 0 and str(blocker) in (store.last_error or "")


def test_idf_is_bm25s_lucene_idf():
    from bm25s.scoring import _score_idf_lucene

    df = np.asarray([0, 1, 2, 7, 50, 99, 100])
    want = [0.0 if d == 0 else _score_idf_lucene(int(d), 100) for d in df]
    np.testing.assert_allclose(idf_lucene(df, 100), np.asarray(want, dtype=np.float32), rtol=1e-7)
