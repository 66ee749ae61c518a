"""`warm`, `warm_in_background` and `update`: the index is ready before the first request,
a request that arrives while warming waits for that index, and a reload patches it."""

from __future__ import annotations

import threading
import time

import codebot.skills.route as R
from codebot.skills.invoke import Actor, Adapter
from codebot.skills.route import update, warm, warm_in_background
from codebot.skills.route.index import cache as cache_mod
from codebot.skills.route.index.store import IndexStore


def test_warm_makes_the_index_and_the_first_route_uses_it(disk, store_dir):
    snap = disk.load()
    rt = R.Router(store=IndexStore(store_dir))
    warm(lambda: snap, rt)
    warm(lambda: snap, rt)  # idempotent
    assert rt.stats["builds"] == 1 and rt.stats["saves"] == 1
    idx, _ = rt.index(snap)
    assert (Actor.MODEL, Adapter.EXTENSION, ()) in idx._eligibility  # the model's, computed ahead
    r = rt.route("fix the flaky pytest fixture race", snap)
    assert r.index_ms == 0.0 and rt.stats["builds"] == 1
    fresh = R.Router(store=IndexStore(store_dir))
    warm(lambda: snap, fresh)
    assert fresh.stats["last"] == "load" and fresh.stats["rows_tokenized"] == 0


def test_warm_without_a_snapshot_does_nothing():
    rt = R.Router()
    warm(lambda: None, rt)
    update(None, rt)
    assert rt.stats["builds"] == 0


def test_a_request_during_warming_waits_and_never_builds_twice(disk, monkeypatch):
    snap = disk.load()
    rt = R.Router()
    started, release = threading.Event(), threading.Event()
    builds = []
    real_build = cache_mod.build

    def slow_build(*a, **kw):
        builds.append(threading.current_thread().name)
        started.set()
        release.wait(10)
        return real_build(*a, **kw)

    monkeypatch.setattr(cache_mod, "build", slow_build)
    t = warm_in_background(lambda: snap, rt)
    assert started.wait(10)
    answers: list = []
    asker = threading.Thread(
        target=lambda: answers.append(rt.route("shrink the docker image", snap))
    )
    asker.start()
    time.sleep(0.1)
    assert not answers  # it waits for the warming thread's index
    release.set()
    t.join(10)
    asker.join(10)
    assert builds == ["codebot-router-warm"] and rt.stats["builds"] == 1
    assert answers and answers[0].candidates[0].name == "docker-slim"


def test_update_on_reload_patches_so_the_next_turn_does_not(disk, patching):
    snap = disk.load()
    rt = R.Router()
    warm(lambda: snap, rt)
    disk.edit("k8s-deploy", "Write Helm charts and Kubernetes manifests for the narwhal service.")
    new = disk.reload()
    update(new, rt)
    assert rt.stats["patches"] == 1 and rt.stats["rows_tokenized"] == len(snap) + 1
    r = rt.route("helm charts for the narwhal service", new)
    assert r.index_ms == 0.0 and r.selected is not None and r.selected.name == "k8s-deploy"


def test_small_talk_is_decided_without_the_index(disk, store_dir):
    """A greeting never routes, and that is known from its words: no index is loaded or
    built for it (a cold `codebot -p "hello there"` at 10,000 skills skips the build)."""
    snap = disk.load()
    rt = R.Router(store=IndexStore(store_dir))
    r = rt.route("hello there! thanks a lot", snap)
    assert r.decision == "abstain" and r.shape == "chat" and "small talk" in r.reason
    assert rt.stats["builds"] == 0 and rt.stats["loads"] == 0 and r.index_ms == 0.0
    assert not any(store_dir.rglob("*.npy"))
    rt.route("fix the flaky pytest fixture race", snap)  # a task does need it
    assert rt.stats["builds"] == 1


def test_a_greeting_in_print_mode_loads_no_router_library(tmp_path):
    """`codebot -p "hello there"` over a catalog larger than the listing's budget: the
    listing asks the router for the turn's ranking, which a greeting does not need, so
    the process imports neither numpy nor bm25s (57 ms of a greeting's run at 10,000
    skills). A task in the same project does import them: the probe can tell."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from gen_skills import generate

    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    generate(project / ".codebot" / "skills", 300, seed=2)  # about 40,000 characters of names
    probe = (
        "import json, runpy, sys\nsys.argv = ['codebot', '-p', sys.argv[1], '--trust']\n"
        "try:\n    runpy.run_module('codebot', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(json.dumps({m: m in sys.modules for m in ('numpy', 'bm25s')}), file=sys.stderr)"
    )
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEBOT_MODEL"
    }

    def loaded(prompt: str) -> dict[str, bool]:
        out = subprocess.run(
            [sys.executable, "-c", probe, prompt],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return json.loads(out.stderr.strip().splitlines()[-1])

    assert loaded("hello there") == {"numpy": False, "bm25s": False}
    assert loaded("review my recent changes")["numpy"] is True
