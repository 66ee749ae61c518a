"""A request in another language with a real model connected (issue 36 §1): `codebot -p`
as a real process, through the real litellm path, against the scripted OpenAI-compatible
server, with a catalog far over the listing's budget. The over-budget listing is ranked
for the request even when only a loanword of it is known, and the model, told by
SkillSearch's description to search in English, finds a skill none of the request's
words name."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

TERRAFORM = "terraform-drift"
MERMAID = "mermaid-sequence"


@pytest.fixture
def project(project: Path, write_skill, over_budget) -> Path:
    skills = project / ".codebot" / "skills"
    over_budget(skills, 1200)  # far over the 8,000-character listing budget
    write_skill(
        skills,
        MERMAID,
        "description: Draw sequence diagrams of login, checkout and other flows as Mermaid "
        "markup. Not for class diagrams.",
        "Write a mermaid sequenceDiagram block.",
    )
    return project


def run(project: Path, url: str, prompt: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust"]
    cmd += ["--api-base", url, "--model", "openai/test-model", "-p", prompt]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=project)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def listing(body: dict[str, Any]) -> str:
    text = "\n".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))
    blocks = re.findall(r"<system-reminder>\n(.*?)\n</system-reminder>", text, re.DOTALL)
    return next(b for b in blocks if b.startswith("Skills available"))


def tool_results(body: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in body["messages"] if m.get("role") == "tool"]


def search_description(body: dict[str, Any]) -> str:
    tools = {t["function"]["name"]: t["function"] for t in body.get("tools", [])}
    return tools["SkillSearch"]["description"]


def test_a_chinese_request_with_one_known_word_is_listed_and_searched(
    fake_openai, project: Path
) -> None:
    # only "Terraform" is a word the index knows
    prompt = "帮我检查一下生产环境里 Terraform 的状态和云资源之间有没有漂移"
    fake_openai.script([call("SkillSearch", query="terraform drift"), {"text": "done"}])
    got = run(project, fake_openai.url, prompt)
    assert got.returncode == 0, got.stderr
    first, second = fake_openai.requests[:2]
    shown = listing(first)
    assert len(shown) <= 8000
    assert f"- {TERRAFORM}: Detect drift" in shown  # ranked in for this request
    assert "SkillSearch tool finds" in shown
    assert "search in English" in search_description(first)
    (found,) = tool_results(second)
    assert found.startswith(f"- {TERRAFORM} (project)\n")


def test_a_request_no_word_of_which_is_known_is_found_by_an_english_search(
    fake_openai, project: Path
) -> None:
    # "draw a sequence diagram of the user login flow": no word the index knows
    prompt = "画一个用户登录流程的时序图"
    fake_openai.script(
        [call("SkillSearch", query="sequence diagram of a login flow"), {"text": "done"}]
    )
    got = run(project, fake_openai.url, prompt)
    assert got.returncode == 0, got.stderr
    first, second = fake_openai.requests[:2]
    assert f"- {MERMAID}:" not in listing(first)  # the words alone cannot rank it in
    (found,) = tool_results(second)
    assert found.startswith(f"- {MERMAID} (project)\n  Draw sequence diagrams")  # first card
