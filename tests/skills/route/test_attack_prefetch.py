"""Attacks on the body-tokenizing helper (route/index/prefetch.py, body_worker.py): a
skill file swapped between the scan and the helper's read, frames that lie about their
numbers, a parent that dies or exits, and an environment that would inject code into
the helper's interpreter. Each test tries to get something past a rule of the modules'
docstrings; the helper may only save time, never change what is indexed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.route import router as R
from codebot.skills.route import warmup
from codebot.skills.route.index import prefetch as P
from codebot.skills.route.warmup import prefetch_bodies

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate

SECRET = "zanzibarquokka"  # a word only the other file holds


@pytest.fixture(autouse=True)
def small_catalogs_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warmup, "PREFETCH_MIN", 1)


def roots_of(path: Path) -> list[Root]:
    return [Root(path, Source.PROJECT, "codebot", (0,))]


def attached(root: Path) -> tuple[R.Router, Catalog, P.ScanFeed]:
    """A router, the catalog of `root`, and the helper's feed attached to its scan."""
    rt = R.Router()
    cat = Catalog(roots_of(root))
    feed = prefetch_bodies(roots_of(root), rt)
    assert feed is not None
    feed.attach(cat)
    return rt, cat, feed


def helper_done(rt: R.Router, timeout: float = 60) -> None:
    pf = rt.indexes.tokens.prefetch
    assert pf is not None
    pf._reader.join(timeout)
    assert not pf._reader.is_alive(), "the helper never finished"


def same_frontmatter_other_body(target: Path, other: Path) -> None:
    """`other`: `target`'s frontmatter (so the body starts at the same offset) and a body
    of its own, holding SECRET."""
    text = target.read_text(encoding="utf-8")
    head_end = text.index("\n---", 3) + len("\n---\n")
    other.write_text(text[:head_end] + f"{SECRET} {SECRET} notes.\n", encoding="utf-8")


def test_a_file_swapped_for_a_link_while_the_helper_reads_is_not_indexed_under_the_skill(
    tmp_path,
):
    """The scan stamps SKILL.md; before the helper reads it, SKILL.md becomes a link to
    another file (the original kept aside, stamp and all), and is put back before the
    catalog parses it. The helper's bag is of the other file: it must not be kept under
    the skill's real path and stamp."""
    root = tmp_path / "skills"
    generate(root, 12, seed=4)
    target = sorted(root.glob("*/SKILL.md"))[2]
    other = tmp_path / "elsewhere.md"  # outside the root: the catalog never loads it
    same_frontmatter_other_body(target, other)
    aside = target.with_name("aside.md")
    rt, cat, feed = attached(root)

    def swap_read_and_restore(candidates):
        target.rename(aside)  # keeps its inode, mtime and size: the scan's stamp
        target.symlink_to(other)
        feed.scanned(candidates)
        helper_done(rt)
        target.unlink()
        aside.rename(target)

    cat.on_scanned = swap_read_and_restore
    snap = cat.load()
    rt.index(snap)
    got = rt.route(f"{SECRET} notes", snap)
    assert not any(c.spec.path == target for c in got.candidates), got.candidates
    assert rt.stats["bodies_prefetched"] == len(snap) - 1  # that one was read here again


def test_a_file_edited_in_place_before_the_helper_reads_it_is_read_again_here(tmp_path):
    """Edited after the scan stamped it (a new mtime and size): the helper's bag would be
    of a version the catalog never parsed; it is dropped, the body is read here."""
    root = tmp_path / "skills"
    generate(root, 12, seed=6)
    target = sorted(root.glob("*/SKILL.md"))[5]
    rt, cat, feed = attached(root)

    def edit_then_feed(candidates):
        old = target.stat()
        target.write_text(target.read_text(encoding="utf-8") + f"\n{SECRET}\n", encoding="utf-8")
        os.utime(target, ns=(old.st_atime_ns, old.st_mtime_ns + 7_000_000))
        feed.scanned(candidates)
        helper_done(rt)

    cat.on_scanned = edit_then_feed
    snap = cat.load()
    rt.index(snap)
    assert rt.stats["bodies_prefetched"] == len(snap) - 1
    assert rt.stats["bodies_read"] == 1


@pytest.mark.parametrize(
    "swap",
    ["dev-zero", "dev-null", "huge", "dangling"],
)
def test_a_skill_file_swapped_for_a_device_a_huge_file_or_a_dangling_link_is_skipped(
    tmp_path, swap
):
    root = tmp_path / "skills"
    generate(root, 10, seed=8)
    target = sorted(root.glob("*/SKILL.md"))[1]
    rt, cat, feed = attached(root)

    def swap_then_feed(candidates):
        target.unlink()
        if swap == "dev-zero":
            target.symlink_to("/dev/zero")
        elif swap == "dev-null":
            target.symlink_to("/dev/null")
        elif swap == "huge":
            with target.open("wb") as fh:
                fh.truncate(64 << 20)  # sparse: 64 MB of NULs, no disk
        else:
            target.symlink_to(tmp_path / "nowhere")
        feed.scanned(candidates)
        helper_done(rt, timeout=30)

    cat.on_scanned = swap_then_feed
    snap = cat.load()
    rt.index(snap)
    assert rt.stats["bodies_prefetched"] == 9


@pytest.mark.parametrize(
    "body",
    [
        "(p, off, float('inf'), size, ino, n, b'', b'', 0)",  # int(inf): OverflowError
        "(p, off, mtime, size, ino, n, b'', b'', float('inf'))",
        "(p, off, mtime, size, ino, n, b'', b'', -5)",  # a negative length
        "(p, off, mtime, size, ino, n, b'', b'', 10**30)",  # no machine integer holds it
        "(p, off, mtime, size, ino, n, struct.pack('i', 0), b'\\x00\\x00', 1)",  # a count of 0
        "(p, off, mtime, size, ino, n, struct.pack('2i', 0, 0), b'\\x01\\x00' * 2, 2)",  # twice
    ],
)
def test_a_frame_with_numbers_no_body_can_have_is_ignored_not_raised(tmp_path, monkeypatch, body):
    """A frame under the very key the build looks a body up by (real path, offset,
    stamp, chars read), whose numbers no tokenizer makes: never raised, never used."""
    from codebot.skills.files import frontmatter

    root = tmp_path / "skills"
    generate(root, 8, seed=2)
    path = sorted(root.glob("*/SKILL.md"))[0].resolve()
    st = path.stat()
    split = frontmatter.split(path.read_bytes())
    assert split is not None
    n = R.RouterConfig().bm25.body_chars
    code = (
        "import sys, struct, pickle\n"
        "out = sys.stdout.buffer\n"
        f"p, off, mtime, size, ino, n = {str(path)!r}, {split.body_offset}, "
        f"{st.st_mtime_ns}, {st.st_size}, {st.st_ino}, {n}\n"
        f"doc = {{'terms': ['zz'], 'bodies': [{body}], 'done': True}}\n"
        "data = pickle.dumps(doc); out.write(struct.pack('>I', len(data)) + data)\n"
        "out.flush()\n"
    )
    monkeypatch.setattr(P, "_BOOT", code)
    alone = R.Router()
    alone.index(Catalog(roots_of(root)).load())
    rt, cat, _ = attached(root)
    snap = cat.load()
    helper_done(rt)
    rt.index(snap)  # must not raise
    assert rt.stats["bodies_prefetched"] == 0 and rt.stats["bodies_read"] == len(snap)
    for q in ("review coverage", "zz", "write the release notes"):
        assert [(c.name, c.score) for c in rt.route(q, snap).candidates] == [
            (c.name, c.score) for c in alone.route(q, snap).candidates
        ]


# -- the helper's life and its interpreter -------------------------------------------------

PARENT = """
import sys, time
sys.path.insert(0, {parent!r})
from codebot.skills.route.index import prefetch as P
proc = P._popen()
print(proc.pid, flush=True)
{then}
"""


def _gone(pid: int) -> bool:
    """The process has ended (a zombie nobody reaps counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _parent(tmp_path: Path, then: str, *flags: str, env: dict[str, str] | None = None):
    script = tmp_path / "parent.py"
    pkg = str(Path(P.__file__).resolve().parents[4])
    script.write_text(PARENT.format(parent=pkg, then=then), encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, *flags, str(script)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("how", ["killed", "exits"])
def test_the_helper_never_outlives_its_parent(tmp_path, wait_until, how):
    then = "time.sleep(120)" if how == "killed" else "pass"
    parent = _parent(tmp_path, then)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    if how == "killed":
        assert not _gone(pid)
        parent.send_signal(signal.SIGKILL)  # no atexit: the closed pipe must end it
    parent.wait(timeout=30)
    wait_until(lambda: _gone(pid), timeout=30)


@pytest.mark.parametrize("flag", ["-E", "-I"])
def test_the_helper_runs_no_code_its_parent_was_started_to_ignore(tmp_path, flag):
    """A parent started with -E or -I ignores PYTHONPATH, and so a sitecustomize there;
    the helper it starts must ignore it too. (-s is passed on as well; in a virtual
    environment there is no user site to test it with.)"""
    planted = tmp_path / "planted"
    planted.mkdir()
    marker = tmp_path / "pwned"
    (planted / "sitecustomize.py").write_text(
        f"open({str(marker)!r}, 'a').write('x')\n", encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(planted)
    then = (
        "proc.stdin.close(); proc.wait(30)  # it waits for its config: no config, it ends\n"
        "print(proc.returncode, flush=True)"
    )
    parent = _parent(tmp_path, then, flag, env=env)
    out, _ = parent.communicate(timeout=60)
    assert parent.returncode == 0, out
    assert not marker.exists(), marker.read_text()
