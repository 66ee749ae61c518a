"""Trust records the folder's identity with its path: (device, inode) and, in a git
repository, the root commit. Another folder at a trusted path is untrusted, with a
warning that says why and how to trust it again. Before, trust followed the path alone,
so a repository moved to a trusted path was trusted."""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codebot import trust
from codebot.commands import trust as trust_cmd
from codebot.config import load_settings
from codebot.trust import identity

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def home(codebot_home: Path) -> Path:
    """CODEBOT_HOME inside the private HOME (tests/conftest.py)."""
    return codebot_home


@pytest.fixture
def work(tmp_path: Path) -> Path:
    w = (tmp_path / "work").resolve()
    w.mkdir()
    return w


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def repository(path: Path, content: str) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "README").write_text(content)
    git(path, "add", "README")
    git(path, "commit", "-q", "-m", content)
    return path


def cli(home: Path, cwd: Path, *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="codebot")
    trust_cmd.add_parser(parser.add_subparsers(dest="command"))
    out, err = io.StringIO(), io.StringIO()
    code = trust_cmd.run_trust(parser.parse_args(["trust", *argv]), home, cwd, out, err)
    return code, out.getvalue(), err.getvalue()


def test_another_folder_moved_to_a_trusted_path_is_untrusted(home: Path, work: Path) -> None:
    proj = work / "proj"
    (proj / ".git").mkdir(parents=True)
    trust.add(home, proj)
    other = work / "other"
    (other / ".git").mkdir(parents=True)
    (other / ".codebot").mkdir()
    (other / ".codebot" / "config.yaml").write_text("model: openai/attacker\n")
    proj.rename(work / "proj-old")
    other.rename(proj)  # the other folder is now at the trusted path
    assert not trust.is_trusted(home, proj)
    entry, why = trust.check(home, proj)
    assert entry is None and "another one" in why and f"codebot trust {proj}" in why
    settings = load_settings(cwd=proj)
    assert not settings.trusted and settings.model is None  # its config is an untrusted project's
    assert any("device and inode differ" in w and "codebot trust" in w for w in settings.warnings)


@needs_git
def test_another_repository_at_the_same_inode_is_untrusted(home: Path, work: Path) -> None:
    """A folder deleted and made again may get the same inode: the root commit tells."""
    mine = repository(work / "mine", "mine")
    theirs = repository(work / "theirs", "theirs")
    st = theirs.stat()
    record = {
        "path": str(theirs),
        "since": "2026-01-01T00:00:00+00:00",
        "device": st.st_dev,
        "inode": st.st_ino,
        "root_commit": git(mine, "rev-list", "--max-parents=0", "HEAD"),
    }
    (home / "trust.json").write_text(json.dumps({"version": 1, "trusted": [record]}))
    (home / "trust.json").chmod(0o600)
    entry, why = trust.check(home, theirs / "sub")
    assert entry is None and "git repository is another one" in why and "codebot trust" in why


@needs_git
def test_a_repository_deleted_and_replaced_by_another_clone_is_untrusted(
    home: Path, work: Path
) -> None:
    repo = repository(work / "repo", "mine")
    trust.add(home, repo)
    shutil.rmtree(repo)
    repository(repo, "theirs")  # often on the freed inode: then only the root commit differs
    entry, why = trust.check(home, repo)
    assert entry is None and "codebot trust" in why


@needs_git
def test_the_root_commit_is_recorded_and_new_commits_keep_trust(home: Path, work: Path) -> None:
    repo = repository(work / "repo", "first")
    root = git(repo, "rev-parse", "HEAD")
    (repo / "src").mkdir()
    entry = trust.add(home, repo)
    assert entry.root_commit == root
    (repo / "more").write_text("x")
    git(repo, "add", "more")
    git(repo, "commit", "-q", "-m", "more")
    assert trust.is_trusted(home, repo / "src")  # the same repository, further along


@needs_git
def test_git_runs_no_program_the_repository_names(
    home: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(work / "repo", "x")
    marker = work / "RAN"
    script = work / "hook.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(script))
    git(repo, "config", "core.pager", str(script))
    root = git(repo, "rev-list", "--max-parents=0", "HEAD")
    monkeypatch.setenv("GIT_DIR", str(work / "nowhere"))  # our environment cannot redirect it
    assert identity.root_commits(str(repo / "sub")) == {root}
    assert not marker.exists()


def test_old_entries_are_trusted_by_path_and_upgraded_by_codebot_trust(
    home: Path, work: Path
) -> None:
    proj = work / "proj"
    proj.mkdir()
    (home / "trust.json").write_text(
        json.dumps(
            {"version": 1, "trusted": [{"path": str(proj), "since": "2025-05-05T00:00:00+00:00"}]}
        )
    )
    (home / "trust.json").chmod(0o600)
    assert trust.is_trusted(home, proj)  # no identity to check: trusted by path
    code, out, _ = cli(home, work, str(proj))
    assert code == 0 and "its identity is recorded now" in out
    (saved,) = json.loads((home / "trust.json").read_text())["trusted"]
    assert saved["since"] == "2025-05-05T00:00:00+00:00" and saved["inode"] == proj.stat().st_ino
    assert cli(home, work, str(proj))[1].startswith(f"{proj} was already trusted (since 2025-05-05")


def test_codebot_trust_trusts_the_new_folder_again(home: Path, work: Path) -> None:
    proj = work / "proj"
    proj.mkdir()
    trust.add(home, proj)
    proj.rename(work / "kept")  # kept: a folder deleted here could give its inode to the next one
    (work / "elsewhere").mkdir()
    (work / "elsewhere").rename(proj)
    assert not trust.is_trusted(home, proj)
    code, out, _ = cli(home, work, str(proj))
    assert code == 0 and "before was another one" in out
    assert trust.is_trusted(home, proj)
    assert [e.inode for e in trust.load(home)[0]] == [proj.stat().st_ino]


def test_a_malformed_identity_trusts_nothing(home: Path, work: Path) -> None:
    proj = work / "proj"
    proj.mkdir()
    (home / "trust.json").write_text(
        json.dumps(
            {
                "version": 1,
                "trusted": [
                    {
                        "path": str(proj),
                        "since": "x",
                        "device": "1",
                        "inode": 2,
                        "root_commit": None,
                    }
                ],
            }
        )
    )
    (home / "trust.json").chmod(0o600)
    entries, warnings = trust.load(home)
    assert entries == [] and "malformed" in warnings[0]


# -- controls -------------------------------------------------------------------------------


def test_the_same_folder_stays_trusted_and_so_does_a_subfolder(home: Path, work: Path) -> None:
    proj = work / "proj"
    (proj / "src").mkdir(parents=True)
    trust.add(home, proj)
    assert trust.check(home, proj / "src") == (trust.load(home)[0][0], None)
    assert load_settings(cwd=proj / "src").trusted


def test_an_outer_trusted_folder_still_covers_a_replaced_inner_one(home: Path, work: Path) -> None:
    inner = work / "inner"
    inner.mkdir()
    trust.add(home, work)
    trust.add(home, inner)
    inner.rename(work / "kept")
    (work / "new").mkdir()
    (work / "new").rename(inner)
    assert trust.trusted_root(home, inner).path == str(
        work
    )  # trusted through the unchanged outer one
