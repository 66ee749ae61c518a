"""Attacks on workflows and outcomes (issue 35 hardening): each test tries to get around a
rule and must fail on the code before the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor, Request, process_invocation
from codebot.skills.invoke.invocation import WORKFLOW_BODY
from codebot.skills.workflow import has_steps


def specs_of(root: Path) -> dict:
    return dict(Catalog([Root(root, Source.PROJECT, "extra", (0,))]).load().skills)


@pytest.mark.parametrize("actor", [Actor.HUMAN, Actor.MODEL])
def test_a_workflow_body_never_runs_its_commands(
    tmp_path: Path, write_skill, actor: Actor
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "step", "description: A step. Not for X.\ncontext: fork", "Step.")
    marker = tmp_path / "BODY-RAN"
    write_skill(
        root,
        "flow",
        "description: A flow. Not for X.\nsteps:\n  - {id: a, skill: step}",
        f"Docs. !`touch {marker}`\n\n```!\ntouch {marker}-block\n```\n",
    )
    ran: list[str] = []

    def runner(command: str, policy: object) -> str:
        ran.append(command)
        return "OUT-42"

    result = process_invocation(
        Request(
            skill="flow",
            actor=actor,
            project_dir=tmp_path,
            trusted_project=True,
            approve=lambda c: None,  # even an approver that says yes to everything
        ),
        specs_of(root),
        runner,
    )
    assert result.ok
    assert ran == [] and not marker.exists()
    assert "[command not run:" in result.prompt and "OUT-42" not in result.prompt
    assert any(WORKFLOW_BODY in n for n in result.notes)
    assert all(not call.ran for call in result.shell)


def test_a_plain_skill_still_runs_its_commands(tmp_path: Path, write_skill) -> None:
    """The control: the same body in a skill without `steps:` does run (as the person's)."""
    root = tmp_path / "skills"
    write_skill(root, "plain", "description: Plain. Not for X.", "Docs. !`echo hi`")
    ran: list[str] = []
    result = process_invocation(
        Request(skill="plain", project_dir=tmp_path, trusted_project=True),
        specs_of(root),
        lambda c, p: ran.append(c) or "RAN",
    )
    assert result.ok and ran == ["echo hi"] and "RAN" in result.prompt


@pytest.mark.parametrize(
    ("key", "flow"), [("steps", True), ("Steps", True), (" STEPS", True), ("step", False)]
)
def test_the_workflow_test_is_the_one_the_engine_uses(
    tmp_path: Path, write_skill, key: str, flow: bool
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "x", f"description: X. Not for X.\n'{key}':\n  - {{id: a, skill: y}}", "B")
    (spec,) = specs_of(root).values()
    assert has_steps(spec) is flow
