"""The two provider paths read the same: each scenario runs once on the direct path and
once through the real litellm, against the scripted server (its OpenAI chat-completions
route and its Anthropic messages route), and what the session sees — text, tool calls,
usage, cost, the error's kind and sentence, what reached the server — must be equal."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from codebot.agent.model import Completion, ModelError, ModelRequest, TextDelta
from codebot.agent.model.client import ProviderClient

READ = {
    "type": "function",
    "function": {
        "name": "Read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}
CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "read a.py"},
    {
        "role": "assistant",
        "content": "Reading.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "Read", "arguments": '{"path": "a.py"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "print('hi')"},
    {"role": "user", "content": "and now?"},
]
REQUEST = ModelRequest(messages=CONVERSATION, tools=[READ], max_tokens=300)
WIRES = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-sonnet-4-5"}


def client(fake: Any, wire: str, **kw: Any) -> ProviderClient:
    base = fake.url if wire == "openai" else fake.anthropic_url
    kw.setdefault("backoff", 0.01)
    return ProviderClient(WIRES[wire], api_base=base, api_key="sk-test", **kw)


async def outcome(
    fake: Any, wire: str, path: str, monkeypatch: pytest.MonkeyPatch, **kw: Any
) -> dict[str, Any]:
    """What one request gives on `path`: the text pieces joined, the completion, or the
    error; and how many requests reached the server."""
    monkeypatch.setenv("CODEBOT_WIRE", path)
    c = client(fake, wire, **kw)
    assert c.path_for() == ("litellm" if path == "litellm" else "direct")
    before = len(fake.requests)
    text: list[str] = []
    result: dict[str, Any] = {}
    try:
        async for item in c.stream(REQUEST):
            if isinstance(item, TextDelta):
                text.append(item.text)
            elif isinstance(item, Completion):
                result["completion"] = (
                    item.text,
                    [(t.id, t.name, json.loads(t.arguments)) for t in item.tool_calls],
                    item.usage,
                    item.finish_reason,
                )
    except ModelError as error:
        result["error"] = (error.kind, error.message, error.retryable, error.window)
    result["streamed"] = "".join(text)
    result["requests"] = len(fake.requests) - before
    return result


def _clear(fake: Any) -> None:
    """Drop what one path left in the queue (a reply after an error that was not retried)."""
    with fake._lock:
        fake._queue.clear()


async def both(
    fake: Any, wire: str, script: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch, **kw: Any
) -> dict[str, Any]:
    fake.script(script)
    direct = await outcome(fake, wire, "direct", monkeypatch, **kw)
    _clear(fake)
    fake.script(script)
    via_litellm = await outcome(fake, wire, "litellm", monkeypatch, **kw)
    assert direct == via_litellm
    return direct


SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "text": [
        {
            "text": "Hello there, world.",
            "chunks": 4,
            "usage": {"prompt_tokens": 1200, "completion_tokens": 34},
        }
    ],
    "parallel tool calls": [
        {
            "text": "Two reads.",
            "tool_calls": [
                {"name": "Read", "arguments": {"path": "a.py"}, "id": "call_a"},
                {"name": "Read", "arguments": {"path": "b.py"}, "id": "call_b"},
            ],
        }
    ],
    "cut at the limit": [{"text": "a long answer", "finish_reason": "length"}],
    "429 then an answer": [
        {"status": 429, "headers": {"retry-after": "0"}},
        {"text": "after the wait"},
    ],
    "500 twice then an answer": [{"status": 500}, {"status": 500}, {"text": "recovered"}],
    "429 until it gives up": [{"status": 429}] * 3,
    "401": [{"status": 401}, {"text": "never"}],
    "403": [{"status": 403}, {"text": "never"}],
    "404": [{"status": 404}, {"text": "never"}],
    "400": [{"status": 400}, {"text": "never"}],
    "broken off mid-stream": [
        {"text": "abcdefgh", "chunks": 8, "drop_after": 3},
        {"text": "never"},
    ],
}


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_each_scenario_reads_the_same_on_both_paths(
    fake_openai: Any, wire: str, scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = await both(fake_openai, wire, SCENARIOS[scenario], monkeypatch, max_retries=2)
    if scenario in ("text", "cut at the limit", "429 then an answer", "500 twice then an answer"):
        assert "completion" in got and got["streamed"] == got["completion"][0]
    if scenario == "text":
        usage = got["completion"][2]
        assert (usage.prompt_tokens, usage.completion_tokens) == (1200, 34)
        assert usage.cost is not None and usage.cost > 0  # both models are in litellm's table
    if scenario == "parallel tool calls":
        assert [c[2] for c in got["completion"][1]] == [{"path": "a.py"}, {"path": "b.py"}]
    if scenario.startswith(("4", "broken")) and "then" not in scenario:
        assert "error" in got
    if scenario == "broken off mid-stream":
        assert got["requests"] == 1 and got["streamed"] and "mid-stream" in got["error"][1]


@pytest.mark.parametrize(
    ("wire", "refusal"),
    [
        (
            "openai",
            {
                "status": 400,
                "body": {
                    "error": {
                        "message": "This model's maximum context length is 8192 tokens. "
                        "However, your messages resulted in 9100 tokens.",
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                },
            },
        ),
        ("anthropic", {"status": 400, "message": "prompt is too long: 9100 tokens > 8192 maximum"}),
        (
            "openai",
            {
                "status": 500,
                "body": {
                    "error": {
                        "code": 500,
                        "message": "Context size has been exceeded.",
                        "type": "server_error",
                    }
                },
            },
        ),
    ],
)
async def test_a_context_refusal_is_context_on_both_paths(
    fake_openai: Any, wire: str, refusal: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    got = await both(fake_openai, wire, [refusal, {"text": "never"}], monkeypatch)
    assert got["error"][0] == "context" and got["requests"] == 1


async def test_an_overflow_mid_answer_keeps_its_window_on_both_paths(
    fake_openai: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusal = {
        "code": 400,
        "message": "request (5000 tokens) exceeds the available context size (4096 tokens)",
        "type": "exceed_context_size_error",
    }
    got = await both(
        fake_openai, "openai", [{"text": "partial", "error_after": refusal}], monkeypatch
    )
    assert got["error"][0] == "context" and got["error"][3] == 4096


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_what_reaches_the_server_is_the_same(
    fake_openai: Any, wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await both(fake_openai, wire, [{"text": "ok"}], monkeypatch)
    direct, via_litellm = fake_openai.requests[-2:]
    if wire == "openai":
        assert direct == via_litellm
        return
    assert direct["system"] == via_litellm["system"]
    assert direct["messages"] == via_litellm["messages"]
    assert [(t["name"], t["input_schema"]) for t in direct["tools"]] == [
        (t["name"], t["input_schema"]) for t in via_litellm["tools"]
    ]
    assert direct["max_tokens"] == via_litellm["max_tokens"] == 300
    headers = fake_openai.request_headers[-2:]
    assert [h.get("x-api-key") for h in headers] == ["sk-test", "sk-test"]
    assert headers[0]["anthropic-version"] == "2023-06-01"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_cancelling_mid_stream_stops_promptly_on_the_direct_path(
    fake_openai: Any, wire: str, async_wait_until: Any
) -> None:
    fake_openai.script([{"stall": 30, "text": "slow answer"}])

    async def consume() -> None:
        async for _ in client(fake_openai, wire).stream(REQUEST):
            pass

    task = asyncio.create_task(consume())
    await async_wait_until(lambda: fake_openai.requests, 30, "the request to reach the server")
    task.cancel()
    async with asyncio.timeout(5):  # not the 30 s the server stalls for
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_a_stall_before_the_first_chunk_is_retried_then_a_timeout(fake_openai: Any) -> None:
    fake_openai.script([{"delay": 3, "text": "too late"}, {"delay": 3, "text": "too late"}])
    c = client(fake_openai, "anthropic", max_retries=1, first_token_timeout=0.5)
    with pytest.raises(ModelError) as info:
        async for _ in c.stream(REQUEST):
            pass
    assert info.value.kind == "timeout" and len(fake_openai.requests) == 2


def test_the_token_count_is_the_same_whichever_path_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    from codebot.agent.model import counting

    counting.load()
    text = "supercalifragilisticexpialidocious 你好世界 " * 20
    direct = ProviderClient("openai/gpt-4o-mini", api_key="k").count_tokens(text)
    monkeypatch.setenv("CODEBOT_WIRE", "litellm")
    litellm_client = ProviderClient("openai/gpt-4o-mini", api_key="k")
    assert litellm_client.path_for() == "litellm"
    assert litellm_client.count_tokens(text) == direct
