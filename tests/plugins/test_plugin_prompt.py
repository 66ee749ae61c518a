"""The words of the plugin offer, its answers, and what `-p` says instead."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable
from pathlib import Path

import pytest
from plugin_kit import make_plugin

from codebot.config import load_settings
from codebot.skills.catalog.plugins import read_plugin
from codebot.trust.plugin_choice import plugin_choice
from codebot.ui.plugin_prompt import ask_line, pending, print_mode_notice, question


def answers(*replies: str) -> Callable[[str], str]:
    it = iter(replies)

    def read(_prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_plugin(
        tmp_path / "repo", manifest={"name": "toolkit", "description": "evil\x1b]0;title\x07 d"}
    )
    (root / ".git").mkdir()
    return root


def test_the_question_counts_skills_and_commands_and_escapes(repo: Path) -> None:
    plugin = read_plugin(repo, "project")
    assert plugin is not None
    text = "\n".join(question(plugin))
    assert "Claude Code plugin `toolkit` with 4 skills: load it?" in text
    assert "\x1b" not in text and "\x07" not in text and "\\x1b]0;title" in text


@pytest.mark.parametrize(
    ("replies", "want"),
    [(("y",), True), (("YES",), True), (("",), False), (("n",), False), ((), False)],
)
def test_answers(repo: Path, replies: tuple[str, ...], want: bool) -> None:
    plugin = read_plugin(repo, "project")
    assert plugin is not None
    assert ask_line(plugin, answers(*replies), io.StringIO()) is want


def test_cli_asks_once_and_remembers(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codebot import cli

    settings = load_settings(cwd=repo)
    assert pending(settings) is not None
    monkeypatch.setattr("builtins.input", answers("y"))
    loaded = cli.ask_plugin(settings, tui=False)
    assert loaded.project_plugin and plugin_choice(settings.home, repo) is True
    assert pending(settings) is None


def test_print_mode_notice_only_when_untrusted_and_unanswered(repo: Path) -> None:
    settings = load_settings(cwd=repo)
    notice = print_mode_notice(settings)
    assert notice is not None and "`toolkit`" in notice and "untrusted" in notice
    assert print_mode_notice(dataclasses.replace(settings, project_plugin=True)) is None
    plain = load_settings(cwd=repo.parent)
    assert print_mode_notice(plain) is None


def test_an_unloadable_project_plugin_is_not_offered(tmp_path: Path) -> None:
    root = make_plugin(tmp_path / "repo", manifest={"name": "../../evil"})
    (root / ".git").mkdir()
    assert pending(load_settings(cwd=root)) is None
