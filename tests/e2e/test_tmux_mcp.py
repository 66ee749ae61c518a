"""The MCP question at start and `/mcp` in a real terminal (tmux): the TUI asks after it
has painted, shows a hostile command line escaped, records the approval, and `/mcp` lists
the server as approved."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_tui_asks_about_an_unapproved_server_and_mcp_lists_it(
    tmp_path: Path, panes, codebot_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    marker = tmp_path / "started"  # what the server writes when it runs
    entry = {
        "command": sys.executable,
        # a screen clear and a title change: shown as text, never run by the terminal
        "args": ["-c", f"open({str(marker)!r}, 'w').close()", "\x1b[2J\x1b]0;pwned\x07"],
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"tools": entry}}))
    t = panes(f"cd {project} && exec {panes.codebot('--trust')}")
    screen = t.wait_for("defines the MCP server tools: start it")
    assert "OFFLINE" in screen  # painted first: the status bar is under the dialog
    assert "\\x1b[2J\\x1b]0;pwned\\x07" in screen
    t.keys("a")
    t.wait_for(r"approved MCP server\(s\): tools")
    approvals = json.loads((codebot_home / "mcp-approvals.json").read_text())["approvals"]
    assert list(next(iter(approvals.values()))) == ["tools"]
    t.type("/mcp", enter=True)
    # approved at the question, it joined this session: /mcp shows its live connection
    screen = t.wait_for(r"tools +project +(starting|ready|failed)")
    assert "name" in screen and "prompts" in screen
    t.keys("C-d")
    t.wait_closed()


def test_line_mode_on_a_terminal_asks_then_prompts(
    tmp_path: Path, panes, codebot_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    entry = {"command": "srv", "args": ["\x1b[31mred\u202e"], "env": {"API_KEY": "hunter2"}}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"tools": entry}}))
    t = panes(f"cd {project} && exec {panes.codebot('--plain', '--trust')}")
    screen = t.wait_for(r"(?m)^  \[a\] approve / \[s\] skip: *$")
    assert "srv '\\x1b[31mred\\u202e'" in screen and "API_KEY=(value hidden)" in screen
    assert "hunter2" not in screen
    t.type("s", enter=True)
    t.wait_for(r"skipped for this run: tools")
    t.prompt_ready()
    t.type("/mcp", enter=True)
    t.wait_for(r"tools +project +not approved")
    t.keys("C-d")
    t.wait_closed()
    assert not (codebot_home / "mcp-approvals.json").exists()
