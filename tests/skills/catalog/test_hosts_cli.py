"""`codebot skills list` over every host's folders, as a real process with a private HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codebot.skills.catalog.hosts import project_folders, user_folders

PROJECT = list(project_folders())


def codebot(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = os.environ.copy()  # HOME and CODEBOT_HOME are the test's own (conftest)
    env["COLUMNS"] = "200"
    try:
        return subprocess.run(
            [sys.executable, "-m", "codebot", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`codebot {' '.join(args)}` did not finish in {timeout}s")


@pytest.fixture
def repo(tmp_path: Path, isolated_home: Path, write_skill) -> Path:
    """A git project with one skill in every host's project folder, one in every user
    folder, and `deploy` in .claude, .gemini and .github (claude wins) and in ~/.cursor."""
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    (top / "src").mkdir()
    for i, (family, folder) in enumerate(PROJECT):
        write_skill(top / folder, f"p{i}-{family}", "description: a project skill")
    home = isolated_home
    for i, (family, path) in enumerate(user_folders(home, home / ".codebot")):
        write_skill(path, f"u{i}-{family}", "description: a user skill")
    for folder in (".gemini/skills", ".claude/skills", ".github/skills"):
        write_skill(top / folder, "deploy", f"description: deploy, from {folder}")
    write_skill(home / ".cursor" / "skills", "deploy", "description: deploy, from cursor")
    write_skill(tmp_path / ".gemini" / "skills", "above", "description: above the git root")
    return top


def test_skills_list_json_names_every_hosts_folder_and_the_clash(repo: Path, isolated_home):
    r = codebot("skills", "list", "--json", "--all", cwd=repo / "src")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    winners = {s["name"]: s for s in data["skills"] if s["shadowed_by"] is None}
    losers = [s for s in data["skills"] if s["shadowed_by"] is not None]
    for i, (family, folder) in enumerate(PROJECT):
        s = winners[f"p{i}-{family}"]
        assert (s["source"], s["family"], s["root"]) == ("project", family, str(repo / folder))
    home = isolated_home
    for i, (family, path) in enumerate(user_folders(home, home / ".codebot")):
        s = winners[f"u{i}-{family}"]
        assert (s["source"], s["family"], s["root"]) == ("user", family, str(path))
    assert "above" not in winners  # above the git root
    deploy = winners["deploy"]
    assert (deploy["family"], deploy["root"]) == ("claude", str(repo / ".claude/skills"))
    assert [(a["source"], a["family"], a["root"]) for a in deploy["also_in"]] == [
        ("project", "gemini", str(repo / ".gemini/skills")),
        ("project", "copilot", str(repo / ".github/skills")),
        ("user", "cursor", str(home / ".cursor/skills")),
    ]
    assert sorted((s["family"], s["shadowed_by"]["family"]) for s in losers) == [
        ("copilot", "claude"),
        ("cursor", "claude"),
        ("gemini", "claude"),
    ]
    assert {r["family"] for r in data["roots"]} >= {f for f, _ in PROJECT} | {"bundled"}


def test_skills_list_text_shows_the_host_and_the_shadowed_copies(repo: Path):
    r = codebot("skills", "list", cwd=repo)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    [deploy] = [ln for ln in lines if ln.split()[:1] == ["deploy"]]
    assert deploy.split()[1] == "claude"
    assert "(also in .gemini/skills, .github/skills, ~/.cursor/skills, shadowed)" in deploy
    assert any(ln.split()[:2] == ["p5-gemini", "gemini"] for ln in lines)
    assert any(ln.split()[:2] == ["u2-claude", "claude"] for ln in lines)
    r = codebot("skills", "list", "--all", cwd=repo)
    shadowed = [ln for ln in r.stdout.splitlines() if ln.split()[:1] == ["deploy"]][1:]
    assert [ln.split()[1] for ln in shadowed] == ["gemini", "copilot", "cursor"]
    assert (
        "in .gemini/skills, shadowed by project (claude) .claude/skills/deploy/SKILL.md"
        in (shadowed[0])
    )


def test_control_characters_in_a_hosts_folder_name_are_not_printed(repo: Path, write_skill):
    write_skill(
        repo / ".gemini" / "skills" / "x\x1b[2J",
        "spoof",
        "description: a skill in a folder with an escape sequence in its name",
    )
    write_skill(repo / ".claude" / "skills" / "t\x1b]0;pwned\x07", "spoof", "description: won")
    r = codebot("skills", "list", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    [line] = [ln for ln in r.stdout.splitlines() if ln.split()[:1] == ["spoof"]]
    assert "also in .gemini/skills, shadowed" in line
    r = codebot("skills", "list", "--all", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "in .gemini/skills, shadowed by project (claude) .claude/skills/t" in r.stdout


def test_a_fifo_and_a_loop_in_host_folders_do_not_hang_skills_list(repo: Path):
    pipe = repo / ".cursor" / "skills" / "pipe"
    pipe.mkdir(parents=True)
    os.mkfifo(pipe / "SKILL.md")
    (repo / ".gemini" / "skills" / "loop").symlink_to(repo / ".gemini" / "skills")
    (repo / ".codex").mkdir(exist_ok=True)
    os.mkfifo(repo / ".codex" / "fifo")
    (repo / ".codex" / "skills").rename(repo / ".codex" / "old")
    (repo / ".codex" / "skills").symlink_to(repo / ".codex" / "fifo")  # a root that is a FIFO
    r = codebot("skills", "list", "--json", cwd=repo, timeout=30)
    assert r.returncode == 0, r.stderr
    names = {s["name"] for s in json.loads(r.stdout)["skills"]}
    assert "p5-gemini" in names and "pipe" not in names and "p8-codex" not in names
