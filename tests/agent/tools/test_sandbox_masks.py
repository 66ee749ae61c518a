"""Finding what `Read(...)` deny rules refuse, for the sandbox's masks (sandbox_scan):
literal rules are looked up, glob rules walk everything, and a walk that cannot finish
says why instead of returning a partial mask as if it were whole (issue 30, part 3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codebot.agent.permissions import Approvals
from codebot.agent.tools import ToolContext, ToolError
from codebot.agent.tools import sandbox_scan as scan_mod
from codebot.agent.tools.sandbox import SandboxPolicy
from codebot.agent.tools.sandbox_scan import DeniedPaths, find_masks, masked_paths, with_masks
from codebot.agent.tools.shell import sandboxed


def rules(*texts: str) -> list:
    return DeniedPaths(lambda _s: None, Approvals(deny=list(texts)).deny_rules).read_rules()


def fill(folder: Path, n: int) -> None:
    """`n` entries in `folder`, as hard links (much faster than new files)."""
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / ".filler"
    src.write_text("x")
    for i in range(n - 1):
        os.link(src, folder / f"f{i:05}")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / "backend").mkdir(parents=True)
    (p / "backend" / ".env").write_text("API_TOKEN=s3cr3t\n")
    return p


def test_a_literal_rule_is_looked_up_without_a_walk_however_big_the_project(project: Path) -> None:
    fill(project, 21000)
    scan = find_masks(project, rules("Read(backend/.env)", "Read(/missing.txt)"))
    assert scan.complete and scan.why == "" and scan.scanned == 0
    assert scan.paths == (project / "backend" / ".env",)
    # The control: a walk of the same project stops, and says where.
    walked = masked_paths(project, lambda rel: rel == "backend/.env")
    assert not walked.complete and "stopped after 20,000 entries" in walked.why


def test_literal_rules_anchored_folder_only_and_absolute(project: Path, tmp_path: Path) -> None:
    (project / ".env").write_text("x")
    (project / "config" / "secrets").mkdir(parents=True)
    (project / "keys").write_text("a file, not the folder the rule names")
    outside = tmp_path / "notes.txt"
    outside.write_text("x")
    scan = find_masks(
        project, rules("Read(/.env)", "Read(config/secrets/)", "Read(/keys/)", f"Read(/{outside})")
    )
    assert scan.scanned == 0
    assert sorted(scan.paths) == sorted([project / ".env", project / "config" / "secrets", outside])


def test_glob_rules_walk_every_folder_venvs_node_modules_and_git_included(project: Path) -> None:
    for rel in (
        "backend/pyvenv.cfg",
        "node_modules/pkg/.env",
        ".git/x/.env",
        "venv/pyvenv.cfg",
        "venv/.env",
    ):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("x")
    for rule in ("Read(.env)", "Read(**/.env)", "Read(*.env)"):
        scan = find_masks(project, rules(rule))
        assert scan.complete, rule
        assert sorted(scan.paths) == sorted(
            project / r
            for r in ("backend/.env", "node_modules/pkg/.env", ".git/x/.env", "venv/.env")
        ), rule


def test_an_anchored_glob_walks_only_below_its_fixed_folders(project: Path) -> None:
    fill(project / "big", 21000)
    (project / "config" / "a").mkdir(parents=True)
    (project / "config" / "a" / "k.pem").write_text("x")
    scan = find_masks(project, rules("Read(/config/**/*.pem)"))
    assert scan.complete and scan.paths == (project / "config" / "a" / "k.pem",)
    assert scan.scanned == 2  # `a` and `k.pem`: never `big`
    assert find_masks(project, rules("Read(/nowhere/**/*.pem)")).complete  # nothing to walk


def test_a_walk_that_cannot_finish_says_why_and_names_the_rules(project: Path) -> None:
    fill(project, 21000)
    scan = find_masks(project, rules("Read(.env)", "Read(backend/.env)"))
    assert not scan.complete
    assert scan.why == (
        "the sandbox could not find every path your Read deny rules refuse (Read(.env)): "
        "the project walk stopped after 20,000 entries"
    )
    assert project / "backend" / ".env" in scan.paths  # the literal one is still masked
    slow = find_masks(project, rules("Read(.env)"), limit=10**9, seconds=0.0)
    assert not slow.complete and "the project walk took more than 0 s" in slow.why


def test_too_many_denied_paths_is_incomplete(tmp_path: Path) -> None:
    for i in range(scan_mod.MAX_MASKS + 1):
        (tmp_path / f"{i}.pem").write_text("x")
    scan = find_masks(tmp_path, rules("Read(*.pem)"))
    assert not scan.complete and "more than 1,000 paths are denied" in scan.why


def test_a_folder_that_cannot_be_listed_is_incomplete_unless_it_cannot_be_entered(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_scandir = os.scandir
    locked = str(project / "backend")

    def scandir(path):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)

    monkeypatch.setattr(scan_mod.os, "scandir", scandir)
    scan = find_masks(project, rules("Read(.env)"))
    assert not scan.complete
    assert "the folder backend/ could not be read (Permission denied)" in scan.why
    # Without the x bit nothing inside can be opened, by a command either: nothing to mask.
    monkeypatch.setattr(scan_mod.os, "access", lambda path, mode: path != locked)
    assert find_masks(project, rules("Read(.env)")).complete


def test_with_masks_adds_the_paths_and_leaves_nothing_to_find(project: Path) -> None:
    approvals = Approvals(deny=["Read(backend/.env)"])
    ctx = ToolContext(
        project_dir=project,
        sandbox=SandboxPolicy(project),
        path_denied=DeniedPaths(approvals.path_denied, approvals.deny_rules),
    )
    ready, gap = with_masks(ctx)
    assert gap == "" and ready.path_denied is None
    assert ready.sandbox.masked == (project / "backend" / ".env",)
    assert with_masks(ready) == (ready, "")  # found once: the tool takes them as they are
    bare = ToolContext(project_dir=project, path_denied=ctx.path_denied)
    assert with_masks(bare) == (bare, "")  # no sandbox, nothing to mask


def test_sandboxed_refuses_a_command_whose_mask_is_incomplete(project: Path) -> None:
    fill(project, 21000)
    approvals = Approvals(deny=["Read(.env)"])
    ctx = ToolContext(
        project_dir=project,
        sandbox=SandboxPolicy(project),
        path_denied=DeniedPaths(approvals.path_denied, approvals.deny_rules),
    )
    with pytest.raises(ToolError, match="the project walk stopped after 20,000 entries"):
        sandboxed(["true"], ctx, project)
    # The control: with the literal rule the same project needs no walk, and it runs.
    ctx.path_denied = DeniedPaths(
        approvals.path_denied, Approvals(deny=["Read(backend/.env)"]).deny_rules
    )
    argv, policy = sandboxed(["true"], ctx, project)
    assert str(project / "backend" / ".env") in argv and policy.masked == (
        project / "backend" / ".env",
    )


def test_denied_paths_is_the_check_grep_and_glob_use(project: Path) -> None:
    approvals = Approvals(deny=["Read(backend/.env)", "Edit(src/**)", "Bash(rm:*)"])
    denied = DeniedPaths(approvals.path_denied, approvals.deny_rules)
    assert denied("backend/.env") == "Read(backend/.env)" and denied("README.md") is None
    assert [r.text for r in denied.read_rules()] == ["Read(backend/.env)"]
    approvals.add_deny("Read(*.pem)")  # rules added later count too
    assert [r.text for r in denied.read_rules()] == ["Read(backend/.env)", "Read(*.pem)"]
