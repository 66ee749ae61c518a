"""What the person approves is what runs: the approval text shows the whole command, and
control, invisible and bidirectional characters as visible escapes."""

from __future__ import annotations

from codebot.agent.permissions import ApprovalRequest
from codebot.ui.line.render import approval_text

SPOOF = "rm -rf ~/work #" + "\b" * 16 + 'echo "hello" ; true #___'


def request(command: str, reason: str = "") -> ApprovalRequest:
    return ApprovalRequest("Bash", {"command": command}, command, command, reason=reason)


def test_a_backspace_spoof_shows_the_real_command() -> None:
    text = approval_text(request(SPOOF))
    assert "rm -rf ~/work #" in text and "\\x08" * 16 in text
    assert "\b" not in text
    assert "hidden or control characters" in text


def test_a_long_command_is_never_cut() -> None:
    command = "echo " + "a" * 300 + " && rm -rf ~/important"
    assert "rm -rf ~/important" in approval_text(request(command))


def test_newlines_stay_newlines_and_bidi_is_escaped() -> None:
    text = approval_text(request("echo ok\nrm -rf x \u202eoob"))
    lines = text.split("\n")
    assert "  echo ok" in lines and any(line.startswith("  rm -rf x \\u202e") for line in lines)


def test_the_reason_is_shown() -> None:
    reason = "needs approval: not plain: contains a parameter expansion `${x@P}` at column 26"
    assert "why: not plain: contains a parameter expansion `${x@P}` at column 26" in approval_text(
        request("echo ${x@P}", reason)
    )


def test_tui_preview_escapes_too() -> None:
    from codebot.ui.tui.approval import _preview

    rendered = _preview(request(SPOOF))
    plain = getattr(rendered, "code", None) or str(rendered)
    assert "\\x08" in plain and "\b" not in plain and "rm -rf ~/work" in plain
