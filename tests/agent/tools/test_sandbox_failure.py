"""The offer to run a command once outside the sandbox is made on facts codebot checks,
never on the words the command printed (issue 30, part 4): a fake "Read-only file system"
for a writable path earns nothing; a real write outside the project does."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
from pathlib import Path

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest
from codebot.agent.session import build_session
from codebot.agent.tools.sandbox import SandboxPolicy, is_read_only_in_sandbox, probe
from codebot.agent.tools.sandbox_failure import (
    NETWORK_NOTE,
    checked_failure,
    named_paths,
    offer_reason,
    runs_network_program,
)
from codebot.config import load_settings
from codebot.shell.parse import analyze
from codebot.workspace import open_catalog

FAKE_EROFS = "touch: cannot touch 'x': Read-only file system"
needs_bwrap = pytest.mark.skipif(not probe().ok, reason=f"no sandbox here: {probe().reason}")


@pytest.fixture
def project(project: Path) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    (proj / "sub").mkdir()
    return proj


# -- the facts ----------------------------------------------------------------------------


def test_what_is_read_only_in_the_sandbox(project: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (project / ".env").write_text("x")
    policy = SandboxPolicy(project, extra_writable=(extra,), masked=(project / ".env",))
    writable = [
        "x",
        "sub/new",
        str(project / "y"),
        str(extra / "z"),
        "/tmp/x",
        "/dev/null",
        ".github/workflows/ci.yml",
        ".gitignore",
    ]
    read_only = [
        "/usr/x",
        "/etc/passwd",
        ".git/config",
        ".git/hooks/pre-commit",
        ".codebot/config.yaml",
        "sub/deep/.claude/skills/a/SKILL.md",
        "AGENTS.md",
        "sub/claude.md",
        ".mcp.json",
        str(extra / ".agents" / "s"),
        ".env",
        "sub/.cursor/rules",
    ]
    assert [p for p in writable if is_read_only_in_sandbox(p, policy)] == []
    assert [p for p in read_only if not is_read_only_in_sandbox(p, policy)] == []
    assert is_read_only_in_sandbox("x", policy, cwd="/usr")  # taken from the working folder


def test_named_paths_finds_the_path_in_common_error_lines() -> None:
    assert named_paths(FAKE_EROFS) == ["x"]
    assert "/usr/x" in named_paths("bash: /usr/x: Read-only file system")
    assert "/usr/x" in named_paths("OSError: [Errno 30] Read-only file system: '/usr/x'")
    assert "/usr/x" in named_paths("Error: EROFS: read-only file system, open '/usr/x'")
    assert "a b" in named_paths("mv: cannot move 'a b' to '.git/x': Device or resource busy")


def test_a_fake_read_only_error_for_a_writable_path_earns_nothing(project: Path) -> None:
    policy = SandboxPolicy(project)
    for fake in (
        FAKE_EROFS,
        "touch: cannot touch '/tmp/x': Read-only file system",
        f"touch: cannot touch '{project}/sub/y': Read-only file system",
        "Read-only file system",
        "mv: cannot move 'a' to 'b': Device or resource busy",
    ):
        assert checked_failure(1, fake, policy) is None, fake
    real = "touch: cannot touch '/usr/x': Read-only file system"
    assert checked_failure(1, real, policy) == "the sandbox keeps /usr/x read-only"
    assert checked_failure(0, real, policy) is None  # a command that succeeded needs no excuse
    busy = "error: could not lock config file .git/config: Device or resource busy"
    assert checked_failure(1, busy, policy) == "the sandbox keeps .git/config read-only"


def test_a_hidden_path_counts_only_when_the_policy_masks_it(project: Path) -> None:
    (project / ".env").write_text("x")
    (project / "notes.txt").write_text("x")
    policy = SandboxPolicy(project, masked=(project / ".env",))
    assert checked_failure(1, "cat: notes.txt: Permission denied", policy) is None
    assert (
        checked_failure(1, "cat: .env: Permission denied", policy)
        == "the sandbox hides .env (denied paths and credentials)"
    )


def test_a_network_claim_stands_only_for_a_program_that_uses_the_network(project: Path) -> None:
    said = "curl: (6) Could not resolve host: example.com"
    assert checked_failure(1, said, SandboxPolicy(project)) == NETWORK_NOTE
    assert checked_failure(1, said, SandboxPolicy(project, network=True)) is None

    def reason(why: str, command: str) -> str:
        return offer_reason(why, (c.words for c in analyze(command).commands))

    assert reason(NETWORK_NOTE, f"echo '{said}'; exit 6") == ""
    for command in (
        "curl -sS https://example.com",
        "sudo wget x",
        "git -C sub fetch origin",
        "bash -c 'git pull'",
        "python3 -m pip install requests",
        "npm ci",
        "x=$(cargo build)",
    ):
        assert reason(NETWORK_NOTE, command) == NETWORK_NOTE, command
    for command in ("git status", "git commit -m pull", "npm test", "pip --version", "echo curl"):
        assert not runs_network_program(c.words for c in analyze(command).commands), command
    both = f"the sandbox keeps /usr/x read-only; {NETWORK_NOTE}"
    assert (
        reason(both, "touch /usr/x; echo 'Could not resolve host'")
        == "the sandbox keeps /usr/x read-only"
    )


# -- the session, with the real sandbox -----------------------------------------------------


def run_bash(project: Path, command: str, **kw) -> tuple[list[ApprovalRequest], str]:
    """One Bash call, allowed by rule, in the real sandbox; every question is denied."""
    asked: list[ApprovalRequest] = []

    def emit(e) -> None:
        if isinstance(e, ApprovalRequest):
            asked.append(e)
            e.future.set_result(ApprovalAnswer.DENY)

    settings = dataclasses.replace(load_settings(cwd=project, trust=True), sandbox="on")
    reply = [
        {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": command}}]},
        {"text": "ok"},
    ]
    session = build_session(
        settings,
        open_catalog(settings),
        client=ScriptedModel(reply),
        allow=["Bash"],
        emit=emit,
        interactive=True,
        **kw,
    )
    record = asyncio.run(session.run_turn("go"))
    results = [m["content"] for m in session.history if m["role"] == "tool"]
    assert len(record.tool_calls) == 1
    return asked, results[0]


@needs_bwrap
def test_a_printed_read_only_error_gets_no_offer_to_run_outside(project: Path) -> None:
    command = "touch X" + "\n" * 121 + f'echo "{FAKE_EROFS}" >&2; exit 1'
    asked, result = run_bash(project, command)
    assert asked == []  # no "run it once outside the sandbox?"
    assert "Read-only file system" in result and (project / "X").exists()  # it ran, inside


@needs_bwrap
def test_a_printed_network_error_gets_no_offer_either(project: Path) -> None:
    asked, _ = run_bash(project, "echo 'curl: (6) Could not resolve host: example.com' >&2; exit 6")
    assert asked == []


@needs_bwrap
def test_a_real_write_outside_the_project_gets_the_offer_with_the_whole_command(
    project: Path,
) -> None:
    target = Path("/usr/codebot-sandbox-offer-test")
    assert not target.exists()
    command = "true\n\n\n\ntouch " + str(target)
    try:
        asked, result = run_bash(project, command)
    finally:
        if target.exists():  # only if the test failed badly: root could write there outside
            target.unlink()
    assert [a.outside_sandbox for a in asked] == [f"the sandbox keeps {target} read-only"]
    assert asked[0].subject == command
    assert asked[0].preview.startswith(f"true\n⏎ ×3\ntouch {target}\n\nfailed inside the sandbox: ")
    assert asked[0].preview.endswith("Run it once OUTSIDE the sandbox? (5 lines, 3 of them empty)")
    assert "Read-only file system" in result


@needs_bwrap
@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_a_real_network_failure_of_curl_gets_the_offer(project: Path) -> None:
    # Inside the sandbox there is no network at all: the name lookup fails at once.
    asked, _ = run_bash(project, "curl -sS --max-time 5 http://example.invalid/")
    assert [a.outside_sandbox for a in asked] == [NETWORK_NOTE]


@needs_bwrap
def test_a_masked_file_gets_the_offer_and_a_fake_one_does_not(project: Path) -> None:
    (project / ".env").write_text("TOKEN=x\n")
    (project / "notes.txt").write_text("hello\n")
    asked, _ = run_bash(project, "cat .env", deny=["Read(.env)"])
    assert [a.outside_sandbox for a in asked] == [
        "the sandbox hides .env (denied paths and credentials)"
    ]
    asked, _ = run_bash(
        project, "echo 'cat: notes.txt: Permission denied' >&2; exit 1", deny=["Read(.env)"]
    )
    assert asked == []
