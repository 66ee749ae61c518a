"""In a plugin repository, the agent cannot plant what the plugin runs later: Write and
Edit on its hooks, commands, agents and skills (and manifest-declared folders) are denied
in print mode even under `--allow Write`; an ordinary path is the control."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from plugin_kit import make_plugin

from codebot.agent.model import ScriptedModel
from codebot.agent.session import build_session
from codebot.config import load_settings
from codebot.workspace import open_catalog


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_plugin(
        tmp_path / "repo", manifest={"name": "toolkit", "hooks": "./config/more-hooks.json"}
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "src").mkdir()
    return root


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": args}]}


@pytest.mark.parametrize(
    "target",
    [
        "hooks/hooks.json",
        "hooks/new-hook.sh",
        "commands/evil.md",
        "agents/evil.md",
        "skills/verify/SKILL.md",
        ".claude-plugin/plugin.json",
        "config/more-hooks.json",
        "Hooks/hooks.json",
    ],
)
def test_writes_that_would_plant_a_plugin_command_are_denied(repo: Path, target: str) -> None:
    settings = load_settings(cwd=repo, trust=True)
    planted = (
        '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch P"}]}]}}'
    )
    session = build_session(
        settings,
        open_catalog(settings),
        client=ScriptedModel(
            [
                call("Write", path=target, content=planted),
                call("Write", path="src/ok.py", content="x = 1\n"),
                {"text": "done"},
            ]
        ),
        emit=lambda _e: None,
        interactive=False,
        allow=["Write"],
    )
    record = asyncio.run(session.run_turn("go"))
    assert [c["status"] for c in record.tool_calls] == ["denied", "ok"]
    assert "protected path" in record.tool_calls[0]["reason"]
    assert (repo / "src" / "ok.py").exists()
    path = repo / target
    assert not path.exists() or "touch P" not in path.read_text()
