"""OpenAI chat completions on the wire: the request body, and the stream's chunks (which
are already the shape the client reads, so they pass through).

What litellm would send for the same request, and no more: the messages and tools as
they are, `stream_options.include_usage`, the answer limit under the name the model
takes (`max_completion_tokens` for OpenAI's reasoning families, `max_tokens` otherwise),
and `reasoning_effort` only for a model litellm's table says reasons.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from codebot.agent.model.protocol import ModelRequest
from codebot.agent.model.wire_errors import ended_early, error_in_stream

#: Model families that take `max_completion_tokens` (litellm maps `max_tokens` for them).
_COMPLETION_TOKENS = ("o1", "o3", "o4", "gpt-5")


def _message(message: dict[str, Any], system_as_user: bool) -> dict[str, Any]:
    """A message as litellm sends it: no keys whose value is None, and a system message as
    a user message for a model whose table entry says it takes none."""
    out = {k: v for k, v in message.items() if v is not None}
    if system_as_user and out.get("role") == "system":
        out["role"] = "user"
    return out


def request_body(
    request: ModelRequest, model_id: str, *, reasoning: bool, system_as_user: bool = False
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model_id,
        "messages": [_message(m, system_as_user) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = list(request.tools)
    if request.max_tokens:
        name = model_id.rpartition("/")[2]
        key = "max_completion_tokens" if name.startswith(_COMPLETION_TOKENS) else "max_tokens"
        body[key] = request.max_tokens
    if request.effort and reasoning:
        body["reasoning_effort"] = request.effort
    return body


async def chunks(events: AsyncIterator[tuple[str, str]]) -> AsyncIterator[dict[str, Any]]:
    """Each chunk as a dict, until `[DONE]`; an error event raises (llama.cpp sends one
    when a request overflows mid-answer)."""
    finished = False
    async for _, data in events:
        if data.strip() == "[DONE]":
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            continue  # a keep-alive or a stray line: nothing to read
        if not isinstance(chunk, dict):
            continue
        if "error" in chunk and not chunk.get("choices"):
            raise error_in_stream(chunk["error"])
        finished = finished or any(
            isinstance(c, dict) and c.get("finish_reason") for c in chunk.get("choices") or ()
        )
        yield chunk
    if not finished:  # closed with neither [DONE] nor a finish reason: cut off
        raise ended_early()
