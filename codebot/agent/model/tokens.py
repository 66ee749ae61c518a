"""Token counts without a tokenizer: the estimate every client falls back to.

Real models count with tiktoken's encodings (`ProviderClient.count_tokens`, `counting.py`,
once they are loaded in the background); the offline and scripted models, and a real
client before that, use `estimate_tokens`: one token per `CHARS_PER_TOKEN`
characters (4, codebot/units.py), rounded up, plus `MESSAGE_OVERHEAD` per message for the
role and separators. For English prose and code that is within about 15% of what
OpenAI's and Anthropic's tokenizers give, and it errs high on text with long words, which
is the safe side for deciding when to compact.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from codebot.units import CHARS_PER_TOKEN

__all__ = [
    "CHARS_PER_TOKEN",
    "IMAGE_TOKENS",
    "MESSAGE_OVERHEAD",
    "estimate_tokens",
    "media_parts",
    "message_text",
]

MESSAGE_OVERHEAD = 4  # tokens a chat message costs beyond its text (OpenAI documents 3-4)
#: Tokens an image part is counted as, whatever its size: about what Anthropic charges
#: for the largest image it takes without scaling (1.15 megapixels / 750), and above
#: OpenAI's high-detail 1024x1024 cost. Its base64 is never counted as text.
IMAGE_TOKENS = 1_600


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def message_text(message: dict[str, Any]) -> str:
    """What of a chat message is sent as tokens: its text and its tool calls."""
    content = message.get("content")
    if isinstance(content, list):  # content parts: only the text ones count here
        text = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    else:
        text = str(content or "")
    calls = message.get("tool_calls")
    if calls:
        text += json.dumps(calls, ensure_ascii=False)
    return text


def media_parts(message: Mapping[str, object]) -> int:
    """How many parts of a message's content are not text (images)."""
    content = message.get("content")
    if not isinstance(content, list):
        return 0
    return sum(1 for p in content if isinstance(p, dict) and p.get("type", "text") != "text")
