"""The TUI's plain-data parts: history, file walk, completion ranges, rows, descriptions."""

from __future__ import annotations

import json
from pathlib import Path

from codebot.agent.session import events as ev
from codebot.ui.commands import Completion
from codebot.ui.tui.completer import Completer
from codebot.ui.tui.describe import skill_line, tool_args
from codebot.ui.tui.history import History
from codebot.ui.tui.paths import project_files
from codebot.ui.tui.rows import next_override


def test_history_skips_a_torn_last_line_and_walks_back_to_the_draft(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_text(json.dumps("one") + "\n" + json.dumps("two") + '\n"thr')
    h = History(path)
    assert h.entries == ["one", "two"]
    assert h.older("draft") == "two"
    assert h.older("ignored") == "one"
    assert h.older("ignored") is None
    assert h.newer() == "two"
    assert h.newer() == "draft"
    assert h.newer() is None


def test_history_does_not_repeat_the_last_entry(tmp_path: Path) -> None:
    h = History(tmp_path / "history")
    for text in ("a", "a", "  ", "b"):
        h.append(text)
    assert h.entries == ["a", "b"]
    assert History(tmp_path / "history").entries == ["a", "b"]


def test_override_cycle_visits_every_value_and_returns_to_on() -> None:
    seen = ["on"]
    for _ in range(5):
        seen.append(next_override(seen[-1]))
    assert seen == ["on", "off", "user-only", "model-only", "name-only", "on"]


def test_file_walk_skips_dependency_folders_and_is_bounded(tmp_path: Path) -> None:
    for rel in ("a.py", "src/b.py", "node_modules/x/y.js", ".git/HEAD", "src/deep/c.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert project_files(tmp_path) == ["a.py", "src/b.py", "src/deep/c.py"]
    assert len(project_files(tmp_path, limit=2)) == 2


def test_slash_completes_only_the_first_word_of_the_first_line(tmp_path: Path) -> None:
    completer = Completer(
        lambda q: [Completion("review", "[path]", "Review.", "skill", "project")], tmp_path
    )
    s = completer.suggest("/rev src", (0, 3))
    assert s is not None and (s.start, s.end, s.items[0].insert) == ((0, 0), (0, 4), "/review ")
    assert completer.suggest("/review src", (0, 9)) is None
    assert completer.suggest("hello\n/rev", (1, 4)) is None
    assert completer.suggest("//rev", (0, 5)) is None


def test_at_completes_the_token_under_the_cursor(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    completer = Completer(lambda q: [], tmp_path)
    s = completer.suggest("fix @mai please", (0, 8))
    assert s is not None and (s.start, s.end) == ((0, 4), (0, 8))
    assert [i.insert for i in s.items] == ["@src/main.py "]


def test_tool_arguments_read_like_the_call() -> None:
    assert tool_args("Bash", {"command": "pytest -q", "timeout": 60}) == "pytest -q  timeout=60"
    assert tool_args("Write", {"path": "a.txt", "content": "x\ny\n"}) == "a.txt  content: 2 lines"
    assert tool_args("Skill", {"skill": "review", "args": ""}) == "review"


def test_skill_line_names_the_delta_and_who_chose_it() -> None:
    e = ev.SkillActivated(
        "review", "model", "fork", "project", {"model": "gpt-x", "allowed_tools": ["Bash(git:*)"]}
    )
    assert (
        skill_line(e)
        == "skill review · fork · model gpt-x in its sub-agent · allows Bash(git:*) · "
        "chosen by the model"
    )


def test_tui_completer_offers_a_second_skill_in_a_stack(tmp_path) -> None:
    from codebot.ui import commands
    from codebot.ui.tui.completer import Completer

    def slash(query: str) -> list[commands.Completion]:
        items = [
            commands.Completion("help", "", "", "builtin"),
            commands.Completion("review", "", "", "skill", "project"),
        ]
        return [c for c in items if query in c.name]

    s = Completer(slash, tmp_path).suggest("/test /rev src", (0, 10))
    assert s is not None and [i.label for i in s.items] == ["/review"]
    assert (s.start, s.end) == ((0, 6), (0, 10))


def test_history_is_per_project_with_the_global_one_as_fallback(tmp_path) -> None:
    from codebot.ui.tui.history import History, project_history_path

    home = tmp_path / "home"
    glob = home / "history"
    a = History(project_history_path(home, tmp_path / "a"), fallback=glob)
    a.append("only in a")
    b = History(project_history_path(home, tmp_path / "b"), fallback=glob)
    assert b.older("") == "only in a"  # b has none of its own yet: the global one
    b.append("only in b")
    again_a = History(project_history_path(home, tmp_path / "a"), fallback=glob)
    assert again_a.entries == ["only in a"]  # a's own, without b's
    assert History(glob).entries == ["only in a", "only in b"]
    assert oct(project_history_path(home, tmp_path / "a").stat().st_mode & 0o777) == "0o600"
