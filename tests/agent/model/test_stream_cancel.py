"""A cancellation that lands in the same loop step as a stream chunk is not lost.

On Python 3.11, `asyncio.wait_for` runs what it waits for as a task of its own; when that
task finishes in the same step as the caller is cancelled, it returns the result and the
cancellation is gone. A person pressed Esc while chunks streamed every 50 ms and the turn
went on to the end (seen once in CI). The client now awaits each chunk in the caller's
own task, under `asyncio.timeout`. These tests make the two land together on purpose: with
a stand-in for litellm whose chunks are futures the test resolves, and for the Bash tool's
wait for a command's exit and end of output.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codebot.agent.model import ModelRequest, TextDelta, litellm_wire
from codebot.agent.model import client as lc
from codebot.agent.tools.shell import wait_at_most

HELLO = ModelRequest(messages=[{"role": "user", "content": "hello"}])
END = object()


def chunk(text: str) -> dict[str, Any]:
    return {"choices": [{"delta": {"content": text}, "finish_reason": None}]}


class Stream:
    """What `acompletion(stream=True)` returns: each chunk is the next future's result."""

    def __init__(self, futures: list[asyncio.Future]) -> None:
        self.futures = futures

    def __aiter__(self) -> Stream:
        return self

    async def __anext__(self) -> Any:
        value = await self.futures.pop(0)
        if value is END:
            raise StopAsyncIteration
        return value

    async def aclose(self) -> None:
        pass


class FakeLitellm:
    def __init__(self, stream: Stream) -> None:
        self.stream = stream

    def get_supported_openai_params(self, model: str) -> tuple[str, ...]:
        return ()

    async def acompletion(self, **kwargs: Any) -> Stream:
        return self.stream


async def test_a_cancel_landing_with_a_chunk_still_cancels(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    first, second, third = (loop.create_future() for _ in range(3))
    monkeypatch.setattr(litellm_wire, "_module", FakeLitellm(Stream([first, second, third])))
    monkeypatch.setenv("CODEBOT_WIRE", "litellm")  # the stand-in above carries the stream
    client = lc.ProviderClient(model="openai/test-model", api_key="sk-test")
    got: list[Any] = []

    async def consume() -> None:
        async for item in client.stream(HELLO):
            got.append(item)

    task = asyncio.create_task(consume())
    first.set_result(chunk("a"))
    third.set_result(END)  # were the cancellation lost, the stream would end normally
    for _ in range(200):
        await asyncio.sleep(0)
        if got:
            break
    assert [x.text for x in got if isinstance(x, TextDelta)] == ["a"]
    for _ in range(5):  # the client is now waiting for the second chunk
        await asyncio.sleep(0)

    def land() -> None:  # the chunk and the cancellation in one step
        second.set_result(chunk("b"))
        task.cancel()

    loop.call_soon(land)
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not any(type(x).__name__ == "Completion" for x in got)


async def test_the_bash_tools_wait_keeps_a_cancel_landing_with_the_exit() -> None:
    loop = asyncio.get_running_loop()
    exited = loop.create_future()
    task = asyncio.create_task(wait_at_most(exited, 5))
    for _ in range(5):  # the task is now waiting for the exit
        await asyncio.sleep(0)

    def land() -> None:  # the command exits and Esc arrives in one step
        exited.set_result(None)
        task.cancel()

    loop.call_soon(land)
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_the_bash_tools_wait_times_out_and_leaves_the_future_alone() -> None:
    exited = asyncio.get_running_loop().create_future()
    await wait_at_most(exited, 0.01)  # no error: the caller goes on to SIGKILL
    assert not exited.done()
