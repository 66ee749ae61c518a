"""Where skills are looked for (roots and their ranks) and what a scan of a root finds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codebot.skills.catalog import (
    Catalog,
    bundled_dir,
    default_roots,
    discover,
    project_root,
    scan_root,
)
from codebot.skills.files import Root, Severity, Source


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git work tree at tmp/repo with the working directory two levels down."""
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    (top / "pkg" / "sub").mkdir(parents=True)
    return top


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def roots_for(cwd: Path, home: Path, **kw) -> list[Root]:
    kw.setdefault("include_bundled", False)
    return default_roots(cwd, home, home / ".codebot", **kw)


def load_from(cwd: Path, home: Path, **kw):
    return Catalog(roots_for(cwd, home, **kw)).load()


def found(root_path: Path, **root_kw) -> list[str]:
    """Paths (relative to the root) of every skill file a scan of `root_path` finds."""
    root = Root(root_path, Source.PROJECT, "codebot", (0,), **root_kw)
    return sorted(str(c.path.relative_to(root_path)) for c in scan_root(root).candidates)


# -- roots and ranks ------------------------------------------------------------------------


def test_default_roots_are_project_then_extra_then_user_then_bundled_then_plugins(repo, home):
    cwd = repo / "pkg" / "sub"
    (home / ".codebot" / "plugins" / "tools" / "skills").mkdir(parents=True)
    extra = [repo / "x1", repo / "x2"]
    roots = default_roots(cwd, home, home / ".codebot", extra_dirs=extra)
    got = [(r.path, r.source, r.family, r.rank) for r in roots]
    folders = [
        ("codebot", ".codebot/skills"),
        ("agents", ".agents/skills"),
        ("claude", ".claude/skills"),
        ("opencode", ".opencode/skills"),
        ("opencode", ".opencode/skill"),
        ("gemini", ".gemini/skills"),
        ("copilot", ".github/skills"),
        ("cursor", ".cursor/skills"),
        ("codex", ".codex/skills"),
    ]
    project = [
        (level / folder, Source.PROJECT, family, (0, 0, distance, f))
        for distance, level in enumerate([cwd, repo / "pkg", repo])
        for f, (family, folder) in enumerate(folders)
    ]
    user = [
        (home / ".codebot" / "skills", "codebot"),
        (home / ".agents" / "skills", "agents"),
        (home / ".claude" / "skills", "claude"),
        (home / ".config" / "opencode" / "skills", "opencode"),
        (home / ".config" / "opencode" / "skill", "opencode"),
        (home / ".gemini" / "skills", "gemini"),
        (home / ".copilot" / "skills", "copilot"),
        (home / ".cursor" / "skills", "cursor"),
        (home / ".codex" / "skills", "codex"),
    ]
    assert got == [
        *project,
        (repo / "x1", Source.PROJECT, "extra", (0, 1, 0)),
        (repo / "x2", Source.PROJECT, "extra", (0, 1, 1)),
        *[(path, Source.USER, family, (1, f)) for f, (path, family) in enumerate(user)],
        (bundled_dir(), Source.BUNDLED, "bundled", (2,)),
        (home / ".codebot" / "plugins" / "tools" / "skills", Source.PLUGIN, "plugin", (3, 0, 0)),
        (
            home / ".codebot" / "plugins" / "tools" / "commands",
            Source.PLUGIN,
            "commands",
            (3, 0, 1),
        ),
    ]


def test_default_roots_are_listed_in_rank_order(repo, home):
    (home / ".codebot" / "plugins" / "a" / "skills").mkdir(parents=True)
    roots = default_roots(repo / "pkg" / "sub", home, home / ".codebot", extra_dirs=[repo / "x"])
    assert sorted(roots, key=lambda r: r.rank) == roots
    assert len({r.rank for r in roots}) == len(roots)


def test_only_extra_dirs_are_explicit(repo, home):
    roots = roots_for(repo, home, extra_dirs=[repo / "x"])
    assert [r.path for r in roots if r.explicit] == [repo / "x"]


def test_include_flags_drop_user_bundled_and_plugin_roots(repo, home):
    (home / ".codebot" / "plugins" / "a" / "skills").mkdir(parents=True)
    roots = default_roots(
        repo,
        home,
        home / ".codebot",
        include_user=False,
        include_bundled=False,
        include_plugins=False,
    )
    assert {r.source for r in roots} == {Source.PROJECT}


def test_bundled_root_points_at_the_shipped_skills(repo, home):
    [bundled] = [
        r for r in default_roots(repo, home, home / ".codebot") if r.source is Source.BUNDLED
    ]
    assert bundled.path == bundled_dir()
    assert bundled.path.name in ("bundled", "_bundled_skills")


def test_project_walk_stops_at_the_git_root(repo, home, write_skill):
    write_skill(repo.parent / ".claude" / "skills", "outside", "description: above the repo")
    write_skill(repo / ".claude" / "skills", "inside", "description: in the repo")
    snapshot = load_from(repo / "pkg" / "sub", home, include_user=False)
    assert [s.name for s in snapshot] == ["inside"]
    assert all(repo in r.path.parents for r in snapshot.roots)


def test_without_git_only_the_working_directory_is_searched(tmp_path, home):
    cwd = tmp_path / "plain" / "dir"
    cwd.mkdir(parents=True)
    project = [r.path for r in roots_for(cwd, home) if r.source is Source.PROJECT]
    assert project[:3] == [
        cwd / ".codebot" / "skills",
        cwd / ".agents" / "skills",
        cwd / ".claude" / "skills",
    ]
    assert {p.parent.parent for p in project} == {cwd}  # every host's folder, at cwd only


def test_git_file_of_a_worktree_marks_the_project_root(tmp_path):
    (tmp_path / "wt" / "src").mkdir(parents=True)
    (tmp_path / "wt" / ".git").write_text("gitdir: /elsewhere/.git/worktrees/wt\n")
    assert project_root(tmp_path / "wt" / "src") == tmp_path / "wt"


def test_nearer_project_folder_shadows_farther_one(repo, home, write_skill):
    cwd = repo / "pkg"
    write_skill(repo / ".codebot" / "skills", "lint", "description: repo level")
    write_skill(cwd / ".claude" / "skills", "lint", "description: package level")
    snapshot = load_from(cwd, home, include_user=False)
    assert snapshot.get("lint").description == "package level"
    assert snapshot.shadowed[0].spec.description == "repo level"


def test_codebot_folder_beats_agents_beats_claude(repo, home, write_skill):
    for folder in (".claude", ".agents", ".codebot"):
        write_skill(repo / folder / "skills", "fmt", f"description: from {folder}")
    snapshot = load_from(repo, home, include_user=False)
    assert snapshot.get("fmt").description == "from .codebot"
    assert [s.spec.description for s in snapshot.shadowed] == ["from .agents", "from .claude"]


def test_agents_folder_beats_claude_folder(repo, home, write_skill):
    write_skill(repo / ".claude" / "skills", "fmt", "description: claude")
    write_skill(repo / ".agents" / "skills", "fmt", "description: agents")
    assert load_from(repo, home).get("fmt").description == "agents"


def test_project_folders_beat_extra_dirs_which_beat_user_folders(repo, home, write_skill):
    extra = repo / "shared-skills"
    write_skill(home / ".codebot" / "skills", "doc", "description: user")
    write_skill(extra, "doc", "description: extra")
    write_skill(extra, "only-extra", "description: extra")
    write_skill(home / ".codebot" / "skills", "only-extra", "description: user")
    write_skill(repo / ".claude" / "skills", "doc", "description: project")
    snapshot = load_from(repo, home, extra_dirs=[extra])
    assert snapshot.get("doc").description == "project"
    assert snapshot.get("only-extra").description == "extra"


def test_extra_dirs_win_in_the_order_given(repo, home, write_skill):
    first, second = repo / "first", repo / "second"
    write_skill(second, "doc", "description: second")
    write_skill(first, "doc", "description: first")
    assert load_from(repo, home, extra_dirs=[first, second]).get("doc").description == "first"


def test_user_folders_rank_codebot_home_then_agents_then_claude(repo, home, write_skill):
    write_skill(home / ".claude" / "skills", "a", "description: claude")
    write_skill(home / ".agents" / "skills", "a", "description: agents")
    write_skill(home / ".agents" / "skills", "b", "description: agents")
    write_skill(home / ".claude" / "skills", "b", "description: claude")
    write_skill(home / ".codebot" / "skills", "b", "description: codebot home")
    snapshot = load_from(repo, home)
    assert snapshot.get("a").description == "agents"
    assert snapshot.get("b").description == "codebot home"
    assert snapshot.get("b").source is Source.USER


# -- plugins ----------------------------------------------------------------------------------


def test_plugin_skills_are_namespaced(repo, home, write_skill):
    write_skill(
        home / ".codebot" / "plugins" / "forge" / "skills", "build", "description: plugin build"
    )
    spec = load_from(repo, home).get("forge:build")
    assert (spec.name, spec.key, spec.plugin, spec.source) == (
        "forge:build",
        "forge:build",
        "forge",
        Source.PLUGIN,
    )
    assert spec.source.trusted is False


def test_plugin_skill_never_collides_with_a_project_skill(repo, home, write_skill):
    write_skill(home / ".codebot" / "plugins" / "forge" / "skills", "build", "description: plugin")
    write_skill(repo / ".codebot" / "skills", "build", "description: project")
    snapshot = load_from(repo, home)
    assert snapshot.get("build").description == "project"
    assert snapshot.get("forge:build").description == "plugin"
    assert snapshot.shadowed == ()


def test_namespaced_lookup_normalizes_both_parts(repo, home, write_skill):
    write_skill(
        home / ".codebot" / "plugins" / "forge" / "skills",
        "build",
        "name: Build_All\ndescription: x",
    )
    assert load_from(repo, home).get("Forge:build all").name == "forge:Build_All"


def test_claude_style_plugin_is_named_by_its_plugin_json(repo, home, write_skill):
    pdir = home / ".codebot" / "plugins" / "checkout-dir"
    write_skill(pdir / "skills", "review", "description: x")
    (pdir / ".claude-plugin").mkdir()
    (pdir / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "code-tools", "version": "1.0.0"})
    )
    snapshot = load_from(repo, home)
    assert [s.name for s in snapshot] == ["code-tools:review"]


def test_plugin_json_skills_path_adds_to_the_skills_folder(repo, home, write_skill):
    pdir = home / ".codebot" / "plugins" / "p"
    write_skill(pdir / "custom" / "skills", "custom-one", "description: x")
    write_skill(pdir / "skills", "default-one", "description: y")
    (pdir / ".claude-plugin").mkdir()
    (pdir / ".claude-plugin" / "plugin.json").write_text(json.dumps({"skills": "custom/skills"}))
    assert sorted(s.name for s in load_from(repo, home)) == ["p:custom-one", "p:default-one"]


def test_broken_plugin_json_falls_back_to_the_folder_name(repo, home, write_skill):
    pdir = home / ".codebot" / "plugins" / "fallback"
    write_skill(pdir / "skills", "tool", "description: x")
    (pdir / ".claude-plugin").mkdir()
    (pdir / ".claude-plugin" / "plugin.json").write_text("{not json")
    assert [s.name for s in load_from(repo, home)] == ["fallback:tool"]


def test_plugins_are_ranked_by_folder_name(home):
    for name in ("zeta", "alpha"):
        (home / "plugins" / name / "skills").mkdir(parents=True)
    assert [name for name, _ in discover.plugin_roots(home / "plugins")] == ["alpha", "zeta"]


# -- what a scan finds ---------------------------------------------------------------------------


def test_scan_finds_directory_and_single_file_forms(skills_root, write_skill):
    write_skill(skills_root, "dir-form", "description: x")
    write_skill(skills_root, "lower", "description: x", filename="skill.md")
    write_skill(skills_root, "single", "description: x", single_file=True)
    assert found(skills_root) == ["dir-form/SKILL.md", "lower/skill.md", "single.md"]


def test_folder_with_both_spellings_yields_only_skill_md(skills_root, write_skill):
    write_skill(skills_root, "both", "description: upper")
    write_skill(skills_root, "both", "description: lower", filename="skill.md")
    assert found(skills_root) == ["both/SKILL.md"]


def test_top_level_docs_are_not_single_file_skills(skills_root):
    for name in ("README.md", "LICENSE.md", "CHANGELOG.md", "CLAUDE.md", "AGENTS.md", "notes.txt"):
        (skills_root / name).write_text("---\ndescription: not a skill\n---\n")
    assert found(skills_root) == []


def test_markdown_inside_a_skill_folder_is_not_a_skill(skills_root, write_skill):
    write_skill(skills_root, "tool", "description: x")
    (skills_root / "tool" / "references").mkdir()
    (skills_root / "tool" / "references" / "api.md").write_text(
        "---\ndescription: reference\n---\n"
    )
    (skills_root / "tool" / "notes.md").write_text("---\ndescription: notes\n---\n")
    assert found(skills_root) == ["tool/SKILL.md"]


def test_skill_md_inside_another_skills_folder_is_its_own_skill(skills_root, write_skill, load):
    write_skill(skills_root, "outer", "description: outer")
    write_skill(skills_root / "outer" / "examples", "inner", "description: inner")
    snapshot = load(skills_root)
    assert sorted(s.name for s in snapshot) == ["inner", "outer"]


@pytest.mark.parametrize(
    "skipped", [".git", "node_modules", "__pycache__", ".venv", "venv", "site-packages"]
)
def test_heavy_folders_are_not_scanned(skills_root, write_skill, skipped):
    write_skill(skills_root / skipped, "hidden", "description: x")
    write_skill(skills_root / "pkg" / skipped, "hidden", "description: x")
    assert found(skills_root) == []


def test_a_virtualenv_is_recognised_by_pyvenv_cfg(skills_root, write_skill):
    env = skills_root / "my-env"
    write_skill(env / "lib" / "python3.12" / "site-packages" / "pkg", "vendored", "description: x")
    write_skill(env, "top", "description: x")
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert found(skills_root) == []


@pytest.mark.parametrize("hidden", [".curated", ".system", ".experimental"])
def test_hidden_folders_are_scanned(skills_root, write_skill, hidden):
    write_skill(skills_root / hidden, "gh-fix-ci", "description: x")
    assert found(skills_root) == [f"{hidden}/gh-fix-ci/SKILL.md"]


def test_scan_descends_six_folders_and_no_further(skills_root, write_skill):
    six = skills_root / "1" / "2" / "3" / "4" / "5"
    write_skill(six, "6", "description: at depth six")
    write_skill(six / "6", "7", "description: at depth seven")
    assert found(skills_root) == ["1/2/3/4/5/6/SKILL.md"]


def test_scan_stops_after_the_folder_limit_with_a_warning(skills_root, write_skill, monkeypatch):
    monkeypatch.setattr(discover, "MAX_DIRS", 5)
    monkeypatch.setattr(discover, "DIRS_PER_SKILL", 0)
    for i in range(10):
        write_skill(skills_root, f"s{i}", "description: x")
    res = scan_root(Root(skills_root, Source.PROJECT, "codebot", (0,)))
    assert len(res.candidates) == 4  # the root itself is one of the five folders
    [diag] = res.diagnostics
    assert (diag.code, diag.severity, diag.path) == (
        "scan-limit",
        Severity.WARNING,
        str(skills_root),
    )


def test_folder_limit_grows_with_the_skills_found(skills_root, write_skill, monkeypatch):
    monkeypatch.setattr(discover, "MAX_DIRS", 5)
    for i in range(30):
        write_skill(skills_root, f"s{i}", "description: x")
        (skills_root / f"s{i}" / "scripts").mkdir()
    res = scan_root(Root(skills_root, Source.PROJECT, "codebot", (0,)))
    assert len(res.candidates) == 30 and res.diagnostics == []


def test_a_tree_without_skills_stops_at_the_limit(skills_root, monkeypatch):
    monkeypatch.setattr(discover, "MAX_DIRS", 5)
    for i in range(20):
        (skills_root / f"empty{i}").mkdir(parents=True)
    res = scan_root(Root(skills_root, Source.PROJECT, "codebot", (0,)))
    assert [d.code for d in res.diagnostics] == ["scan-limit"]


def test_scan_can_start_below_the_root(skills_root, write_skill):
    write_skill(skills_root, "a", "description: x")
    write_skill(skills_root / "group", "b", "description: x")
    root = Root(skills_root, Source.PROJECT, "codebot", (0,))
    res = scan_root(root, start=skills_root / "group")
    assert [c.path for c in res.candidates] == [skills_root / "group" / "b" / "SKILL.md"]
    assert res.candidates[0].order[0] == 2


def test_root_reached_through_a_symlink_is_scanned(tmp_path, write_skill):
    write_skill(tmp_path / "real", "linked", "description: x")
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    assert found(tmp_path / "alias") == ["linked/SKILL.md"]


# -- the same file twice ----------------------------------------------------------------------


def test_same_file_reached_from_two_roots_loads_once(tmp_path, write_skill, load, diags_for):
    shared, project = tmp_path / "shared", tmp_path / "project"
    write_skill(shared, "common", "description: x")
    project.mkdir()
    (project / "common").symlink_to(shared / "common")
    snapshot = load(project, shared)
    assert [s.path for s in snapshot] == [project / "common" / "SKILL.md"]
    assert snapshot.shadowed == ()
    [info] = diags_for(snapshot, shared / "common" / "SKILL.md")
    assert (info.code, info.severity) == ("same-file", Severity.INFO)


def test_symlinked_skill_md_in_one_root_loads_once(skills_root, write_skill, load):
    write_skill(skills_root, "original", "name: tool\ndescription: x")
    (skills_root / "copy").mkdir()
    (skills_root / "copy" / "SKILL.md").symlink_to(skills_root / "original" / "SKILL.md")
    snapshot = load(skills_root)
    assert [s.name for s in snapshot] == ["tool"]
    assert snapshot.shadowed == ()
    assert [d.code for d in snapshot.diagnostics] == ["same-file"]


def test_folder_and_a_link_to_it_load_once(skills_root, write_skill, load):
    write_skill(skills_root, "alpha", "name: tool\ndescription: x")
    (skills_root / "beta").symlink_to(skills_root / "alpha")
    snapshot = load(skills_root)
    assert len(snapshot) == 1
    assert snapshot.shadowed == ()


def test_folder_and_an_earlier_named_link_to_it_load_under_the_real_folder(
    skills_root, write_skill, load
):
    write_skill(skills_root, "zeta", "description: x")
    (skills_root / "a-link").symlink_to(skills_root / "zeta")
    assert [s.name for s in load(skills_root)] == ["zeta"]


def test_folder_and_a_later_named_link_to_it_load_under_the_real_folder(
    skills_root, write_skill, load
):
    write_skill(skills_root, "alpha", "description: x")
    (skills_root / "zz-link").symlink_to(skills_root / "alpha")
    assert [s.name for s in load(skills_root)] == ["alpha"]
