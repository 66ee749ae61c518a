"""Anthropic's Messages wire format for the scripted fake server (stdlib only).

`fake_openai.py` loads this file by path from beside itself (tests/ is not a package) and
answers POST /v1/messages with it: one scripted response (the same dict the OpenAI route
takes) becomes a Messages JSON, or the SSE events of a streamed message, and an error
status becomes Anthropic's error JSON. Nothing here touches a socket.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

ROUTES = ("/v1/messages", "/messages")

# status -> (error.type, default error.message), as api.anthropic.com answers them.
ERROR_TYPES = {
    400: ("invalid_request_error", "Bad request"),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use this resource."),
    404: ("not_found_error", "model: test-model"),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}

# The script's OpenAI finish_reason -> Anthropic's stop_reason (other values pass through,
# so a script may name Anthropic's own: "pause_turn", "refusal", "stop_sequence").
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}

Event = tuple[str, dict[str, Any]]
Pieces = Callable[[str, int], list[str]]


def error_body(status: int, message: str | None = None) -> dict[str, Any]:
    kind, default = ERROR_TYPES.get(status, ("api_error", f"HTTP {status}"))
    return {"type": "error", "error": {"type": kind, "message": message or default}}


def haystack(body: dict[str, Any]) -> str:
    """What a script's `match` searches in a Messages request: `system` and `messages`."""
    return json.dumps([body.get("system"), body.get("messages", [])], ensure_ascii=False)


def as_chat_body(body: dict[str, Any]) -> dict[str, Any]:
    """The request seen as chat messages (the system prompt first), for default usage."""
    system = body.get("system")
    head = [{"role": "system", "content": system}] if system else []
    return {**body, "messages": head + list(body.get("messages") or [])}


def usage(chat_usage: dict[str, Any]) -> dict[str, Any]:
    """OpenAI-shaped usage -> Anthropic's; Anthropic's own keys in the script win."""
    out = {
        "input_tokens": chat_usage.get("input_tokens", chat_usage.get("prompt_tokens", 0)),
        "output_tokens": chat_usage.get("output_tokens", chat_usage.get("completion_tokens", 0)),
    }
    for key in ("cache_creation_input_tokens", "cache_read_input_tokens"):
        if key in chat_usage:
            out[key] = chat_usage[key]
    return out


def stop_reason(response: dict[str, Any]) -> str:
    finish = response.get("finish_reason") or (
        "tool_calls" if response.get("tool_calls") else "stop"
    )
    return STOP_REASONS.get(finish, finish)


def tool_calls(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The script's calls with Anthropic ids (`toolu_<i>` unless the script names one) and
    their arguments as JSON text."""
    return [
        {
            "id": c.get("id") or f"toolu_{i}",
            "name": c["name"],
            "arguments": _text(c.get("arguments", {})),
        }
        for i, c in enumerate(response.get("tool_calls") or [])
    ]


def _text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _input(arguments: str) -> Any:
    """A tool_use block's `input`: the arguments parsed; text that is not JSON stays text
    (a script may want a malformed call)."""
    try:
        return json.loads(arguments) if arguments else {}
    except ValueError:
        return arguments


def message(body: dict[str, Any], response: dict[str, Any], chat_usage: dict[str, Any]) -> dict:
    """The non-streamed answer: a Messages JSON with text and tool_use content blocks."""
    content: list[dict[str, Any]] = []
    if response.get("text"):
        content.append({"type": "text", "text": response["text"]})
    for c in tool_calls(response):
        content.append(
            {"type": "tool_use", "id": c["id"], "name": c["name"], "input": _input(c["arguments"])}
        )
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": response.get("model") or body.get("model", "fake"),
        "content": content,
        "stop_reason": stop_reason(response),
        "stop_sequence": None,
        "usage": usage(chat_usage),
    }


def _block(index: int, start: dict[str, Any], deltas: list[dict[str, Any]]) -> list[Event]:
    return [
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        ),
        *[
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ],
        ("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def events(
    body: dict[str, Any], response: dict[str, Any], chat_usage: dict[str, Any], pieces: Pieces
) -> list[Event]:
    """The streamed answer: message_start, one block per text and per tool call (in that
    order; Anthropic's blocks never interleave), message_delta, message_stop."""
    counts = usage(chat_usage)
    start = {**counts, "output_tokens": 1}
    out: list[Event] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": response.get("model") or body.get("model", "fake"),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start,
                },
            },
        )
    ]
    text = response.get("text", "")
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if text:
        parts = pieces(text, int(response.get("chunks", 3)))
        blocks.append(
            ({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in parts])
        )
    for c in tool_calls(response):
        parts = pieces(c["arguments"], 4) if response.get("split", True) else [c["arguments"]]
        head = {"type": "tool_use", "id": c["id"], "name": c["name"], "input": {}}
        blocks.append((head, [{"type": "input_json_delta", "partial_json": p} for p in parts]))
    for index, (head, deltas) in enumerate(blocks):
        out += _block(index, head, deltas)
    delta = {"stop_reason": stop_reason(response), "stop_sequence": None}
    out.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": delta,
                "usage": {"output_tokens": counts["output_tokens"]},
            },
        )
    )
    out.append(("message_stop", {"type": "message_stop"}))
    return out


def error_event(error_after: dict[str, Any]) -> Event:
    """`error_after: {"code": 529, "message": ...}` as Anthropic's mid-stream error event
    (type by code, api_error by default; `"type"` in it names one outright)."""
    default = error_body(int(error_after.get("code") or 500))["error"]
    kind = error_after.get("type") or default["type"]
    message = error_after.get("message") or default["message"]
    return ("error", {"type": "error", "error": {"type": kind, "message": message}})


def sse(event: Event) -> bytes:
    name, data = event
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
