"""One problem count everywhere (`skills list`, `skills validate`, `catalog_problems`),
plurals that read right, `skills stats` that lists only skills, YAML hints that fit the
error, and a skill that did not load shown as its problems by `skills show`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codebot.cli import main
from codebot.config import load_settings
from codebot.skills.validate import validate_paths
from codebot.workspace import open_catalog

GOOD = "description: Review code for bugs and risky changes. Not for writing new features."


def skills_dir(project: Path) -> Path:
    return project / ".codebot" / "skills"


def run(capsys: pytest.CaptureFixture[str], project: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--cwd", str(project), *args])
    out, err = capsys.readouterr()
    return code, out, err


def listed_count(out: str) -> int:
    m = re.search(r"^(\d+) problems? \(run 'codebot skills validate'", out, re.M)
    return int(m.group(1)) if m else 0


def test_list_validate_and_the_function_agree(project: Path, write_skill, capsys) -> None:
    from codebot.skills.validate import catalog_problems, problem_count

    root = skills_dir(project)
    write_skill(root, "review", GOOD)
    write_skill(
        root, "Bad_Name", GOOD.replace("Review code", "Check code")
    )  # name format: an error
    write_skill(root, "short", "description: Too short.")  # a warning
    write_skill(root, "broken", 'description: "never closed\nname: broken')  # does not load
    snap = open_catalog(load_settings(cwd=project)).snapshot
    n = problem_count(snap)
    assert n == len(catalog_problems(snap)) >= 3
    _, out, _ = run(capsys, project, "skills", "list")
    assert listed_count(out) == n
    code, out, _ = run(capsys, project, "skills", "validate")
    assert code == 1 and f"checked: {n} problems (" in out
    _, out, _ = run(capsys, project, "skills", "validate", "--json")
    data = json.loads(out)
    assert data["problem_count"] == n == sum(d["severity"] != "info" for d in data["diagnostics"])
    _, out, _ = run(capsys, project, "skills", "list", "--json")
    assert json.loads(out)["problem_count"] == n


def test_one_problem_is_singular(project: Path, write_skill, capsys) -> None:
    write_skill(skills_dir(project), "review", "name: review\n" + GOOD)  # no name: a warning
    write_skill(skills_dir(project), "broken", 'description: "never closed')
    _, out, _ = run(capsys, project, "skills", "list")
    assert "\n1 problem (run" in out and "problems" not in out and "(s)" not in out
    _, out, _ = run(capsys, project, "skills", "validate")
    summary = out.strip().splitlines()[-1]
    assert "skills checked: 1 problem (1 error, 0 warnings)" in summary and "(s)" not in summary


@pytest.mark.parametrize(
    ("n", "text"),
    [(0, "0 problems"), (1, "1 problem"), (2, "2 problems"), (1200, "1,200 problems")],
)
def test_count_of(n: int, text: str) -> None:
    from codebot.skills.validate import count_of

    assert count_of(n, "problem") == text


def test_the_result_is_kept_for_the_snapshot(project: Path, write_skill) -> None:
    from codebot.skills.validate import catalog_problems

    write_skill(skills_dir(project), "review", GOOD)
    snap = open_catalog(load_settings(cwd=project)).snapshot
    assert catalog_problems(snap) is catalog_problems(snap)


# -- skills stats -----------------------------------------------------------------------------


def test_stats_lists_skills_not_mistyped_names(project: Path, write_skill, capsys) -> None:
    write_skill(skills_dir(project), "review", GOOD)
    assert run(capsys, project, "skills", "invoke", "review", "src")[0] == 0
    assert run(capsys, project, "skills", "invoke", "revew", "src")[0] == 1
    _, out, _ = run(capsys, project, "skills", "stats")
    rows = [
        line.split()[0] for line in out.splitlines() if line and not line.startswith(("-", " "))
    ]
    assert "review" in rows and "revew" not in rows
    assert "not skills" in out and "revew (1)" in out
    _, out, _ = run(capsys, project, "skills", "stats", "--json")
    data = json.loads(out)
    assert list(data["skills"]) == ["review"] and data["not_skills"] == {"revew": 1}
    assert data["totals"]["skills"] == 1


# -- YAML hints -------------------------------------------------------------------------------


def hint_for(skills_root: Path, write_skill, frontmatter: str) -> str:
    path = write_skill(skills_root, "x", frontmatter)
    (d,) = [d for d in validate_paths([path]).diagnostics if d.code == "yaml-syntax"]
    return d.hint


@pytest.mark.parametrize(
    "frontmatter",
    [
        "description: x\nmetadata:\n  note: see: the docs",  # ': ' inside a nested plain value
        "description: x\nmetadata:\n  note: `code`",
        "description: x\nmetadata:\n  note: [a] [b]",
    ],
)
def test_quoting_is_advised_where_quoting_fixes_it(
    skills_root: Path, write_skill, frontmatter: str
) -> None:
    assert "quote" in hint_for(skills_root, write_skill, frontmatter)


@pytest.mark.parametrize(
    ("frontmatter", "says"),
    [
        ('description: "never closed\nname: x', "close the quote"),
        ("description: ok\nname: x\n  extra: y", "indent"),
        ("description: ok\n\tname: x", "spaces"),
    ],
)
def test_other_yaml_errors_get_their_own_fix(
    skills_root: Path, write_skill, frontmatter: str, says: str
) -> None:
    hint = hint_for(skills_root, write_skill, frontmatter)
    assert says in hint and "quote the whole value" not in hint and "': '" not in hint


# -- a skill that did not load ------------------------------------------------------------------


def test_show_names_the_problem_of_a_skill_that_did_not_load(
    project: Path, write_skill, capsys
) -> None:
    path = write_skill(skills_dir(project), "broken", 'description: "never closed\nname: broken')
    code, out, err = run(capsys, project, "skills", "show", "broken")
    assert code == 1 and "no skill named" not in err
    assert f"{path}:" in err and "yaml-syntax" in err and "close the quote" in err
    code, out, _ = run(capsys, project, "skills", "show", "broken", "--json")
    data = json.loads(out)
    assert code == 1 and data["loaded"] is False and data["diagnostics"][0]["path"] == str(path)
    assert data["diagnostics"][0]["line"] >= 1


def test_show_of_a_name_nobody_wrote_still_suggests(project: Path, write_skill, capsys) -> None:
    write_skill(skills_dir(project), "review", GOOD)
    code, _, err = run(capsys, project, "skills", "show", "reviw")
    assert code == 1 and "no skill named 'reviw'" in err and "review" in err
