"""Print mode cannot ask, so each denied call gets one stderr line with the rule that
would allow it, checked against the same permission engine (so the advice works)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from codebot.agent.permissions import Approvals
from codebot.agent.tools import ToolContext
from codebot.ui.print_mode import allow_rules_for, denial_hints


class Tool:
    def __init__(self, key: str) -> None:
        self.key = key

    def approval_subject(self, args, ctx=None) -> str:
        return str(args.get(self.key, ""))


def session(tmp_path: Path, deny: tuple[str, ...] = ()) -> SimpleNamespace:
    approvals = Approvals(deny=deny)
    approvals.project_dir = str(tmp_path)
    tools = {"Bash": Tool("command"), "Write": Tool("path")}
    return SimpleNamespace(
        approvals=approvals, registry=tools, context=ToolContext(project_dir=tmp_path)
    )


def denied(name: str, reason: str = "the person did not approve this call", **args: str) -> dict:
    return {"name": name, "arguments": args, "status": "denied", "reason": reason}


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("git push origin main", "Bash(git push:*)"),
        ("npm test", "Bash(npm test:*)"),
        ("cat notes.txt", "Bash(cat:*)"),
        ("make && make test", "Bash(make:*)"),
    ],
)
def test_bash_gets_a_prefix_rule_that_really_allows_it(
    tmp_path: Path, command: str, prefix: str
) -> None:
    rules, _ = allow_rules_for("Bash", command, session(tmp_path).approvals)
    assert prefix in rules[0]
    (hint,) = denial_hints([denied("Bash", command=command)], session(tmp_path))
    assert f"--allow '{prefix}'" in hint and f"Bash `{command}`" in hint


def test_a_command_no_rule_can_allow_says_why(tmp_path: Path) -> None:
    (hint,) = denial_hints([denied("Bash", command="echo hi > out.txt")], session(tmp_path))
    assert (
        "no --allow rule can allow it" in hint and "not plain" in hint and "codebot --plain" in hint
    )


def test_write_gets_a_path_rule(tmp_path: Path) -> None:
    (hint,) = denial_hints([denied("Write", path="notes.txt")], session(tmp_path))
    assert "--allow 'Write(notes.txt)'" in hint and "--allow Write" not in hint


def test_repeated_denials_give_one_line(tmp_path: Path) -> None:
    calls = [
        denied("Bash", command="npm test"),
        denied("Bash", command="npm test"),
        {"name": "Read", "arguments": {}, "status": "ok"},
    ]
    assert len(denial_hints(calls, session(tmp_path))) == 1


def test_a_deny_rule_is_named_and_never_answered_with_allow(tmp_path: Path) -> None:
    reason = "denied by rule Bash(rm:*): Bash is denied by the rule Bash(rm:*)"
    (hint,) = denial_hints(
        [denied("Bash", reason, command="rm -rf build")], session(tmp_path, ("Bash(rm:*)",))
    )
    assert (
        "denied by the rule Bash(rm:*)" in hint and "remove it" in hint and "--allow '" not in hint
    )


def test_escapes_in_a_command_never_reach_the_terminal(tmp_path: Path, capsys) -> None:
    from codebot.ui.print_mode import _say

    for hint in denial_hints([denied("Bash", command="echo \x1b[31mred")], session(tmp_path)):
        _say(hint)
    assert "\x1b" not in capsys.readouterr().err
