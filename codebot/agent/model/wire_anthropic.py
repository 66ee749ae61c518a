"""Anthropic messages on the wire: OpenAI-format messages and tools turned into a
Messages request, and the Messages stream turned back into OpenAI-shaped chunks, so the
client reads one shape whichever API answered.

Only what codebot sends is converted: text, tool calls, and a user message's image parts
given as base64 data URLs (a tool's images, `agent/session/images.py`). `request_body`
returns None for anything else (an image by URL, an unknown role), and the client then
lets litellm carry the request, whose converter knows every corner.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from codebot.agent.model.protocol import ModelRequest
from codebot.agent.model.wire_errors import ended_early, error_in_stream

VERSION = "2023-06-01"
#: Anthropic's stop reasons in OpenAI's words.
FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
}


def _text(content: object) -> str | None:
    """The text of a message's content (a string or a list of text parts), None when it
    holds anything but text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for part in content:
        if not isinstance(part, dict) or part.get("type") != "text":
            return None
        texts.append(str(part.get("text") or ""))
    return "".join(texts)


def _image(part: dict[str, Any]) -> dict[str, Any] | None:
    """An `image_url` part with a base64 data URL as an Anthropic image block."""
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, dict) else image
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    head, sep, data = url[5:].partition(",")
    mime, _, encoding = head.partition(";")
    if not sep or encoding != "base64" or not mime.startswith("image/"):
        return None
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}


def _user_parts(content: object) -> list[dict[str, Any]] | None:
    """A user message's list of text and image parts as blocks; None for anything else."""
    if not isinstance(content, list):
        return None
    blocks: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        block = (
            {"type": "text", "text": str(part.get("text") or "")}
            if kind == "text" and isinstance(part, dict)
            else _image(part)
            if kind == "image_url" and isinstance(part, dict)
            else None
        )
        if block is None:
            return None
        if block["type"] != "text" or block["text"]:
            blocks.append(block)
    return blocks


def _tool_use(call: object) -> dict[str, Any] | None:
    if not isinstance(call, dict):
        return None
    fn = call.get("function") or {}
    raw = fn.get("arguments") or "{}"
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        arguments = {}
    if not isinstance(arguments, dict):
        arguments = {}
    return {"type": "tool_use", "id": call.get("id"), "name": fn.get("name"), "input": arguments}


def _blocks(message: dict[str, Any]) -> tuple[str, list[dict[str, Any]]] | None:
    """(role, content blocks) for one OpenAI message; None when it cannot be converted."""
    role = message.get("role")
    text = _text(message.get("content"))
    if text is None and role == "user":
        parts = _user_parts(message.get("content"))
        return None if parts is None else ("user", parts)
    if text is None:
        return None
    if role == "tool":
        result = {
            "type": "tool_result",
            "tool_use_id": message.get("tool_call_id"),
            "content": text,
        }
        return "user", [result]
    if role not in ("user", "assistant"):
        return None
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    calls = (message.get("tool_calls") or ()) if role == "assistant" else ()
    for call in calls:
        block = _tool_use(call)
        if block is None:
            return None
        blocks.append(block)
    return role, blocks


def _messages(request: ModelRequest) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
    """(system blocks, messages), consecutive messages of one role merged (the API wants
    turns to alternate; tool results and the next user text share a turn)."""
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for message in request.messages:
        if message.get("role") == "system":
            text = _text(message.get("content"))
            if text is None:
                return None
            if text:
                system.append({"type": "text", "text": text})
            continue
        converted = _blocks(message)
        if converted is None:
            return None
        role, blocks = converted
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return system, turns


def _tool(tool: object) -> dict[str, Any] | None:
    fn = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(fn, dict) or not fn.get("name"):
        return None
    schema = fn.get("parameters") or {"type": "object", "properties": {}}
    out: dict[str, Any] = {"name": fn["name"], "input_schema": schema}
    if fn.get("description"):
        out["description"] = fn["description"]
    return out


def request_body(
    request: ModelRequest, model_id: str, *, default_max_tokens: int
) -> dict[str, Any] | None:
    """The Messages request, or None when the conversation holds what is not converted."""
    converted = _messages(request)
    if converted is None:
        return None
    system, messages = converted
    tools = [_tool(t) for t in request.tools]
    if any(t is None for t in tools):
        return None
    body: dict[str, Any] = {
        "model": model_id,
        "messages": messages,
        "max_tokens": request.max_tokens or default_max_tokens,
        "stream": True,
    }
    if system:
        body["system"] = system
    if tools:
        body["tools"] = tools
    return body


class _Usage:
    def __init__(self) -> None:
        self.prompt = 0
        self.completion = 0

    def take(self, usage: object) -> None:
        if not isinstance(usage, dict):
            return
        prompt = sum(
            int(usage.get(k) or 0)
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        self.prompt = prompt or self.prompt
        self.completion = int(usage.get("output_tokens") or 0) or self.completion


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _block_chunk(event: dict[str, Any]) -> dict[str, Any] | None:
    """The chunk for a content_block_start or content_block_delta event, if it carries any."""
    index = event.get("index", 0)
    if event.get("type") == "content_block_start":
        block = event.get("content_block") or {}
        if block.get("type") == "tool_use":
            head = {"index": index, "id": block.get("id"), "type": "function"}
            head["function"] = {"name": block.get("name"), "arguments": ""}
            return _chunk({"tool_calls": [head]})
        if block.get("type") == "text" and block.get("text"):
            return _chunk({"content": block["text"]})
        return None
    delta = event.get("delta") or {}
    if delta.get("type") == "text_delta":
        return _chunk({"content": delta.get("text") or ""})
    if delta.get("type") == "input_json_delta":
        piece = {"index": index, "function": {"arguments": delta.get("partial_json") or ""}}
        return _chunk({"tool_calls": [piece]})
    return None  # thinking and signature deltas are not shown


async def chunks(events: AsyncIterator[tuple[str, str]]) -> AsyncIterator[dict[str, Any]]:
    """The Messages stream as OpenAI-shaped chunks; the last one carries the usage."""
    usage = _Usage()
    finished = False
    async for _, data in events:
        try:
            event = json.loads(data)
        except ValueError:
            continue
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "error":
            raise error_in_stream(event.get("error"))
        if kind == "message_start":
            usage.take((event.get("message") or {}).get("usage"))
        elif kind in ("content_block_start", "content_block_delta"):
            chunk = _block_chunk(event)
            if chunk is not None:
                yield chunk
        elif kind == "message_delta":
            usage.take(event.get("usage"))
            reason = (event.get("delta") or {}).get("stop_reason")
            if reason:
                finished = True
                yield _chunk({}, FINISH.get(reason, reason))
        elif kind == "message_stop":
            total = {"prompt_tokens": usage.prompt, "completion_tokens": usage.completion}
            yield {"choices": [], "usage": total}
            return
    if not finished:  # the connection closed before the answer's end
        raise ended_early()
    yield {
        "choices": [],
        "usage": {"prompt_tokens": usage.prompt, "completion_tokens": usage.completion},
    }
