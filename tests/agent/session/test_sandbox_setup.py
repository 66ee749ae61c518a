"""How a session's Bash sandbox is chosen: config, flags, and what happens without bwrap."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session import build_session
from codebot.agent.tools import sandbox as sandbox_mod
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.workspace import open_catalog


def session_for(project: Path, replies=(), **changes):
    settings = dataclasses.replace(load_settings(cwd=project, trust=True), **changes)
    return build_session(
        settings, open_catalog(settings), client=ScriptedModel(list(replies)), allow=["Bash"]
    )


def test_off_runs_bare_and_says_so(project: Path) -> None:
    s = session_for(project, sandbox="off")
    assert s.context.sandbox is None and s.sandbox_state.startswith("off")


def test_without_bwrap_auto_runs_bare_with_one_notice(project: Path, monkeypatch) -> None:
    monkeypatch.setattr(
        sandbox_mod, "probe", lambda bwrap=None: sandbox_mod.Availability(False, "bwrap not found")
    )
    s = session_for(project, sandbox="auto")
    assert s.context.sandbox is None
    assert s.sandbox_notice == "commands are not sandboxed: bwrap not found"


def test_without_bwrap_on_refuses_to_run_bash_bare(project: Path, monkeypatch) -> None:
    monkeypatch.setattr(
        sandbox_mod, "probe", lambda bwrap=None: sandbox_mod.Availability(False, "bwrap not found")
    )
    reply = [
        {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": "touch X"}}]},
        {"text": "ok"},
    ]
    s = session_for(project, reply, sandbox="on")
    record = asyncio.run(s.run_turn("go"))
    assert [c["status"] for c in record.tool_calls] == ["error"]
    assert not (project / "X").exists()
    assert "required" in s.sandbox_notice


@pytest.mark.skipif(not sandbox_mod.probe().ok, reason="no sandbox here")
def test_auto_uses_bwrap_where_it_works(project: Path) -> None:
    s = session_for(project, sandbox="auto")
    assert isinstance(s.context.sandbox, sandbox_mod.SandboxPolicy)
    assert s.sandbox_state.startswith("on: bubblewrap")


def test_sandbox_config_keys_and_a_typo_fails_closed(project: Path) -> None:
    from codebot.home import codebot_home

    (codebot_home() / "config.yaml").write_text("sandbox: {mode: of, network: true}\n")
    s = load_settings(cwd=project)
    assert s.sandbox == "on" and s.sandbox_network is True
    assert any("sandbox.mode" in w for w in s.warnings)


def test_untrusted_project_may_only_tighten_the_sandbox(project: Path) -> None:
    (project / ".codebot").mkdir()
    (project / ".codebot" / "config.yaml").write_text("sandbox: {mode: off, network: true}\n")
    s = load_settings(cwd=project)
    assert s.sandbox == "auto" and s.sandbox_network is False
    (project / ".codebot" / "config.yaml").write_text("sandbox: {mode: on}\n")
    assert load_settings(cwd=project).sandbox == "on"


def test_slash_sandbox_shows_the_state(project: Path) -> None:
    settings = dataclasses.replace(load_settings(cwd=project, trust=True), sandbox="off")
    ctrl = Controller(settings, client=ScriptedModel([]), interactive=True)
    try:
        assert ctrl.builtin("sandbox", "").text.startswith("sandbox: off")
    finally:
        ctrl.close()


@pytest.mark.skipif(not sandbox_mod.probe().ok, reason="no sandbox here")
@pytest.mark.parametrize(
    ("answer", "lands"), [("allow_once", True), ("deny", False), (None, False)]
)
def test_a_sandbox_failure_offers_running_once_outside(
    project: Path, monkeypatch, answer, lands
) -> None:
    import shutil
    import tempfile

    from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest

    outside = Path(tempfile.mkdtemp(prefix="codebot-out-", dir="/var/tmp"))
    monkeypatch.setenv("HOME", str(outside))
    asked: list[ApprovalRequest] = []

    def emit(e) -> None:
        if isinstance(e, ApprovalRequest):
            asked.append(e)
            e.future.set_result(ApprovalAnswer(answer))

    settings = dataclasses.replace(load_settings(cwd=project, trust=True), sandbox="on")
    reply = [
        {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": "touch ~/outside"}}]},
        {"text": "ok"},
    ]
    session = build_session(
        settings,
        open_catalog(settings),
        client=ScriptedModel(reply),
        allow=["Bash"],
        emit=emit,
        interactive=answer is not None,
    )
    try:
        asyncio.run(session.run_turn("go"))
        assert (outside / "outside").exists() is lands
        if answer is None:  # print mode never escalates
            assert asked == []
        else:
            assert [a.outside_sandbox is not None for a in asked] == [True]
    finally:
        shutil.rmtree(outside, ignore_errors=True)


@pytest.mark.skipif(not sandbox_mod.probe().ok, reason="no sandbox here")
def test_skill_shell_injections_run_in_the_sandbox_too(
    project: Path, monkeypatch, write_skill
) -> None:
    import shutil
    import tempfile

    outside = Path(tempfile.mkdtemp(prefix="codebot-out-", dir="/var/tmp"))
    monkeypatch.setenv("HOME", str(outside))
    write_skill(
        project / ".codebot" / "skills",
        "probe",
        "description: Probe. Not for X.",
        "!`touch ~/from-skill; touch ./inside-skill; echo ran`",
    )
    try:
        for mode, lands in (("on", False), ("off", True)):
            s = session_for(project, [{"text": "ok"}], sandbox=mode)
            asyncio.run(s.run_turn("/probe"))
            assert (outside / "from-skill").exists() is lands, mode
            assert (project / "inside-skill").exists()
    finally:
        shutil.rmtree(outside, ignore_errors=True)
