"""The plugin model: manifest parsing with hostile values, and discovery's order."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from plugin_kit import make_plugin

from codebot.skills.catalog.plugins import check_name, find_plugins, read_plugin


def manifest(folder: Path, data: object) -> Path:
    (folder / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else json.dumps(data)
    (folder / ".claude-plugin" / "plugin.json").write_text(text)
    return folder


def test_a_real_shaped_plugin_yields_its_folders(tmp_path: Path) -> None:
    root = make_plugin(tmp_path / "repo")
    p = read_plugin(root, "dir")
    assert p is not None and p.loadable and p.problems == ()
    assert (p.name, p.version, p.description) == ("toolkit", "2.1.0", "Tools for testing plugins")
    assert p.skills == (root / "skills",) and p.commands == (root / "commands",)
    assert p.agents == (root / "agents",) and p.hooks == (root / "hooks" / "hooks.json",)


@pytest.mark.parametrize(
    "name",
    ["../x", "a/b", "bundled", "plugin", "Tool Kit", "x\x1b[31m", "", "-a", "a--b", "A", 7, None],
)
def test_hostile_names_keep_the_plugin_from_loading(tmp_path: Path, name: object) -> None:
    p = read_plugin(manifest(tmp_path / "ok-folder", {"name": name}), "dir")
    assert p is not None and not p.loadable
    (problem,) = p.problems
    assert "field 'name'" in problem and "plugin.json" in problem and "\x1b" not in problem


def test_a_missing_name_falls_back_to_a_plain_folder_name_only(tmp_path: Path) -> None:
    p = read_plugin(manifest(tmp_path / "good-name", {}), "dir")
    assert p is not None and p.loadable and p.name == "good-name"
    bad = read_plugin(manifest(tmp_path / "Bad Name", {}), "dir")
    assert bad is not None and not bad.loadable and "no usable name" in bad.problems[0]


@pytest.mark.parametrize(
    "value", ["../outside", "/etc", "~/x", ["skills", "../../x"], "a/../../b", "x\x00y"]
)
def test_paths_that_leave_the_plugin_are_refused_and_named(tmp_path: Path, value: object) -> None:
    (tmp_path / "outside").mkdir()
    root = manifest(tmp_path / "p", {"name": "p", "skills": value})
    plugin = read_plugin(root, "dir")
    assert plugin is not None and plugin.loadable
    assert all(s == root / "skills" for s in plugin.skills)
    assert any("field 'skills'" in x and "leaves the plugin folder" in x for x in plugin.problems)


def test_a_symlink_leading_out_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    root = manifest(tmp_path / "p", {"name": "p", "agents": "sneaky"})
    os.symlink(tmp_path / "elsewhere", root / "sneaky")
    plugin = read_plugin(root, "dir")
    assert plugin is not None and plugin.agents == ()
    assert "field 'agents'" in plugin.problems[0]


def test_declared_paths_add_to_the_defaults_and_wrong_types_are_said(tmp_path: Path) -> None:
    root = manifest(
        tmp_path / "p",
        {"name": "p", "commands": ["extra/cmds", "./more"], "hooks": {"x": 1}, "agents": 3},
    )
    (root / "extra" / "cmds").mkdir(parents=True)
    plugin = read_plugin(root, "dir")
    assert plugin is not None
    assert plugin.commands == (root / "commands", root / "extra" / "cmds", root / "more")
    said = "\n".join(plugin.problems)
    assert "hooks written inside plugin.json" in said and "field 'agents' must be" in said


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", "\xff\xfe", '"name"'])
def test_a_broken_manifest_is_said_not_raised(tmp_path: Path, text: str) -> None:
    plugin = read_plugin(manifest(tmp_path / "p", text), "dir")
    assert plugin is not None and plugin.problems
    assert "plugin.json" in plugin.problems[0]


def test_a_fifo_manifest_does_not_block(tmp_path: Path) -> None:
    (tmp_path / "p" / ".claude-plugin").mkdir(parents=True)
    os.mkfifo(tmp_path / "p" / ".claude-plugin" / "plugin.json")
    plugin = read_plugin(tmp_path / "p", "dir")
    assert plugin is None or "cannot read the manifest" in plugin.problems[0]


def test_control_characters_in_description_are_escaped(tmp_path: Path) -> None:
    root = manifest(tmp_path / "p", {"name": "p", "description": "ok\x1b]0;pwned\x07"})
    plugin = read_plugin(root, "dir")
    assert plugin is not None and "\x1b" not in plugin.description
    assert "\\x1b" in plugin.description


def test_discovery_order_and_clashes(tmp_path: Path, codebot_home: Path) -> None:
    project = make_plugin(tmp_path / "proj", "same")
    given = make_plugin(tmp_path / "given", "same")
    make_plugin(codebot_home / "plugins" / "zeta", "zeta")
    (codebot_home / "plugins" / "plain").mkdir()  # no manifest: a home plugin anyway
    found = find_plugins(codebot_home, [given, given], project)
    assert [(p.name, p.origin, p.loadable) for p in found] == [
        ("same", "project", True),
        ("same", "dir", False),
        ("plain", "home", True),
        ("zeta", "home", True),
    ]
    assert "already loaded from" in found[1].problems[-1]
    assert [p.origin for p in find_plugins(codebot_home, [given])][:1] == ["dir"]


def test_a_folder_without_manifest_is_no_plugin_outside_home(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    assert read_plugin(tmp_path / "x", "dir") is None


def test_check_name() -> None:
    assert check_name("superpowers") is None and check_name("a-1") is None
    assert check_name("x" * 65) is not None and check_name("codebot") is not None


def test_a_declared_file_where_a_folder_is_read_is_said(tmp_path: Path) -> None:
    root = manifest(tmp_path / "p", {"name": "p", "commands": ["./custom/one.md"]})
    (root / "custom").mkdir()
    (root / "custom" / "one.md").write_text("# One\n")
    plugin = read_plugin(root, "dir")
    assert plugin is not None and plugin.commands == (root / "commands",)
    assert "custom/one.md" in plugin.problems[0] and "is a file" in plugin.problems[0]


def test_hidden_folders_in_the_plugins_folder_are_not_plugins(codebot_home: Path) -> None:
    make_plugin(codebot_home / "plugins" / ".install-x-123" / "p", "staged")
    make_plugin(codebot_home / "plugins" / ".hidden", "hidden")
    assert find_plugins(codebot_home) == []
