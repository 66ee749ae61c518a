"""An MCP tool's result as the model reads it: one text, whether it is an error, and the
images a model that takes images is sent.

Text is kept; an image or audio becomes one line with its type and size; an embedded
resource is its text (a binary one, a line like an image's); a resource link, a line with
its URI; structured content only when there is no other content. Past `cap` characters
the middle is cut, with the same marker Bash uses. `isError` makes the result an error.

With `images=True` (the session's model takes images) an image is also kept as an
`Image`, for the session to send as an image part after the tool results, when it passes
every check: a PNG, JPEG, GIF or WebP by its declared type *and* by its first bytes, data
that decodes as base64 (the size is the decoded one, never a declared one), at most
`IMAGE_MAX_BYTES`, at most `IMAGES_MAX` of them in one result. Anything else stays a line
that says why it was not shown; malformed data is never an error.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field

__all__ = [
    "IMAGES_MAX",
    "IMAGE_MAX_BYTES",
    "Image",
    "Rendered",
    "cap_text",
    "render",
    "render_result",
]

#: An image past this many bytes (decoded) is a line, not an image part (Anthropic's
#: limit per image; OpenAI's is higher).
IMAGE_MAX_BYTES = 5 * 1024 * 1024
#: Images one tool result may send; the rest are lines.
IMAGES_MAX = 4
#: The image types sent, by how their bytes begin.
_MAGIC: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),  # and b"WEBP" at offset 8
}
_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg"}
_LABEL = re.compile(r"[^A-Za-z0-9.+/_-]")


@dataclass(frozen=True, slots=True)
class Image:
    """An image that passed the checks: its type (as its bytes say) and base64 data."""

    mime: str
    data: str
    size: int  # decoded bytes

    def part(self) -> dict[str, object]:
        """The OpenAI-style content part (`image_url` with a data URL)."""
        return {"type": "image_url", "image_url": {"url": f"data:{self.mime};base64,{self.data}"}}


@dataclass(frozen=True, slots=True)
class Rendered:
    text: str
    is_error: bool
    images: tuple[Image, ...] = field(default=())


def render_result(result: object, cap: int) -> tuple[str, bool]:
    """(text, is_error) of the SDK's CallToolResult, no image kept."""
    out = render(result, cap)
    return out.text, out.is_error


def render(result: object, cap: int, *, images: bool = False) -> Rendered:
    """The SDK's CallToolResult as text, and with `images` the images to send."""
    kept: list[Image] = []
    parts = [_part(block, kept if images else None) for block in _content(result)]
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    text = "\n".join(parts) if parts else "(the tool returned no content)"
    return Rendered(cap_text(text, cap), bool(getattr(result, "is_error", False)), tuple(kept))


def _content(result: object) -> list[object]:
    content = getattr(result, "content", None)
    return list(content) if isinstance(content, list | tuple) else []


def label(mime: object) -> str:
    """A server's MIME type as shown: safe characters only, at most 64."""
    text = _LABEL.sub("", str(mime or ""))[:64]
    return text or "unknown type"


def _decoded(data: object) -> bytes | None:
    """The bytes of base64 `data` (whitespace allowed), None when it is not base64."""
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        return None


def _size(data: object) -> str:
    """The decoded size, never one the server declares, or that the data is broken."""
    raw = _decoded(data)
    return "data not valid base64" if raw is None else f"{len(raw):,} bytes"


def sniff(raw: bytes) -> str | None:
    """The image type `raw` begins like, among those sent."""
    for mime, starts in _MAGIC.items():
        if raw.startswith(starts) and (mime != "image/webp" or raw[8:12] == b"WEBP"):
            return mime
    return None


def _image(block: object, kept: list[Image] | None) -> str:
    """The line for an image or audio block; with `kept`, the image joins it if it may."""
    kind = getattr(block, "type", "")
    mime = label(getattr(block, "mime_type", ""))
    data = getattr(block, "data", "")
    if kept is None or kind != "image":
        return f"[{kind} {mime}, {_size(data)}; not shown to the model]"
    raw = _decoded(data)
    if raw is None:
        return f"[image {mime}: its data is not valid base64; not shown to the model]"
    head = f"[image {mime}, {len(raw):,} bytes"
    declared = _ALIASES.get(mime.lower(), mime.lower())
    if declared not in _MAGIC:
        return f"{head}; only PNG, JPEG, GIF and WebP images are sent; not shown to the model]"
    found = sniff(raw)
    if found != declared:
        what = f"a {found.removeprefix('image/').upper()}" if found else "no image it can send"
        return f"{head}; its bytes are {what}, not {declared}; not shown to the model]"
    if len(raw) > IMAGE_MAX_BYTES:
        return (
            f"{head}; over the {IMAGE_MAX_BYTES:,}-byte limit for images; not shown to the model]"
        )
    if len(kept) >= IMAGES_MAX:
        return f"{head}; over {IMAGES_MAX} images in one result; not shown to the model]"
    kept.append(Image(declared, base64.b64encode(raw).decode("ascii"), len(raw)))
    return f"{head}; shown to the model after the tool results, as its image {len(kept)}]"


def _part(block: object, kept: list[Image] | None) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        return _image(block, kept)
    if kind == "resource":
        res = getattr(block, "resource", None)
        uri = str(getattr(res, "uri", ""))
        text = getattr(res, "text", None)
        if isinstance(text, str):
            return f"[resource {uri}]\n{text}"
        mime = label(getattr(res, "mime_type", ""))
        return f"[resource {uri}: {mime}, {_size(getattr(res, 'blob', ''))}; not shown]"
    if kind == "resource_link":
        return f"[resource link {getattr(block, 'uri', '')} ({getattr(block, 'name', '')})]"
    return f"[content of type {label(kind) if kind else 'unknown'} not shown]"


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
