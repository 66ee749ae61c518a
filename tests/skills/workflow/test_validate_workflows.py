"""`skills validate` on workflows: each problem with its file, line and code, through the
real command line and through `validate_paths`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codebot.cli import main
from codebot.skills.files import Severity
from codebot.skills.validate import validate_paths

DESC = "description: {0} the things of this project carefully. Not for other projects.\n"


def skill(write_skill, root: Path, name: str, extra: str = "") -> Path:
    return write_skill(root, name, f"name: {name}\n" + DESC.format(name.title()) + extra)


@pytest.fixture
def root(tmp_path: Path, write_skill) -> Path:
    root = tmp_path / "skills"
    skill(write_skill, root, "fetch")
    skill(write_skill, root, "report", "idempotent: true\ntimeout: 30\n")
    skill(write_skill, root, "publish")
    return root


def findings(path: Path) -> dict[str, list[tuple[int, str]]]:
    """The workflow findings about `path`, validating the folder of skills it is in."""
    out: dict[str, list[tuple[int, str]]] = {}
    for d in validate_paths([path.parent.parent]).diagnostics:
        if d.code.startswith("workflow-") and d.path == str(path):
            assert d.path.endswith("SKILL.md") and d.severity in (Severity.ERROR, Severity.WARNING)
            out.setdefault(d.code, []).append((d.line, d.message))
    return out


BAD = """steps:
  - id: collect
    parallel:
      - {skill: fetch, args: web}
      - parallel:
          - {skill: fetch}
  - id: analyse
    skill: report
    args: "{{ steps.collect.data | tojson }"
    retry: {attempts: 2}
  - id: analyse
    skill: nosuch
    when: "{{ steps.publish.status == 'success' }}"
  - id: publish
    skill: publish
    retry: 3
    when: "{{ steps.ghost.status }}"
"""


def test_every_kind_of_problem_is_found_on_its_line(root: Path, write_skill) -> None:
    path = skill(write_skill, root, "flow", BAD)
    # Structure first: a nested parallel and a duplicate id stop the rest of the checks.
    found = findings(path)
    assert [line for line, _ in found["workflow-nested-parallel"]] == [
        8
    ]  # the inner `parallel:` key
    assert found["workflow-duplicate-id"] == [
        (14, "step id 'analyse' is used twice (first in step 2)")
    ]
    text = path.read_text().replace("      - parallel:\n          - {skill: fetch}\n", "")
    text = text.replace("  - id: analyse\n    skill: nosuch", "  - id: again\n    skill: nosuch")
    path.write_text(text)
    found = findings(path)
    assert "workflow-nested-parallel" not in found and "workflow-duplicate-id" not in found, found
    # line numbers count from the file's first line (`---` is line 1)
    (syntax,) = found["workflow-template"]
    assert syntax[0] == 10 and "analyse" in syntax[1] and "args" in syntax[1]
    (unknown,) = found["workflow-unknown-skill"]
    assert unknown[0] == 13 and "'nosuch'" in unknown[1]
    order = sorted(found["workflow-step-order"])
    assert order[0][0] == 14 and "steps.publish, which has not run" in order[0][1]
    assert order[1][0] == 18 and "no step 'ghost'" in order[1][1]
    (retry,) = found["workflow-retry-not-idempotent"]
    assert retry[0] == 17 and "'publish' is not idempotent" in retry[1]  # report is: no finding


def test_cycle_through_another_workflow(root: Path, write_skill) -> None:
    a = skill(
        write_skill,
        root,
        "alpha",
        "steps:\n  - id: one\n    skill: fetch\n  - id: two\n    skill: beta\n",
    )
    skill(write_skill, root, "beta", "steps:\n  - id: back\n    skill: alpha\n")
    report = validate_paths([root])
    cycles = [d for d in report.diagnostics if d.code == "workflow-cycle"]
    assert {Path(d.path).parent.name for d in cycles} == {"alpha", "beta"}
    (ad,) = [d for d in cycles if d.path == str(a)]
    assert ad.line == 7 and "alpha → beta → alpha" in ad.message


def test_self_naming_workflow_is_a_cycle(root: Path, write_skill) -> None:
    path = skill(write_skill, root, "selfish", "steps:\n  - id: me\n    skill: selfish\n")
    assert "selfish → selfish" in findings(path)["workflow-cycle"][0][1]


def test_step_names_a_catalog_skill_when_a_file_is_validated_alone(
    project: Path, write_skill, capsys, monkeypatch
) -> None:
    """`skills validate FILE`: the steps may name skills of the catalog, not only the file."""
    skills = project / ".codebot" / "skills"
    skill(write_skill, skills, "fetch")
    outside = project.parent / "elsewhere"
    path = skill(
        write_skill,
        outside,
        "flow",
        "steps:\n  - {id: a, skill: fetch}\n  - {id: b, skill: gone}\n",
    )
    monkeypatch.chdir(project)
    code = main(["skills", "validate", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    bad = [d for d in out["diagnostics"] if d["code"] == "workflow-unknown-skill"]
    assert code == 1 and len(bad) == 1 and "'gone'" in bad[0]["message"] and bad[0]["line"] == 6


def test_workflow_keys_are_not_unknown_keys(root: Path) -> None:
    report = validate_paths([root / "report"])
    assert not [d for d in report.diagnostics if d.code == "unknown-key"]


@pytest.mark.parametrize(
    ("steps", "code"),
    [
        ("steps: 7", "workflow-steps"),
        ("steps: []", "workflow-steps"),
        ("steps:\n  - just a string", "workflow-step"),
        ("steps:\n  - {id: a}", "workflow-step"),
        ("steps:\n  - {id: a, skill: fetch, parallel: [{skill: fetch}]}", "workflow-step"),
        ("steps:\n  - {id: 'a b', skill: fetch}", "workflow-id"),
        ("steps:\n  - {id: a, skill: fetch, timeout: -1}", "workflow-timeout"),
        ("steps:\n  - {id: a, skill: fetch, timeout: .inf}", "workflow-timeout"),
        ("steps:\n  - {id: a, skill: fetch, retry: {attempts: 1000}}", "workflow-retry"),
        ("steps:\n  - {id: a, skill: fetch, on: {failed: explode}}", "workflow-on"),
        ("steps:\n  - {id: a, skill: fetch, on: {success: stop}}", "workflow-on"),
        ("steps:\n  - {id: a, skill: fetch, args: {x: 1}}", "workflow-field"),
        ("steps:\n  - {id: a, skill: fetch, colour: red}", "workflow-key"),
        ("steps:\n  - {id: a, parallel: [{skill: fetch, when: x}]}", "workflow-key"),
    ],
)
def test_bad_steps_are_named(root: Path, write_skill, steps: str, code: str) -> None:
    path = skill(write_skill, root, "flow", steps + "\n")
    assert code in findings(path), findings(path)


def test_hostile_values_do_not_hang_or_crash(root: Path, write_skill) -> None:
    huge = "x" * 20_000
    path = skill(
        write_skill,
        root,
        "flow",
        f'steps:\n  - id: a\n    skill: fetch\n    args: "{huge}"\n'
        '  - id: b\n    skill: "fe\\x1btch\\u202e"\n',
    )
    found = findings(path)
    assert "workflow-template-size" in found


def test_too_many_steps_or_members_are_refused(root: Path, write_skill) -> None:
    many = "".join(f"  - {{id: s{i}, skill: fetch}}\n" for i in range(101))
    path = skill(write_skill, root, "flow", "steps:\n" + many)
    assert "workflow-size" in findings(path)
    members = "".join("      - {skill: fetch}\n" for _ in range(33))
    path.write_text(path.read_text().replace(many, "  - id: g\n    parallel:\n" + members))
    assert "workflow-size" in findings(path)


def test_a_file_that_became_a_fifo_does_not_hang_the_line_lookup(root: Path, write_skill) -> None:
    import os

    from codebot.skills.workflow import workflow_of
    from codebot.skills.workflow.check import check_one

    path = skill(write_skill, root, "flow", "steps:\n  - {id: a, skill: nosuch}\n")
    (spec,) = [s for s in _specs(root) if s.name == "flow"]
    assert workflow_of(spec)[0] is not None
    path.unlink()
    os.mkfifo(path)  # a reader that opened it would block forever
    (d,) = check_one(spec, {})
    assert d.code == "workflow-unknown-skill" and d.line == 1


def _specs(root: Path):
    from codebot.skills.catalog import Catalog
    from codebot.skills.files import Root, Source

    return list(Catalog([Root(root, Source.PROJECT, "extra", (0,))]).load())
