"""The bounded scan is breadth first with a folder budget per top folder: one heavy skill
(thousands of asset folders) hides only what is inside it, never its neighbours."""

from __future__ import annotations

from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog, DirCache, Index, discover, scan_root
from codebot.skills.files import Root, Severity, Source


def _root(path: Path) -> Root:
    return Root(path, Source.PROJECT, "codebot", (0,))


@pytest.fixture
def heavy_root(skills_root: Path, write_skill) -> Path:
    write_skill(skills_root, "a-skill", "description: Sorts before the heavy one.")
    write_skill(skills_root, "heavy", "description: Holds thousands of empty folders.")
    assets = skills_root / "heavy" / "assets"
    for i in range(3000):
        (assets / f"{i:04}").mkdir(parents=True)
    write_skill(assets / "9999", "hidden", "description: Below the heavy tree: may be cut.")
    write_skill(skills_root, "z-skill", "description: Sorts after the heavy one.")
    write_skill(
        skills_root / "z-group" / "inner", "deep", "description: Deeper, after the heavy one."
    )
    return skills_root


def _names(root: Path, res) -> list[str]:
    return sorted(str(c.path.relative_to(root).parent) for c in res.candidates)


def test_a_heavy_skill_hides_nothing_beside_it(heavy_root: Path) -> None:
    res = scan_root(_root(heavy_root))
    assert _names(heavy_root, res) == ["a-skill", "heavy", "z-group/inner/deep", "z-skill"]
    [warn] = res.diagnostics
    assert (warn.code, warn.severity, warn.path) == (
        "scan-limit",
        Severity.WARNING,
        str(heavy_root / "heavy"),
    )
    assert "'heavy'" in warn.message


def test_the_same_with_kept_listings(heavy_root: Path, monkeypatch) -> None:
    monkeypatch.setattr(discover, "RACY_NS", -10_000_000_000)  # trust listings made just now
    cache = DirCache()
    first = scan_root(_root(heavy_root), cache=cache)
    again = scan_root(_root(heavy_root), cache=DirCache(cache.new, {}))
    assert again.reused > 0
    assert _names(heavy_root, again) == _names(heavy_root, first)
    assert again.diagnostics == first.diagnostics


def test_catalog_with_index_loads_the_neighbours(
    heavy_root: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(discover, "RACY_NS", -10_000_000_000)
    for _ in range(2):  # cold, then warm from the index and its folder listings
        index = Index(tmp_path / "index.json")
        snap = Catalog([_root(heavy_root)], index=index).load()
        index.save()
        assert sorted(s.name for s in snap) == ["a-skill", "deep", "heavy", "z-skill"]
        assert [d.path for d in snap.diagnostics if d.code == "scan-limit"] == [
            str(heavy_root / "heavy")
        ]


def test_the_root_wide_limit_names_what_was_left(
    skills_root: Path, write_skill, monkeypatch
) -> None:
    monkeypatch.setattr(discover, "MAX_DIRS", 8)
    monkeypatch.setattr(discover, "DIRS_PER_SKILL", 0)
    for top in ("one", "two"):
        for i in range(5):
            (skills_root / top / f"d{i}").mkdir(parents=True)
    write_skill(skills_root, "zz", "description: x")
    res = scan_root(_root(skills_root))
    # The top folders are listed first, so the skill right below the root is found.
    assert _names(skills_root, res) == ["zz"]
    [warn] = res.diagnostics
    assert warn.path == str(skills_root) and "'two'" in warn.message


def test_top_level_skills_load_before_any_deep_folder(
    skills_root: Path, write_skill, monkeypatch
) -> None:
    monkeypatch.setattr(discover, "MAX_DIRS", 30)
    monkeypatch.setattr(discover, "DIRS_PER_SKILL", 0)
    deep = skills_root / "a-deep"
    for i in range(6):
        deep = deep / f"level{i}"
        for j in range(5):
            (deep.parent / f"side{i}-{j}").mkdir(parents=True, exist_ok=True)
    for i in range(10):
        write_skill(skills_root, f"s{i}", "description: x")
    res = scan_root(_root(skills_root))
    assert {f"s{i}" for i in range(10)} <= set(_names(skills_root, res))
