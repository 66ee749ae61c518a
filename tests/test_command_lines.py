"""`command_lines`: a command as the person approves it, whole and on screen, with the
counts the question states (issue 30: approval text scrolled out of sight)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codebot.display import command_lines


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEBOT_HOME", str(tmp_path / "home" / ".codebot"))


ATTACK = "touch X" + "\n" * 121 + "git status"  # 120 blank lines between


def test_a_run_of_blank_lines_is_one_line_and_the_counts_say_so() -> None:
    shown = command_lines(ATTACK)
    assert shown.lines == ("touch X", "⏎ ×120", "git status")
    assert (shown.count, shown.blank) == (122, 120)
    assert shown.summary == "122 lines, 120 of them empty"
    assert shown.question("Run this command?") == "Run this command? (122 lines, 120 of them empty)"


def test_blank_lines_of_spaces_count_and_one_blank_line_stays() -> None:
    shown = command_lines("a\n   \n\t\n \n\nb\n\nc")
    # A tab is not blank: it is shown (escaped) and splits the runs.
    assert shown.lines == ("a", "", "\\t", "⏎ ×2", "b", "", "c")
    assert (shown.count, shown.blank) == (8, 4)


def test_a_final_newline_ends_the_last_line() -> None:
    assert command_lines("make test\n").lines == ("make test",)
    assert command_lines("make test\n").summary == ""
    assert command_lines("a\n\n\n").lines == ("a", "⏎ ×2")


def test_one_short_line_needs_no_counts() -> None:
    shown = command_lines("git status")
    assert shown.lines == ("git status",) and shown.summary == ""
    assert shown.question("Run this command?") == "Run this command?"


def test_a_long_line_is_kept_whole_and_counted() -> None:
    command = "echo " + "a" * 3000 + " && rm -rf ~/important"
    shown = command_lines(command)
    assert shown.lines == (command,)  # never clipped
    assert shown.summary == f"1 line, {len(command):,} characters"


def test_a_long_run_of_spaces_is_collapsed_inside_a_line() -> None:
    shown = command_lines("touch X;" + " " * 5000 + "git status")
    assert shown.lines == ("touch X;␠×5000git status",)
    assert "5,018 characters" in shown.summary
    assert command_lines("a" + " " * 39 + "b").lines == ("a" + " " * 39 + "b",)  # shorter runs stay


def test_control_and_invisible_characters_stay_visible_escapes() -> None:
    shown = command_lines("rm -rf ~ #\b\b\becho hi\r\nls \u202eabc\n\n\n\x1b[2Jx")
    assert shown.lines == (
        "rm -rf ~ #\\x08\\x08\\x08echo hi\\r",
        "ls \\u202eabc",
        "⏎ ×2",
        "\\x1b[2Jx",
    )
    assert shown.hidden and shown.summary.endswith("hidden characters shown as escapes")
    # Other line breaks are not newlines to bash: they are escaped, not taken as lines.
    assert command_lines("a\u2028b\x0bc\x85d").lines == ("a\\u2028b\\x0bc\\x85d",)


def test_a_hostile_command_is_shaped_in_linear_time() -> None:
    t0 = time.perf_counter()
    shown = command_lines(("x\n" + "\n" * 50 + " " * 100) * 20_000)
    assert time.perf_counter() - t0 < 5
    assert shown.count == 1_020_001 and len(shown.lines) == 40_000
