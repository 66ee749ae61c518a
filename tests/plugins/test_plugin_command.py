"""`codebot plugin list|install|remove` and `--plugin-dir`, as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_kit import make_plugin

from codebot.commands.plugin_install import InstallError, install, remove


def codebot(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codebot", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


# -- install / remove (in process) -------------------------------------------------------


def test_install_copies_without_git_and_refuses_to_overwrite(
    tmp_path: Path, codebot_home: Path
) -> None:
    src = make_plugin(tmp_path / "repo")
    (src / ".git").mkdir()
    (src / ".git" / "config").write_text("[core]\n")
    os.symlink("skills/verify", src / "alias")  # a relative link inside: kept as a link
    plugin, dest = install(codebot_home, src)
    assert dest == codebot_home / "plugins" / "toolkit" and plugin.name == "toolkit"
    assert (dest / "skills" / "verify" / "SKILL.md").is_file() and not (dest / ".git").exists()
    assert os.readlink(dest / "alias") == "skills/verify"
    assert os.access(dest / "hooks" / "session-start.sh", os.X_OK)
    with pytest.raises(InstallError, match=r"already installed.*--force"):
        install(codebot_home, src)
    (src / "skills" / "verify" / "SKILL.md").write_text("---\ndescription: new one\n---\nNEW\n")
    install(codebot_home, src, force=True)
    assert "NEW" in (dest / "skills" / "verify" / "SKILL.md").read_text()
    assert [p.name for p in (codebot_home / "plugins").iterdir()] == ["toolkit"]  # no leftovers


@pytest.mark.parametrize("target", ["/etc/passwd", "../../outside"])
def test_install_refuses_links_that_leave_the_plugin(
    tmp_path: Path, codebot_home: Path, target: str
) -> None:
    src = make_plugin(tmp_path / "repo")
    (tmp_path / "outside").mkdir()
    os.symlink(target, src / "skills" / "evil")
    with pytest.raises(InstallError, match="symbolic link"):
        install(codebot_home, src)
    assert not (codebot_home / "plugins" / "toolkit").exists()


def test_install_refuses_a_fifo_and_a_bad_manifest(tmp_path: Path, codebot_home: Path) -> None:
    src = make_plugin(tmp_path / "repo")
    os.mkfifo(src / "commands" / "pipe.md")
    with pytest.raises(InstallError, match="FIFO"):
        install(codebot_home, src)
    bad = make_plugin(tmp_path / "bad", manifest={"name": "../escape"})
    with pytest.raises(InstallError, match="field 'name'"):
        install(codebot_home, bad)
    paths = make_plugin(tmp_path / "paths", manifest={"name": "paths", "skills": "../x"})
    with pytest.raises(InstallError, match="leaves the plugin folder"):
        install(codebot_home, paths)
    with pytest.raises(InstallError, match=r"no \.claude-plugin/plugin\.json"):
        install(codebot_home, tmp_path)
    assert not (codebot_home / "plugins").exists() or not any((codebot_home / "plugins").iterdir())


def test_remove_checks_the_name_and_never_follows_links(tmp_path: Path, codebot_home: Path) -> None:
    with pytest.raises(InstallError, match="kebab-case"):
        remove(codebot_home, "../x")
    with pytest.raises(InstallError, match="no installed plugin"):
        remove(codebot_home, "toolkit")
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "file").write_text("x")
    (codebot_home / "plugins").mkdir()
    os.symlink(keep, codebot_home / "plugins" / "linked")
    assert remove(codebot_home, "linked") == codebot_home / "plugins" / "linked"
    assert (keep / "file").is_file()


# -- the commands, as processes ---------------------------------------------------------------


def test_plugin_commands_end_to_end(tmp_path: Path, codebot_home: Path) -> None:
    src = make_plugin(tmp_path / "repo")
    done = codebot(tmp_path, "plugin", "install", str(src))
    assert done.returncode == 0, done.stderr
    assert "installed toolkit" in done.stdout and "3 skills, 1 command" in done.stdout
    again = codebot(tmp_path, "plugin", "install", str(src))
    assert again.returncode == 2 and "--force" in again.stderr
    listed = codebot(tmp_path, "plugin", "list", "--json")
    (row,) = json.loads(listed.stdout)
    assert row["name"] == "toolkit" and row["origin"] == "home" and row["loaded"]
    assert row["counts"] == {"skills": 3, "commands": 1, "agents": 1, "hooks": 1}
    gone = codebot(tmp_path, "plugin", "remove", "toolkit")
    assert gone.returncode == 0 and not (codebot_home / "plugins" / "toolkit").exists()
    assert json.loads(codebot(tmp_path, "plugin", "list", "--json").stdout) == []


def test_skills_list_with_plugin_dir(tmp_path: Path) -> None:
    src = make_plugin(tmp_path / "repo")
    work = tmp_path / "work"
    work.mkdir()
    done = codebot(work, "skills", "list", "--json", "--plugin-dir", str(src))
    assert done.returncode == 0, done.stderr
    names = {s["name"]: s for s in json.loads(done.stdout)["skills"]}
    assert {
        "toolkit:brainstorm",
        "toolkit:plan-work",
        "toolkit:verify",
        "toolkit:review-pr",
    } <= set(names)
    assert names["toolkit:review-pr"]["plugin"] == "toolkit"
    bad = codebot(work, "skills", "list", "--plugin-dir", str(work))
    assert bad.returncode == 2 and "no .claude-plugin/plugin.json" in bad.stderr


def test_the_project_plugin_loads_in_a_trusted_folder_only(tmp_path: Path) -> None:
    repo = make_plugin(tmp_path / "repo")
    (repo / ".git").mkdir()
    untrusted = codebot(repo, "skills", "list", "--json")
    assert "toolkit:" not in untrusted.stdout
    trusted = codebot(repo, "skills", "list", "--json", "--trust")
    assert "toolkit:verify" in trusted.stdout
    listed = json.loads(codebot(repo, "plugin", "list", "--json").stdout)
    assert listed[0]["origin"] == "project" and not listed[0]["loaded"]
    assert "not loaded" in listed[0]["problems"][-1]


def test_a_remembered_no_wins_over_trust(tmp_path: Path, codebot_home: Path) -> None:
    from codebot.trust.plugin_choice import remember_plugin_choice

    repo = make_plugin(tmp_path / "repo")
    (repo / ".git").mkdir()
    remember_plugin_choice(codebot_home, repo, False)
    assert "toolkit:" not in codebot(repo, "skills", "list", "--json", "--trust").stdout
    remember_plugin_choice(codebot_home, repo, True)
    assert "toolkit:verify" in codebot(repo, "skills", "list", "--json").stdout
