"""Instruction files in `/context` (their own line, out of "system prompt") and after
compaction (they are in the system prompt, which compaction keeps): through the session
with a scripted model, and through a real `codebot -p --continue --compact` process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.model.summary import SUMMARY_PREFIX
from codebot.agent.session import build_session
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.workspace import open_catalog

RULE = "ROOT-RULE: run make check before you finish. " * 60  # ~2,800 characters
ODD = "s\x1b[31mx"  # a folder name with an escape sequence in it


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "AGENTS.md").write_text(RULE + "\n")
    (project / "CLAUDE.md").write_text("CLAUDE-RULE: see @docs/style.md\n")
    (project / "docs").mkdir()
    (project / "docs" / "style.md").write_text("STYLE-RULE: tabs\n")
    (project / ODD).mkdir()
    (project / ODD / "AGENTS.md").write_text("NESTED-RULE: keep it small\n")
    return project


def _context(cwd: Path) -> tuple[str, Any]:
    ctrl = Controller(load_settings(cwd=cwd, trust=True), client=ScriptedModel([]))
    try:
        return ctrl.builtin("context").text, ctrl.context_use()
    finally:
        ctrl.close()


def test_context_shows_the_instructions_on_their_own_line(repo: Path) -> None:
    text, use = _context(repo / ODD)
    row = next(line for line in text.splitlines() if line.startswith("  instructions"))
    assert "AGENTS.md, CLAUDE.md, docs/style.md, s\\x1b[31mx/AGENTS.md" in row
    assert "\x1b" not in text
    assert use.instructions > len(RULE) // 4 - 50  # the 4-characters-a-token estimate
    assert f"{use.instructions:,} tokens" in row
    assert use.total == sum(use.parts().values())
    # The control: the same folder without the files has no such line, and the same
    # "system prompt" row (the files are counted out of it, not twice).
    for name in ("AGENTS.md", "CLAUDE.md", f"{ODD}/AGENTS.md"):
        (repo / name).unlink()
    bare_text, bare = _context(repo / ODD)
    assert "instructions" not in bare_text.replace("skill instructions", "")
    assert bare.instructions == 0
    assert abs(use.system - bare.system) <= 2, (use.system, bare.system)


def _summarizing(request) -> Any:
    last = request.messages[-1]
    if last["role"] == "user" and str(last.get("content", "")).startswith(SUMMARY_PREFIX):
        return "SUMMARY-OF-WORK: greeted twice"
    return "ok"


def test_instructions_survive_compaction_in_the_session(repo: Path) -> None:
    client = ScriptedModel([_summarizing] * 10)
    settings = load_settings(cwd=repo, trust=True)
    session = build_session(settings, open_catalog(settings), client=client)
    try:

        async def run() -> Any:
            await session.run_turn("hello")
            await session.run_turn("hello again")
            record = await session.compact("")
            await session.run_turn("and now?")
            return record

        record = asyncio.run(run())
    finally:
        session.transcript.close()
    assert record is not None
    after = client.requests[-1].messages
    assert str(after[1]["content"]).startswith("<conversation-summary")
    assert "SUMMARY-OF-WORK" in str(after[1]["content"])
    system = after[0]["content"]
    for marker in ("ROOT-RULE", "CLAUDE-RULE", "STYLE-RULE"):
        assert marker in system, marker
    assert client.requests[0].messages[0]["content"] == system  # the same files, unchanged


@pytest.mark.slow
def test_a_compacted_print_run_still_sends_the_instructions(repo: Path, fake_openai) -> None:
    summaries: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        last = body["messages"][-1]
        if last["role"] == "user" and str(last.get("content", "")).startswith(SUMMARY_PREFIX):
            summaries.append(body)
            return {"text": "SUMMARY-OF-WORK: greeted"}
        return {"text": "ok"}

    fake_openai.responder = answer
    base = [sys.executable, "-m", "codebot", "--cwd", str(repo), "--trust"]
    base += ["--api-base", fake_openai.url, "--model", "openai/test-model"]
    for i, extra in enumerate([[], ["--continue"], ["--continue", "--compact"]]):
        r = subprocess.run(
            [*base, "-p", f"message {i}", *extra], capture_output=True, text=True, timeout=90
        )
        assert r.returncode == 0, r.stderr
    assert len(summaries) == 1, "the third run compacted first"
    after = fake_openai.requests[-1]["messages"]
    assert str(after[1]["content"]).startswith("<conversation-summary")
    assert "ROOT-RULE" in after[0]["content"] and "STYLE-RULE" in after[0]["content"]
    assert json.dumps(after).count("ROOT-RULE: run make check") == 60  # sent once, whole
