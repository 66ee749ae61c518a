"""MCP prompts as slash commands (codebot/mcp/prompts.py, agent/session/mcp_prompts.py,
ui/mcp_live.py) through a real stdio server written for the tests (`prompt_server.py`)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session.mcp_setup import servers_of
from codebot.config import load_settings
from codebot.mcp.prompts import ArgumentError, PromptArg, RemotePrompt, bind, command_names, hint
from codebot.ui.controller import Controller

PROMPTS = Path(__file__).with_name("prompt_server.py")
REVIEW = RemotePrompt("p", "review", "", (PromptArg("code", required=True), PromptArg("language")))


# -- binding the typed arguments -----------------------------------------------------------


def test_positional_words_fill_the_declared_arguments_in_order() -> None:
    assert bind(REVIEW, "x.py python") == {"code": "x.py", "language": "python"}
    assert bind(REVIEW, "'a b' python 3") == {"code": "a b", "language": "python 3"}
    assert bind(REVIEW, "language=go main.go") == {"code": "main.go", "language": "go"}
    assert bind(REVIEW, "code='x = 1'") == {"code": "x = 1"}


def test_a_missing_required_argument_is_named() -> None:
    with pytest.raises(ArgumentError, match="missing required argument code"):
        bind(REVIEW, "language=go")
    with pytest.raises(ArgumentError, match="takes no arguments"):
        bind(RemotePrompt("p", "greet"), "surplus")
    with pytest.raises(ArgumentError, match="quote"):
        bind(REVIEW, "'unbalanced")


def test_names_are_sanitised_like_tool_names_and_hints_show_the_arguments() -> None:
    names = command_names([RemotePrompt("my server", "do it!"), RemotePrompt("p", "x" * 90)])
    assert list(names) == ["mcp__my_server__do_it_", ("mcp__p__" + "x" * 90)[:64]]
    assert hint(REVIEW) == "<code> [language]"


# -- a session with the prompt server ----------------------------------------------------


@pytest.fixture
def prompt_server(codebot_home: Path, tmp_path: Path) -> Path:
    """The person's own server `p` (approved: theirs), logging what it receives."""
    log = tmp_path / "p.log"
    codebot_home.mkdir(parents=True, exist_ok=True)
    entry = {"command": sys.executable, "args": [str(PROMPTS), str(log)]}
    (codebot_home / "config.yaml").write_text(
        "sandbox:\n  mode: off\nmcp:\n  servers:\n    p: " + json.dumps(entry) + "\n"
    )
    return log


def received(log: Path, method: str) -> list[dict]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [m for m in map(json.loads, lines) if m.get("method") == method]


@pytest.fixture
def controller(project: Path, prompt_server: Path):
    made: list[Controller] = []

    def make(replies: list[Any] | None = None) -> Controller:
        c = Controller(
            load_settings(cwd=project),
            client=ScriptedModel(replies or [{"text": "ok"}] * 5),
            interactive=False,
        )
        made.append(c)
        servers = servers_of(c.session)
        assert servers is not None and servers.wait_started()
        return c

    yield make
    for c in made:
        c.close()


def user_text(c: Controller) -> str:
    """The prompt's block in the user messages (after the turn's reminders)."""
    text = "\n".join(str(m["content"]) for m in c.session.history if m["role"] == "user")
    return text[text.find('<skill name="mcp__') :] if '<skill name="mcp__' in text else ""


def test_prompts_complete_with_their_argument_names_as_hints(controller) -> None:
    c = controller()
    found = {x.name: x for x in c.completions("mcp__p")}
    assert {"mcp__p__review", "mcp__p__greet", "mcp__p__do_it_", "mcp__p__hostile"} <= set(found)
    review = found["mcp__p__review"]
    assert (review.hint, review.kind, review.source) == ("<code> [language]", "prompt", "mcp:p")
    assert review.description == "Review some code."
    assert "\x1b" not in found["mcp__p__hostile"].description  # a hostile description
    assert next(x.name for x in c.completions("mcp__p__rev")) == "mcp__p__review"


def test_a_prompt_with_arguments_enters_the_conversation(controller, prompt_server) -> None:
    c = controller()
    record = asyncio.run(c.run_turn("/mcp__p__review 'x = 1' language=python"))
    assert record.error is None or record.error == "", record.error
    (get,) = received(prompt_server, "prompts/get")
    assert get["params"] == {"name": "review", "arguments": {"code": "x = 1", "language": "python"}}
    text = user_text(c)
    assert "Review this python code: x = 1" in text
    assert "[assistant]\nI will review it." in text
    assert "[image image/png, 24 bytes; not included]" in text
    assert "[resource file:///a.txt; not included]" in text
    assert text.startswith('<skill name="mcp__p__review" source="mcp-prompt:p"')
    (kept,) = c.session.in_force  # compaction re-attaches it like an inline skill's text
    assert kept.name == "mcp__p__review" and "x = 1" in kept.text
    assert c.session.client.requests  # the model was asked with it


def test_a_missing_required_argument_is_a_clear_error_and_asks_nothing(
    controller, prompt_server
) -> None:
    c = controller()
    record = asyncio.run(c.run_turn("/mcp__p__review language=go"))
    assert "missing required argument code" in record.error
    assert "/mcp__p__review" in record.error
    assert received(prompt_server, "prompts/get") == []
    assert c.session.history == [] and c.session.client.requests == []


def test_an_unknown_prompt_names_the_known_ones(controller) -> None:
    c = controller()
    record = asyncio.run(c.run_turn("/mcp__p__nosuch"))
    assert "no MCP prompt /mcp__p__nosuch" in record.error and "/mcp__p__greet" in record.error


def test_a_servers_error_on_prompts_get_is_said(controller) -> None:
    c = controller()
    record = asyncio.run(c.run_turn("/mcp__p__fail"))
    assert "answered with an error" in record.error and "no prompt fail" in record.error


def test_list_changed_lists_the_prompts_again(controller, prompt_server, wait_until) -> None:
    c = controller()
    assert "mcp__p__later" not in {x.name for x in c.completions("mcp__p__")}
    asyncio.run(c.run_turn("/mcp__p__grow"))
    wait_until(lambda: "mcp__p__later" in {x.name for x in c.completions("mcp__p__")})
    assert len(received(prompt_server, "prompts/list")) >= 2


def test_a_hostile_prompt_text_is_escaped(controller) -> None:
    c = controller()
    asyncio.run(c.run_turn("/mcp__p__hostile"))
    text = user_text(c)
    assert text.count("</skill>") == 1 and text.endswith("</skill>")  # only codebot's own
    assert "<system-reminder>" not in text and "&lt;system-reminder>" in text
    assert "\x1b" not in text and "\x07" not in text


def test_a_sanitised_name_reaches_the_real_prompt(controller, prompt_server) -> None:
    c = controller()
    asyncio.run(c.run_turn("/mcp__p__do_it_"))
    (get,) = received(prompt_server, "prompts/get")
    assert get["params"]["name"] == "do it!" and "done it" in user_text(c)


def test_an_unapproved_project_servers_prompts_never_appear(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    log = tmp_path / "q.log"
    entry = {"command": sys.executable, "args": [str(PROMPTS), str(log)]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"q": entry}}))
    codebot_home.mkdir(parents=True, exist_ok=True)
    (codebot_home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    settings = load_settings(cwd=project)
    for trusted in (False, True):  # untrusted; trusted but not approved
        s = dataclasses.replace(settings, trusted=trusted)
        c = Controller(s, client=ScriptedModel([{"text": "ok"}]), interactive=False)
        try:
            assert servers_of(c.session) is None
            assert not [x for x in c.completions("mcp__") if x.kind == "prompt"]
            record = asyncio.run(c.run_turn("/mcp__q__greet"))
            assert record.error and user_text(c) == ""
        finally:
            c.close()
    assert not log.exists()  # no process ever started


def test_print_mode_runs_a_prompt_and_the_model_gets_its_text(
    project: Path, prompt_server: Path, fake_openai
) -> None:
    """`-p "/mcp__p__review ..."` as a real process: the server is still starting when the
    turn begins; the prompt waits for it, and its text is the model's first request."""
    import subprocess

    fake_openai.script([{"text": "reviewed"}])
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project)]
    cmd += ["-p", "/mcp__p__review main.py rust", "--api-base", fake_openai.url]
    cmd += ["--model", "openai/x"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=project)
    assert out.returncode == 0, out.stderr
    assert "reviewed" in out.stdout
    (first,) = fake_openai.requests
    sent = json.dumps(first["messages"])
    assert "Review this rust code: main.py" in sent
    (get,) = received(prompt_server, "prompts/get")
    assert get["params"]["arguments"] == {"code": "main.py", "language": "rust"}


def test_print_mode_names_a_missing_argument(
    project: Path, prompt_server: Path, fake_openai
) -> None:
    import subprocess

    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project)]
    cmd += ["-p", "/mcp__p__review", "--api-base", fake_openai.url, "--model", "openai/x"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=project)
    assert out.returncode != 0
    assert "missing required argument code" in out.stderr + out.stdout
    assert fake_openai.requests == []


def test_hostile_argument_names_are_shown_without_control_characters() -> None:
    p = RemotePrompt("p", "x", "", (PromptArg("a\x1b[2Jb\nc", required=True),))
    assert hint(p) == "<a [2Jb c>"
    assert bind(p, "v") == {"a\x1b[2Jb\nc": "v"}  # the server's own name is what it gets


def test_both_front_ends_complete_a_prompt_with_its_hint(controller) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from codebot.ui.line.input import SlashCompleter
    from codebot.ui.tui.completer import Completer

    c = controller()
    line = list(
        SlashCompleter(c.completions).get_completions(Document("/mcp__p__rev"), CompleteEvent())
    )
    assert line[0].text == "mcp__p__review"
    assert "/mcp__p__review <code> [language]" in str(line[0].display)
    got = Completer(c.completions, c.settings.project_dir).suggest("/mcp__p__rev", (0, 12))
    assert got is not None
    first = got.items[0]
    assert (first.label, first.insert, first.hint) == (
        "/mcp__p__review",
        "/mcp__p__review ",
        "<code> [language]",
    )


def test_a_prompt_of_a_server_that_died_starts_it_again(controller, wait_until) -> None:
    import os
    import signal

    c = controller()
    servers = servers_of(c.session)
    assert servers is not None
    got = asyncio.run(servers.call("p", "pid", {}))
    old = int(got.result.content[0].text)
    os.killpg(old, signal.SIGKILL)
    wait_until(lambda: servers.status()[0]["status"] == "failed")
    assert "mcp__p__greet" in {x.name for x in c.completions("mcp__p__")}  # still offered
    first = asyncio.run(c.run_turn("/mcp__p__greet")).error  # within the backoff: said so
    assert not first or "started again on its next use" in first
    wait_until(lambda: not asyncio.run(c.run_turn("/mcp__p__greet")).error)
    assert "hello from the server" in user_text(c)
    assert servers.status()[0]["status"] == "ready"


def test_line_mode_runs_a_prompt_and_lists_it_in_mcp(
    project: Path, prompt_server: Path, fake_openai
) -> None:
    """Line mode (`--plain`) as a real process: the prompt typed at once reaches the model,
    and `/mcp` shows the live server with its prompt count."""
    import subprocess

    fake_openai.script([{"text": "greeted"}])
    cmd = [sys.executable, "-m", "codebot", "--plain", "--api-base", fake_openai.url]
    cmd += ["--model", "openai/x"]
    out = subprocess.run(
        cmd,
        input="/mcp__p__greet\n/mcp\n/exit\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
    )
    assert out.returncode == 0, out.stderr
    (first,) = fake_openai.requests
    assert "hello from the server" in json.dumps(first["messages"])
    assert "greeted" in out.stdout
    rows = [ln.split() for ln in out.stdout.splitlines()]
    assert ["p", "user", "ready", "1", "6", "-"] in rows
