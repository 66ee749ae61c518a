"""Images from tool results, for models that take images (docs/mcp.md, "Results").

Tool messages take only text with most providers, so a tool's images (an MCP tool's,
`ToolResult.images`) go in one user message right after the tool results of that step:
a text part that says where they come from (`HEAD`, which also marks the message as
this kind), then one `image_url` part per image (OpenAI's shape; the Anthropic wire and
litellm convert it). Whether the model takes images is litellm's table
(`supports_vision`). A history that holds such a message sent to a model that does not
(a resumed session, `/model`) gets a text note in each image's place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from codebot.agent.model import model_facts
from codebot.agent.tools import ToolResult

#: The first words of the text part of an images message.
HEAD = "[images returned by the tool calls above]"
_NOT_TAKEN = "[an image from a tool result; not shown: this model does not take images]"


def takes_images(model: str) -> bool:
    return model_facts.supports_vision(model)


def image_message(results: Sequence[tuple[str, ToolResult]]) -> dict[str, Any] | None:
    """The user message that carries the images of one step's results ((which call,
    result): `mcp__a__b (call c1)`), None when none has any."""
    parts: list[dict[str, Any]] = []
    lines: list[str] = []
    for name, result in results:
        for n, image in enumerate(result.images, 1):
            lines.append(f"image {len(lines) + 1}: {name}, its image {n} ({image.mime})")
            parts.append(image.part())
    if not parts:
        return None
    text = "\n".join([HEAD, *lines])
    return {"role": "user", "content": [{"type": "text", "text": text}, *parts]}


def is_image_message(message: dict[str, Any]) -> bool:
    """A message `image_message` made (it belongs to the tool results before it)."""
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list) or not content:
        return False
    first = content[0]
    return (
        isinstance(first, dict)
        and first.get("type") == "text"
        and str(first.get("text", "")).startswith(HEAD)
    )


def without_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with each image part as a text note (for a model that takes none);
    the same list when there is none."""
    if not any(is_image_message(m) for m in messages):
        return messages
    out: list[dict[str, Any]] = []
    for m in messages:
        if is_image_message(m):
            parts = [
                p if p.get("type") == "text" else {"type": "text", "text": _NOT_TAKEN}
                for p in m["content"]
                if isinstance(p, dict)
            ]
            m = {**m, "content": "\n".join(str(p.get("text", "")) for p in parts)}
        out.append(m)
    return out


def sent(history: list[dict[str, Any]], model: str) -> list[dict[str, Any]]:
    """The history as `model` is sent it: image parts as notes when it takes none.

    litellm's table (`model_facts`, a ~1 MB JSON file) is read only when the history holds
    images: a turn without any (every offline model's) never reads it."""
    if not any(is_image_message(m) for m in history):
        return history
    return history if takes_images(model) else without_images(history)
