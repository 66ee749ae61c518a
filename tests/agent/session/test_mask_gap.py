"""A Bash call whose masks may be incomplete is asked before it runs, saying why, and
denied in print mode (issue 30, part 3): the session, real bwrap, a scripted model."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest
from codebot.agent.session import build_session
from codebot.agent.tools.sandbox import probe
from codebot.config import load_settings
from codebot.workspace import open_catalog

pytestmark = pytest.mark.skipif(
    not probe().ok, reason=f"the sandbox is not available here: {probe().reason}"
)

COMMAND = "touch ran; cat backend/.env"
GAP = (
    "the sandbox could not find every path your Read deny rules refuse (Read(.env)): "
    "the project walk stopped after 20,000 entries"
)


def make_project(tmp_path: Path, entries: int) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "backend").mkdir()
    (proj / "backend" / ".env").write_text("API_TOKEN=s3cr3t-4711\n")
    if entries:
        (proj / ".filler").write_text("x")
        for i in range(entries - 1):
            os.link(proj / ".filler", proj / f"f{i:05}")
    return proj


def run(
    project: Path,
    answer: ApprovalAnswer | None,
    *,
    interactive: bool = True,
    allow: tuple[str, ...] = ("Bash",),
) -> tuple[Any, list[ApprovalRequest], str]:
    asked: list[ApprovalRequest] = []

    def emit(e: Any) -> None:
        if isinstance(e, ApprovalRequest):
            asked.append(e)
            e.future.set_result(answer)

    settings = load_settings(cwd=project, trust=True)
    model = ScriptedModel(
        [{"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": COMMAND}}]}, "done"]
    )
    session = build_session(
        settings,
        open_catalog(settings),
        client=model,
        emit=emit,
        interactive=interactive,
        allow=allow,
        deny=["Read(.env)"],
    )
    record = asyncio.run(session.run_turn("go"))
    [result] = [m["content"] for m in session.history if m["role"] == "tool"]
    return record, asked, result


@pytest.fixture
def big(tmp_path: Path) -> Path:
    return make_project(tmp_path, 21000)


def test_an_incomplete_mask_is_asked_saying_why_and_a_no_runs_nothing(big: Path) -> None:
    record, asked, result = run(big, ApprovalAnswer.DENY)
    [question] = asked
    assert question.reason == f"{GAP}; run it anyway?"
    assert question.subject == COMMAND
    assert record.tool_calls[0]["status"] == "denied" and GAP in result
    assert not (big / "ran").exists()


def test_allowed_once_it_runs_with_what_was_found(big: Path) -> None:
    _, asked, result = run(big, ApprovalAnswer.ALLOW_ONCE)
    assert len(asked) == 1 and (big / "ran").exists()
    assert "s3cr3t" in result  # the person said yes to an incomplete mask: that is what it means


def test_print_mode_denies_with_the_reason(big: Path) -> None:
    record, asked, result = run(big, None, interactive=False)
    assert asked == [] and not (big / "ran").exists()
    assert record.tool_calls[0]["status"] == "denied"
    assert result.startswith(f"not run: {GAP}")


def test_a_command_asked_anyway_is_asked_once_with_both_reasons(big: Path) -> None:
    _, asked, _ = run(big, ApprovalAnswer.DENY, allow=())
    [question] = asked
    assert question.reason == f"needs approval; {GAP}; run it anyway?"


def test_the_control_a_complete_mask_asks_nothing_and_masks(tmp_path: Path) -> None:
    project = make_project(tmp_path, 0)
    _, asked, result = run(project, ApprovalAnswer.DENY)
    assert (project / "ran").exists()
    assert "s3cr3t" not in result and "Permission denied" in result
    # Only the usual offer to run a command the sandbox failed once outside it (declined).
    assert [q.outside_sandbox is not None for q in asked] == [True]
