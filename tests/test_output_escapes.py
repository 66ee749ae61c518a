"""Terminal escape sequences from skill files never reach the terminal: `skills list` and
`skills show` (real processes), the line-mode /skills table and the TUI rows. JSON output
keeps the exact data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from codebot.config import load_settings
from codebot.ui.line.render import skills_table
from codebot.ui.tui.rows import skill_rows
from codebot.workspace import open_catalog

# YAML double-quoted escapes: \e is ESC, \a is BEL, \x9b the 8-bit CSI.
NAME_YAML = r'"evil\e[2K\x9b2K"'
DESC_YAML = r'"Looks harmless.\e[2K\e]52;c;ZXZpbA==\a Then \x9b1A hides the line above."'
BAD = ("\x1b", "\x07", "\x9b")


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    skills = proj / ".codebot" / "skills"
    write_skill(
        skills,
        "evil",
        f"name: {NAME_YAML}\ndescription: {DESC_YAML}",
        "Body \x1b]52;c;Ym9keQ==\x07 text.\n",
    )
    write_skill(skills, "review", "description: Review the diff.")
    return proj


def codebot(project: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=project)


def assert_clean(text: str) -> None:
    for ch in BAD:
        assert ch not in text, f"{ch!r} reached the terminal: {text!r}"


def test_skills_list_and_show_strip_escapes(project: Path) -> None:
    listed = codebot(project, "skills", "list")
    assert listed.returncode == 0, listed.stderr
    assert_clean(listed.stdout + listed.stderr)
    assert (
        "evil" in listed.stdout and "Looks harmless." in listed.stdout and "review" in listed.stdout
    )
    raw = json.loads(codebot(project, "skills", "list", "--json").stdout)
    evil = next(s for s in raw["skills"] if s["name"].startswith("evil"))
    key = evil["key"]
    assert "\x1b]52;c;ZXZpbA==\x07" in evil["description"]  # JSON stays exact data
    shown = codebot(project, "skills", "show", key)
    assert shown.returncode == 0, shown.stderr
    assert_clean(shown.stdout + shown.stderr)
    assert "Looks harmless." in shown.stdout and "Body" in shown.stdout


def _catalog(project: Path):
    settings = load_settings(cwd=project, trust=True)
    return settings, open_catalog(settings)


def test_line_mode_skills_table_strips_escapes(project: Path) -> None:
    settings, catalog = _catalog(project)
    controller = SimpleNamespace(
        catalog=catalog, settings=settings, session=None, override_of=lambda key: "on"
    )
    table = skills_table(controller)
    assert_clean(table)
    assert "evil" in table and "review" in table


def test_tui_rows_strip_escapes(project: Path) -> None:
    settings, catalog = _catalog(project)
    rows = skill_rows(catalog.snapshot, settings, home=Path.home())
    evil = next(r for r in rows if r.spec.name.startswith("evil"))
    for field in (
        evil.name,
        evil.description,
        evil.line,
        *evil.problems,
        *evil.shadows,
        evil.shadowed_by,
    ):
        assert_clean(field)
    assert evil.name.startswith("evil") and "Looks harmless." in evil.description
    assert "\x1b" in evil.spec.description  # the spec keeps the exact data
