"""Hot reload sees every host's folders, also those that do not exist when it starts."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog, Change, default_roots
from codebot.skills.watch import SkillWatcher

TIMEOUT = 10.0


def put_skill(root: Path, name: str) -> None:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ndescription: {name} appeared later\n---\nDo it.\n", encoding="utf-8")


@pytest.fixture
def watched(tmp_path: Path, isolated_home: Path) -> Iterator[tuple[Path, Catalog, list[Change]]]:
    """A git project with no host folder at all, its catalog and a running watcher."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    home = isolated_home
    roots = default_roots(repo, home, home / ".codebot", include_bundled=False)
    catalog = Catalog(roots)
    catalog.load()
    changes: list[Change] = []
    lock = threading.Lock()

    def record(change: Change) -> None:
        with lock:
            changes.append(change)

    watcher = SkillWatcher(catalog, record)
    watcher.start()
    assert watcher.ready.wait(TIMEOUT), "watcher never became ready"
    try:
        yield repo, catalog, changes
    finally:
        watcher.stop()
        assert not watcher.running


def test_a_new_gemini_skill_is_picked_up(watched, wait_until) -> None:
    repo, catalog, _ = watched
    assert not (repo / ".gemini").exists()
    put_skill(repo / ".gemini" / "skills", "x")
    wait_until(lambda: catalog.snapshot.get("x"), TIMEOUT, ".gemini/skills/x added")
    spec = catalog.snapshot.get("x")
    assert spec is not None and spec.root.family == "gemini"
    put_skill(repo / ".gemini" / "skills", "y")  # the new folder is now watched itself
    wait_until(lambda: catalog.snapshot.get("y"), TIMEOUT, ".gemini/skills/y added")


def test_new_github_and_user_opencode_skills_are_picked_up(
    watched, isolated_home, wait_until
) -> None:
    repo, catalog, changes = watched
    put_skill(repo / ".github" / "skills", "gh")
    put_skill(isolated_home / ".config" / "opencode" / "skill", "oc")  # no ~/.config yet
    wait_until(
        lambda: catalog.snapshot.get("gh") is not None and catalog.snapshot.get("oc") is not None,
        TIMEOUT,
        "the copilot and opencode skills",
    )
    assert catalog.snapshot.get("gh").root.family == "copilot"
    assert catalog.snapshot.get("oc").root.family == "opencode"
    assert {k for c in changes for k in c.added} >= {"gh", "oc"}
