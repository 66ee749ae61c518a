"""The command line: mistakes get one line and exit 2, bytes that are not UTF-8 never
end a run in a traceback, `codebot sessions` exists, and --add-dir reaches every mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codebot.cli import main

ROOT = Path(__file__).resolve().parents[1]


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


def codebot(
    *args: str | bytes, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEBOT_MODEL"}
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "codebot", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
        env=e,
    )


def one_line_error(err: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("codebot") and "error" in lines[0]


# -- mistakes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["--cwd", "/nonexistent/x", "-p", "hi"],
        ["--cwd", "/nonexistent/x", "--plain"],
        ["--cwd", "/etc/hostname", "-p", "hi"],
        ["-p", ""],
        ["-p", "   "],
        ["skils"],
        ["--modle", "x"],
        ["skills", "frobnicate"],
        ["sessions", "--frob"],
    ],
)
def test_mistakes_are_one_line_and_exit_2(argv: list[str], project: Path, capsys) -> None:
    argv = [a.replace("PROJ", str(project)) for a in argv]
    if argv[0] == "-p":
        argv = ["--cwd", str(project), *argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert one_line_error(err), err


def test_empty_stdin_prompt_is_an_error(project: Path) -> None:
    r = codebot("--cwd", str(project), "-p", "-", stdin=b"")
    assert r.returncode == 2 and one_line_error(r.stderr.decode()), r.stderr


# -- bytes that are not UTF-8 ---------------------------------------------------------------


def test_prompt_argument_with_an_undecodable_byte(project: Path) -> None:
    r = codebot(
        "--cwd",
        str(project),
        "--trust",
        "--model",
        "offline",
        "-p",
        b"hello \xff",
        "--output-format",
        "json",
    )
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr
    json.loads(r.stdout.decode("utf-8"))


def test_binary_on_stdin(project: Path) -> None:
    r = codebot(
        "--cwd",
        str(project),
        "--trust",
        "--model",
        "offline",
        "-p",
        "-",
        "--output-format",
        "json",
        stdin=b"look at this \xff\xfe\x00\x81 binary",
    )
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr
    json.loads(r.stdout.decode("utf-8"))


# -- a transcript that cannot be written, in a real process -----------------------------------


def test_unwritable_sessions_folder_is_said_once_and_the_answer_printed(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "cbhome"
    home.mkdir()
    (home / "sessions").write_text("not a folder")  # every transcript write fails
    r = codebot(
        "--cwd",
        str(project),
        "--trust",
        "--model",
        "offline",
        "-p",
        "/review src",
        "--output-format",
        "json",
        env={"CODEBOT_HOME": str(home)},
    )
    assert r.returncode == 0, r.stderr
    err = r.stderr.decode()
    assert "Traceback" not in err and err.count("cannot write transcript") == 1
    assert json.loads(r.stdout)["skills"][0]["name"] == "review"


# -- codebot sessions -----------------------------------------------------------------------


def test_sessions_lists_this_project_and_all(project: Path, tmp_path: Path, capsys) -> None:
    assert (
        main(["--cwd", str(project), "--trust", "--model", "offline", "-p", "first thing\nmore"])
        == 0
    )
    assert (
        main(
            [
                "--cwd",
                str(project),
                "--trust",
                "--model",
                "offline",
                "-p",
                "/review src",
                "--continue",
            ]
        )
        == 0
    )
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    assert main(["--cwd", str(other), "--model", "offline", "-p", "elsewhere"]) == 0
    capsys.readouterr()
    assert main(["sessions", "--cwd", str(project), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert (
        len(rows) == 1 and rows[0]["turns"] == 2 and rows[0]["first_prompt"] == "first thing\nmore"
    )
    assert main(["sessions", "--cwd", str(project)]) == 0
    out = capsys.readouterr().out
    assert rows[0]["id"] in out and "first thing more" in out
    assert main(["sessions", "--all", "--json", "--cwd", str(project)]) == 0
    assert {r["first_prompt"] for r in json.loads(capsys.readouterr().out)} == {
        "first thing\nmore",
        "elsewhere",
    }


def test_sessions_warns_about_a_damaged_file(project: Path, capsys) -> None:
    from codebot.home import codebot_home

    d = codebot_home() / "sessions"
    d.mkdir(parents=True)
    (d / "x.jsonl").write_text(
        json.dumps({"type": "session", "id": "x", "project": str(project), "created": None}) + "\n"
    )
    assert main(["sessions", "--cwd", str(project)]) == 0
    out, err = capsys.readouterr()
    assert "no saved sessions" in out and "damaged" in err and "x.jsonl" in err


def test_no_session_errors_point_at_codebot_sessions(project: Path, capsys) -> None:
    assert main(["--cwd", str(project), "-p", "hi", "--resume", "nope"]) == 2
    err = capsys.readouterr().err
    assert "codebot sessions" in err
    out = subprocess.run(
        [sys.executable, "-m", "codebot", "sessions", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 0 and "--all" in out.stdout


# -- --add-dir ------------------------------------------------------------------------------


def test_add_dir_reaches_line_mode_and_the_tui(project: Path, tmp_path: Path, monkeypatch) -> None:
    import codebot.ui.line.repl as repl
    import codebot.ui.tui as tui

    seen: dict[str, Any] = {}
    monkeypatch.setattr(repl, "run_line", lambda settings, **kw: seen.setdefault("line", kw) and 0)
    monkeypatch.setattr(tui, "run_tui", lambda settings, **kw: seen.setdefault("tui", kw) and 0)
    extra = tmp_path / "extra"
    extra.mkdir()
    main(["--cwd", str(project), "--trust", "--plain", "--add-dir", str(extra)])
    monkeypatch.setattr(repl, "should_use_line_mode", lambda *a, **k: False)
    main(["--cwd", str(project), "--trust", "--add-dir", str(extra)])
    assert seen["line"]["extra_dirs"] == [extra] and seen["tui"]["extra_dirs"] == [extra]


def test_controller_gives_the_session_the_extra_dirs(project: Path, tmp_path: Path) -> None:
    from codebot.agent.model import ScriptedModel
    from codebot.config import load_settings
    from codebot.ui.controller import Controller

    extra = tmp_path / "extra"
    extra.mkdir()
    c = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel([]), extra_dirs=[extra]
    )
    try:
        assert c.session.context.extra_roots == (extra.resolve(),)
    finally:
        c.close()
