"""`codebot skills show NAME` draws a workflow as a tree; a run's outcome is rendered as
one line per step for the conversation."""

from __future__ import annotations

from pathlib import Path

from codebot.cli import main
from codebot.skills.outcome import Outcome, Status
from codebot.skills.workflow import render_outcome

FLOW = """description: Collect metrics, analyse them and publish. Not for live paging.
steps:
  - id: collect
    parallel:
      - {skill: fetch, args: "web"}
      - {skill: fetch, args: "api"}
  - id: analyse
    skill: report
    args: "{{ steps.collect.data | tojson }}"
    timeout: 120
    retry: {attempts: 2, backoff_s: 5}
    on: {failed: {skill: summary}, partial: continue, needs_confirmation: stop}
  - id: publish
    skill: "post\\x1b[31m"
    when: "{{ steps.analyse.status == 'success' }}"
"""


def test_skills_show_draws_the_tree(project: Path, write_skill, capsys, monkeypatch) -> None:
    write_skill(project / ".codebot" / "skills", "flow", FLOW, "The body.")
    monkeypatch.chdir(project)
    assert main(["skills", "show", "flow"]) == 0
    out = capsys.readouterr().out
    tree = out.split("--- steps ---\n", 1)[1].split("\n\n--- body", 1)[0].splitlines()
    assert tree == [
        "workflow flow (3 steps)",
        "├─ collect  parallel, 2 members",
        "│  ├─ collect-1  fetch  args: web",
        "│  └─ collect-2  fetch  args: api",
        "├─ analyse  report  args: {{ steps.collect.data | tojson }}  timeout 120s"
        "  retry 2× backoff 5s",
        "│     on failed → fallback summary; needs_confirmation → stop",  # defaults left out
        "└─ publish  post\\x1b[31m  when: {{ steps.analyse.status == 'success' }}",
    ]


def test_skills_show_says_why_broken_steps_cannot_run(
    project: Path, write_skill, capsys, monkeypatch
) -> None:
    write_skill(
        project / ".codebot" / "skills",
        "flow",
        "description: Broken steps here for the test. Not for use.\nsteps:\n  - {id: a}\n",
    )
    monkeypatch.chdir(project)
    assert main(["skills", "show", "flow"]) == 0
    out = capsys.readouterr().out
    assert "--- steps: cannot run ---" in out and "needs exactly one of skill and parallel" in out


def test_render_outcome_has_a_line_per_step() -> None:
    data = {
        "steps": {
            "collect": {
                "status": "success",
                "summary": "2 of 2 succeeded",
                "data": [
                    {"id": "c-1", "skill": "fetch", "status": "success", "summary": "web ok"},
                    {"id": "c-2", "skill": "fetch", "status": "success", "summary": "api ok"},
                ],
            },
            "analyse": {
                "status": "failed",
                "summary": "broke\x1b[2J",
                "fallback": {"status": "success", "summary": "plain"},
            },
            "publish": {"status": "skipped"},
        }
    }
    text = render_outcome("flow", Outcome(Status.PARTIAL, "workflow flow partial", data))
    assert text.splitlines() == [
        "[workflow flow: partial] workflow flow partial",
        "- collect: success — 2 of 2 succeeded",
        "  - c-1 (fetch): success — web ok",
        "  - c-2 (fetch): success — api ok",
        "- analyse: failed — broke\\x1b[2J",
        "  fallback: success — plain",
        "- publish: skipped",
    ]
