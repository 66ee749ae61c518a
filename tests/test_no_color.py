"""NO_COLOR: no colour (or any other terminal escape) in what codebot's commands print,
even when skill files, trace files or the model's answer carry escape sequences.
(JSON output keeps the exact data: there ESC is written as \\u001b.)"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

ESCAPES = ("\x1b", "\x9b")
# YAML double-quoted escapes: \e is ESC, \x9b the 8-bit CSI.
NAME = r'"evil\e[31m\x9b2K"'
DESCRIPTION = r'"Looks \e[32mgreen\e[0m and \x9b1A harmless. Not for anything real."'


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    skills = proj / ".codebot" / "skills"
    write_skill(
        skills,
        "evil",
        f"name: {NAME}\ndescription: {DESCRIPTION}",
        "Body \x1b[31mred\x1b[0m $ARGUMENTS\n",
    )
    write_skill(
        skills,
        "review",
        "description: Review the diff for bugs. Not for writing code.",
        "Review $ARGUMENTS.",
    )
    return proj


def codebot(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEBOT_MODEL"
    }
    env["NO_COLOR"] = "1"
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=project, env=env)


@pytest.mark.parametrize(
    "args",
    [
        ["skills", "list"],
        ["skills", "list", "--all"],
        ["skills", "show", "evil"],
        ["skills", "validate"],
        ["skills", "invoke", "evil", "x"],
        ["skills", "listing"],
        ["skills", "route", "evil green"],
        ["skills", "stats"],
        ["skills", "show", "evl"],
        ["--model", "offline", "-p", "/evil x"],
        ["--model", "offline", "-p", "/evl x"],
    ],
)
def test_no_escape_reaches_the_terminal(project: Path, args: list[str]) -> None:
    codebot(project, "skills", "invoke", "evil", "x")  # a trace with the name in it, for stats
    r = codebot(project, *args)
    assert "Traceback" not in r.stderr, r.stderr
    for ch in ESCAPES:
        assert ch not in r.stdout and ch not in r.stderr, (args, r.stdout, r.stderr)


def test_the_streamed_answer_is_cleaned_whole_even_when_split(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from codebot.ui.print_mode import _Answer

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setenv("NO_COLOR", "1")
    answer = _Answer()
    for piece in ["plain \x1b", "[31mred\x1b[", "0m done\nnext \x9b", "2K line"]:
        answer.write(piece)
    answer.end()
    assert out.getvalue() == "plain red done\nnext  line"


def test_without_no_color_the_answer_is_left_as_it_came(monkeypatch: pytest.MonkeyPatch) -> None:
    from codebot.ui.print_mode import _Answer

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.delenv("NO_COLOR", raising=False)
    answer = _Answer()
    answer.write("a \x1b[1mbold\x1b[0m word")
    answer.end()
    assert out.getvalue() == "a \x1b[1mbold\x1b[0m word"
