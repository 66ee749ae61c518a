"""The reference validator's own cases (skills-ref, agentskills/agentskills,
`skills-ref/tests/test_validator.py`), as fixtures of ours under
`fixtures/skills_ref/<case>/<skill folder>/`: `skills validate --spec` gives each the same
verdict (valid or not) and names the same field, in-process and through a real process;
the everyday validator agrees on every name, description and compatibility case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codebot.skills.spec_verdict import check_folder
from codebot.skills.validate import validate_paths

FIXTURES = Path(__file__).parent / "fixtures" / "skills_ref"

#: case -> (the skill folder inside it, the field skills-ref's error is about; None: valid,
#: "" : an error about no field: the path or the file)
CASES: dict[str, tuple[str, str | None]] = {
    "valid_skill": ("my-skill", None),
    "missing_skill_md": ("my-skill", ""),
    "not_a_directory": ("file.txt", ""),
    "invalid_name_uppercase": ("MySkill", "name"),
    "name_too_long": ("a" * 70, "name"),
    "name_leading_hyphen": ("-my-skill", "name"),
    "name_consecutive_hyphens": ("my--skill", "name"),
    "name_invalid_characters": ("my_skill", "name"),
    "name_directory_mismatch": ("wrong-name", "name"),
    "unexpected_fields": ("my-skill", "unknown_field"),
    "valid_with_all_fields": ("my-skill", None),
    "allowed_tools_accepted": ("my-skill", None),
    "i18n_chinese_name": ("技能", None),
    "i18n_russian_name_with_hyphens": ("мой-навык", None),
    "i18n_russian_lowercase_valid": ("навык", None),
    "i18n_russian_uppercase_rejected": ("НАВЫК", "name"),
    "description_too_long": ("my-skill", "description"),
    "valid_compatibility": ("my-skill", None),
    "compatibility_too_long": ("my-skill", "compatibility"),
    "nfkc_normalization": ("café", None),
}


def test_every_fixture_folder_is_a_case() -> None:
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(CASES)
    decomposed = (FIXTURES / "nfkc_normalization" / "café" / "SKILL.md").read_text("utf-8")
    assert "name: cafe\u0301\n" in decomposed  # the file spells it decomposed, the folder not


@pytest.mark.parametrize("case", sorted(CASES))
def test_spec_verdict_agrees_with_skills_ref(case: str) -> None:
    folder, field = CASES[case]
    found = check_folder(FIXTURES / case / folder)
    if field is None:
        assert found == [], [d.format() for d in found]
    else:
        assert found and {d.field or "" for d in found} == {field}, [d.format() for d in found]


def test_nonexistent_path_is_one_error(tmp_path: Path) -> None:
    found = check_folder(tmp_path / "nonexistent")
    assert len(found) == 1 and "does not exist" in found[0].message


NAME_CASES = [c for c, (_, f) in CASES.items() if f in ("name", "description", "compatibility")]
VALID_CASES = [c for c, (_, f) in CASES.items() if f is None]


@pytest.mark.parametrize("case", NAME_CASES + VALID_CASES)
def test_the_everyday_validator_agrees_on_names_descriptions_and_compatibility(
    case: str,
) -> None:
    folder, field = CASES[case]
    report = validate_paths([FIXTURES / case / folder])
    errors = [d for d in report.diagnostics if d.severity.value == "error"]
    if field is None:
        assert errors == [], [d.format() for d in errors]
    else:
        assert errors and {d.field for d in errors} == {field}, [d.format() for d in errors]


def test_through_a_real_process(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "CODEBOT_HOME": str(tmp_path / "home" / ".codebot"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "codebot", "skills", "validate", "--spec", "--json", str(FIXTURES)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["spec"] is True
    fields: dict[str, set[str]] = {}
    for d in out["diagnostics"]:
        rel = Path(d["path"]).relative_to(FIXTURES.resolve())
        fields.setdefault(rel.parts[0], set()).add(d["field"] or "")
    for case, (_, field) in CASES.items():
        if case in ("missing_skill_md", "not_a_directory"):
            continue  # a root scan finds no skill there: nothing to name (checked above)
        assert fields.get(case, set()) == (set() if field is None else {field}), case
    assert out["checked"] == len(CASES) - 2
