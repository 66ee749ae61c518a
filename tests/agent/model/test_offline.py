"""The offline model shows the product: which skill and why, the prompt a real model would
get, the read-only steps it may run, and one line on how to connect a model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import OfflineModel
from codebot.agent.model.local_probe import DEFAULT_CONNECT, Found
from codebot.agent.model.summary import SUMMARY_PREFIX
from codebot.agent.session.setup import select_client
from codebot.config import load_settings
from codebot.ui.print_mode import run_print

GIT = [
    "git",
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.com",
    "-c",
    "init.defaultBranch=main",
]


def git(project: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=project, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one committed file and an uncommitted change to it."""
    project = tmp_path / "shop"
    project.mkdir()
    git(project, "init", "-q")
    (project / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(project, "add", "app.py")
    git(project, "commit", "-qm", "init")
    (project / "app.py").write_text(
        "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
    )
    return project


def answer(project: Path, prompt: str, *, trust: bool = True, capsys: Any) -> dict[str, Any]:
    code = run_print(prompt, load_settings(cwd=project, trust=trust), output_format="json")
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["model"] == "offline"
    return out


def ends_with_one_connect_line(text: str) -> bool:
    lines = text.rstrip("\n").splitlines()
    return (
        lines[-1] == DEFAULT_CONNECT
        and sum(line.startswith("Connect a model:") for line in lines) == 1
    )


def test_review_by_name_shows_skill_reason_prompt_and_diff_stat(repo: Path, capsys) -> None:
    text = answer(repo, "/review", capsys=capsys)["result"]
    assert "**review**" in text and "offline model" in text
    assert "you asked for it by name (`/review`)" in text  # the reason
    assert (
        "> # Code review" in text and "review the uncommitted changes" in text
    )  # the skill text, quoted
    assert "more lines" in text  # trimmed, and says so
    assert "$ git diff --stat" in text and "app.py | 6 " in text and "1 file changed" in text
    assert "$ git status --short" in text and " M app.py" in text
    assert ends_with_one_connect_line(text)


def test_a_routed_request_gives_the_routers_explanation(repo: Path, capsys) -> None:
    out = answer(repo, "please review my recent changes", capsys=capsys)
    assert [c["name"] for c in out["tool_calls"]] == ["Skill"]
    text = out["result"]
    assert (
        "**Why review:** for `please review my recent changes` the router matched review in name"
        in text
    )
    assert "scored" in text and "threshold" in text  # the router's own reason
    assert "> # Code review" in text and "1 file changed" in text
    assert ends_with_one_connect_line(text)


def test_commit_runs_its_steps_and_test_lists_test_files(repo: Path, capsys) -> None:
    git(repo, "add", "app.py")
    text = answer(repo, "/commit", capsys=capsys)["result"]
    assert "$ git diff --cached --stat" in text and "1 file changed" in text
    (repo / "tests").mkdir()
    (repo / "tests" / "test_app.py").write_text("def test_add():\n    pass\n")
    (repo / "node_modules" / "x").mkdir(parents=True)
    (repo / "node_modules" / "x" / "a.test.js").write_text("")
    text = answer(repo, "/test app.py", capsys=capsys)["result"]
    assert "**Test files in this project:**" in text and "`tests/test_app.py`" in text
    assert "a.test.js" not in text and "$ git" not in text
    assert ends_with_one_connect_line(text)


def test_an_untrusted_folder_runs_nothing(repo: Path, capsys) -> None:
    text = answer(repo, "/review", trust=False, capsys=capsys)["result"]
    assert "because this folder is not trusted" in text and "`codebot trust`" in text
    assert "$ git" not in text and "1 file changed" not in text
    assert ends_with_one_connect_line(text)


def test_not_a_git_repository_is_said(tmp_path: Path, capsys) -> None:
    (tmp_path / "plain").mkdir()
    text = answer(tmp_path / "plain", "/review", capsys=capsys)["result"]
    assert "Not a git repository" in text and "$ git" not in text


def test_the_git_steps_run_no_repository_program_and_write_nothing(repo: Path, capsys) -> None:
    marker = repo.parent / "hook-ran"
    hook = repo.parent / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    git(repo, "config", "diff.external", str(hook))
    (repo / ".gitattributes").write_text("*.py diff=evil\n")
    git(repo, "config", "diff.evil.textconv", str(hook))
    index = repo / ".git" / "index"
    before = index.stat().st_mtime_ns
    text = answer(repo, "/review", capsys=capsys)["result"]
    assert "1 file changed" in text
    assert not marker.exists()
    assert index.stat().st_mtime_ns == before  # no optional index refresh


def test_an_unroutable_request_lists_the_closest_skills(repo: Path, capsys) -> None:
    out = answer(repo, "fix the flaky login", capsys=capsys)
    text = out["result"]
    assert out["tool_calls"] == []
    assert "no skill fits this closely enough" in text and "(the router: " in text
    close = [line for line in text.splitlines() if line.startswith("- `/")]
    assert 1 <= len(close) <= 3
    assert ends_with_one_connect_line(text)


def test_answers_vary_with_what_was_asked(repo: Path, capsys) -> None:
    hello = answer(repo, "hello", capsys=capsys)["result"]
    question = answer(repo, "what is a monad?", capsys=capsys)["result"]
    task = answer(repo, "fix the flaky login", capsys=capsys)["result"]
    assert hello.startswith("Hello! I am codebot's offline model") and "5 in all" in hello
    assert question.startswith("That is a question")
    assert len({hello, question, task}) == 3
    assert all(ends_with_one_connect_line(t) for t in (hello, question, task))


# -- the model on its own --------------------------------------------------------------------


def listing(*names: str) -> str:
    lines = "\n".join(f"- {n}: {n.title()} things in code." for n in names)
    return f"<system-reminder>\nSkills available:\n{lines}\n</system-reminder>\n"


def skill_result(name: str, body: str = "Do the thing.") -> str:
    return f'<skill name="{name}" source="bundled" dir="/x/{name}">\n{body}\n</skill>'


def test_without_a_catalog_it_still_explains_and_is_deterministic(tmp_path: Path) -> None:
    model = OfflineModel(project_dir=tmp_path, trusted=True)
    user = {"role": "user", "content": listing("review", "deploy") + "review app.py"}
    first = model.decide([user])
    assert first.tool_calls and json.loads(first.tool_calls[0].arguments)["skill"] == "review"
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "offline-1",
                "type": "function",
                "function": {"name": "Skill", "arguments": "{}"},
            }
        ],
    }
    messages = [
        user,
        call,
        {"role": "tool", "tool_call_id": "offline-1", "content": skill_result("review")},
    ]
    a, b = (
        model.decide(messages).text,
        OfflineModel(project_dir=tmp_path, trusted=True).decide(messages).text,
    )
    assert a == b
    assert "**Why review:** the request shares words with its name or description (review)" in a
    assert "> Do the thing." in a and "Not a git repository" in a
    assert ends_with_one_connect_line(a)


def test_the_last_line_names_a_local_server_when_one_was_found() -> None:
    found = Found(11434, "ollama", "http://127.0.0.1:11434/v1", ("llama3.1:8b",))
    model = OfflineModel()
    model.local_servers = (found,)
    text = model.decide([{"role": "user", "content": listing("review") + "hello"}]).text
    last = text.splitlines()[-1]
    assert last == (
        "Connect a model: Ollama at http://127.0.0.1:11434/v1 is running; run codebot "
        "--api-base http://127.0.0.1:11434/v1 --model openai/llama3.1:8b"
    )


def test_a_summary_request_still_gets_the_extract() -> None:
    text = (
        OfflineModel()
        .decide([{"role": "user", "content": SUMMARY_PREFIX + "\n\nuser: fix add\n"}])
        .text
    )
    assert "offline model" in text and "Connect a model" not in text


def test_a_tool_result_that_only_mentions_a_skill_tag_is_not_taken_for_one() -> None:
    messages = [
        {"role": "user", "content": listing("review") + "review it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "Skill", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": 'the fork said: <skill name="x"> …'},
    ]
    text = OfflineModel().decide(messages).text
    assert text.startswith("The tool answered:") and ends_with_one_connect_line(text)


def test_a_long_prompt_is_trimmed_and_tags_stay_visible() -> None:
    body = "\n".join(f"step {i}: ```" for i in range(200))
    messages = [{"role": "user", "content": listing("deploy") + skill_result("deploy", body)}]
    text = OfflineModel().decide(messages).text
    assert '> `<skill name="deploy" source="bundled" dir="/x/deploy">`' in text
    assert "> step 0: ```" in text and "step 150" not in text and "more lines" in text
    assert "Read-only steps" not in text  # no steps for a skill outside the allow-list


def test_select_client_gives_the_offline_model_the_folder_and_its_trust(tmp_path: Path) -> None:
    client = select_client(load_settings(cwd=tmp_path, trust=True), env={})
    assert (
        isinstance(client, OfflineModel)
        and client.trusted
        and client.project_dir == tmp_path.resolve()
    )
    assert not select_client(load_settings(cwd=tmp_path), env={}).trusted
    assert isinstance(
        select_client(load_settings(cwd=tmp_path, model="offline"), env={}), OfflineModel
    )
