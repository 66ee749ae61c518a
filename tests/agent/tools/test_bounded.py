"""Bounded work: no glob, regex, timeout value or config file makes codebot hang."""

from __future__ import annotations

import asyncio
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.tools import search
from codebot.agent.tools.base import ToolContext, ToolError
from codebot.agent.tools.search import GlobTool, GrepTool, glob_pattern
from codebot.agent.tools.shell import MAX_BASH_TIMEOUT, BashTool, bash_timeout
from codebot.config import load_settings

EVIL_GLOB = "*a*a*a*a*a*a*a*a*a*a*a*ab"


def within(seconds: float, fn, *args: Any) -> Any:
    """Run `fn` in a daemon thread; fail (without hanging the test run) if it takes longer."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # re-raised in the test thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds}s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def run_tool(tool, args: dict[str, Any], ctx: ToolContext):
    return asyncio.run(tool.run(args, ctx))


# -- Glob -------------------------------------------------------------------------------


def test_glob_with_many_stars_on_long_names_is_fast(tmp_path: Path) -> None:
    for i in range(2000):
        (tmp_path / f"{'a' * 100}{i:04d}.txt").touch()
    (tmp_path / ("a" * 12 + "b")).touch()
    ctx = ToolContext(project_dir=tmp_path)
    start = time.monotonic()
    result = within(20, run_tool, GlobTool(), {"pattern": EVIL_GLOB}, ctx)
    assert time.monotonic() - start < 10
    assert result.content.strip() == "a" * 12 + "b"


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**/*.py", "a.py", True),
        ("**/*.py", "a/b/c.py", True),
        ("*.py", "a/b.py", False),
        ("src/**", "src/a/b", True),
        ("src/**", "src", False),
        ("**", "a/b", True),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "src/x/y/test_a.py", True),
        ("src/**/test_*.py", "lib/test_a.py", False),
        ("*.{ts,tsx}", "a.tsx", True),
        ("[ab].txt", "a.txt", True),
        ("[!ab].txt", "a.txt", False),
        ("[!ab].txt", "c.txt", True),
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("*", "a/b", False),
        ("a**b", "axxb", True),
        ("a**b", "a/b", False),
        ("[", "[", True),
        ("*a*b*c", "xaybzc", True),
        ("*a*b*c", "xaybzcd", False),
        ("**/x/**/y", "x/y", True),
        ("**/x/**/y", "p/x/q/r/y", True),
        ("a/**/b", "a/b", True),
    ],
)
def test_glob_semantics(pattern: str, path: str, expected: bool) -> None:
    assert glob_pattern(pattern).match(path) is expected


def test_too_many_brace_alternatives_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="braces"):
        run_tool(GlobTool(), {"pattern": "{a,b}" * 20}, ToolContext(project_dir=tmp_path))


# -- Grep without ripgrep ----------------------------------------------------------------------


def test_python_grep_stops_a_backtracking_regex(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search.shutil, "which", lambda name: None)  # the Python fallback
    (tmp_path / "f.txt").write_text("a" * 5000 + "!\n")
    ctx = ToolContext(project_dir=tmp_path, bash_timeout=1.0)
    # "too long" is the timeout's own error (a finished search would return); `within`
    # fails the test if the search is never stopped. How fast it stops is bench/ work.
    with pytest.raises(ToolError, match="too long"):
        within(20, run_tool, GrepTool(), {"pattern": "(a+)+$"}, ctx)


def test_python_grep_still_finds_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search.shutil, "which", lambda name: None)
    (tmp_path / "f.txt").write_text("one\ntwo words\n")
    result = run_tool(GrepTool(), {"pattern": r"\bwords$"}, ToolContext(project_dir=tmp_path))
    assert result.content == "f.txt:2:two words"


# -- Bash timeout ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1, 0, "10", True])
def test_bash_refuses_a_timeout_that_is_not_a_finite_positive_number(
    tmp_path: Path, value: Any
) -> None:
    with pytest.raises(ToolError, match="timeout"):
        run_tool(
            BashTool(), {"command": "true", "timeout": value}, ToolContext(project_dir=tmp_path)
        )


def test_bash_timeout_is_capped_and_defaults() -> None:
    assert bash_timeout(1e9, 120) == MAX_BASH_TIMEOUT
    assert bash_timeout(None, 30) == 30
    assert bash_timeout(2, 30) == 2.0


# -- config -------------------------------------------------------------------------------


def _project(tmp_path: Path, config: str | None = None) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".codebot").mkdir()
    if config is not None:
        (proj / ".codebot" / "config.yaml").write_text(config)
    return proj


@pytest.mark.parametrize("text", [".inf", "-.inf", ".nan", "1e400", "0", "601", "true", "'10'"])
def test_bad_shell_timeout_falls_back_to_the_default(tmp_path: Path, text: str) -> None:
    proj = _project(tmp_path, f"skills:\n  shell_timeout: {text}\n")
    settings = load_settings(cwd=proj, trust=True)
    assert settings.shell_timeout == 120.0
    [warning] = [w for w in settings.warnings if "skills.shell_timeout" in w]
    assert "default 120" in warning


def test_bad_listing_number_names_its_key(tmp_path: Path) -> None:
    proj = _project(tmp_path, "skills:\n  listing:\n    budget: .inf\n")
    settings = load_settings(cwd=proj, trust=True)
    assert settings.listing_budget == 8000
    assert any("skills.listing.budget" in w for w in settings.warnings)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_config_does_not_hang(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    fifo = proj / ".codebot" / "config.yaml"
    os.mkfifo(fifo)
    settings = within(10, load_settings, proj, (), None, None, None, True)
    [warning] = [w for w in settings.warnings if str(fifo) in w]
    assert "FIFO" in warning
