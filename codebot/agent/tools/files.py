"""File tools: Read, Write, Edit. Every path goes through `resolve_path`.

Glob and Grep live in `codebot.agent.tools.search`; `builtin_tools()` lists all of them.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import stat
from pathlib import Path
from typing import Any

from codebot.agent.tools.base import (
    PathTool,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    display_path,
    is_binary,
    object_schema,
    resolve_path,
)
from codebot.agent.tools.search import SKIP_DIRS, GlobTool, GrepTool, glob_regex
from codebot.agent.tools.shell import BashTool
from codebot.home import atomic_file

# SKIP_DIRS, GlobTool, GrepTool and glob_regex moved to `search`; re-exported for callers.
__all__ = [
    "SKIP_DIRS",
    "EditTool",
    "GlobTool",
    "GrepTool",
    "ReadTool",
    "WriteTool",
    "apply_edit",
    "atomic_write",
    "builtin_tools",
    "glob_regex",
    "unified_diff",
]

READ_DEFAULT_LIMIT = 2000
READ_LINE_CHARS = 2000
READ_MAX_CHARS = 200_000
DIFF_MAX_LINES = 120
WRITE_DIFF_MAX_LINES = 60  # an overwrite's diff in the Write result
OLD_TEXT_MAX_BYTES = 1024 * 1024  # a larger old file is not diffed

# Read the umask once, at import (reading it means setting it, which is not thread-safe).
_UMASK = os.umask(0o022)
os.umask(_UMASK)


# --------------------------------------------------------------------------- Read


class ReadTool(PathTool):
    name = "Read"
    description = (
        "Read a text file. Returns its lines numbered like `cat -n` (1-based). `offset` is the "
        "first line number to show and `limit` the number of lines (default 2000); use them to "
        "page through long files. Lines longer than 2000 characters are cut. Binary files are "
        "refused. Paths are relative to the project folder."
    )
    parameters = object_schema(
        {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "File to read, relative to the project.",
            },
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "First line number to show (1-based).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": "How many lines to show (default 2000).",
            },
        },
        required=["path"],
    )
    read_only = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve_path(ctx, args["path"])
        offset = args.get("offset") or 1
        limit = args.get("limit") or READ_DEFAULT_LIMIT
        return await asyncio.to_thread(self._read, ctx, path, offset, limit)

    def _read(self, ctx: ToolContext, path: Path, offset: int, limit: int) -> ToolResult:
        shown = display_path(ctx, path)
        _check_readable(path, shown)
        last = offset + limit - 1
        out, total, stopped_at = _numbered_lines(path, offset, last)
        if total == 0:
            return ToolResult(f"({shown} is empty)")
        if offset > total:
            return ToolResult(f"({shown} has {total} lines; offset {offset} is past the end)")
        shown_last = (stopped_at - 1) if stopped_at else min(last, total)
        text = "\n".join(out)
        if stopped_at is not None:
            text += (
                f"\n[output capped at {READ_MAX_CHARS:,} characters: "
                f"showing lines {offset}-{shown_last} "
                f"of {total}; use offset={stopped_at} to read on]"
            )
        elif shown_last < total:
            text += (
                f"\n[showing lines {offset}-{shown_last} of {total}; "
                f"use offset={shown_last + 1} to read on]"
            )
        return ToolResult(text)


def _check_readable(path: Path, shown: str) -> None:
    """ToolError unless `path` is an existing regular file that looks like text."""
    if not path.exists():
        raise ToolError(f"file not found: {shown}")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file; use Glob to list it")
    if not path.is_file():
        raise ToolError(f"{shown} is not a regular file (a device, socket or pipe)")
    with path.open("rb") as fh:
        if is_binary(fh.read(8192)):
            size = path.stat().st_size
            raise ToolError(
                f"{shown} looks like a binary file ({size:,} bytes); Read shows text files only"
            )


def _numbered_lines(path: Path, offset: int, last: int) -> tuple[list[str], int, int | None]:
    """Lines `offset`..`last` of `path`, numbered, within READ_MAX_CHARS.

    Returns them, the file's line count (the whole file is read to know it) and the line
    the character cap stopped at (None when it did not).
    """
    out: list[str] = []
    chars = 0
    total = 0
    stopped_at: int | None = None
    with path.open("r", encoding="utf-8", errors="replace", newline=None) as fh:
        for n, line in enumerate(fh, 1):
            total = n
            if n < offset or n > last or stopped_at is not None:
                continue
            line = line.rstrip("\n")
            if len(line) > READ_LINE_CHARS:
                line = line[:READ_LINE_CHARS] + f"… [line cut: {len(line):,} characters]"
            entry = f"{n:>6}\t{line}"
            if chars + len(entry) > READ_MAX_CHARS and out:
                stopped_at = n
                continue
            out.append(entry)
            chars += len(entry) + 1
    return out, total, stopped_at


# --------------------------------------------------------------------------- Write / Edit


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder and `os.replace`; keeps the mode
    (a new file gets the umask's), never 0600 like codebot's own files (`atomic_file`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK
    with atomic_file(path, mode=mode, durable=False) as fh:
        fh.write(data)


def unified_diff(
    before: str, after: str, name: str, *, max_lines: int | None = DIFF_MAX_LINES, context: int = 3
) -> str:
    """A unified diff of two texts (a/name -> b/name), cut after `max_lines` lines."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
            n=context,
        )
    )
    out = [ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines]
    if max_lines is not None and len(out) > max_lines:
        hidden = len(out) - max_lines
        out = [*out[:max_lines], f"[... {hidden} more diff lines not shown ...]\n"]
    return "".join(out).rstrip("\n")


def apply_edit(text: str, old: str, new: str, replace_all: bool, shown: str) -> tuple[str, int]:
    """`text` with `old` replaced by `new`; raises ToolError when `old` is missing or ambiguous."""
    if old == "":
        raise ToolError("old must not be empty; use Write to create or overwrite a whole file")
    if old == new:
        raise ToolError("old and new are identical; nothing to change")
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old and "\r\n" not in old:
        # A file with Windows line endings, an `old` written with plain newlines.
        old, new = old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
        count = text.count(old)
    if count == 0:
        raise ToolError(
            f"old text not found in {shown}; "
            "Read the file and copy the text exactly, including whitespace"
        )
    if count > 1 and not replace_all:
        raise ToolError(
            f"old text occurs {count} times in {shown}; "
            "add context to make it unique or set replace_all"
        )
    if replace_all:
        return text.replace(old, new), count
    return text.replace(old, new, 1), 1


def _old_text(path: Path) -> tuple[bool, str | None]:
    """What a Write replaces: (False, None) for a new file, (True, its text), or (True,
    None) when it is not UTF-8 text, not a regular file or too large to compare (it is
    never opened unless it is a regular file: a FIFO would block)."""
    try:
        st = path.stat()
    except OSError:
        return False, None
    if not stat.S_ISREG(st.st_mode) or st.st_size > OLD_TEXT_MAX_BYTES:
        return True, None
    try:
        data = path.read_bytes()
        return True, None if is_binary(data[:8192]) else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return True, None


def _read_text_for_edit(path: Path, shown: str) -> str:
    if not path.exists():
        raise ToolError(f"file not found: {shown}; use Write to create a new file")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file")
    if not path.is_file():
        raise ToolError(f"{shown} is not a regular file")
    data = path.read_bytes()
    if is_binary(data[:8192]):
        raise ToolError(f"{shown} looks like a binary file; Edit changes text files only")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ToolError(
            f"{shown} is not valid UTF-8 ({e.reason} at byte {e.start}); "
            "Edit changes UTF-8 text only"
        ) from None


class WriteTool(PathTool):
    name = "Write"
    description = (
        "Create a file, or overwrite it entirely, with `content`. Missing parent folders are "
        "created. Prefer Edit for changing part of an existing file. Paths are relative to the "
        "project folder. Overwriting a file returns a short unified diff of what changed."
    )
    parameters = object_schema(
        {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "File to write, relative to the project.",
            },
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        required=["path", "content"],
    )
    read_only = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve_path(ctx, args["path"])
        shown = display_path(ctx, path)
        if path.is_dir():
            raise ToolError(f"{shown} is a directory")
        return await asyncio.to_thread(self._write, path, shown, args["content"])

    def _write(self, path: Path, shown: str, content: str) -> ToolResult:
        data = content.encode("utf-8")
        existed, before = _old_text(path)
        atomic_write(path, data)
        done = f"wrote {len(data)} bytes to {shown}"
        if not existed:  # a new file: its content is what the call says
            return ToolResult(done)
        if before is None:
            return ToolResult(
                f"{done} (it replaced a file that is not UTF-8 text or over 1 MiB: no diff)"
            )
        if before == content:
            return ToolResult(f"{done} (no change: it already had this content)")
        # An overwrite says what changed, kept short: the model sees what it replaced.
        return ToolResult(
            f"{done}\n{unified_diff(before, content, shown, max_lines=WRITE_DIFF_MAX_LINES)}"
        )


class EditTool(PathTool):
    name = "Edit"
    description = (
        "Replace exact text in a file: `old` must occur exactly once (include enough surrounding "
        "lines to make it unique) unless `replace_all` is true, in which case every occurrence is "
        "replaced. `old` must match the file exactly, whitespace and indentation included; Read "
        "the file first. Returns a unified diff of the change."
    )
    parameters = object_schema(
        {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "File to edit, relative to the project.",
            },
            "old": {"type": "string", "minLength": 1, "description": "The exact text to replace."},
            "new": {"type": "string", "description": "The replacement text."},
            "replace_all": {
                "type": "boolean",
                "description": "Replace every occurrence (default false).",
            },
        },
        required=["path", "old", "new"],
    )
    read_only = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve_path(ctx, args["path"])
        return await asyncio.to_thread(self._edit, ctx, path, args)

    def _edit(self, ctx: ToolContext, path: Path, args: dict[str, Any]) -> ToolResult:
        shown = display_path(ctx, path)
        before = _read_text_for_edit(path, shown)
        after, count = apply_edit(
            before, args["old"], args["new"], bool(args.get("replace_all")), shown
        )
        atomic_write(path, after.encode("utf-8"))
        what = "1 replacement" if count == 1 else f"{count} replacements"
        return ToolResult(f"edited {shown} ({what})\n{unified_diff(before, after, shown)}")


# --------------------------------------------------------------------------- all of them


def builtin_tools() -> list[Tool]:
    """The six built-in tools, in the order the model sees them."""
    return [ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool(), BashTool()]
