"""`/skills` names the host folder each skill came from: line mode's table and the TUI's
rows (source `project/gemini`), shadowed copies by their winner's host, and a host filter."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from codebot.config import load_settings
from codebot.ui.line.render import skills_table
from codebot.ui.tui.rows import filter_rows, skill_rows
from codebot.ui.tui.skills_screen import column_widths
from codebot.workspace import open_catalog


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    write_skill(project / ".gemini" / "skills", "deploy", "description: Deploy, Gemini's copy.")
    write_skill(project / ".claude" / "skills", "deploy", "description: Deploy, Claude's copy.")
    write_skill(project / ".github" / "skills", "triage", "description: Triage new issues.")
    write_skill(Path.home() / ".cursor" / "skills", "mine", "description: My Cursor skill.")
    return project


def _parts(project: Path):
    settings = load_settings(cwd=project, trust=True)
    return settings, open_catalog(settings)


def _row(table: str, name: str, source: str) -> str:
    [line] = [ln for ln in table.splitlines() if ln.split()[:2] == [name, source]]
    return line


def test_line_mode_table_shows_the_host(project: Path) -> None:
    settings, catalog = _parts(project)
    controller = SimpleNamespace(
        catalog=catalog, settings=settings, session=None, override_of=lambda key: "on"
    )
    table = skills_table(controller)
    assert _row(table, "deploy", "project/claude")
    assert "shadowed by project/claude" in _row(table, "deploy", "project/gemini")
    assert _row(table, "triage", "project/copilot")
    assert _row(table, "mine", "user/cursor")
    assert _row(table, "review", "bundled")
    gemini = skills_table(controller, "gemini")  # a host alone filters
    assert "project/gemini" in gemini and "triage" not in gemini and "mine" not in gemini
    user = skills_table(controller, "user")  # and a source alone, as before
    assert "mine" in user and "deploy" not in user


def test_tui_rows_show_the_host(project: Path) -> None:
    settings, catalog = _parts(project)
    rows = skill_rows(catalog.snapshot, settings, home=Path.home())
    by = {(r.name, r.origin): r for r in rows}
    winner, copy = by["deploy", "project/claude"], by["deploy", "project/gemini"]
    assert (winner.source, winner.host) == ("project", "claude")
    assert copy.state == "shadowed" and copy.path == "./.gemini/skills/deploy/SKILL.md"
    assert winner.shadows == ("project deploy (./.gemini/skills/deploy/SKILL.md)",)
    assert by["mine", "user/cursor"] and by["review", "bundled"]
    assert [r.name for r in filter_rows(rows, "copilot")] == ["triage"]
    assert column_widths(rows, 100)[1] == len("project/copilot")
    assert column_widths(rows, 60)[1] == 12  # narrow: the column is cut, details show it all
