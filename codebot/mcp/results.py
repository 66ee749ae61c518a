"""An MCP tool's result as the model reads it: one text, and whether it is an error.

Text is kept; an image or audio becomes one line with its type and size (the model is not
sent the data); an embedded resource is its text (a binary one, a line like an image's);
a resource link, a line with its URI; structured content only when there is no other
content. Past `cap` characters the middle is cut, with the same marker Bash uses.
`isError` makes the result an error.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["cap_text", "render_result"]


def render_result(result: Any, cap: int) -> tuple[str, bool]:
    """(text, is_error) of the SDK's CallToolResult."""
    parts = [_part(block) for block in (getattr(result, "content", None) or ())]
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    text = "\n".join(parts) if parts else "(the tool returned no content)"
    return cap_text(text, cap), bool(getattr(result, "is_error", False))


def _size(data: object) -> str:
    n = len(data) * 3 // 4 if isinstance(data, str) else 0
    return f"{n:,} bytes"


def _part(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        mime = getattr(block, "mime_type", "") or "unknown type"
        return f"[{kind} {mime}, {_size(getattr(block, 'data', ''))}; not shown to the model]"
    if kind == "resource":
        res = getattr(block, "resource", None)
        uri = str(getattr(res, "uri", ""))
        text = getattr(res, "text", None)
        if isinstance(text, str):
            return f"[resource {uri}]\n{text}"
        mime = getattr(res, "mime_type", "") or "unknown type"
        return f"[resource {uri}: {mime}, {_size(getattr(res, 'blob', ''))}; not shown]"
    if kind == "resource_link":
        return f"[resource link {getattr(block, 'uri', '')} ({getattr(block, 'name', '')})]"
    return f"[content of type {kind or 'unknown'} not shown]"


def cap_text(text: str, cap: int) -> str:
    """`text`, or its head and tail around a marker when it is over `cap` characters."""
    if len(text) <= cap:
        return text
    half = cap // 2
    omitted = len(text) - 2 * half
    note = (
        f"\n[... output truncated: {omitted:,} characters omitted; the output is capped at "
        f"{cap:,} characters ...]\n"
    )
    return text[:half] + note + text[-half:]
