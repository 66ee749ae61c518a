"""Claude Code's command files (`commands/<name>.md` of a plugin), read as skills.

A command file is Markdown whose frontmatter (`description`, `argument-hint`,
`allowed-tools`, `model`) is optional, and whose body uses `$ARGUMENTS`. The parser reads
it as a single-file skill named after the file; these two helpers cover what a skill must
have and a command may leave out: a file without frontmatter is all body, and a command
without a description is described by its first line.
"""

from __future__ import annotations

from typing import Any

from codebot.skills.files.frontmatter import BOM, Split
from codebot.skills.files.spec import Root

__all__ = ["COMMANDS", "MAX_DESCRIPTION", "command_fields", "first_line", "whole_body"]

#: The `Root.family` of a plugin's commands folder.
COMMANDS = "commands"
MAX_DESCRIPTION = 200


def whole_body(data: bytes) -> Split:
    """The split of a file without frontmatter: no YAML, everything is body."""
    start = len(BOM) if data.startswith(BOM) else 0
    return Split(yaml_text="", yaml_first_line=1, body_offset=start, body_line=1)


def first_line(data: bytes, offset: int) -> str:
    """The body's first line of text (heading marks stripped, at most 200 characters), or
    "" when the body has none."""
    text = data[offset : offset + 64 * 1024].decode("utf-8", errors="replace")
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line if len(line) <= MAX_DESCRIPTION else line[: MAX_DESCRIPTION - 3] + "..."
    return ""


def command_fields(root: Root, data: bytes, raw: dict[str, Any], sp: Split) -> dict[str, Any]:
    """The frontmatter of a file from a commands root: without a description, the body's
    first line is one. Other roots' fields are returned as they are."""
    if root.family != COMMANDS or raw.get("description"):
        return raw
    line = first_line(data, sp.body_offset)
    return {**raw, "description": line} if line else raw
