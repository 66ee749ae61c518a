"""`skills validate` and duplicate frontmatter keys: a grant field written twice is an
error (exit 1), another key written twice a warning (exit 1 only with --strict)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codebot.cli import main
from codebot.skills.files import Severity
from codebot.skills.validate import validate_paths

CLEAN = "name: ship\ndescription: Ship the release to staging. Not for production deploys.\n"


def run(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, dict]:
    code = main(["skills", "validate", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_duplicate_grant_is_an_error(skills_root: Path, write_skill, capsys) -> None:
    path = write_skill(skills_root, "ship", CLEAN + "allowed-tools: Read\nallowed-tools: Bash\n")
    report = validate_paths([path])
    (d,) = [d for d in report.diagnostics if d.code == "duplicate-grant"]
    assert d.severity is Severity.ERROR and d.field == "allowed-tools" and d.line == 5
    assert report.failed(strict=False)
    code, out = run(capsys, str(path))
    assert code == 1
    assert [x["severity"] for x in out["diagnostics"] if x["code"] == "duplicate-grant"] == [
        "error"
    ]


def test_folded_spelling_duplicate_is_an_error(skills_root: Path, write_skill, capsys) -> None:
    write_skill(skills_root, "ship", CLEAN + "allowed_tools: Read\nmodel: a\nallowed-tools: Bash\n")
    code, out = run(capsys, str(skills_root))
    assert code == 1
    assert [x["field"] for x in out["diagnostics"] if x["severity"] == "error"] == ["allowed-tools"]


def test_duplicate_under_metadata_passes(skills_root: Path, write_skill, capsys) -> None:
    path = write_skill(skills_root, "ship", CLEAN + "metadata:\n  model: a\n  model: b\n")
    code, out = run(capsys, str(path), "--strict")
    assert code == 0, out
    assert not [x for x in out["diagnostics"] if x["code"].startswith("duplicate")]


def test_duplicate_non_grant_key_is_a_warning(skills_root: Path, write_skill, capsys) -> None:
    path = write_skill(skills_root, "ship", CLEAN + "license: MIT\nlicense: Apache-2.0\n")
    code, out = run(capsys, str(path))
    assert code == 0
    assert [x["severity"] for x in out["diagnostics"] if x["code"] == "duplicate-key"] == [
        "warning"
    ]
    code, _ = run(capsys, str(path), "--strict")
    assert code == 1


def test_loaded_catalog_reports_it_as_an_error_too(tmp_path: Path, write_skill, capsys) -> None:
    # `skills validate` without paths checks the catalog a session would load.
    project, extra = tmp_path / "proj", tmp_path / "extra"
    (project / ".git").mkdir(parents=True)
    write_skill(extra, "ship", CLEAN + "model: a\nmodel: b\n")
    code, out = run(capsys, "--cwd", str(project), "--skills-dir", str(extra))
    assert code == 1
    assert [x["code"] for x in out["diagnostics"] if x["severity"] == "error"] == [
        "duplicate-grant"
    ]
