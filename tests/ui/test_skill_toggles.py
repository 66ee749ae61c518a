"""`/skills off NAME`: saved per project in `.codebot/config.local.yaml`, the person's
`$CODEBOT_HOME/config.yaml` as the fallback (docs/configuration.md, "Skill toggles")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from codebot.agent.model import ScriptedModel
from codebot.config import codebot_home, load_settings
from codebot.ui.controller import Controller
from codebot.ui.tui.app import CodebotApp

SIZE = (120, 40)


def make_project(root: Path, write_skill) -> Path:
    (root / ".git").mkdir(parents=True)
    for name in ("deploy", "review"):
        write_skill(root / ".codebot" / "skills", name, f"description: The {name} skill.")
    return root


@pytest.fixture
def projects(tmp_path: Path, write_skill) -> tuple[Path, Path]:
    return make_project(tmp_path / "a", write_skill), make_project(tmp_path / "b", write_skill)


def controller(project: Path, trust: bool = True) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=trust), client=ScriptedModel([]), interactive=True
    )


def toggle(project: Path, args: str, trust: bool = True) -> str:
    ctrl = controller(project, trust)
    try:
        said = ctrl.toggle_from_args(args)
    finally:
        ctrl.close()
    assert said is not None
    return said


def state(project: Path, name: str = "deploy", trust: bool = True) -> str:
    return load_settings(cwd=project, trust=trust).overrides.get(name, "on")


def overrides_in(path: Path) -> dict:
    return yaml.safe_load(path.read_text())["skills"]["overrides"]


def global_config(text: str) -> None:
    (codebot_home() / "config.yaml").write_text(text)


def test_a_toggle_in_one_project_does_not_reach_another(projects: tuple[Path, Path]) -> None:
    a, b = projects
    said = toggle(a, "off deploy")
    local = a / ".codebot" / "config.local.yaml"
    assert (
        said == f"deploy: off (saved in {local}; this project only, add --global for every project)"
    )
    assert overrides_in(local) == {"deploy": "off"}
    assert state(a) == "off" and state(b) == "on"
    assert not (codebot_home() / "config.yaml").exists()
    # The personal file is kept out of git: .codebot/.gitignore names it.
    assert "config.local.yaml" in (a / ".codebot" / ".gitignore").read_text().splitlines()
    assert toggle(b, "on deploy") == "deploy: on (this project sets nothing for it)"
    assert toggle(a, "off deploy") == f"deploy: off (already so in {local})"
    assert (
        not (b / ".codebot" / "config.local.yaml").exists()
        and not (b / ".codebot" / ".gitignore").exists()
    )


def test_a_global_toggle_applies_where_the_project_sets_none(projects: tuple[Path, Path]) -> None:
    a, b = projects
    said = toggle(a, "off review --global")
    assert said == f"review: off (saved in {codebot_home() / 'config.yaml'})"
    assert state(a, "review") == "off" and state(b, "review") == "off"
    assert not (a / ".codebot" / "config.local.yaml").exists()


def test_the_project_toggle_wins_over_the_global_one(projects: tuple[Path, Path]) -> None:
    a, b = projects
    global_config("skills:\n  overrides:\n    deploy: 'off'\n    review: model-only\n")
    toggle(a, "on deploy")  # undoes the global `off` here only
    toggle(a, "user-only review")
    assert overrides_in(a / ".codebot" / "config.local.yaml") == {
        "deploy": "on",
        "review": "user-only",
    }
    assert (state(a), state(a, "review")) == ("on", "user-only")
    assert (state(b), state(b, "review")) == ("off", "model-only")
    # A global change afterwards says that this project keeps its own.
    said = toggle(a, "name-only review --global")
    assert (
        said.endswith("; this project's own settings keep it user-only here)")
        and state(b, "review") == "name-only"
    )


def test_on_in_a_project_undoes_its_off_and_keeps_other_keys(projects: tuple[Path, Path]) -> None:
    a, _ = projects
    local = a / ".codebot" / "config.local.yaml"
    local.write_text("# mine\nskills:\n  overrides:\n    Review: name-only\nother: {x: 1}\n")
    assert "its comments were not kept" in toggle(a, "off deploy")  # PyYAML drops them; said
    assert state(a) == "off"
    toggle(a, "on deploy")
    data = yaml.safe_load(local.read_text())
    assert data == {"skills": {"overrides": {"Review": "name-only"}}, "other": {"x": 1}}
    assert state(a) == "on" and state(a, "review") == "name-only"
    toggle(a, "off review")  # `Review:` is the same skill: replaced, not doubled
    assert overrides_in(local) == {"review": "off"}


def test_the_controller_sees_its_own_toggle_at_once(projects: tuple[Path, Path]) -> None:
    ctrl = controller(projects[0])
    try:
        ctrl.toggle_from_args("off deploy")
        assert (
            ctrl.override_of("deploy") == "off"
            and ctrl.session.settings.overrides["deploy"] == "off"
        )
        ctrl.toggle_from_args("on deploy")
        assert ctrl.override_of("deploy") == "on"
    finally:
        ctrl.close()


def test_a_symlinked_settings_file_is_refused_and_its_target_left_alone(
    projects: tuple[Path, Path], tmp_path: Path
) -> None:
    a, _ = projects
    outside = tmp_path / "outside.yaml"
    outside.write_text("keep: me\n")
    (a / ".codebot" / "config.local.yaml").symlink_to(outside)
    said = toggle(a, "off deploy")
    assert said.startswith("error: not saved:") and "is a symbolic link" in said
    assert str(a / ".codebot" / "config.local.yaml") in said
    assert outside.read_text() == "keep: me\n"
    assert state(a) == "on"


def test_a_symlinked_settings_folder_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".codebot").symlink_to(elsewhere, target_is_directory=True)
    said = toggle(project, "off review")  # a bundled skill
    assert "is a symbolic link" in said and list(elsewhere.iterdir()) == []


def test_the_file_is_replaced_atomically(
    projects: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = projects
    local = a / ".codebot" / "config.local.yaml"
    toggle(a, "off deploy")
    before = local.read_text()
    seen: list[tuple[str, str]] = []
    real_replace = os.replace

    def failing_replace(src, dst, **kw):  # the new text is complete in the temp file first
        folder = kw.get("src_dir_fd")
        with open(os.open(src, os.O_RDONLY, dir_fd=folder)) as fh:
            seen.append((str(src), fh.read()))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    said = toggle(a, "off review")
    monkeypatch.setattr(os, "replace", real_replace)
    assert "No space left on device" in said and said.startswith("error: not saved:")
    [(tmp, text)] = seen
    assert Path(tmp).name.startswith(".config.local.yaml.") and "review: 'off'" in text
    assert local.read_text() == before  # the old file, whole
    assert sorted(p.name for p in local.parent.iterdir()) == [
        ".gitignore",
        "config.local.yaml",
        "skills",
    ]


def test_an_untrusted_project_may_narrow_but_never_widen(projects: tuple[Path, Path]) -> None:
    a, _ = projects
    global_config("skills:\n  overrides:\n    deploy: 'off'\n")
    # A cloned repository can ship both files: they may not turn on what the person turned off.
    (a / ".codebot" / "config.yaml").write_text(
        "skills:\n  overrides:\n    deploy: 'on'\n    review: user-only\n"
    )
    (a / ".codebot" / "config.local.yaml").write_text("skills:\n  overrides:\n    deploy: 'on'\n")
    assert state(a, trust=False) == "off" and state(a, "review", trust=False) == "user-only"
    # The shared file only narrows in a trusted project too; the personal file wins there.
    (a / ".codebot" / "config.local.yaml").unlink()
    assert state(a, trust=True) == "off" and state(a, "review", trust=True) == "user-only"
    said = toggle(a, "on deploy", trust=False)
    assert said.startswith("error: not saved: it would stay off here") and "codebot trust" in said
    assert not (a / ".codebot" / "config.local.yaml").exists()
    assert toggle(a, "model-only review", trust=False).startswith(
        "error: not saved: it would stay off"
    )
    toggle(a, "off review", trust=False)  # narrowing is always possible
    assert state(a, "review", trust=False) == "off"
    toggle(a, "on deploy", trust=True)
    assert state(a, trust=True) == "on"


async def test_skills_off_in_the_tui_saves_for_this_project(projects: tuple[Path, Path]) -> None:
    a, b = projects
    app = CodebotApp(controller(a), watch_skills=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/skills", "space", *"off", "space", *"deploy")
        await pilot.press("enter")
        await pilot.pause()
        assert app.controller.override_of("deploy") == "off"
    app.controller.close()
    assert overrides_in(a / ".codebot" / "config.local.yaml") == {"deploy": "off"}
    assert state(a) == "off" and state(b) == "on"
    assert not (codebot_home() / "config.yaml").exists()


@pytest.mark.parametrize(
    ("a", "b", "both"),
    [
        (None, "off", "off"),
        ("on", "user-only", "user-only"),
        ("user-only", "model-only", "off"),
        ("name-only", "model-only", "model-only"),
        ("name-only", None, "name-only"),
        ("on", None, "on"),
        ("off", "on", "off"),
        ("user-only", "name-only", "user-only"),
    ],
)
def test_narrowing_allows_only_what_both_allow(a: str | None, b: str | None, both: str) -> None:
    from codebot.project_config import narrow

    assert narrow(a, b) == both and narrow(b, a) == both


def test_only_overrides_are_read_from_the_personal_file(projects: tuple[Path, Path]) -> None:
    a, _ = projects
    (a / ".codebot" / "config.local.yaml").write_text(
        "model: evil\nskills:\n  dirs: [/x]\n  overrides: {deploy: off}\n"
    )
    s = load_settings(cwd=a, trust=True)
    assert s.model is None and s.overrides == {"deploy": "off"}
    assert any(
        "config.local.yaml: only skills.overrides is read" in w and "model, skills.dirs" in w
        for w in s.warnings
    )


def test_codebot_trust_names_the_toggles_the_personal_file_will_widen(
    projects: tuple[Path, Path],
) -> None:
    from codebot.commands.trust import describe_grants

    a, b = projects
    (a / ".codebot" / "config.local.yaml").write_text("skills:\n  overrides:\n    deploy: 'on'\n")
    assert (
        ".codebot/config.local.yaml: skills.overrides = {'deploy': 'on'} "
        "(these now win over your own toggles)" in (describe_grants(a))
    )
    assert not any("config.local.yaml" in line for line in describe_grants(b))


def test_the_listing_follows_a_toggle_at_once(projects: tuple[Path, Path]) -> None:
    """The model's eligibility is kept per snapshot and overrides (`Prompter._allowed`):
    a toggle must still change the very next listing."""
    ctrl = controller(projects[0])
    try:
        assert "- deploy" in ctrl.session.current_listing("").text
        ctrl.toggle_from_args("off deploy")
        assert "- deploy" not in ctrl.session.current_listing("").text
        ctrl.toggle_from_args("on deploy")
        assert "- deploy" in ctrl.session.current_listing("").text
    finally:
        ctrl.close()
