"""`/local` probes again each time it is typed; `/usage` says "local, no cost" for models
served on this machine; `/context` names where the window came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import Usage
from codebot.agent.model.local_probe import Found
from codebot.agent.session.context import ContextUse
from codebot.ui.reports import context_report, usage_report, window_words


def _controller(project: Path) -> Any:
    from codebot.config import load_settings
    from codebot.ui.controller import Controller

    return Controller(load_settings(cwd=project, model="offline", trust=True), interactive=True)


def test_local_probes_again_each_time(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codebot.agent.model import local_probe

    answers: list[list[Found]] = [
        [],
        [Found(8080, "llama.cpp", "http://127.0.0.1:8080/v1", ("smol.gguf",))],
    ]
    calls: list[tuple[int, ...]] = []

    def probe(ports: Any, *_: Any, **__: Any) -> list[Found]:
        calls.append(tuple(ports))
        return answers[len(calls) - 1]

    monkeypatch.setattr(local_probe, "probe", probe)
    c = _controller(project)
    first = c.builtin("local")
    assert "no local server answered just now" in first.text
    second = c.builtin("local")  # the server was started since: found now
    assert second.text == "model switched to openai/smol.gguf at http://127.0.0.1:8080/v1"
    assert c.session.client.model == "openai/smol.gguf"
    assert len(calls) == 2 and calls[0] == local_probe.DEFAULT_PORTS


def test_local_with_a_model_no_server_has(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codebot.agent.model import local_probe

    found = [Found(11434, "ollama", "http://127.0.0.1:11434/v1", ("qwen2.5:0.5b",))]
    monkeypatch.setattr(local_probe, "probe", lambda *a, **k: found)
    c = _controller(project)
    reply = c.builtin("local", "x\x1b[2J")
    assert "no local server has a model 'x\\x1b[2J'" in reply.text  # escapes shown escaped
    assert "qwen2.5:0.5b" in reply.text
    assert c.session.client.model == "offline"


def test_local_ports_come_from_the_environment(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codebot.agent.model import local_probe

    seen: list[Any] = []
    monkeypatch.setattr(local_probe, "probe", lambda ports, *a, **k: seen.append(ports) or [])
    monkeypatch.setenv("CODEBOT_PROBE_PORTS", "9999, 8081,junk")
    _controller(project).builtin("local")
    assert seen == [[9999, 8081]]


def test_usage_says_local_no_cost() -> None:
    by_model = {"openai/smol": Usage(100, 20, None), "gpt-4o-mini": Usage(10, 5, 0.001)}
    text = usage_report(Usage(110, 25, 0.001), by_model, {"openai/smol"})
    smol = next(line for line in text.splitlines() if "openai/smol" in line)
    assert smol.endswith("local, no cost")
    assert "cost unknown" not in text
    only_local = usage_report(
        Usage(1, 1, None), {"openai/smol": Usage(1, 1, None)}, {"openai/smol"}
    )
    assert "cost unknown" not in only_local and "local, no cost" in only_local
    hosted = usage_report(Usage(1, 1, None), {"x/y": Usage(1, 1, None)})
    assert "cost unknown" in hosted


def test_a_session_marks_models_of_a_loopback_endpoint_local(project: Path) -> None:
    from codebot.agent.model import ProviderClient
    from codebot.agent.session.state import SessionState
    from codebot.config import load_settings

    settings = load_settings(cwd=project)
    local = SessionState(settings, ProviderClient("openai/m", api_base="http://localhost:8080/v1"))
    local.count_usage("openai/m", Usage(1, 1))
    hosted = SessionState(settings, ProviderClient("openai/m", api_base="https://example.com/v1"))
    hosted.count_usage("openai/m", Usage(1, 1))
    assert local.local_models == {"openai/m"} and hosted.local_models == set()


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("server:/props", "from the server's /props"),
        ("server:/v1/models", "from the server's /v1/models"),
        ("server:/api/show", "from the server's /api/show"),
        ("refusal", "learned from the server's refusal"),
        ("litellm", "litellm's table"),
        ("config", "from the config (model_context_window)"),
    ],
)
def test_context_names_the_windows_source(project: Path, source: str, words: str) -> None:
    c = _controller(project)
    use = ContextUse(100, 200, 0, 0, 50, 2048, source)
    text = context_report(use, c.session, c.settings)
    assert f"window 2,048 tokens ({words})" in text.splitlines()[0]
    assert window_words("default").startswith("default")


def test_check_server_reads_the_window_and_warns_once(project: Path, fake_openai: Any) -> None:
    from codebot.config import load_settings
    from codebot.ui.controller import Controller

    fake_openai.models = {"data": [{"id": "smol", "owned_by": "llamacpp", "meta": {"n_ctx": 2048}}]}
    fake_openai.props = {"default_generation_settings": {"n_ctx": 2048}}
    settings = load_settings(cwd=project, api_base=fake_openai.url, trust=True)
    c = Controller(settings, interactive=True)
    said = c.check_server()
    assert "of the 2,048-token window" in said and "--lean" in said
    assert c.session.client.model == "openai/smol"  # the placeholder became the listed id
    assert c.check_server() == ""  # said once
    assert fake_openai.requests == []  # nothing was sent to the model


def test_check_server_without_an_endpoint_asks_nothing(project: Path) -> None:
    assert _controller(project).check_server() == ""


async def test_the_tui_says_the_overhead_after_the_first_paint(
    project: Path, fake_openai: Any
) -> None:
    from textual.widgets import Static

    from codebot.config import load_settings
    from codebot.ui.controller import Controller
    from codebot.ui.tui.app import CodebotApp

    fake_openai.models = {"data": [{"id": "smol", "owned_by": "llamacpp", "meta": {"n_ctx": 2048}}]}
    fake_openai.props = {"default_generation_settings": {"n_ctx": 2048}}
    settings = load_settings(cwd=project, api_base=fake_openai.url, trust=True)
    app = CodebotApp(Controller(settings, interactive=True), watch_skills=False)

    def said() -> bool:
        lines = [str(w.content) for w in app.conversation.query(Static)]
        return any("of the 2,048-token window" in line for line in lines)

    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(1000):  # poll: the check runs in a worker after the first paint
            if said():
                break
            await pilot.pause(0.02)
        assert said()
    assert fake_openai.requests == []


async def test_the_tui_says_an_answer_was_cut(project: Path) -> None:
    from textual.widgets import Static

    from codebot.agent.model import ScriptedModel
    from codebot.config import load_settings
    from codebot.ui.controller import Controller
    from codebot.ui.tui.app import CodebotApp

    client = ScriptedModel(
        [{"text": "cut mid-wo", "finish_reason": "length", "usage": {"completion_tokens": 9}}]
    )
    controller = Controller(load_settings(cwd=project, trust=True), client=client)
    app = CodebotApp(controller, watch_skills=False)

    def said() -> bool:
        lines = [str(w.content) for w in app.conversation.query(Static)]
        return any("the answer was cut at 9 tokens" in line for line in lines)

    async with app.run_test(size=(120, 40)) as pilot:
        app.prompt.load_text("explain")
        await app.on_prompt_area_submitted(app.prompt.Submitted("explain"))
        for _ in range(1000):
            if said():
                break
            await pilot.pause(0.02)
        assert said()
