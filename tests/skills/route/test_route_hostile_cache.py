"""A damaged, truncated or hostile router cache is ignored and rebuilt: it never crashes,
never hangs (FIFOs), is never followed (links) and never changes what routing answers.
Two writers at once leave one whole generation, never a mix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import codebot.skills.route as R
from codebot.skills.route.index import store as S
from codebot.skills.route.index.npy import checksum
from codebot.skills.route.index.store import IndexStore

REQUESTS = (
    "fix the flaky pytest fixture race",
    "shrink the docker image with multi-stage builds",
    "speed up this slow sql query with an index",
)


def answers(rt: R.Router, snap) -> list:
    return [
        (r.decision, [(c.name, round(c.score, 5)) for c in r.candidates])
        for r in (rt.route(q, snap) for q in REQUESTS)
    ]


def manifest(store_dir: Path) -> Path:
    (m,) = [p for p in store_dir.glob("*.json")]
    return m


def gen_dir(store_dir: Path) -> Path:
    return store_dir / json.loads(manifest(store_dir).read_text())["dir"]


def rewrite_manifest(store_dir: Path, change: Callable[[dict], None]) -> None:
    m = manifest(store_dir)
    doc = json.loads(m.read_text())
    change(doc)
    m.write_text(json.dumps(doc))


def forge_array(store_dir: Path, name: str, change: Callable[[np.ndarray], None]) -> None:
    """Change an array and fix its checksum in the manifest: only the consistency checks
    stand between such a file and routing."""
    path = gen_dir(store_dir) / f"{name}.npy"
    arr = np.load(path).copy()
    change(arr)
    path.unlink()
    np.save(path, arr)
    rewrite_manifest(store_dir, lambda d: d["arrays"][name].update(crc=checksum(arr)))


def _swap_in_a_column(store_dir: Path, indices: np.ndarray) -> None:
    """Two skills of one term's postings in the wrong order (scoring would count one)."""
    indptr = np.load(gen_dir(store_dir) / "indptr.npy")
    t = int(np.nonzero(np.diff(indptr) >= 2)[0][0])
    a = int(indptr[t])
    indices[a], indices[a + 1] = indices[a + 1], indices[a]


def _folder_instead(path: Path) -> None:
    path.unlink()
    path.mkdir()


def replace_with_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def replace_with_link(path: Path) -> None:
    copy = path.with_name(path.name + ".copy")
    if path.is_dir():
        shutil.copytree(path, copy)
        shutil.rmtree(path)
    else:
        shutil.copy(path, copy)
        path.unlink()
    path.symlink_to(copy)


def truncate(path: Path, by: int) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - by])


def flip_byte(path: Path, at: int = -3, bit: int = 0x40) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= bit
    path.write_bytes(bytes(data))


def npy_with_header(path: Path, header: str) -> None:
    """A .npy file whose header says whatever `header` says, followed by 64 bytes."""
    head = header.encode("latin1")
    head += b" " * (-(len(head) + 11) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head + b"\0" * 64)


DAMAGE: dict[str, Callable[[Path], None]] = {
    "manifest garbage": lambda d: manifest(d).write_bytes(b"\x00\xffnot json at all"),
    "manifest truncated": lambda d: truncate(manifest(d), len(manifest(d).read_bytes()) // 2),
    "manifest empty": lambda d: manifest(d).write_bytes(b""),
    "manifest a list": lambda d: manifest(d).write_text("[1, 2, 3]"),
    "manifest deeply nested": lambda d: manifest(d).write_text("[" * 100_000 + "]" * 100_000),
    "manifest n as text": lambda d: rewrite_manifest(d, lambda m: m.update(n=str(m["n"]))),
    "manifest huge n": lambda d: rewrite_manifest(d, lambda m: m.update(n=2**30)),
    "manifest n too big for int": lambda d: rewrite_manifest(d, lambda m: m.update(n=10**40)),
    "manifest duplicate terms": lambda d: rewrite_manifest(
        d, lambda m: m["terms"].__setitem__(1, m["terms"][0])
    ),
    "manifest NaN average": lambda d: rewrite_manifest(
        d, lambda m: m["avgs"].__setitem__(0, float("nan"))
    ),
    "manifest folder escapes": lambda d: rewrite_manifest(
        d, lambda m: m.update(dir="../../../etc")
    ),
    "manifest other version": lambda d: rewrite_manifest(
        d, lambda m: m["header"].update(codebot="0.0.1")
    ),
    "manifest is a FIFO": lambda d: replace_with_fifo(manifest(d)),
    "manifest is a link": lambda d: replace_with_link(manifest(d)),
    "manifest is a folder": lambda d: _folder_instead(manifest(d)),
    "array truncated": lambda d: truncate(gen_dir(d) / "tf.npy", 8),
    "array bit flipped": lambda d: flip_byte(gen_dir(d) / "indices.npy"),
    # the lowest bit of the last tf: still a valid, finite number; only the CRC tells
    "array low bit flipped": lambda d: flip_byte(gen_dir(d) / "tf.npy", -4, 0x01),
    "array missing": lambda d: (gen_dir(d) / "counts.npy").unlink(),
    "array is a FIFO": lambda d: replace_with_fifo(gen_dir(d) / "ids.npy"),
    "array is a link": lambda d: replace_with_link(gen_dir(d) / "indptr.npy"),
    "array pickled objects": lambda d: np.save(
        gen_dir(d) / "tf.npy", np.array([{"x": 1}], dtype=object), allow_pickle=True
    ),
    "array huge shape": lambda d: npy_with_header(
        gen_dir(d) / "tf.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (10**12,), }"
    ),
    "array hostile header": lambda d: npy_with_header(
        gen_dir(d) / "tf.npy", "{'descr': __import__('os').getcwd(), }"
    ),
    "array fortran order": lambda d: npy_with_header(
        gen_dir(d) / "tf.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (16,), }"
    ),
    "forged skill out of range": lambda d: forge_array(
        d, "indices", lambda a: a.__setitem__(0, 10_000)
    ),
    "forged term out of range": lambda d: forge_array(d, "ids", lambda a: a.__setitem__(0, -1)),
    "forged unsorted postings": lambda d: forge_array(
        d, "indices", lambda a: _swap_in_a_column(d, a)
    ),
    "forged NaN tf": lambda d: forge_array(d, "tf", lambda a: a.__setitem__(3, np.nan)),
    "forged offsets": lambda d: forge_array(d, "ptr", lambda a: a.__setitem__((1, 2), a[1, 1] - 1)),
    "generation is a link": lambda d: replace_with_link(gen_dir(d)),
    "generation removed": lambda d: shutil.rmtree(gen_dir(d)),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_cache_is_ignored_and_rebuilt(disk, store_dir, damage):
    snap = disk.load()
    want = answers(R.Router(store=IndexStore(store_dir)), snap)
    DAMAGE[damage](store_dir)
    store = IndexStore(store_dir)
    rt = R.Router(store=store)
    got: list = []
    t = threading.Thread(target=lambda: got.append(answers(rt, snap)), daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), "loading a damaged cache hung"
    assert got == [want]
    assert rt.stats["loads"] == 0 and rt.stats["full_builds"] == 1
    assert store.last_error is None or str(store_dir) in store.last_error
    healed = R.Router(store=IndexStore(store_dir))  # the rebuild was saved over the damage
    assert answers(healed, snap) == want
    assert healed.stats["last"] == "load" or damage == "manifest is a folder"


def test_a_linked_router_folder_is_neither_read_nor_written(disk, store_dir, tmp_path):
    snap = disk.load()
    want = answers(R.Router(store=IndexStore(store_dir)), snap)
    elsewhere = tmp_path / "elsewhere"
    store_dir.rename(elsewhere)
    store_dir.symlink_to(elsewhere)
    before = sorted(p.name for p in elsewhere.iterdir())
    store = IndexStore(store_dir)
    rt = R.Router(store=store)
    assert answers(rt, snap) == want
    assert rt.stats["loads"] == 0 and rt.stats["saves"] == 0 and "link" in (store.last_error or "")
    assert sorted(p.name for p in elsewhere.iterdir()) == before


WRITER = """
import sys
from pathlib import Path
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
import codebot.skills.route as R
from codebot.skills.route.index.store import IndexStore, header
snap = Catalog([Root(Path(sys.argv[1]), Source.PROJECT, "codebot", (0,))]).load()
rt = R.Router()
idx, _ = rt.index(snap)
store = IndexStore(Path(sys.argv[2]))
for _ in range(int(sys.argv[4])):
    saved = store.save(sys.argv[3], header(rt.config), idx.postings, rt.indexes.tokens.terms)
    assert saved, store.last_error
"""


def test_concurrent_writers_leave_one_whole_generation(disk, store_dir, tmp_path, monkeypatch):
    """Two catalogs saved to one slot by four processes at once, while this one reads:
    every read is one of the two, whole, or a miss; never a mix."""
    monkeypatch.setattr(S, "GRACE", 0.0)  # removals race with reads too
    other = tmp_path / "other"
    shutil.copytree(disk.root, other)
    shutil.rmtree(other / "docker-slim")
    slot_id = "0123456789abcdef"
    versions = {}
    for root in (disk.root, other):
        from codebot.skills.catalog import Catalog
        from codebot.skills.files import Root, Source

        rt = R.Router()
        idx, _ = rt.index(Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load())
        versions[checksum(idx.postings.tf), checksum(idx.postings.indices)] = root.name
    assert len(versions) == 2
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(store_dir), slot_id, "15"],
            env=os.environ.copy(),
            stderr=subprocess.PIPE,
        )
        for root in (disk.root, other, disk.root, other)
    ]
    reader = IndexStore(store_dir)
    head = S.header(R.RouterConfig())
    seen = set()
    while any(p.poll() is None for p in procs):
        got = reader.load(slot_id, head)
        if got is not None:
            postings, _ = got
            seen.add(versions[checksum(postings.tf), checksum(postings.indices)])  # KeyError: a mix
    for p in procs:
        assert p.wait(60) == 0, p.stderr.read().decode() if p.stderr else ""
    final = reader.load(slot_id, head)
    assert final is not None and (checksum(final[0].tf), checksum(final[0].indices)) in versions
    assert not [p for p in store_dir.iterdir() if p.name.startswith(".tmp-")]
    assert seen <= set(versions.values())
