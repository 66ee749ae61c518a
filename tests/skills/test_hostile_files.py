"""Files that are not regular files (FIFOs, devices, folders) never hang or break a load.

Every load runs in a daemon thread with a timeout, so a regression fails the test instead
of hanging the run: opening a FIFO for reading blocks until a writer comes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.session.agents import load_agent
from codebot.skills.catalog import Catalog, Index
from codebot.skills.files import NotRegularFile, Root, Severity, Source, TooLarge, read_regular

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

TIMEOUT = 10.0
GOOD_SKILL = "name: good-skill\ndescription: A skill that always loads."


def within(fn: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    """`fn()`, or a failure if it has not returned after `timeout` seconds."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the test below
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        pytest.fail(f"{fn} did not return within {timeout} s (blocked on a FIFO or a device?)")
    if "error" in box:
        raise box["error"]
    return box["value"]


def load(root: Path, index: Index | None = None):
    return within(
        lambda: Catalog([Root(root, Source.PROJECT, "codebot", (0,))], index=index).load()
    )


def diag_about(snap, path: Path):
    [d] = [d for d in snap.diagnostics if d.path == str(path)]
    return d


@pytest.fixture
def root(skills_root: Path, write_skill) -> Path:
    write_skill(skills_root, "good-skill", GOOD_SKILL)
    write_skill(skills_root, "zz-after", "description: Sorts after the bad one.")
    (skills_root / "bad").mkdir()
    return skills_root


def test_fifo_skill_md(root: Path) -> None:
    os.mkfifo(root / "bad" / "SKILL.md")
    snap = load(root)
    assert sorted(s.name for s in snap) == ["good-skill", "zz-after"]
    d = diag_about(snap, root / "bad" / "SKILL.md")
    assert (d.code, d.severity) == ("not-a-file", Severity.ERROR)
    assert "SKILL.md is a FIFO" in d.message


def test_fifo_single_file_skill(root: Path) -> None:
    os.mkfifo(root / "piped.md")
    snap = load(root)
    assert sorted(s.name for s in snap) == ["good-skill", "zz-after"]
    assert "piped.md is a FIFO" in diag_about(snap, root / "piped.md").message


def test_fifo_openai_yaml_is_a_warning(root: Path, write_skill) -> None:
    path = write_skill(root, "codex", "description: Has Codex metadata.")
    (path.parent / "agents").mkdir()
    os.mkfifo(path.parent / "agents" / "openai.yaml")
    snap = load(root)
    assert sorted(s.name for s in snap) == ["codex", "good-skill", "zz-after"]
    [d] = snap.get("codex").diagnostics
    assert (d.code, d.severity) == ("openai-yaml", Severity.WARNING)
    assert "agents/openai.yaml is a FIFO" in d.message


@pytest.mark.parametrize(
    ("target", "kind"), [("/dev/null", "a character device"), ("/dev/tty", "a character device")]
)
def test_skill_md_linked_to_a_device(root: Path, target: str, kind: str) -> None:
    if not os.path.exists(target):
        pytest.skip(f"no {target}")
    (root / "bad" / "SKILL.md").symlink_to(target)
    snap = load(root)
    assert sorted(s.name for s in snap) == ["good-skill", "zz-after"]
    assert f"SKILL.md is {kind}" in diag_about(snap, root / "bad" / "SKILL.md").message


def test_skill_md_linked_to_a_fifo(root: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (root / "bad" / "SKILL.md").symlink_to(tmp_path / "pipe")
    snap = load(root)
    assert sorted(s.name for s in snap) == ["good-skill", "zz-after"]
    assert "SKILL.md is a FIFO" in diag_about(snap, root / "bad" / "SKILL.md").message


def test_folder_named_skill_md_cold_and_from_the_folder_cache(root: Path, tmp_path: Path) -> None:
    (root / "bad" / "SKILL.md").mkdir()
    index_path = tmp_path / "index.json"
    for _ in range(2):  # the second load reuses the kept listings (and the index)
        index = Index(index_path)
        snap = load(root, index)
        index.save()
        assert sorted(s.name for s in snap) == ["good-skill", "zz-after"]
        d = diag_about(snap, root / "bad" / "SKILL.md")
        assert (d.code, d.severity) == ("not-a-file", Severity.ERROR)
        assert "SKILL.md is a directory" in d.message


def test_fifo_swapped_in_after_load_fails_read_body(root: Path) -> None:
    snap = load(root)
    spec = snap.get("good-skill")
    spec.path.unlink()
    os.mkfifo(spec.path)
    with pytest.raises(OSError, match="is a FIFO, not a regular file"):
        within(spec.read_body)


def test_reload_after_a_skill_becomes_a_fifo(root: Path) -> None:
    cat = Catalog([Root(root, Source.PROJECT, "codebot", (0,))])
    within(cat.load)
    path = root / "good-skill" / "SKILL.md"
    path.unlink()
    os.mkfifo(path)
    within(lambda: cat.reload([path]))
    assert [s.name for s in cat.snapshot] == ["zz-after"]


def test_agent_file_that_is_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "reviewer.md")
    assert within(lambda: load_agent(tmp_path / "reviewer.md")) is None
    (tmp_path / "ok.md").write_text("---\nname: ok\ndescription: fine\n---\nGo.\n")
    assert within(lambda: load_agent(tmp_path / "ok.md")).prompt == "Go."


def test_read_regular(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"0123456789")
    assert read_regular(p, 10) == b"0123456789"
    assert read_regular(p, 10, offset=4) == b"456789"
    assert read_regular(p, 10, size_hint=2) == b"0123456789"  # grew since the stat
    with pytest.raises(TooLarge, match="limit 9"):
        read_regular(p, 9)
    with pytest.raises(NotRegularFile, match="is a directory"):
        read_regular(tmp_path, 10)
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotRegularFile, match="is a FIFO") as info:
        within(lambda: read_regular(tmp_path / "pipe", 10))
    assert isinstance(info.value, OSError)
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing", 10)


def test_skills_list_subprocess_with_a_fifo_in_the_project(tmp_path: Path, write_skill) -> None:
    project = tmp_path / "project"
    skills = project / ".codebot" / "skills"
    write_skill(skills, "good-skill", GOOD_SKILL)
    (skills / "bad").mkdir()
    os.mkfifo(skills / "bad" / "SKILL.md")
    (project / ".git").mkdir()
    try:
        out = subprocess.run(
            [sys.executable, "-m", "codebot", "skills", "list"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=20,
            env=os.environ.copy(),
        )
    except subprocess.TimeoutExpired:
        pytest.fail("`codebot skills list` hung on a FIFO SKILL.md")
    assert "good-skill" in out.stdout, out.stderr
