"""`workflow:` in the config: the defaults, good values, and bad ones refused by key."""

from __future__ import annotations

from pathlib import Path

import pytest

from codebot.config import load_settings
from codebot.workflow_config import WorkflowSettings


def settings_with(home: Path, project: Path, text: str):
    (home / ".codebot" / "config.yaml").write_text(text)
    return load_settings(cwd=project)


def test_defaults(project: Path) -> None:
    assert load_settings(cwd=project).workflow == WorkflowSettings(600.0, 4)


def test_values_are_read(isolated_home: Path, project: Path) -> None:
    s = settings_with(
        isolated_home, project, "workflow:\n  default_timeout: 30\n  max_parallel: 2\n"
    )
    assert s.workflow == WorkflowSettings(30.0, 2)
    assert isinstance(s.workflow.max_parallel, int)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("workflow: 5", "expected a mapping"),
        ("workflow:\n  max_parallel: 0", "workflow.max_parallel"),
        ("workflow:\n  max_parallel: 2.5", "whole number"),
        ("workflow:\n  max_parallel: 1000", "up to 64"),
        ("workflow:\n  default_timeout: .inf", "workflow.default_timeout"),
        ("workflow:\n  default_timeout: true", "workflow.default_timeout"),
        ("workflow:\n  colour: red", "unknown key"),
    ],
)
def test_bad_values_keep_the_default_and_say_why(
    isolated_home: Path, project: Path, text: str, words: str
) -> None:
    s = settings_with(isolated_home, project, text + "\n")
    assert s.workflow == WorkflowSettings()
    assert any(words in w for w in s.warnings), s.warnings


def test_an_untrusted_project_cannot_set_them(project: Path) -> None:
    (project / ".codebot").mkdir(exist_ok=True)
    (project / ".codebot" / "config.yaml").write_text("workflow:\n  max_parallel: 64\n")
    s = load_settings(cwd=project)
    assert s.workflow.max_parallel == 4
    assert any("workflow" in w and "not trusted" in w for w in s.warnings)
