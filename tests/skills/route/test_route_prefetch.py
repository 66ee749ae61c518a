"""Bodies tokenized by a helper process while the catalog loads (skills/route/prefetch.py):
the index it helps build is the index built without it; a file changed after the helper
read it is tokenized again; a helper that hangs, dies or lies costs nothing but its
time; the helper never imports a `codebot` folder from the working directory; nothing
is started where a saved index makes it moot; print mode starts it for a task only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.route import router as R
from codebot.skills.route import warmup
from codebot.skills.route.index import prefetch as P
from codebot.skills.route.index.store import IndexStore
from codebot.skills.route.warmup import prefetch_bodies

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate


def wait_helpers(timeout: float = 5.0) -> None:
    """Until no helper runs (each is killed once its work is taken)."""
    end = time.monotonic() + timeout
    while P._LIVE and time.monotonic() < end:
        for proc in list(P._LIVE):
            if proc.poll() is not None:
                P._LIVE.discard(proc)
        time.sleep(0.01)


REQUESTS = [
    "review my recent changes",
    "write a dockerfile for this app",
    "fix the flaky pytest fixture",
    "fill in this pdf form",
    "deploy to kubernetes with helm",
    "clean up the git history",
]


@pytest.fixture(autouse=True)
def small_catalogs_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """These catalogs are small: start the helper for them as for a large one."""
    monkeypatch.setattr(warmup, "PREFETCH_MIN", 1)


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("prefetch") / "skills"
    generate(root, 240, seed=3)
    return root


def roots_of(path: Path) -> list[Root]:
    return [Root(path, Source.PROJECT, "codebot", (0,))]


def ranking(rt: R.Router, snap) -> list[list[tuple[str, float]]]:
    return [[(c.name, round(c.score, 9)) for c in rt.route(q, snap).candidates] for q in REQUESTS]


def finished(rt: R.Router, timeout: float = 60) -> P.BodyPrefetch:
    """The router's helper, once it has sent its last frame (so the build takes them all)."""
    pf = rt.indexes.tokens.prefetch
    assert pf is not None
    pf._reader.join(timeout)
    assert not pf._reader.is_alive() and not pf.error, pf.error
    return pf


def load(root: Path, rt: R.Router | None, wait: bool = True) -> tuple[Catalog, object]:
    """The catalog of `root`, loaded as print mode loads it: with `rt`, its helper starts
    once the scan has found the files (and, with `wait`, has sent them all)."""
    cat = Catalog(roots_of(root))
    if rt is not None:
        feed = prefetch_bodies(roots_of(root), rt)
        assert feed is not None
        feed.attach(cat)
    snap = cat.load()
    if rt is not None and wait:
        finished(rt)
    return cat, snap


def build(root: Path, prefetch: bool, wait: bool = True) -> tuple[R.Router, object]:
    rt = R.Router()
    _, snap = load(root, rt if prefetch else None, wait)
    rt.index(snap)
    return rt, snap


@pytest.mark.parametrize("batch", [500, 7], ids=["files-at-the-end", "files-as-the-scan-goes"])
def test_the_index_the_helper_helps_build_ranks_exactly_as_one_built_alone(
    skills, monkeypatch, batch
):
    from codebot.skills.catalog import discover

    monkeypatch.setattr(discover, "FOUND_BATCH", batch)
    alone, snap = build(skills, prefetch=False)
    helped, snap2 = build(skills, prefetch=True)
    assert helped.stats["bodies_prefetched"] == len(snap2) and helped.stats["bodies_read"] == 0
    assert alone.stats["bodies_read"] == len(snap)
    assert ranking(helped, snap2) == ranking(alone, snap)
    assert any(ranking(alone, snap))  # the requests do rank something


@pytest.mark.parametrize("batch", [500, 7], ids=["files-at-the-end", "files-as-the-scan-goes"])
def test_this_process_and_the_helper_share_the_bodies_and_meet(skills, monkeypatch, batch):
    """Not waiting for the helper: whoever gets to a body first tokenizes it, none twice."""
    from codebot.skills.catalog import discover

    monkeypatch.setattr(discover, "FOUND_BATCH", batch)
    alone, snap = build(skills, prefetch=False)
    helped, snap2 = build(skills, prefetch=True, wait=False)
    s = helped.stats
    assert s["bodies_prefetched"] + s["bodies_read"] == len(snap2)
    assert ranking(helped, snap2) == ranking(alone, snap)
    wait_helpers()
    assert not P._LIVE  # stopped once the bodies were in


def test_a_body_edited_after_the_helper_read_it_is_tokenized_again(tmp_path):
    root = tmp_path / "skills"
    generate(root, 30, seed=5)
    target = sorted(root.glob("*/SKILL.md"))[0]
    rt = R.Router()
    cat, _ = load(root, rt)  # the helper has the old body
    target.write_text(
        target.read_text(encoding="utf-8") + "\nAlways feed the axolotl first.\n", encoding="utf-8"
    )
    st = target.stat()
    os.utime(
        target, ns=(st.st_atime_ns, st.st_mtime_ns + 7_000_000)
    )  # a new stamp even on coarse clocks
    cat.reload()
    got = rt.route("feed the axolotl", cat.snapshot)
    # the helper sent all 30; the edited one was read again, its stale bag never used
    assert rt.stats["bodies_read"] == 1 and rt.stats["bodies_prefetched"] == 30
    assert got.candidates and got.candidates[0].spec.path == target


def _boot(monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    monkeypatch.setattr(P, "_BOOT", code)


def test_a_helper_that_never_answers_is_not_waited_for(skills, monkeypatch):
    _boot(monkeypatch, "import time; time.sleep(120)")
    alone, snap = build(skills, prefetch=False)
    t0 = time.monotonic()
    helped, snap2 = build(skills, prefetch=True, wait=False)
    took = time.monotonic() - t0
    assert helped.stats["bodies_prefetched"] == 0 and helped.stats["bodies_read"] == len(snap2)
    assert ranking(helped, snap2) == ranking(alone, snap)
    assert took < 60  # it would be 120 s if the build waited for the helper
    wait_helpers()
    assert not P._LIVE  # and the silent helper was killed


@pytest.mark.parametrize(
    "frames",
    [
        # a length prefix far over the limit
        "out.write(struct.pack('>I', 1 << 31))",
        # a pickle of something that is not a frame
        "send([1, 2, 3])",
        # term ids past the helper's own lexicon, counts of the wrong length, a stamp that is text
        "send({'terms': ['zz'], 'bodies': [(p, 0, 1, 2, 3, 8000, struct.pack('i', 5), "
        "b'\\x01\\x00', 1),"
        " (p, 0, 1, 2, 3, 8000, struct.pack('i', 0), b'', 1), (p, 'x', 'y', 2, 3, 8000, b'', b'', "
        "0)]})",
        # terms that are not a list of strings
        "send({'terms': 'abc', 'bodies': []})",
        # a body whose ids and counts are text, not bytes (right lengths)
        "send({'terms': ['zz'], 'bodies': [(p, 0, 1, 2, 3, 8000, 'abcdefgh', 'abcd', 2)]})",
        # a frame cut short
        "out.write(struct.pack('>I', 100)); out.write(b'\\x80\\x05')",
    ],
)
def test_a_helper_that_sends_garbage_changes_nothing(skills, monkeypatch, frames):
    code = (
        "import sys, struct, pickle\n"
        "out = sys.stdout.buffer\n"
        "p = " + repr(str(next(skills.glob("*/SKILL.md")).resolve())) + "\n"
        "def send(doc):\n"
        "    data = pickle.dumps(doc); out.write(struct.pack('>I', len(data))); out.write(data)\n"
        + frames
        + "\nout.flush()\n"
    )
    _boot(monkeypatch, code)
    alone, snap = build(skills, prefetch=False)
    rt = R.Router()
    _, snap2 = load(skills, rt, wait=False)
    rt.indexes.tokens.prefetch._reader.join(30)
    rt.index(snap2)
    assert rt.stats["bodies_prefetched"] == 0
    assert ranking(rt, snap2) == ranking(alone, snap)


def test_a_codebot_folder_in_the_working_directory_is_never_imported(skills, tmp_path, monkeypatch):
    planted = tmp_path / "repo" / "codebot" / "skills" / "route"
    planted.mkdir(parents=True)
    marker = tmp_path / "pwned"
    for d in (planted, planted.parent, planted.parent.parent):
        (d / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n", encoding="utf-8")
    (planted / "body_worker.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setenv("PYTHONPATH", "")
    helped, snap = build(skills, prefetch=True)
    assert not marker.exists()
    assert helped.stats["bodies_prefetched"] == len(snap)


def test_nothing_starts_when_an_index_is_saved_or_on_one_cpu(skills, tmp_path, monkeypatch):
    store = IndexStore(tmp_path / "router")
    first = R.Router(store=store)
    first.index(Catalog(roots_of(skills)).load())
    assert first.stats["saves"] == 1
    assert (
        prefetch_bodies(roots_of(skills), R.Router(store=IndexStore(tmp_path / "router"))) is None
    )
    assert (
        prefetch_bodies(roots_of(skills), R.Router(store=IndexStore(tmp_path / "other")))
        is not None
    )
    assert prefetch_bodies(roots_of(skills), first) is None  # it has an index already
    monkeypatch.setattr(P, "_cpus", lambda: 1)
    assert prefetch_bodies(roots_of(skills), R.Router()) is None
    monkeypatch.setattr(P, "_cpus", lambda: 4)
    monkeypatch.setenv("CODEBOT_NO_PREFETCH", "1")
    assert prefetch_bodies(roots_of(skills), R.Router()) is None
    assert not P._LIVE  # none of these started a process (that waits for the scan)


def test_a_small_catalog_starts_no_helper(skills, monkeypatch):
    monkeypatch.setattr(warmup, "PREFETCH_MIN", 1000)
    rt = R.Router()
    _, snap = load(skills, rt, wait=False)
    assert rt.indexes.tokens.prefetch is None and not P._LIVE
    rt.index(snap)
    assert rt.stats["bodies_read"] == len(snap)


def test_print_mode_gives_the_same_answer_with_and_without_the_helper(skills, tmp_path):
    """The whole program, cold, on a task: the offline model answers from the ranking."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".codebot").mkdir()
    os.symlink(skills, project / ".codebot" / "skills")
    outs = []
    for i, off in enumerate(("", "1")):
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and k != "CODEBOT_MODEL"
        }
        env.update(
            HOME=str(tmp_path / "uh"),
            CODEBOT_HOME=str(tmp_path / f"h{i}"),
            CODEBOT_NO_PROBE="1",
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            CODEBOT_NO_PREFETCH=off,
        )
        if not off:
            env.pop("CODEBOT_NO_PREFETCH")
        got = subprocess.run(
            [
                sys.executable,
                "-m",
                "codebot",
                "-p",
                "write a dockerfile for this app",
                "--trust",
                "--output-format",
                "json",
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert got.returncode == 0, got.stderr
        outs.append(got.stdout.replace(str(tmp_path / f"h{i}"), "HOME"))
    import json

    a, b = (json.loads(o) for o in outs)
    assert a["result"] == b["result"] and a["skills"] == b["skills"]
    assert "docker" in a["result"].lower()


def test_print_mode_prepares_a_build_for_a_task_not_for_small_talk():
    from codebot.ui import print_mode

    for prompt in ("hello there", "thanks!", "/help", "/compact"):
        assert not print_mode._routes(prompt)
    assert print_mode._routes("review my recent changes")


def test_open_catalog_hands_the_scan_to_a_helper_only_when_asked(skills, tmp_path, monkeypatch):
    from codebot.config import load_settings
    from codebot.workspace import open_catalog

    monkeypatch.setenv("CODEBOT_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(R, "_DEFAULT", None)  # a process that has not routed yet
    settings = load_settings(cwd=tmp_path, skills_dirs=(skills,))
    assert open_catalog(settings, load=False).on_scanned is None
    cat = open_catalog(settings, load=False, prefetch=True)
    assert cat.on_scanned is not None
    rt = R.default_router()
    cat.load()
    finished(rt)
    rt.index(cat.snapshot)
    assert rt.stats["bodies_prefetched"] >= len(list(skills.glob("*/SKILL.md")))
    wait_helpers()


def test_a_fifo_among_the_skills_does_not_hold_the_helper(tmp_path):
    """The scan refuses a FIFO named SKILL.md; one swapped in after the scan is refused by
    the helper's reader (opened non-blocking, not a regular file)."""
    root = tmp_path / "skills"
    generate(root, 20, seed=9)
    swapped = sorted(root.glob("*/SKILL.md"))[3]
    (root / "stuck").mkdir()
    os.mkfifo(root / "stuck" / "SKILL.md")  # opening it to read would block
    rt = R.Router()
    cat = Catalog(roots_of(root))
    feed = prefetch_bodies(roots_of(root), rt)
    feed.attach(cat)

    def swap_then_start(candidates):
        swapped.rename(swapped.with_suffix(".bak"))
        os.mkfifo(swapped)
        feed.scanned(candidates)

    cat.on_scanned = swap_then_start
    snap = cat.load()
    finished(rt, timeout=30)
    rt.index(snap)
    assert len(snap) == 19  # the catalog refuses both FIFOs too
    assert rt.stats["bodies_prefetched"] == 19 and rt.stats["bodies_read"] == 0
