"""Settings: files, environment and flags, and what a broken config file does."""

from __future__ import annotations

from pathlib import Path

import pytest

from codebot.cli import main
from codebot.config import codebot_home, load_settings


@pytest.fixture
def project(project: Path) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    (proj / ".codebot").mkdir()
    return proj


def home_config(text: str) -> None:
    home = codebot_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(text)


def test_project_config_beats_home_config_and_flags_beat_both(project: Path, monkeypatch) -> None:
    home_config("model: home-model\nskills:\n  listing:\n    budget: 5000\n")
    (project / ".codebot" / "config.yaml").write_text("model: project-model\n")
    s = load_settings(cwd=project, trust=True)  # an untrusted project may not set the model
    assert s.model == "project-model" and s.listing_budget == 5000
    monkeypatch.setenv("CODEBOT_MODEL", "env-model")
    assert load_settings(cwd=project).model == "env-model"
    assert load_settings(cwd=project, model="flag-model").model == "flag-model"


def test_broken_config_is_reported_with_path_and_line_and_ignored(project: Path) -> None:
    (project / ".codebot" / "config.yaml").write_text("model: x\nskills: [unclosed\n")
    s = load_settings(cwd=project)
    assert s.model is None
    [w] = s.warnings
    assert str(project / ".codebot" / "config.yaml") in w and ":3" in w and "ignoring" in w


def test_overrides_are_normalized_and_bad_values_named(project: Path) -> None:
    home_config(
        "skills:\n  overrides:\n    Code_Review: user-only\n    deploy: sometimes\n  fork_depth: "
        "-1\n"
    )
    s = load_settings(cwd=project)
    assert dict(s.overrides) == {"code-review": "user-only"}
    assert any("skills.overrides.deploy" in w and "sometimes" in w for w in s.warnings)
    assert any("fork_depth" in w for w in s.warnings) and s.fork_depth == 2


def test_config_that_is_not_a_mapping_is_ignored(project: Path) -> None:
    home_config("- a\n- b\n")
    assert any("must be a mapping" in w for w in load_settings(cwd=project).warnings)


def test_cli_prints_config_warnings_and_still_works(project: Path, capsys) -> None:
    (project / ".codebot" / "config.yaml").write_text(":\n  - [")
    assert main(["--cwd", str(project), "skills", "list", "--json"]) == 0
    captured = capsys.readouterr()
    assert "config is not valid YAML" in captured.err and '"skills"' in captured.out


def test_skills_dirs_from_config_are_relative_to_the_project(project: Path, write_skill) -> None:
    write_skill(project / "extra-skills", "extra-one", "description: From config dirs. Not for X.")
    (project / ".codebot" / "config.yaml").write_text("skills:\n  dirs: [extra-skills]\n")
    s = load_settings(cwd=project)
    assert s.skills_dirs == (project / "extra-skills",)


def test_the_dataclass_defaults_are_the_only_defaults(project: Path, monkeypatch) -> None:
    """`load_settings` reads each default from the dataclasses: change one there and an
    empty config follows it (issue 31)."""
    from codebot.config import CompactionSettings, Settings, TurnLimits

    s = load_settings(cwd=project)
    assert (
        s.listing_line,
        s.listing_when,
        s.fork_depth,
        s.shell_timeout,
        s.preselect,
        s.use_index,
        s.sandbox,
    ) == (
        Settings.listing_line,
        Settings.listing_when,
        Settings.fork_depth,
        Settings.shell_timeout,
        Settings.preselect,
        Settings.use_index,
        Settings.sandbox,
    )
    assert s.compaction == CompactionSettings() and s.limits == TurnLimits()
    changed = {"listing_line": 300, "listing_when": 90, "fork_depth": 3, "shell_timeout": 60.0}
    for name, value in changed.items():
        monkeypatch.setattr(Settings, name, value)
    monkeypatch.setattr(CompactionSettings, "skill_tokens", 1234)
    monkeypatch.setattr(CompactionSettings, "threshold", 0.5)
    monkeypatch.setattr(TurnLimits, "turn_requests", 7)
    s = load_settings(cwd=project)
    assert {name: getattr(s, name) for name in changed} == changed
    assert (s.compaction.skill_tokens, s.compaction.threshold, s.limits.turn_requests) == (
        1234,
        0.5,
        7,
    )
    home_config(
        "skills:\n  listing:\n    line: -5\n"
    )  # an invalid value falls back to the same default
    assert load_settings(cwd=project).listing_line == 300
