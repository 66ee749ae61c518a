"""The first-token and idle-stream timeouts of the litellm client against the scripted
server: each says the wait as it happens (`on_wait`) and fails with "no data from the
server for N s"; the defaults depend on whether the endpoint is on this machine."""

from __future__ import annotations

import asyncio

import pytest

from codebot.agent.model import ModelError, ModelRequest, ProviderClient

HI = ModelRequest(messages=[{"role": "user", "content": "hi"}])


async def _drain(client: ProviderClient) -> list[object]:
    return [item async for item in client.stream(HI)]


def test_first_token_timeout_says_the_wait_then_fails(fake_openai) -> None:
    fake_openai.script([{"delay": 30, "text": "late"}])
    client = ProviderClient(
        "openai/m",
        api_base=fake_openai.url,
        api_key="sk-x",
        max_retries=0,
        first_token_timeout=0.6,
        idle_timeout=5,
    )
    waits: list[tuple[float, float]] = []
    client.on_wait = lambda silent, limit: waits.append((silent, limit))
    with pytest.raises(ModelError) as info:
        asyncio.run(_drain(client))
    assert info.value.kind == "timeout"
    assert info.value.message.startswith("no data from the server for 0.6 s")
    assert "did not start answering" in info.value.message
    assert waits == [(0.3, 0.6)]


def test_idle_timeout_after_some_text(fake_openai) -> None:
    fake_openai.script([{"text": "Hello there", "chunks": 2, "stall": 30}])
    client = ProviderClient(
        "openai/m",
        api_base=fake_openai.url,
        api_key="sk-x",
        max_retries=0,
        first_token_timeout=10,
        idle_timeout=0.6,
    )
    with pytest.raises(ModelError) as info:
        asyncio.run(_drain(client))
    assert info.value.kind == "timeout" and not info.value.retryable
    assert "stopped sending mid-answer" in info.value.message


def test_defaults_local_and_hosted() -> None:
    local = ProviderClient("openai/m", api_base="http://127.0.0.1:8080/v1")
    hosted = ProviderClient("gpt-4o-mini")
    assert (local.first_token_timeout, local.idle_timeout) == (60.0, 30.0)
    assert (hosted.first_token_timeout, hosted.idle_timeout) == (120.0, 90.0)
