"""`ScriptedModel`: a `ModelClient` that replays scripted replies, for exact offline tests.

A reply is one of:
- a str: a text answer, streamed in a few `TextDelta` pieces;
- a dict `{"text": str, "tool_calls": [{"name": ..., "arguments": {...} or str, "id"?: ...}],
  "usage"?: Usage or {"prompt_tokens": ..., "completion_tokens": ...}, "finish_reason"?: str}`;
- an Exception instance, raised instead of answering (e.g. `ModelError("auth", ...)`);
- a callable `(request) -> reply`, for replies that depend on the request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from codebot.agent.model.protocol import (
    Completion,
    ModelRequest,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
)
from codebot.agent.model.tokens import estimate_tokens

Reply = str | dict[str, Any] | BaseException | Callable[[ModelRequest], Any]


def _pieces(text: str, n: int = 3) -> list[str]:
    if not text:
        return []
    size = -(-len(text) // n)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _usage(raw: Any) -> Usage:
    if isinstance(raw, Usage):
        return raw
    if isinstance(raw, dict):
        return Usage(
            int(raw.get("prompt_tokens", 0)), int(raw.get("completion_tokens", 0)), raw.get("cost")
        )
    return Usage()


class ScriptedModel:
    """Replays `replies` in order, one per `stream()` call; records every request."""

    offline = False
    context_window: int | None = None

    @staticmethod
    def count_tokens(text: str) -> int:
        return estimate_tokens(text)

    def __init__(self, replies: Iterable[Reply] = (), model: str = "scripted") -> None:
        self.model = model
        self.replies: list[Reply] = list(replies)
        #: Every request received, in order.
        self.requests: list[ModelRequest] = []
        self._calls = 0

    def add(self, *replies: Reply) -> None:
        """Append replies to the script."""
        self.replies.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self.replies)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError("scripted model: no more replies")
        reply: Any = self.replies.pop(0)
        while callable(reply) and not isinstance(reply, BaseException):
            reply = reply(request)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, str):
            reply = {"text": reply}
        if not isinstance(reply, dict):
            raise TypeError(
                f"scripted model: a reply must be str, dict, exception or callable, not {reply!r}"
            )
        text = str(reply.get("text") or "")
        for piece in _pieces(text):
            yield TextDelta(piece)
        calls = []
        for raw in reply.get("tool_calls") or ():
            self._calls += 1
            arguments = raw.get("arguments", {})
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments)
            calls.append(
                ToolCall(str(raw.get("id") or f"call_{self._calls}"), raw["name"], arguments)
            )
        finish = reply.get("finish_reason") or ("tool_calls" if calls else "stop")
        usage = _usage(reply.get("usage"))
        yield Completion(text, tuple(calls), usage, request.model or self.model, finish)
