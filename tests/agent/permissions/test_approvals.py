"""Permission patterns, verdicts and approval previews."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codebot.agent.permissions import (
    ApprovalAnswer,
    ApprovalRequest,
    Approvals,
    Pattern,
    Verdict,
    parse_pattern,
    preview_for,
    session_pattern_for,
)
from codebot.agent.tools import ToolContext

# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "tool", "kind", "spec"),
    [
        ("Edit", "Edit", "any", None),
        ("  Bash  ", "Bash", "any", None),
        ("Bash(git diff:*)", "Bash", "prefix", "git diff"),
        ("Bash(npm run test *)", "Bash", "prefix", "npm run test"),
        ("Bash(npm test)", "Bash", "exact", "npm test"),
        ("Bash(*)", "Bash", "any", None),
        ("Read(src/**)", "Read", "path", "src/**"),
        ("Write(docs/*.md)", "Write", "path", "docs/*.md"),
        ("Edit(src/**/*.py)", "Edit", "path", "src/**/*.py"),
        ("Edit(./src/**)", "Edit", "path", "src/**"),
        ("Skill(pdf-*)", "Skill", "glob", "pdf-*"),
        ("mcp__github__create_issue", "mcp__github__create_issue", "any", None),
        ('Bash(echo ")")', "Bash", "exact", 'echo ")"'),
    ],
)
def test_parse_valid(text: str, tool: str, kind: str, spec: str | None) -> None:
    p = parse_pattern(text)
    assert (p.tool, p.kind, p.spec) == (tool, kind, spec)
    assert p.text == text.strip()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("*", "not supported"),
        ("*(x)", "not supported"),
        ("Bash(git diff:*", "unbalanced"),
        ("Bash(git diff))", "unbalanced"),
        ("Bash)", "unbalanced"),
        ("Bash(a(b)", "unbalanced"),
        ("(git diff)", "missing tool name"),
        ("Bash()", "empty specifier"),
        ("Bash(:*)", "empty command prefix"),
        ("Read(!src/**)", "negated"),
        ("Read(/)", "empty path"),
        ("Bad Name", "not a tool name"),
        ("Edit(x)y", "unbalanced"),
    ],
)
def test_parse_invalid(text: str, message: str) -> None:
    with pytest.raises(ValueError) as e:
        parse_pattern(text)
    assert message in str(e.value)


# --------------------------------------------------------------------------- Bash matching


def test_bash_prefix_word_boundaries() -> None:
    p = parse_pattern("Bash(git diff:*)")
    assert p.matches("Bash", "git diff")
    assert p.matches("Bash", "git diff --stat HEAD~1")
    assert p.matches("Bash", "git diff\tx")
    assert not p.matches("Bash", "git difftool")
    assert not p.matches("Bash", "git dif")
    assert not p.matches("Bash", "git log")
    assert not p.matches("Edit", "git diff")
    assert not p.matches("Bash", "echo git diff")


def test_bash_exact() -> None:
    p = parse_pattern("Bash(npm test)")
    assert p.matches("Bash", "npm test")
    assert p.matches("Bash", "  npm test ")
    assert not p.matches("Bash", "npm test --watch")
    assert not p.matches("Bash", "npm tests")


@pytest.mark.parametrize(
    "command",
    [
        "git diff; rm -rf /",
        "git diff && curl x",
        "git diff || curl x",
        "git diff | sh",
        "git diff & rm x",
        "git diff $(rm x)",
        "git diff `rm x`",
        "git diff > /etc/x",
        "git diff >> /etc/x",
        "git diff < /etc/passwd",
        "git diff <(rm x)",
        "git diff\nrm x",
        "git diff\rrm x",
    ],
)
def test_bash_rules_refuse_metachars(command: str) -> None:
    assert not parse_pattern("Bash(git diff:*)").matches("Bash", command)
    assert not parse_pattern(
        f"Bash({command.split(' ', 2)[0]} {command.split(' ', 2)[1]}:*)"
    ).matches("Bash", command)
    assert not Pattern.exact("Bash", command).matches("Bash", command)
    approvals = Approvals(allow=["Bash(git diff:*)"])
    v = approvals.check("Bash", command)
    assert v.outcome == "ask"
    # the reason names what the parser saw: the uncovered part, or the construct that is not plain
    assert "is not covered by Bash(git diff:*)" in v.reason or "not plain" in v.reason, v.reason
    # a bare Bash rule is "any call", chained or not
    assert parse_pattern("Bash").matches("Bash", command)


# --------------------------------------------------------------------------- path matching


def test_path_globs() -> None:
    read = parse_pattern("Read(src/**)")
    assert read.matches("Read", "src/a.py")
    assert read.matches("Read", "src/deep/er/a.py")
    assert read.matches("Read", "./src/a.py")
    assert not read.matches("Read", "src2/a.py")
    assert not read.matches("Read", "lib/src/a.py")
    assert not read.matches("Read", "src/../secrets/key")
    assert not read.matches("Read", "../src/a.py")
    assert not read.matches("Read", "/src/a.py")
    assert not read.matches("Write", "src/a.py")

    docs = parse_pattern("Write(docs/*.md)")
    assert docs.matches("Write", "docs/a.md")
    assert not docs.matches("Write", "docs/sub/a.md")
    assert not docs.matches("Write", "docs/a.txt")

    py = parse_pattern("Edit(src/**/*.py)")
    assert py.matches("Edit", "src/a.py")
    assert py.matches("Edit", "src/x/y/z.py")
    assert not py.matches("Edit", "src/a.txt")
    assert not py.matches("Edit", "tests/a.py")

    anywhere = parse_pattern("Edit(*.md)")  # gitignore: no slash matches at any depth
    assert anywhere.matches("Edit", "README.md") and anywhere.matches("Edit", "docs/x/y.md")

    anchored = parse_pattern("Edit(/build/**)")
    assert anchored.matches("Edit", "build/out.js")
    assert not anchored.matches("Edit", "src/build/out.js")


def test_absolute_path_rules(tmp_path: Path) -> None:
    p = parse_pattern(f"Edit(/{tmp_path}/**)")
    assert p.matches("Edit", str(tmp_path / "a" / "b.txt"))
    assert not p.matches("Edit", "a/b.txt")
    assert not p.matches("Edit", "/elsewhere/b.txt")


def test_other_tools_glob() -> None:
    p = parse_pattern("Skill(pdf-*)")
    assert p.matches("Skill", "pdf-extract")
    assert not p.matches("Skill", "docx")


# --------------------------------------------------------------------------- Approvals


def test_read_only_tools_allowed() -> None:
    a = Approvals()
    for tool in ("Read", "Glob", "Grep", "SkillSearch", "Skill", "Task"):
        v = a.check(tool, "anything")
        assert v.outcome == "allow", tool
        assert v.rule is None
    assert a.check("Bash", "ls").outcome == "ask"
    assert a.check("Edit", "a.py").outcome == "ask"
    assert a.check("Write", "a.py") == Verdict("ask", None, "needs approval")
    custom = Approvals(read_only_tools={"Read"})
    assert custom.check("Grep", ".").outcome == "ask"


def test_allow_rules() -> None:
    a = Approvals(allow=["Bash(git diff:*)", "Edit(src/**)", "Write"])
    v = a.check("Bash", "git diff --stat")
    assert v == Verdict("allow", "Bash(git diff:*)", v.reason)
    assert a.check("Bash", "git push").outcome == "ask"
    assert a.check("Edit", "src/a.py").outcome == "allow"
    assert a.check("Edit", "setup.py").outcome == "ask"
    assert a.check("Write", "anything/at/all").outcome == "allow"


def test_deny_wins() -> None:
    a = Approvals(
        allow=["Bash", "Edit", "Read"], deny=["Bash(rm:*)", "Edit(secrets/**)", "Read(.env)"]
    )
    assert a.check("Bash", "ls").outcome == "allow"
    v = a.check("Bash", "rm -rf build")
    assert v.outcome == "deny" and v.rule == "Bash(rm:*)"
    # deny rules look inside chained commands
    assert a.check("Bash", "make && rm -rf build").outcome == "deny"
    assert a.check("Bash", "echo x; sudo rm -rf /").outcome == "deny"
    assert a.check("Bash", "FOO=1 rm x").outcome == "deny"
    assert a.check("Bash", "echo $(rm x)").outcome == "deny"
    assert a.check("Bash", "rmdir x").outcome == "allow"
    assert a.check("Edit", "secrets/key.pem").outcome == "deny"
    # deny beats read-only and session grants too
    assert a.check("Read", ".env").outcome == "deny"
    a.grant_session("Edit(secrets/**)")
    assert a.check("Edit", "secrets/key.pem").outcome == "deny"
    assert a.check("Bash", "rm x", turn_grants=["Bash(rm:*)"]).outcome == "deny"


def test_turn_grants_only_while_passed() -> None:
    a = Approvals()
    grants = ["Bash(git status:*)", "Edit", "not a (valid pattern"]
    v = a.check("Bash", "git status -s", turn_grants=grants)
    assert v.outcome == "allow" and v.rule == "Bash(git status:*)"
    assert "turn" in v.reason
    assert a.check("Edit", "a.py", turn_grants=grants).outcome == "allow"
    # the next turn passes no grants: asking again
    assert a.check("Bash", "git status -s").outcome == "ask"
    assert a.check("Edit", "a.py").outcome == "ask"
    assert a.check("Bash", "git status; rm x", turn_grants=grants).outcome == "ask"
    assert (
        a.check("Bash", "git status -s", turn_grants=[parse_pattern("Bash(git status:*)")]).outcome
        == "allow"
    )


def test_session_grants() -> None:
    a = Approvals()
    assert a.check("Bash", "npm test").outcome == "ask"
    rule = a.grant_session("Bash(npm test)")
    assert rule is not None
    v = a.check("Bash", "npm test")
    assert v.outcome == "allow" and v.rule == "Bash(npm test)" and "session" in v.reason
    assert a.check("Bash", "npm test --watch").outcome == "ask"
    # granting twice keeps one rule; a broken pattern is a warning, not a crash
    a.grant_session("Bash(npm test)")
    assert len(a.session_rules) == 1
    assert a.grant_session("Bash(") is None
    assert any("Bash(" in w for w in a.warnings)


def test_session_pattern_for_grants_exactly_what_was_seen() -> None:
    a = Approvals()
    # a command ending in ':*' must not turn into a prefix rule
    a.grant_session(session_pattern_for("Bash", "echo a:*"))
    assert a.check("Bash", "echo a:*").outcome == "allow"
    assert a.check("Bash", "echo a rm -rf x").outcome == "ask"
    # a path with glob characters is a literal path
    a.grant_session(session_pattern_for("Edit", "src/[id].tsx"))
    assert a.check("Edit", "src/[id].tsx").outcome == "allow"
    assert a.check("Edit", "src/i.tsx").outcome == "ask"
    a.grant_session(session_pattern_for("Write", "docs/*"))
    assert a.check("Write", "docs/other.md").outcome == "ask"


def test_invalid_allow_patterns_become_warnings() -> None:
    a = Approvals(allow=["Bash(", "Edit", "*"])
    assert len(a.warnings) == 2
    assert all(w.startswith("ignored") for w in a.warnings)
    assert [r.text for r in a.allow_rules] == ["Edit"]
    assert a.check("Edit", "x").outcome == "allow"
    assert a.check("Bash", "ls").outcome == "ask"


def test_a_malformed_deny_pattern_denies_the_whole_tool_it_names() -> None:
    a = Approvals(allow=["Bash"], deny=[("Bash(rm:*", "config.yaml: permissions.deny[0]")])
    assert a.check("Bash", "ls").outcome == "deny"
    assert a.check("Edit", "x.py").outcome == "ask"
    assert a.warnings == [
        "config.yaml: permissions.deny[0]: malformed deny pattern 'Bash(rm:*' "
        "('Bash(rm:*': unbalanced parentheses (the pattern must end with ')')); every Bash call is "
        "denied until it is fixed"
    ]


def test_a_deny_pattern_naming_no_tool_denies_every_tool() -> None:
    a = Approvals(allow=["Edit"], deny=["(((", "Read(!x)"])
    assert a.check("Edit", "x.py").outcome == "deny"
    assert a.check("Read", "x.py").outcome == "deny"
    assert len(a.warnings) == 2 and "every tool is denied" in a.warnings[0]


# --------------------------------------------------------------------------- previews


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    project = tmp_path / "proj"
    project.mkdir()
    return ToolContext(project_dir=project)


def test_preview_bash(ctx: ToolContext) -> None:
    assert preview_for("Bash", {"command": "git diff && rm x"}, ctx) == "git diff && rm x"


def test_preview_edit(ctx: ToolContext) -> None:
    f = ctx.project_dir / "a.py"
    f.write_text("x = 1\ny = 2\n")
    text = preview_for("Edit", {"path": "a.py", "old": "y = 2", "new": "y = 3"}, ctx)
    assert "--- a/a.py" in text and "-y = 2" in text and "+y = 3" in text
    assert f.read_text() == "x = 1\ny = 2\n"  # a preview changes nothing
    missing = preview_for("Edit", {"path": "a.py", "old": "zzz", "new": "q"}, ctx)
    assert "old text not found" in missing
    assert "outside the project" in preview_for(
        "Edit", {"path": "../x", "old": "a", "new": "b"}, ctx
    )


def test_preview_write(ctx: ToolContext) -> None:
    (ctx.project_dir / "a.txt").write_text("one\ntwo\n")
    diff = preview_for("Write", {"path": "a.txt", "content": "one\nthree\n"}, ctx)
    assert "-two" in diff and "+three" in diff
    same = preview_for("Write", {"path": "a.txt", "content": "one\ntwo\n"}, ctx)
    assert "no change" in same
    content = "".join(f"line {i}\n" for i in range(100))
    new = preview_for("Write", {"path": "new/b.txt", "content": content}, ctx)
    assert new.startswith("new file new/b.txt (")
    assert "100 lines" in new and "line 0" in new and "line 39" in new
    assert "line 40\n" not in new and "60 more lines" in new
    assert not (ctx.project_dir / "new").exists()


def test_preview_other_tools(ctx: ToolContext) -> None:
    assert '"skill": "pdf"' in preview_for("Skill", {"skill": "pdf"}, ctx)


async def test_approval_request_and_answers() -> None:
    fut: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
    req = ApprovalRequest("Bash", {"command": "ls"}, "ls", "ls", fut)
    req.future.set_result(ApprovalAnswer.ALLOW_SESSION)  # type: ignore[union-attr]
    assert await fut is ApprovalAnswer.ALLOW_SESSION
    assert {a.name for a in ApprovalAnswer} == {
        "ALLOW_ONCE",
        "ALLOW_SESSION",
        "ALLOW_ALWAYS",
        "DENY",
    }
    assert ApprovalRequest("Edit", {}, "a.py", "").future is None


def test_a_plain_command_naming_a_denied_path_is_asked_however_it_is_spelled(tmp_path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / ".env").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / ".env")
    a = Approvals(allow=["Bash(cat:*)"], deny=["Read(.env)"])
    a.project_dir = str(tmp_path)
    for word in (".env", "./.env", "src/../.env", str(tmp_path / ".env"), "link", "--file=.env"):
        v = a.check("Bash", f"cat {word}")
        assert v.outcome == "ask" and "Read(.env)" in v.reason, word
    assert a.check("Bash", "cat src/app.py").outcome == "allow"  # the control


def test_allow_for_the_session_on_a_chain_grants_each_part_exactly() -> None:
    from codebot.agent.permissions import session_patterns_for

    a = Approvals()
    for p in session_patterns_for("Bash", "make && make test"):
        a.grant_session(p)
    for command in ("make && make test", "make", "make test", "make test && make", "'make' test"):
        assert a.check("Bash", command).outcome == "allow", command
    for command in ("make && rm -rf x", "make test --watch", "make; make install", "make $(rm x)"):
        assert a.check("Bash", command).outcome == "ask", command


def test_allow_for_the_session_on_a_non_plain_command_grants_nothing_reusable() -> None:
    from codebot.agent.permissions import session_patterns_for

    a = Approvals()
    for p in session_patterns_for("Bash", "echo $(date)"):
        a.grant_session(p)
    assert a.check("Bash", "echo $(date)").outcome == "ask"
    assert a.check("Bash", "echo $(rm x)").outcome == "ask"
