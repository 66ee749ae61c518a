"""Skill text is data: neutralise anything that could open or close codebot's tags.

Bodies, descriptions and arguments are shown to the model inside `<skill>` and
`<system-reminder>` blocks, and a compaction's summary inside `<conversation-summary>`.
A file, an argument or a model's summary containing `</system-reminder>` must not be able
to end that block early and speak with the system's voice.
"""

from __future__ import annotations

import html
import re

# `<` that opens or closes a system-reminder, skill or conversation-summary tag (the
# block compaction writes), with any whitespace around `/`.
_TAG_OPEN = re.compile(
    r"<(?=\s*/?\s*(?:system-reminder|skill|conversation-summary)\b)", re.IGNORECASE
)


def escape_tags(text: str) -> str:
    """The `<` of `<system-reminder`, `</skill`, `< / SKILL` … becomes `&lt;`: still
    readable, no longer a tag. Other text is left as it is."""
    if "<" not in text:
        return text
    return _TAG_OPEN.sub("&lt;", text)


def attr(value: str) -> str:
    """A value safe inside a double-quoted XML attribute."""
    return html.escape(value, quote=True).replace("\n", " ")
