"""`skills.fork_depth` and `limits.*` can only be LOWERED by a project's config, trusted
or not: a value above yours (or the default) is ignored with a warning that names the key
and the file. Before, an untrusted project could raise `skills.fork_depth` to 10."""

from __future__ import annotations

from pathlib import Path

import pytest

from codebot.config import load_settings
from codebot.home import codebot_home


@pytest.fixture
def project(project: Path) -> Path:
    (project / ".codebot").mkdir()
    return project


def project_config(project: Path, text: str) -> Path:
    path = project / ".codebot" / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def user_config(text: str) -> None:
    (codebot_home() / "config.yaml").write_text(text, encoding="utf-8")


def about(settings, key: str) -> list[str]:
    return [w for w in settings.warnings if key in w]


@pytest.mark.parametrize("trust", [False, True])
def test_a_project_cannot_raise_fork_depth(project: Path, trust: bool) -> None:
    path = project_config(project, "skills: {fork_depth: 10}\n")
    s = load_settings(cwd=project, trust=trust)
    assert s.fork_depth == 2
    (warning,) = about(s, "skills.fork_depth")
    assert str(path) in warning and "may only lower" in warning and "10" in warning


@pytest.mark.parametrize("trust", [False, True])
def test_a_project_cannot_raise_the_turn_budget(project: Path, trust: bool) -> None:
    path = project_config(
        project, "limits: {turn_requests: 100000, turn_tokens: 10, turn_seconds: 99999}\n"
    )
    s = load_settings(cwd=project, trust=trust)
    assert (s.limits.turn_requests, s.limits.turn_tokens, s.limits.turn_seconds) == (
        200,
        10,
        3600.0,
    )
    for key in ("limits.turn_requests", "limits.turn_seconds"):
        (warning,) = about(s, key)
        assert str(path) in warning and "may only lower" in warning
    assert not about(s, "limits.turn_tokens")  # lowered: fine
    assert not any(
        "not trusted" in w and "limits" in w for w in s.warnings
    )  # `limits` is a safe key


def test_the_ceiling_is_your_own_value(project: Path) -> None:
    user_config("skills: {fork_depth: 1}\nlimits: {turn_requests: 500}\n")
    project_config(project, "skills: {fork_depth: 2}\nlimits: {turn_requests: 400}\n")
    s = load_settings(cwd=project)
    assert s.fork_depth == 1 and about(
        s, "skills.fork_depth"
    )  # above your 1, though it is the default
    assert s.limits.turn_requests == 400 and not about(s, "limits.turn_requests")  # under your 500


@pytest.mark.parametrize("value", ["lots", 0, -3, ".nan", ".inf", "true"])
def test_a_project_value_that_is_no_number_cannot_reset_yours_to_the_default(
    project: Path, value: str
) -> None:
    user_config("skills: {fork_depth: 1}\n")
    path = project_config(project, f"skills: {{fork_depth: {value}}}\n")
    s = load_settings(cwd=project)
    assert s.fork_depth == 1
    assert any(str(path) in w for w in about(s, "skills.fork_depth"))


# -- controls -------------------------------------------------------------------------------


def test_a_project_may_lower_them(project: Path) -> None:
    project_config(
        project, "skills: {fork_depth: 1}\nlimits: {turn_requests: 20, turn_seconds: 60}\n"
    )
    s = load_settings(cwd=project)
    assert s.fork_depth == 1 and (s.limits.turn_requests, s.limits.turn_seconds) == (20, 60.0)
    assert not about(s, "fork_depth") and not about(s, "limits.")


def test_your_own_config_may_raise_them(project: Path) -> None:
    user_config("skills: {fork_depth: 4}\nlimits: {turn_requests: 1000}\n")
    s = load_settings(cwd=project)
    assert s.fork_depth == 4 and s.limits.turn_requests == 1000 and s.warnings == ()
