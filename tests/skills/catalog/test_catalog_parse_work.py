"""The catalog's parse does no work twice (issue 36 §4, the cold task's scan and parse).

- each SKILL.md's frontmatter is loaded once per cold load (with the skill index too);
- what the fast path read (no anchors, no aliases) is not walked again for an alias bomb,
  even when a `*` appears in it (a glob, a description); PyYAML's result still is.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from codebot.skills.catalog import Catalog, Index
from codebot.skills.files import Root, Source, frontmatter

GLOBS = 'description: Lint *.py files, not **/*.md\npaths:\n  - "**/*.py"\n  - src/*'
ALIASED = "anchor: &a text\ndescription: aliased *a here\nalso: *a"


def _roots(path: Path) -> list[Root]:
    return [Root(path, Source.PROJECT, "codebot", (0,))]


def _spy(monkeypatch, name: str) -> Counter[str]:
    seen: Counter[str] = Counter()
    real = getattr(frontmatter, name)

    def spy(text, *a, **k):
        seen[text] += 1
        return real(text, *a, **k)

    monkeypatch.setattr(frontmatter, name, spy)
    return seen


def test_the_catalog_loads_each_frontmatter_once(tmp_path, write_skill, monkeypatch):
    root = tmp_path / "skills"
    for i in range(20):
        write_skill(root, f"s{i}", f"description: skill number {i}\nmetadata:\n  n: v{i}")
    write_skill(root, "aliased", ALIASED)
    fast, slow = _spy(monkeypatch, "simple_load"), _spy(monkeypatch, "_yaml_load")
    catalog = Catalog(_roots(root), index=Index(tmp_path / "index.bin"))
    snap = catalog.load()
    assert len(snap) == 21
    assert sum(fast.values()) == 21 and max(fast.values()) == 1
    assert list(slow.values()) == [1]  # only the one with an anchor went to PyYAML


def test_fast_path_frontmatter_with_stars_is_not_walked_for_aliases(
    tmp_path, write_skill, monkeypatch
):
    root = tmp_path / "skills"
    write_skill(root, "globs", GLOBS)
    write_skill(root, "aliased", ALIASED)
    walked: list[object] = []
    real = frontmatter._count_nodes
    monkeypatch.setattr(frontmatter, "_count_nodes", lambda v, b: (walked.append(v), real(v, b))[1])
    snap = Catalog(_roots(root)).load()
    globs = next(s for s in snap if s.name == "globs")
    assert globs.paths == ("**/*.py", "src/*")
    assert globs.description == "Lint *.py files, not **/*.md"
    # only the aliased one (read by PyYAML) was counted, from its top down
    tops = [v for v in walked if isinstance(v, dict) and "description" in v]
    assert [t["description"] for t in tops] == ["aliased *a here"]


def test_an_alias_bomb_is_still_refused(tmp_path, write_skill):
    root = tmp_path / "skills"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 6)]
    write_skill(root, "bomb", "description: boom\n" + "\n".join(lines))
    catalog = Catalog(_roots(root))
    catalog.load()
    codes = {d.code for d in catalog.snapshot.diagnostics}
    assert "frontmatter-bomb" in codes
