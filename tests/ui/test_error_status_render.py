"""A Bash command that exits non-zero is now a call with status "error": line mode and the
TUI show it as failed (✗, `result · error`), with the exit code first, as a resumed
session does; a budget stop reads as an error too."""

from __future__ import annotations

from codebot.agent.session import events as ev
from codebot.ui.line.render import tool_result
from codebot.ui.resume_view import tool_status
from codebot.ui.tui.describe import tool_status as tui_status


def test_line_mode_marks_a_failed_command_with_its_exit_code() -> None:
    assert tool_result("error", "Bash", "exit code 2\nls: cannot access 'x'") == "✗ exit code 2"
    assert tool_result("ok", "Bash", "exit code 0\nfine") == "✓ exit code 0"  # control


def test_the_tui_title_says_error() -> None:
    e = ev.ToolFinished("c1", "Bash", "error", "exit code 1\nboom", 12.0)
    assert tui_status(e) == "error · 2 lines"


def test_a_resumed_session_reads_the_same_status_from_the_text() -> None:
    assert tool_status("Bash", "exit code 1\nFAILED") == "error"
    assert tool_status("Bash", "exit code 137 (killed by SIGKILL)\n") == "error"
    assert tool_status("Bash", "exit code 0\nok") == "ok"
    assert tool_status("Bash", "exit code 0\nexit code 1") == "ok"
    assert (
        tool_status("Task", "Task was not run: turn budget reached: 20 model requests …") == "error"
    )
    assert tool_status("Task", "the sub-agent was stopped: turn budget reached: …") == "error"
    assert tool_status("Read", "exit code 1") == "ok"  # only Bash speaks that way
