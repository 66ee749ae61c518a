"""ProviderClient against a local fake server, each test on both paths (direct and
through the real litellm), plus ScriptedModel."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import Completion, ModelError, ModelRequest, ScriptedModel, TextDelta
from codebot.agent.model.client import ProviderClient
from codebot.agent.model.litellm_wire import litellm as _litellm
from codebot.agent.model.providers import default_model_for, provider_key_present

REPO = Path(__file__).resolve().parents[3]
HELLO = ModelRequest(messages=[{"role": "user", "content": "hello"}])
READ_TOOL = {
    "type": "function",
    "function": {
        "name": "Read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


@pytest.fixture(params=["direct", "litellm"])
def fake_openai(fake_openai: Any, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The shared fake server, once with requests on the direct path, once through litellm:
    the same assertions hold for both (errors, usage and cost read the same)."""
    monkeypatch.setenv("CODEBOT_WIRE", request.param)
    return fake_openai


def client_for(fake: Any, **kw: Any) -> ProviderClient:
    kw.setdefault("backoff", 0.01)
    return ProviderClient(model="openai/test-model", api_base=fake.url, api_key="sk-test", **kw)


async def collect(client: Any, request: ModelRequest = HELLO) -> tuple[list[str], Completion]:
    """The text deltas and the final Completion; asserts the Completion comes last, once."""
    deltas: list[str] = []
    completions: list[Completion] = []
    async for item in client.stream(request):
        assert not completions, "nothing may follow the Completion"
        if isinstance(item, TextDelta):
            deltas.append(item.text)
        else:
            completions.append(item)
    assert len(completions) == 1
    return deltas, completions[0]


async def failure(client: Any, request: ModelRequest = HELLO) -> ModelError:
    with pytest.raises(ModelError) as info:
        await collect(client, request)
    return info.value


# -- streaming -------------------------------------------------------------------------


async def test_plain_text_streams_in_pieces(fake_openai: Any) -> None:
    fake_openai.script([{"text": "Hello there, world.", "chunks": 4}])
    deltas, done = await collect(client_for(fake_openai))
    assert len(deltas) == 4
    assert "".join(deltas) == done.text == "Hello there, world."
    assert done.tool_calls == ()
    assert done.finish_reason == "stop"
    assert done.model == "openai/test-model"
    body = fake_openai.requests[0]
    assert body["model"] == "test-model" and body["stream"] is True
    assert body["messages"] == [{"role": "user", "content": "hello"}]
    assert "tools" not in body  # an empty tool list is not sent


async def test_tool_call_arguments_split_across_chunks_are_joined(fake_openai: Any) -> None:
    args = {"path": "src/codebot/agent/model.py", "limit": 40}
    fake_openai.script(
        [{"tool_calls": [{"name": "Read", "arguments": json.dumps(args), "id": "call_x"}]}]
    )
    request = ModelRequest(messages=HELLO.messages, tools=[READ_TOOL])
    deltas, done = await collect(client_for(fake_openai), request)
    assert deltas == [] and done.text == ""
    (call,) = done.tool_calls
    assert (call.id, call.name, json.loads(call.arguments)) == ("call_x", "Read", args)
    assert done.finish_reason == "tool_calls"
    assert fake_openai.requests[0]["tools"][0]["function"]["name"] == "Read"


@pytest.mark.parametrize("interleave", [False, True], ids=["sequential", "interleaved"])
async def test_two_parallel_tool_calls_keep_index_order(fake_openai: Any, interleave: bool) -> None:
    fake_openai.script(
        [
            {
                "interleave": interleave,
                "tool_calls": [
                    {"name": "Read", "arguments": {"path": "a.py"}, "id": "call_a"},
                    {"name": "Glob", "arguments": {"pattern": "**/*.md"}, "id": "call_b"},
                ],
            }
        ]
    )
    _, done = await collect(client_for(fake_openai))
    assert [(c.id, c.name, json.loads(c.arguments)) for c in done.tool_calls] == [
        ("call_a", "Read", {"path": "a.py"}),
        ("call_b", "Glob", {"pattern": "**/*.md"}),
    ]


async def test_content_before_tool_calls_keeps_both(fake_openai: Any) -> None:
    fake_openai.script(
        [
            {
                "text": "Let me look at the file.",
                "chunks": 3,
                "tool_calls": [{"name": "Read", "arguments": {"path": "a.py"}}],
            }
        ]
    )
    deltas, done = await collect(client_for(fake_openai))
    assert "".join(deltas) == done.text == "Let me look at the file."
    assert [c.name for c in done.tool_calls] == ["Read"]
    assert json.loads(done.tool_calls[0].arguments) == {"path": "a.py"}


async def test_tool_calls_are_decided_from_deltas_not_finish_reason(fake_openai: Any) -> None:
    fake_openai.script(
        [{"finish_reason": "stop", "tool_calls": [{"name": "Read", "arguments": "{}"}]}]
    )
    _, done = await collect(client_for(fake_openai))
    assert [c.name for c in done.tool_calls] == ["Read"]  # (litellm rewrites the reason anyway)


async def test_usage_is_reported_and_requested(fake_openai: Any) -> None:
    fake_openai.script([{"text": "ok", "usage": {"prompt_tokens": 123, "completion_tokens": 45}}])
    _, done = await collect(client_for(fake_openai))
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (123, 45)
    assert fake_openai.requests[0]["stream_options"] == {"include_usage": True}


async def test_effort_is_dropped_for_a_model_without_reasoning(fake_openai: Any) -> None:
    fake_openai.script([{"text": "ok"}])
    request = ModelRequest(messages=HELLO.messages, effort="high")
    await collect(client_for(fake_openai), request)
    assert "reasoning_effort" not in fake_openai.requests[0]


async def test_effort_is_sent_to_a_reasoning_model(fake_openai: Any) -> None:
    fake_openai.script([{"text": "ok"}])
    request = ModelRequest(messages=HELLO.messages, effort="high", model="openai/o3-mini")
    _, done = await collect(client_for(fake_openai), request)
    assert fake_openai.requests[0]["reasoning_effort"] == "high"
    assert fake_openai.requests[0]["model"] == "o3-mini"
    assert done.model == "openai/o3-mini"


# -- retries -----------------------------------------------------------------------------


async def test_two_server_errors_then_success_recovers(fake_openai: Any) -> None:
    fake_openai.script([{"status": 500}, {"status": 500}, {"text": "recovered"}])
    _, done = await collect(client_for(fake_openai))
    assert done.text == "recovered"
    assert len(fake_openai.requests) == 3


async def test_rate_limit_then_success_recovers(fake_openai: Any) -> None:
    fake_openai.script([{"status": 429}, {"text": "fine"}])
    _, done = await collect(client_for(fake_openai))
    assert done.text == "fine"
    assert len(fake_openai.requests) == 2


async def test_retries_stop_at_max_retries_and_say_so(fake_openai: Any) -> None:
    fake_openai.script([{"status": 429}] * 3)
    error = await failure(client_for(fake_openai, max_retries=2))
    assert (error.kind, error.status) == ("rate_limit", 429)
    assert "Rate limit reached for test-model" in error.message  # what the provider said
    assert "gave up after 2 retries" in error.message
    assert len(fake_openai.requests) == 3


async def test_a_slow_first_answer_is_retried(fake_openai: Any) -> None:
    fake_openai.script([{"delay": 3, "text": "too late"}, {"text": "in time"}])
    request = ModelRequest(messages=HELLO.messages, timeout=1.0)
    _, done = await collect(client_for(fake_openai, max_retries=1), request)
    assert done.text == "in time"
    assert len(fake_openai.requests) == 2


# -- errors ------------------------------------------------------------------------------


async def test_unauthorized_is_auth_names_the_server_and_is_not_retried(fake_openai: Any) -> None:
    fake_openai.script([{"status": 401}, {"text": "must not be reached"}])
    error = await failure(client_for(fake_openai))
    assert (error.kind, error.status, error.retryable) == ("auth", 401, False)
    assert fake_openai.url in error.message
    assert "Incorrect API key" in error.message
    assert len(fake_openai.requests) == 1


async def test_missing_key_is_auth_not_a_server_error(fake_openai: Any) -> None:
    fake_openai.script([{"text": "must not be reached"}])
    client = ProviderClient(model="openai/test-model", api_base=fake_openai.url, backoff=0.01)
    error = await failure(client)
    assert error.kind == "auth" and not error.retryable
    assert "no API key was given" in error.message and fake_openai.url in error.message
    assert fake_openai.requests == []


@pytest.mark.parametrize(
    ("model", "var"),
    [
        ("openai/gpt-4o-mini", "OPENAI_API_KEY"),
        ("gpt-4o-mini", "OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("gemini/gemini-2.5-flash", "GEMINI_API_KEY"),
    ],
)
def test_auth_message_names_the_missing_env_var(model: str, var: str) -> None:
    litellm = _litellm()
    exc = litellm.AuthenticationError(message="invalid x-api-key", llm_provider="x", model=model)
    error = ProviderClient(model)._error(exc, model, 600, received=False)
    assert error.kind == "auth" and not error.retryable
    assert f"{var} is not set" in error.message
    assert "/model" in error.message


def test_auth_message_says_a_set_key_was_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
    litellm = _litellm()
    exc = litellm.AuthenticationError(
        message="invalid x-api-key", llm_provider="anthropic", model="m"
    )
    error = ProviderClient("anthropic/claude-sonnet-4-5")._error(
        exc, "anthropic/claude-sonnet-4-5", 600, received=False
    )
    assert "rejected ANTHROPIC_API_KEY" in error.message and "invalid x-api-key" in error.message


async def test_context_length_error_is_context_and_suggests_clear(fake_openai: Any) -> None:
    fake_openai.script(
        [
            {
                "status": 400,
                "body": {
                    "error": {
                        "message": "This model's maximum context length is 8192 tokens. "
                        "However, your messages resulted in 9100 tokens.",
                        "type": "invalid_request_error",
                        "param": "messages",
                        "code": "context_length_exceeded",
                    }
                },
            }
        ]
    )
    error = await failure(client_for(fake_openai))
    assert (error.kind, error.retryable) == ("context", False)
    assert "too long" in error.message and "/clear" in error.message and "8192" in error.message
    assert len(fake_openai.requests) == 1


async def test_bad_request_and_not_found_are_not_retried(fake_openai: Any) -> None:
    fake_openai.script([{"status": 400}, {"status": 404}])
    bad = await failure(client_for(fake_openai))
    missing = await failure(client_for(fake_openai))
    assert (bad.kind, missing.kind) == ("bad_request", "not_found")
    assert "test-model" in missing.message and "/model" in missing.message
    assert len(fake_openai.requests) == 2


async def test_a_stall_mid_stream_times_out_without_retry(fake_openai: Any) -> None:
    fake_openai.script([{"stall": 30, "text": "never finished"}, {"text": "must not be reached"}])
    started = time.monotonic()
    error = await failure(client_for(fake_openai, timeout=1.5))
    elapsed = time.monotonic() - started
    assert error.kind == "timeout"
    assert "1.5 s" in error.message
    assert 1.4 < elapsed < 15  # the 1.5 s timeout fired, long before the 30 s stall ends
    assert len(fake_openai.requests) == 1


async def test_a_stream_cut_mid_answer_fails_without_retry(fake_openai: Any) -> None:
    fake_openai.script(
        [{"text": "abcdefgh", "chunks": 8, "drop_after": 3}, {"text": "must not be reached"}]
    )
    deltas: list[str] = []
    with pytest.raises(ModelError) as info:
        async for item in client_for(fake_openai).stream(HELLO):
            if isinstance(item, TextDelta):
                deltas.append(item.text)
    assert deltas  # part of the answer arrived before the cut
    assert not info.value.retryable and "mid-stream" in info.value.message
    assert len(fake_openai.requests) == 1


async def test_cancelling_the_consumer_stops_a_stalled_stream_promptly(
    fake_openai: Any, async_wait_until
) -> None:
    fake_openai.script([{"stall": 30, "text": "slow"}])

    async def consume() -> None:
        await collect(client_for(fake_openai))

    task = asyncio.create_task(consume())
    await async_wait_until(lambda: fake_openai.requests, 30, "the request to reach the server")
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 5  # not the 30 s the stream stalls for


async def test_connection_refused_is_connection(unused_port: int) -> None:
    client = ProviderClient(
        "openai/test-model",
        api_base=f"http://127.0.0.1:{unused_port}/v1",
        api_key="sk-test",
        max_retries=1,
        backoff=0.01,
    )
    error = await failure(client)
    assert error.kind == "connection" and f"127.0.0.1:{unused_port}" in error.message


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- litellm mock_response (no server) -------------------------------------------------


async def test_mock_response_text_streams() -> None:
    client = ProviderClient("gpt-4o-mini", completion_kwargs={"mock_response": "hi from the mock"})
    deltas, done = await collect(client)
    assert "".join(deltas) == done.text == "hi from the mock"
    assert done.usage.prompt_tokens > 0
    assert done.usage.cost is not None  # gpt-4o-mini is in litellm's price map


async def test_mock_response_streamed_tool_calls() -> None:
    litellm = _litellm()
    message = litellm.Message(
        role="assistant",
        content="Reading.",
        tool_calls=[
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "Read", "arguments": '{"path": "a.py"}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "Glob", "arguments": '{"pattern": "*"}'},
            },
        ],
    )
    mock = litellm.ModelResponse(
        choices=[litellm.Choices(index=0, finish_reason="tool_calls", message=message)]
    )
    client = ProviderClient("gpt-4o-mini", completion_kwargs={"mock_response": mock})
    _, done = await collect(client)
    assert done.text == "Reading."
    assert [(c.id, c.name, c.arguments) for c in done.tool_calls] == [
        ("call_a", "Read", '{"path": "a.py"}'),
        ("call_b", "Glob", '{"pattern": "*"}'),
    ]


def test_context_window_is_known_for_mapped_models_and_none_otherwise() -> None:
    assert ProviderClient("gpt-4o-mini").context_window == 128000
    assert (
        ProviderClient("openai/test-model", api_base="http://127.0.0.1:9/v1").context_window is None
    )


# -- keys and defaults -----------------------------------------------------------------


def test_provider_key_present_picks_the_first_set_key() -> None:
    assert provider_key_present({}) is None
    assert provider_key_present({"OPENAI_API_KEY": ""}) is None
    assert (
        provider_key_present({"GROQ_API_KEY": "g", "ANTHROPIC_API_KEY": "a"}) == "ANTHROPIC_API_KEY"
    )


@pytest.mark.parametrize(
    ("key", "model"),
    [
        ("OPENAI_API_KEY", "gpt-4o-mini"),
        ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
        ("GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
        ("GOOGLE_API_KEY", "gemini/gemini-2.5-flash"),
        ("MISTRAL_API_KEY", "mistral/"),
        ("GROQ_API_KEY", "groq/"),
        ("DEEPSEEK_API_KEY", "deepseek/"),
        ("OPENROUTER_API_KEY", "openrouter/"),
        ("XAI_API_KEY", "xai/"),
    ],
)
def test_default_model_for_each_key(key: str, model: str) -> None:
    assert default_model_for(key).startswith(model)


# -- import hygiene (subprocesses with a clean environment) ------------------------------


def _clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "CODEBOT_HOME": str(tmp_path / ".codebot"),
        "PYTHONPATH": str(REPO),
    }
    env.update(extra)
    return env


def _run(code: str, tmp_path: Path, **extra: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=_clean_env(tmp_path, **extra),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_model_module_does_not_import_litellm(tmp_path: Path) -> None:
    out = _run(
        "import json, sys\n"
        "from codebot.agent.model.client import ProviderClient\n"
        "ProviderClient('gpt-4o-mini', api_key='sk-x')\n"
        "print(json.dumps({'litellm': 'litellm' in sys.modules}))",
        tmp_path,
    )
    assert out == {"litellm": False}


@pytest.mark.slow
def test_litellm_through_the_helper_ignores_dotenv_and_stays_offline(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("OPENAI_API_KEY=from-dotenv\n", encoding="utf-8")
    out = _run(
        "import json, os\n"
        "from codebot.agent.model.litellm_wire import litellm\n"
        "litellm()\n"
        "print(json.dumps({k: os.environ.get(k) for k in "
        "('LITELLM_MODE', 'LITELLM_LOCAL_MODEL_COST_MAP', 'OPENAI_API_KEY')}))",
        tmp_path,
    )
    assert out == {
        "LITELLM_MODE": "PRODUCTION",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OPENAI_API_KEY": None,
    }


@pytest.mark.slow
def test_plain_import_litellm_would_load_dotenv(tmp_path: Path) -> None:
    """The control for the test above: without the helper the `.env` leaks in."""
    (tmp_path / ".env").write_text("OPENAI_API_KEY=from-dotenv\n", encoding="utf-8")
    out = _run(
        "import json, os\nimport litellm\n"
        "print(json.dumps({'key': os.environ.get('OPENAI_API_KEY')}))",
        tmp_path,
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    assert out == {"key": "from-dotenv"}


# -- ScriptedModel -----------------------------------------------------------------------


async def test_scripted_model_replays_text_tool_calls_errors_and_callables() -> None:
    model = ScriptedModel(
        [
            "Hello there, friend.",
            {
                "text": "Reading.",
                "tool_calls": [
                    {"name": "Read", "arguments": {"path": "a.py"}},
                    {"name": "Bash", "arguments": '{"command": "ls"}', "id": "b1"},
                ],
            },
            ModelError("rate_limit", "slow down", retryable=True, status=429),
            lambda request: f"you said {request.messages[-1]['content']}",
        ]
    )
    deltas, done = await collect(model)
    assert len(deltas) > 1 and "".join(deltas) == done.text == "Hello there, friend."
    _, done = await collect(model)
    assert [(c.name, json.loads(c.arguments)) for c in done.tool_calls] == [
        ("Read", {"path": "a.py"}),
        ("Bash", {"command": "ls"}),
    ]
    assert done.tool_calls[1].id == "b1" and done.tool_calls[0].id
    error = await failure(model)
    assert error.kind == "rate_limit"
    _, done = await collect(model, ModelRequest(messages=[{"role": "user", "content": "ping"}]))
    assert done.text == "you said ping"
    assert len(model.requests) == 4 and model.requests[-1].messages[-1]["content"] == "ping"
    with pytest.raises(AssertionError, match="no more replies"):
        await collect(model)
    assert (model.model, model.context_window, model.offline) == ("scripted", None, False)


def test_scripted_model_module_does_not_import_litellm(tmp_path: Path) -> None:
    out = _run(
        "import json, sys\nimport codebot.agent.model.scripted\n"
        "print(json.dumps({'litellm': 'litellm' in sys.modules}))",
        tmp_path,
    )
    assert out == {"litellm": False}


# -- the fake server itself ------------------------------------------------------------


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_fake_server_matches_out_of_order_and_reports_exhaustion(fake_openai: Any) -> None:
    fake_openai.script([{"match": "fork task", "text": "fork answer"}, {"text": "main answer"}])
    main = {"model": "m", "messages": [{"role": "user", "content": "main question"}]}
    fork = {"model": "m", "messages": [{"role": "user", "content": "the fork task"}]}
    assert _post(fake_openai.url, main)[1]["choices"][0]["message"]["content"] == "main answer"
    assert _post(fake_openai.url, fork)[1]["choices"][0]["message"]["content"] == "fork answer"
    status, body = _post(fake_openai.url, main)
    assert status == 500 and body["error"]["message"] == "fake server: script exhausted"
    assert [r["messages"][0]["content"] for r in fake_openai.requests] == [
        "main question",
        "the fork task",
        "main question",
    ]


def test_fake_server_runs_as_a_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "from the script"}]), encoding="utf-8")
    log = tmp_path / "requests.jsonl"
    server = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).parents[1] / "fake_openai.py"),
            "--port",
            "0",
            "--script",
            str(script),
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        ready = server.stdout.readline().split()
        assert ready[0] == "READY"
        url = f"http://127.0.0.1:{int(ready[1])}/v1"
        status, body = _post(url, {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        assert status == 200 and body["choices"][0]["message"]["content"] == "from the script"
        assert json.loads(log.read_text(encoding="utf-8"))["messages"][0]["content"] == "hi"
    finally:
        server.terminate()
        server.wait(timeout=10)
