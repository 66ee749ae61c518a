"""1,000 random file operations under a watched skills root: nothing raises, nothing hangs,
and at the end the watched catalog is what a fresh load of the same tree gives."""

from __future__ import annotations

import logging
import os
import random
import shutil
import stat
import time
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.watch import SkillWatcher

OPS = 1000
SEED = 20261201
NAMES = (
    [f"s{i}" for i in range(12)]
    + [f"group/g{i}" for i in range(6)]
    + ["group/deep/d0", "group/deep/d1"]
)


def _root(path: Path) -> Root:
    return Root(path, Source.PROJECT, "codebot", (0,))


def _text(rng: random.Random, name: str) -> str:
    kind = rng.random()
    if kind < 0.1:
        return "---\ndescription: [unclosed\n---\nbroken\n"
    if kind < 0.15:
        return ""
    named = f"name: {rng.choice(NAMES).rsplit('/', 1)[-1]}\n" if rng.random() < 0.2 else ""
    return f"---\n{named}description: version {rng.randrange(10**6)}\n---\nBody {rng.random()}\n"


def _state(catalog_snapshot) -> tuple:
    """What must match between the watched catalog and a fresh one."""
    specs = sorted((s.key, str(s.path), s.description, s.body_offset) for s in catalog_snapshot)
    diags = sorted({(d.path, d.code, d.message) for d in catalog_snapshot.diagnostics})
    return specs, diags


class Churn:
    def __init__(self, root: Path, outside: Path, seed: int) -> None:
        self.root, self.outside, self.rng = root, outside, random.Random(seed)
        self.counts: dict[str, int] = {}

    def dirs(self) -> list[Path]:
        return [
            self.root / n
            for n in NAMES
            if (self.root / n).is_dir() and not (self.root / n).is_symlink()
        ]

    def step(self) -> None:
        rng = self.rng
        op = rng.choice(
            ["create", "create", "edit", "edit", "rename", "delete", "symlink", "fifo", "chmod"]
        )
        self.counts[op] = self.counts.get(op, 0) + 1
        getattr(self, op)(rng)

    def _skill_file(self, d: Path) -> Path:
        return d / ("SKILL.md" if self.rng.random() < 0.9 else "skill.md")

    def _clear(self, p: Path) -> None:
        if p.is_symlink() or (p.exists() and not p.is_dir()):
            p.unlink()
        elif p.is_dir():
            shutil.rmtree(p)

    def create(self, rng: random.Random) -> None:
        d = self.root / rng.choice(NAMES)
        if d.is_symlink():
            d.unlink()  # links come and go too
        if any(p.is_symlink() for p in d.parents if p != self.root and p.is_relative_to(self.root)):
            return  # inside a linked folder: the write would land elsewhere
        d.mkdir(parents=True, exist_ok=True)
        f = self._skill_file(d)
        self._clear(f)
        f.write_text(_text(rng, d.name), encoding="utf-8")
        if rng.random() < 0.2:
            (d / "scripts").mkdir(exist_ok=True)
        if rng.random() < 0.1:
            (d / "agents").mkdir(exist_ok=True)
            self._clear(d / "agents" / "openai.yaml")  # maybe a FIFO: writing would block
            (d / "agents" / "openai.yaml").write_text(
                "policy:\n  allow_implicit_invocation: false\n"
            )

    def edit(self, rng: random.Random) -> None:
        files = [
            f
            for d in self.dirs()
            for f in (d / "SKILL.md", d / "skill.md")
            if f.is_file() and not f.is_symlink()
        ]
        if files:
            rng.choice(files).write_text(_text(rng, "x"), encoding="utf-8")

    def rename(self, rng: random.Random) -> None:
        dirs = self.dirs()
        target = self.root / rng.choice(NAMES)
        if dirs and not os.path.lexists(target):
            src = rng.choice(dirs)
            if target.is_relative_to(src):
                return
            target.parent.mkdir(parents=True, exist_ok=True)
            src.rename(target)

    def delete(self, rng: random.Random) -> None:
        links = [self.root / n for n in NAMES if (self.root / n).is_symlink()]
        if links and rng.random() < 0.3:
            rng.choice(links).unlink()
            return
        dirs = self.dirs()
        if not dirs:
            return
        d = rng.choice(dirs)
        if rng.random() < 0.5:
            shutil.rmtree(d)
        else:
            for f in (d / "SKILL.md", d / "skill.md"):
                if os.path.lexists(f):
                    f.unlink()

    def symlink(self, rng: random.Random) -> None:
        link = self.root / rng.choice(NAMES)
        if os.path.lexists(link):
            if not link.is_symlink():
                return
            link.unlink()
        link.parent.mkdir(parents=True, exist_ok=True)
        dirs = self.dirs()
        pick = rng.random()
        if pick < 0.4 and dirs:
            link.symlink_to(rng.choice(dirs), target_is_directory=True)  # the same skill twice
        elif pick < 0.7:
            link.symlink_to(self.outside / f"missing{rng.randrange(5)}")  # dangling
        else:
            link.symlink_to(link.parent, target_is_directory=True)  # a loop

    def fifo(self, rng: random.Random) -> None:
        dirs = self.dirs()
        if not dirs:
            return
        d = rng.choice(dirs)
        target = rng.choice([d / "SKILL.md", d / "agents" / "openai.yaml", d / "notes.md"])
        if target.parent.is_dir() and not target.is_dir():
            if os.path.lexists(target):
                target.unlink()
            os.mkfifo(target)

    def chmod(self, rng: random.Random) -> None:
        dirs = self.dirs()
        if not dirs:
            return
        d = rng.choice(dirs)
        target = d / "SKILL.md" if (d / "SKILL.md").is_file() and rng.random() < 0.5 else d
        if target.is_symlink():
            return
        mode = (
            rng.choice([0o000, 0o200, 0o444, 0o755])
            if target.is_dir()
            else rng.choice([0o000, 0o200, 0o644])
        )
        if target.is_dir() and mode != 0o755 and rng.random() < 0.7:
            mode = 0o755  # mostly readable folders, so most of the tree stays visible
        target.chmod(mode)


def _restore(root: Path) -> None:
    """Readable again, so the fresh load and the cleanup see the same tree as the watcher."""
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames:
            p = os.path.join(dirpath, n)
            if not os.path.islink(p):
                os.chmod(p, 0o755)
        for n in filenames:
            p = os.path.join(dirpath, n)
            if not os.path.islink(p) and stat.S_ISREG(os.lstat(p).st_mode):
                os.chmod(p, 0o644)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_watched_catalog_survives_churn(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="codebot")
    root, outside = tmp_path / "skills", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    churn = Churn(root, outside, SEED)
    for _ in range(40):  # something to watch from the start
        churn.create(churn.rng)
    catalog = Catalog([_root(root)])
    catalog.load()
    reloads: list[object] = []
    watcher = SkillWatcher(catalog, reloads.append).start()
    try:
        assert watcher.ready.wait(10), "watcher never became ready"
        t0 = time.monotonic()
        for i in range(OPS):
            churn.step()
            if i % 25 == 0:
                time.sleep(0.02)  # let reloads interleave with the churn
        # Permission changes only matter to a reader that is not root; make the final tree
        # readable so it is the same for every reader, then let the watcher catch up.
        os.chmod(root, 0o755)
        _restore(root)
        deadline = time.monotonic() + 15
        fresh = None
        while time.monotonic() < deadline:
            time.sleep(0.5)
            fresh = _state(Catalog([_root(root)]).load())
            if _state(catalog.snapshot) == fresh:
                break
        assert watcher.running, "the watcher stopped"
        assert _state(catalog.snapshot) == fresh, churn.counts
        assert time.monotonic() - t0 < 60
    finally:
        watcher.stop()
        _restore(root)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
    assert reloads, "the watcher never reloaded"
    assert min(churn.counts.values()) > 50, churn.counts
