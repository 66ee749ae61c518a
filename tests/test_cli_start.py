"""How `codebot` starts: a bare prompt opens the TUI (or line mode) with that prompt sent
first, a mistyped option or command gets a "did you mean" line and exit 2, and a model
named on the command line whose provider key is missing stops before anything is sent."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codebot.cli import main

ROOT = Path(__file__).resolve().parents[1]
KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "CODEBOT_API_KEY",
    "CODEBOT_MODEL",
    "CODEBOT_API_BASE",
    "ANTHROPIC_AUTH_TOKEN",
)


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    write_skill(
        proj / ".codebot" / "skills",
        "review",
        "description: Review code. Not for edits.",
        "Review $ARGUMENTS.",
    )
    return proj


@pytest.fixture
def entry_points(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    """Replace the TUI and line-mode entry points; what each was called with."""
    import codebot.ui.line.repl as repl
    import codebot.ui.tui as tui

    seen: dict[str, dict[str, Any]] = {}
    monkeypatch.setattr(repl, "run_line", lambda settings, **kw: seen.setdefault("line", kw) and 0)
    monkeypatch.setattr(tui, "run_tui", lambda settings, **kw: seen.setdefault("tui", kw) and 0)
    return seen


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    out, err = capsys.readouterr()
    return int(code or 0), out, err


# -- a bare prompt ----------------------------------------------------------------------------


def test_a_bare_prompt_starts_the_tui_with_it(
    project: Path, entry_points, monkeypatch, capsys
) -> None:
    import codebot.ui.line.repl as repl

    monkeypatch.setattr(repl, "should_use_line_mode", lambda *a, **k: False)
    code, _, err = run(["--cwd", str(project), "--trust", "fix the bug"], capsys)
    assert code == 0, err
    assert entry_points["tui"]["initial_prompt"] == "fix the bug" and "line" not in entry_points


def test_a_bare_prompt_with_plain_goes_to_line_mode(project: Path, entry_points, capsys) -> None:
    code, _, err = run(["--plain", "fix the bug", "--cwd", str(project), "--trust"], capsys)
    assert code == 0, err
    assert entry_points["line"]["initial_prompt"] == "fix the bug"


def test_options_around_the_prompt_keep_their_values(project: Path, entry_points, capsys) -> None:
    code, _, err = run(
        [
            "--allow",
            "Bash(git diff:*)",
            "--cwd",
            str(project),
            "--trust",
            "--plain",
            "review",
            "src/",
        ],
        capsys,
    )
    assert code == 0, err
    assert entry_points["line"]["initial_prompt"] == "review src/"
    assert entry_points["line"]["allow"] == ["Bash(git diff:*)"]


def test_after_double_dash_everything_is_the_prompt(project: Path, entry_points, capsys) -> None:
    code, _, err = run(
        ["--cwd", str(project), "--trust", "--plain", "--", "--why", "skills"], capsys
    )
    assert code == 0, err
    assert entry_points["line"]["initial_prompt"] == "--why skills"


def test_no_prompt_passes_none(project: Path, entry_points, capsys) -> None:
    assert run(["--cwd", str(project), "--trust", "--plain"], capsys)[0] == 0
    assert entry_points["line"]["initial_prompt"] is None


def test_subcommands_still_work(project: Path, capsys) -> None:
    code, out, _ = run(["--cwd", str(project), "skills", "list"], capsys)
    assert code == 0 and "review" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--modle", "x"], "unknown option --modle; did you mean --model?"),
        (["--modle=x", "fix it"], "unknown option --modle; did you mean --model?"),
        (["fix it", "--plian"], "unknown option --plian; did you mean --plain?"),
        (["skills", "list", "--jsn"], "unknown option --jsn; did you mean --json?"),
        (["skils"], "unknown command 'skils'; did you mean 'skills'?"),
        (["skills", "lst"], "unknown command 'lst'; did you mean 'list'?"),
        (["list"], "did you mean 'codebot skills list'?"),
        (["-p", "hi", "and more"], "give the prompt once"),
        (["   "], "the prompt is empty"),
    ],
)
def test_mistakes_say_what_was_meant_and_exit_2(
    argv: list[str], expected: str, project: Path, entry_points, capsys
) -> None:
    code, out, err = run(["--cwd", str(project), *argv], capsys)
    assert code == 2 and out == "" and not entry_points
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("codebot") and expected in lines[0], err


def test_the_prompt_is_sent_first_in_line_mode(project: Path) -> None:
    """Through the real entry point: the bare prompt is the first turn, then stdin is read."""
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "codebot",
            "--cwd",
            str(project),
            "--trust",
            "--model",
            "offline",
            "--plain",
            "/review src",
        ],
        input="thanks\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.index("> /review src"), r.stdout.index("> thanks")
    assert first < second and "skill review" in r.stdout[first:second]


def test_run_line_sends_the_initial_prompt(project: Path) -> None:
    from codebot.config import load_settings
    from codebot.ui.line.repl import run_line

    out = io.StringIO()
    code = run_line(
        load_settings(cwd=project, trust=True, model="offline"),
        input=io.StringIO(""),
        output=out,
        watch=False,
        initial_prompt="/review src",
    )
    assert code == 0
    assert "> /review src" in out.getvalue() and "skill review" in out.getvalue()


# -- a model whose key is missing -------------------------------------------------------------


@pytest.mark.parametrize("mode", [["-p", "hi"], ["--plain"], ["--plain", "fix the bug"]])
def test_model_without_its_key_is_a_clear_error_before_anything_is_sent(
    mode: list[str], project: Path, entry_points, capsys
) -> None:
    code, out, err = run(
        ["--cwd", str(project), "--trust", "--model", "gpt-4o-mini", *mode], capsys
    )
    assert code == 2 and out == "" and not entry_points
    assert "OPENAI_API_KEY" in err and "--model gpt-4o-mini" in err and "--api-base" in err
    assert len(err.strip().splitlines()) == 1


def test_model_with_its_key_or_a_local_server_starts(
    project: Path, entry_points, monkeypatch, capsys
) -> None:
    argv = ["--cwd", str(project), "--trust", "--plain"]
    assert (
        run([*argv, "--model", "openai/qwen", "--api-base", "http://127.0.0.1:9/v1"], capsys)[0]
        == 0
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    entry_points.clear()
    assert run([*argv, "--model", "anthropic/claude-sonnet-4-5"], capsys)[0] == 0
    assert entry_points["line"]


def test_key_check_does_not_import_litellm(project: Path) -> None:
    code = (
        "import sys; from codebot.cli import main; rc = main(['--cwd', sys.argv[1], '--trust', "
        "'--model', "
        "'gpt-4o-mini', '-p', 'hi']); assert rc == 2, rc; assert 'litellm' not in sys.modules; "
        "print('ok')"
    )
    env = {
        k: v
        for k, v in __import__("os").environ.items()
        if k not in KEYS and not k.endswith("_API_KEY")
    }
    r = subprocess.run(
        [sys.executable, "-c", code, str(project)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert r.stdout.strip() == "ok", r.stderr
