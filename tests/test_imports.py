"""The skill system and the agent import without the UI and without litellm (the import
graph itself is checked in test_layers.py)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("litellm", "textual", "prompt_toolkit", "tree_sitter", "mcp")


def loaded_after(code: str) -> dict[str, bool]:
    probe = (
        f"import sys, json\n{code}\nprint(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "code",
    [
        "import codebot.skills, codebot.agent",
        "import codebot.skills.catalog.catalog, codebot.skills.invoke.invocation, "
        "codebot.skills.prompt.listing, codebot.skills.route.router",
        "import codebot.agent.session.loop, codebot.agent.session.setup, "
        "codebot.agent.model.client, codebot.agent.model.direct, codebot.agent.model.offline",
        "import codebot.cli",
        # MCP: the SDK loads only when a server is connected, not with the modules.
        "import codebot.mcp.config, codebot.mcp.approval, codebot.mcp.connect, "
        "codebot.mcp.http_transport, codebot.commands.mcp, codebot.commands.mcp_edit",
        "import codebot.agent.permissions.approvals, codebot.shell, codebot.shell.decide, "
        "codebot.agent.tools.shell",
    ],
)
def test_core_modules_do_not_load_heavy_libraries(code: str) -> None:
    assert loaded_after(code) == dict.fromkeys(HEAVY, False)


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_litellm_is_imported_only_by_the_model_client() -> None:
    users = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "codebot").rglob("*.py")
        if "litellm" in imports_of(p)
    ]
    assert users == [] or users == ["codebot/agent/model/litellm_wire.py"]
