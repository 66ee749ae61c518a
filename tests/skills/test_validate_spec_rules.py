"""`skills validate`: a skill folder is one skill (its other .md files support it); a
missing or empty `name` is a warning naming the folder used (an error with --strict); an
empty `compatibility` is an error; names follow the specification's Unicode lowercase rule
after NFKC; `--spec` gives the specification's verdict alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from codebot.skills.files import name_problems, spec_valid
from codebot.skills.validate import validate_paths

DESC = "description: Write plans for multi-step work. Not for one-line fixes.\n"


def cli(tmp_path: Path, *args: str) -> tuple[int, dict]:
    env = {**os.environ, "HOME": str(tmp_path / "h"), "CODEBOT_HOME": str(tmp_path / "h" / ".c")}
    proc = subprocess.run(
        [sys.executable, "-m", "codebot", "skills", "validate", "--json", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    return proc.returncode, json.loads(proc.stdout)


def skill_folder(tmp_path: Path, write_skill) -> Path:
    path = write_skill(tmp_path / "skills", "writing-plans", "name: writing-plans\n" + DESC)
    (path.parent / "plan-template.md").write_text("# A template\nNo frontmatter: not a skill.\n")
    (path.parent / "examples.md").write_text("Examples.\n")
    return path.parent


def test_a_skill_folder_is_validated_as_that_skill_alone(tmp_path: Path, write_skill) -> None:
    folder = skill_folder(tmp_path, write_skill)
    report = validate_paths([folder])
    assert report.checked == 1 and not report.problems, [d.format() for d in report.diagnostics]
    code, out = cli(tmp_path, str(folder))
    assert code == 0 and out["checked"] == 1 and out["problem_count"] == 0


def test_a_root_of_skills_keeps_its_single_file_skills(tmp_path: Path, write_skill) -> None:
    folder = skill_folder(tmp_path, write_skill)
    (folder.parent / "loose.md").write_text("---\n" + DESC + "---\nA single-file skill.\n")
    report = validate_paths([folder.parent])
    assert report.checked == 2  # writing-plans and loose.md; plan-template.md still not


def test_missing_or_empty_name_is_a_warning_naming_the_folder(tmp_path: Path, write_skill) -> None:
    write_skill(tmp_path / "s", "no-name", DESC)
    write_skill(tmp_path / "s", "empty-name", "name:\n" + DESC)
    report = validate_paths([tmp_path / "s"])
    found = {Path(d.path).parent.name: d for d in report.diagnostics if d.code == "name-missing"}
    assert set(found) == {"no-name", "empty-name"}
    assert all(d.severity.value == "warning" and d.field == "name" for d in found.values())
    assert "'no-name' is used instead" in found["no-name"].message
    assert "'empty-name' is used instead" in found["empty-name"].message
    assert not report.failed(strict=False) and report.failed(strict=True)
    assert cli(tmp_path, str(tmp_path / "s"))[0] == 0
    assert cli(tmp_path, "--strict", str(tmp_path / "s"))[0] == 1


def test_compatibility_must_be_1_to_500_characters(tmp_path: Path, write_skill) -> None:
    for name, value in (("empty", '""'), ("blank", ""), ("long", "x" * 501), ("ok", "Python 3")):
        write_skill(tmp_path / "s", name, f"name: {name}\n{DESC}compatibility: {value}")
    report = validate_paths([tmp_path / "s"])
    bad = {
        Path(d.path).parent.name: d.code
        for d in report.diagnostics
        if d.field == "compatibility" and d.severity.value == "error"
    }
    assert bad == {
        "empty": "compatibility-empty",
        "blank": "compatibility-empty",
        "long": "compatibility-length",
    }


def test_names_follow_the_unicode_lowercase_rule_after_nfkc() -> None:
    assert spec_valid("café", "café") and spec_valid("cafe\u0301", "café")
    assert spec_valid("技能", "技能") and spec_valid("мой-навык", "мой-навык")
    assert spec_valid("ｃｏｄｅ", "code")  # fullwidth is NFKC-equal to ASCII
    for bad in ("Café", "НАВЫК", "my_skill", "-x", "x-", "a--b", "a b", "a" * 65, "", "x\u200b"):
        assert not spec_valid(bad, None), bad
    [mismatch] = name_problems("good-one", "case")
    assert mismatch.code == "name-mismatch"


def test_everyday_validator_accepts_unicode_names(tmp_path: Path, write_skill) -> None:
    write_skill(tmp_path / "s", "café", "name: cafe\u0301\n" + DESC)
    write_skill(tmp_path / "s", "Büro", "name: Büro\n" + DESC)
    report = validate_paths([tmp_path / "s"])
    errors = {
        (Path(d.path).parent.name, d.code) for d in report.diagnostics if d.code[:4] == "name"
    }
    assert errors == {("Büro", "name-format")}


def test_spec_mode_applies_only_the_specification(tmp_path: Path, write_skill) -> None:
    """Codebot's own findings (a short description, an unknown tool pattern, a hint) are
    not the specification's; its errors (an unknown field) are, and only those."""
    write_skill(tmp_path / "s", "short", "name: short\ndescription: Too short.")
    write_skill(tmp_path / "s", "extra", "name: extra\n" + DESC + "when_to_use: always")
    write_skill(tmp_path / "s", "noname", DESC)
    code, out = cli(tmp_path, "--spec", str(tmp_path / "s"))
    by = {(Path(d["path"]).parent.name, d["code"], d["field"]) for d in out["diagnostics"]}
    assert code == 1 and out["spec"] is True and out["checked"] == 3
    assert by == {
        ("extra", "spec-field", "when_to_use"),
        ("noname", "spec-name-missing", "name"),
    }
    assert all(d["severity"] == "error" for d in out["diagnostics"])
    code, out = cli(tmp_path, "--spec", str(tmp_path / "s" / "short"))
    assert code == 0 and out["checked"] == 1 and out["diagnostics"] == []


def test_spec_mode_rejects_what_codebot_repairs(tmp_path: Path, write_skill) -> None:
    """codebot quotes `description: Usage: x` and loads it; YAML (and skills-ref) does not."""
    write_skill(tmp_path / "s", "usage", "name: usage\ndescription: Usage: run it. Not for x.")
    code, out = cli(tmp_path, "--spec", str(tmp_path / "s"))
    assert code == 1 and [d["code"] for d in out["diagnostics"]] == ["spec-frontmatter"]
