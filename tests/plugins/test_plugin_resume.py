"""`--continue` and `--plugin-dir`: restored like `--skills-dir`, a flag wins, a folder
that is gone or no longer a plugin is skipped and said, hostile text is escaped."""

from __future__ import annotations

import json
from pathlib import Path

from plugin_kit import make_plugin

from codebot.cli import build_parser
from codebot.commands.args import settings_from
from codebot.commands.resume_setup import restore_setup


def session_file(project: Path, setup: object) -> None:
    settings = settings_from(build_parser().parse_args(["--cwd", str(project)]))
    sessions = settings.home / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    name = "20260101-000000-aaaaaaaa"
    header = {"type": "session", "format": 1, "id": name, "project": str(project), "created": 1}
    records = [header, {"type": "setup", "setup": setup}]
    (sessions / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def restore(project: Path, *argv: str):
    args = build_parser().parse_args(["--cwd", str(project), *argv])
    return restore_setup(args, settings_from(args))


def test_continue_restores_the_plugin_folders(project: Path, tmp_path: Path) -> None:
    plugin = make_plugin(tmp_path / "plug").resolve()
    session_file(project, {"plugin_dirs": [str(plugin)]})
    settings, said = restore(project, "--continue")
    assert settings.plugin_dirs == (plugin,)
    assert said == [f"restored from the session: plugin folder {plugin}"]


def test_a_given_plugin_dir_wins_and_is_said(project: Path, tmp_path: Path) -> None:
    old = make_plugin(tmp_path / "old", "old").resolve()
    new = make_plugin(tmp_path / "new", "new").resolve()
    session_file(project, {"plugin_dirs": [str(old)]})
    settings, said = restore(project, "--continue", "--plugin-dir", str(new))
    assert settings.plugin_dirs == (new,)
    assert said == [f"--plugin-dir given: using {new}, the session used {old}"]


def test_gone_or_no_longer_plugin_folders_are_skipped(project: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    gone = tmp_path / "gone"
    session_file(project, {"plugin_dirs": [str(plain), str(gone), "rel/x", "evil\x1b[2J"]})
    settings, said = restore(project, "--continue")
    assert settings.plugin_dirs == ()
    text = "\n".join(said)
    assert "has no .claude-plugin/plugin.json any more; skipped" in text
    assert "no longer exists; skipped" in text and "not an absolute path" in text
    assert "\x1b" not in text


def test_config_plugin_dirs_come_from_your_config_only_and_are_not_recorded(
    project: Path, tmp_path: Path, codebot_home: Path, capsys
) -> None:
    mine = make_plugin(tmp_path / "mine", "mine").resolve()
    theirs = make_plugin(tmp_path / "theirs", "theirs").resolve()
    (codebot_home / "config.yaml").write_text(
        f"plugins:\n  dirs: [{mine}, relative/x, {tmp_path}]\n"
    )
    (project / ".codebot").mkdir()
    (project / ".codebot" / "config.yaml").write_text(f"plugins:\n  dirs: [{theirs}]\n")
    settings = settings_from(build_parser().parse_args(["--cwd", str(project), "--trust"]))
    assert settings.plugin_dirs == (mine,) and settings.plugin_dirs_given == ()
    err = capsys.readouterr().err
    assert "plugins.dirs is read only from your own config" in err
    assert "'relative/x' is not an absolute folder path" in err
    assert f"{tmp_path} holds no .claude-plugin/plugin.json" in err
