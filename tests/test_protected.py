"""The protected set (`codebot.protected`), the before/after watch and the provenance store."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from codebot.protected import fixed_locations, home_like, hooks_path, protected_reason
from codebot.protected_watch import ProjectWatch
from codebot.provenance import Provenance, ProvenanceError


@pytest.mark.parametrize(
    "rel",
    [
        ".git",
        ".git/config",
        ".git/x/config",
        ".git/commondir",
        ".codebot/config.yaml",
        ".claude/skills/a/SKILL.md",
        ".agents/skills/a/SKILL.md",
        ".codex/skills/a/SKILL.md",
        ".opencode/skills/a/SKILL.md",
        ".gemini/x",
        ".cursor/rules/x.mdc",
        ".github/skills/a/SKILL.md",
        ".github/agents/x.md",
        ".github/copilot-instructions.md",
        ".mcp.json",
        "AGENTS.md",
        "sub/dir/AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
        "sub/.claude/settings.json",
        ".CODEBOT/config.yaml",
        "agents.md",
        "./.git/hooks/pre-commit",
        "a//.git/config",
    ],
)
def test_protected_paths(rel: str) -> None:
    assert protected_reason(rel)


@pytest.mark.parametrize(
    "rel",
    [
        "src/app.py",
        ".github/workflows/ci.yml",
        ".gitignore",
        ".github",
        "docs/agents",
        "AGENTS.md.bak",
        "my.git/config",
        "README.md",
        ".env",
    ],
)
def test_ordinary_paths(rel: str) -> None:
    assert protected_reason(rel) is None


def test_the_hooks_folder_is_protected_when_set(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert hooks_path(tmp_path) is None
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.hooksPath", ".husky"], check=True)
    assert hooks_path(tmp_path) == ".husky"
    assert protected_reason(".husky/pre-commit", ".husky") and not protected_reason(
        ".husky/pre-commit"
    )
    subprocess.run(
        ["git", "-C", str(tmp_path), "config", "core.hooksPath", "/usr/share/hooks"], check=True
    )
    assert hooks_path(tmp_path) is None  # outside the project: read-only in the sandbox anyway


def test_fixed_locations_cover_every_level_down_to_the_working_folder(tmp_path: Path) -> None:
    where = {str(p.relative_to(tmp_path)) for p in fixed_locations(tmp_path, tmp_path / "a" / "b")}
    assert {".git", ".codebot", "a/.claude", "a/b/AGENTS.md", "a/b/.github/skills"} <= where
    assert "c/.claude" not in where


def test_home_and_above_are_home_like(tmp_path: Path, isolated_home: Path) -> None:
    assert home_like(isolated_home) and home_like(Path("/")) and home_like(isolated_home.parent)
    assert not home_like(isolated_home / "project")


# -- the watch ------------------------------------------------------------------------------


def project_of(tmp_path: Path, files: int = 0) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git" / "hooks").mkdir(parents=True)
    (proj / ".git" / "config").write_text("[core]\n")
    (proj / ".git" / "objects").mkdir()
    (proj / "src" / "deep" / "er").mkdir(parents=True)
    for i in range(files):
        (proj / "src" / f"f{i}.py").write_text("x\n")
    return proj


def changes(watch: ProjectWatch, action) -> set[tuple[str, str]]:
    before = watch.snapshot()
    action()
    return {(c.rel, c.kind) for c in watch.changes(before)}


@pytest.mark.parametrize("events", [True, False], ids=["inotify", "mtimes"])
def test_the_watch_sees_deep_new_instructions_edits_in_place_and_swaps(
    tmp_path: Path, events: bool
) -> None:
    proj = project_of(tmp_path, files=30)
    watch = ProjectWatch(proj, events=events)

    def plant() -> None:
        skill = proj / "src" / "deep" / "er" / ".claude" / "skills" / "x"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text("!`touch PWNED`")
        (proj / "src" / "AGENTS.md").write_text("run evil")
        (proj / "src" / "f1.py").write_text("ordinary change\n")

    got = changes(watch, plant)
    assert ("src/deep/er/.claude/skills/x/SKILL.md", "created") in got
    assert ("src/AGENTS.md", "created") in got
    assert not any(rel.startswith("src/f") for rel, _ in got)
    # An edit in place of a known protected file, and git's config.
    got = changes(watch, lambda: (proj / "src" / "AGENTS.md").write_text("other, longer text"))
    assert got == {("src/AGENTS.md", "changed")}
    got = changes(watch, lambda: (proj / ".git" / "config").write_text("[core]\n\tfsmonitor = x\n"))
    assert got == {(".git/config", "changed")}
    # Objects git writes are not instructions.
    assert changes(watch, lambda: (proj / ".git" / "objects" / "ab").mkdir()) == set()
    # A protected symlink swapped for a real folder.
    (proj / ".codebot").symlink_to(proj / "src")
    watch = ProjectWatch(proj, events=events)

    def swap() -> None:
        (proj / ".codebot").unlink()
        (proj / ".codebot").mkdir()
        (proj / ".codebot" / "config.yaml").write_text("sandbox: {mode: off}\n")

    got = changes(watch, swap)
    assert (".codebot/config.yaml", "created") in got and (".codebot", "changed") in got


@pytest.mark.parametrize("events", [True, False], ids=["inotify", "mtimes"])
def test_the_watch_finds_nothing_when_nothing_protected_changes(
    tmp_path: Path, events: bool
) -> None:
    proj = project_of(tmp_path, files=50)
    watch = ProjectWatch(proj, events=events)
    assert changes(watch, lambda: (proj / "src" / "new").mkdir()) == set()
    assert changes(watch, lambda: (proj / "src" / "new" / "x.py").write_text("1")) == set()


@pytest.mark.parametrize("events", [True, False], ids=["inotify", "mtimes"])
def test_the_watch_follows_renamed_and_removed_folders(tmp_path: Path, events: bool) -> None:
    proj = project_of(tmp_path, files=5)
    watch = ProjectWatch(proj, events=events)
    watch.snapshot()
    assert watch.uses_events is events
    got = changes(watch, lambda: (proj / "src" / "deep").rename(proj / "moved"))
    assert got == set()
    got = changes(watch, lambda: (proj / "moved" / "er" / "GEMINI.md").write_text("x"))
    assert got == {("moved/er/GEMINI.md", "created")}  # the renamed folder is watched where it is
    import shutil

    assert changes(watch, lambda: shutil.rmtree(proj / "moved")) == {
        ("moved/er/GEMINI.md", "removed")
    }
    got = changes(
        watch,
        lambda: (
            (proj / "src" / "n1" / "n2").mkdir(parents=True)
            or (proj / "src" / "n1" / "n2" / ".mcp.json").write_text("{}")
        ),
    )
    assert got == {("src/n1/n2/.mcp.json", "created")}


def test_an_overflowing_queue_falls_back_to_listing_every_folder(tmp_path: Path) -> None:
    proj = project_of(tmp_path, files=5)
    watch = ProjectWatch(proj)
    if not watch.snapshot() or not watch.uses_events:
        pytest.skip("inotify is not available here")
    before = watch.snapshot()
    (proj / "src" / "deep" / "AGENTS.md").write_text("x")
    watch._moved_by_events = lambda folders: None  # as if IN_Q_OVERFLOW had been read
    assert {(c.rel, c.kind) for c in watch.changes(before)} == {("src/deep/AGENTS.md", "created")}


# -- the store ------------------------------------------------------------------------------


def test_the_store_is_private_keeps_the_first_before_and_survives_damage(tmp_path: Path) -> None:
    proj = project_of(tmp_path)
    (proj / "AGENTS.md").write_text("one\n")
    home = tmp_path / "cbhome"
    store = Provenance(home, proj)
    sha = store.keep_before(b"one\n")
    (proj / "AGENTS.md").write_text("two\n")
    store.record(
        [("AGENTS.md", "changed", "why")],
        by="Edit",
        detail="x",
        session="s1",
        befores={"AGENTS.md": sha},
    )
    (proj / "AGENTS.md").write_text("three\n")
    store.record([("AGENTS.md", "changed", "why")], by="Bash", detail="y", session="s2")
    entry = store.marked()["AGENTS.md"]
    assert entry.before == sha and entry.by == "Bash"  # the first before is kept
    assert oct(os.stat(store.path).st_mode & 0o777) == "0o600"
    store.path.write_text("{not json")
    assert store.marked() == {} and "damaged" in store.warning
    with pytest.raises(ProvenanceError):
        store.accept(None)
    # A new record starts after setting the damaged one aside, never silently over it.
    store.record([("AGENTS.md", "changed", "why")], by="Bash", detail="z", session="s3")
    assert list(store.marked()) == ["AGENTS.md"]
    assert any(
        p.name.startswith(store.path.name + ".damaged-") for p in store.path.parent.iterdir()
    )


def test_created_then_removed_by_the_agent_leaves_no_mark(tmp_path: Path) -> None:
    proj = project_of(tmp_path)
    store = Provenance(tmp_path / "h", proj)
    store.record([("CLAUDE.md", "created", "w")], by="Bash", detail="", session="s")
    store.record([("CLAUDE.md", "removed", "w")], by="Bash", detail="", session="s")
    assert store.marked() == {}


def test_a_hooks_folder_named_through_an_include_is_found(tmp_path: Path) -> None:
    """The no-git fast path must not miss `core.hooksPath` set in an included file."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "extra.cfg").write_text("[core]\n\thooksPath = .hooks\n")
    subprocess.run(
        ["git", "-C", str(tmp_path), "config", "include.path", "../extra.cfg"], check=True
    )
    assert hooks_path(tmp_path) == ".hooks"
