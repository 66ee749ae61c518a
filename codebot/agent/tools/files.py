"""File tools: Read, Write, Edit, Glob, Grep. Every path goes through `resolve_path`."""

from __future__ import annotations

import asyncio
import difflib
import fnmatch
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from codebot.agent.tools.base import (
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    display_path,
    resolve_path,
    subject_path,
)
from codebot.agent.tools.shell import BashTool, run_process

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

#: Folders Glob and Grep never descend into.
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox"})  # fmt: skip
READ_DEFAULT_LIMIT = 2000
READ_LINE_CHARS = 2000
READ_MAX_CHARS = 200_000
GLOB_MAX_RESULTS = 500
GREP_LINE_CHARS = 500
DIFF_MAX_LINES = 120
_RG_MATCH = re.compile(r"^.+?:\d+:")

# Read the umask once, at import (reading it means setting it, which is not thread-safe).
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def _path_subject(args: Mapping[str, Any], ctx: ToolContext | None, key: str = "path", default: str = "") -> str:
    value = args.get(key) or default
    return subject_path(value, ctx) if isinstance(value, str) else ""


def _is_binary(chunk: bytes) -> bool:
    return b"\x00" in chunk


# --------------------------------------------------------------------------- Read


class ReadTool(Tool):
    name = "Read"
    description = (
        "Read a text file. Returns its lines numbered like `cat -n` (1-based). `offset` is the "
        "first line number to show and `limit` the number of lines (default 2000); use them to "
        "page through long files. Lines longer than 2000 characters are cut. Binary files are "
        "refused. Paths are relative to the project folder."
    )
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "File to read, relative to the project."},
            "offset": {"type": "integer", "minimum": 1, "description": "First line number to show (1-based)."},
            "limit": {"type": "integer", "minimum": 1, "description": "How many lines to show (default 2000)."},
        },
        "required": ["path"],
        "additionalProperties": False,
    }  # fmt: skip
    read_only = True

    def approval_subject(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> str:
        return _path_subject(args, ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve_path(ctx, args["path"])
        offset = args.get("offset") or 1
        limit = args.get("limit") or READ_DEFAULT_LIMIT
        return await asyncio.to_thread(self._read, ctx, path, offset, limit)

    def _read(self, ctx: ToolContext, path: Path, offset: int, limit: int) -> ToolResult:
        shown = display_path(ctx, path)
        if not path.exists():
            raise ToolError(f"file not found: {shown}")
        if path.is_dir():
            raise ToolError(f"{shown} is a directory, not a file; use Glob to list it")
        if not path.is_file():
            raise ToolError(f"{shown} is not a regular file (a device, socket or pipe)")
        with path.open("rb") as fh:
            if _is_binary(fh.read(8192)):
                size = path.stat().st_size
                raise ToolError(f"{shown} looks like a binary file ({size:,} bytes); Read shows text files only")
        out: list[str] = []
        chars = 0
        total = 0
        stopped_at: int | None = None
        last = offset + limit - 1
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
        if total == 0:
            return ToolResult(f"({shown} is empty)")
        if offset > total:
            return ToolResult(f"({shown} has {total} lines; offset {offset} is past the end)")
        shown_last = (stopped_at - 1) if stopped_at else min(last, total)
        text = "\n".join(out)
        if stopped_at is not None:
            text += (f"\n[output capped at {READ_MAX_CHARS:,} characters: showing lines {offset}-{shown_last} "
                     f"of {total}; use offset={stopped_at} to read on]")  # fmt: skip
        elif shown_last < total:
            text += f"\n[showing lines {offset}-{shown_last} of {total}; use offset={shown_last + 1} to read on]"
        return ToolResult(text)


# --------------------------------------------------------------------------- Write / Edit


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder and `os.replace`; keeps the mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unified_diff(before: str, after: str, name: str, *, max_lines: int | None = DIFF_MAX_LINES, context: int = 3) -> str:
    """A unified diff of two texts (a/name -> b/name), cut after `max_lines` lines."""
    lines = list(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                      fromfile=f"a/{name}", tofile=f"b/{name}", n=context))  # fmt: skip
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
        raise ToolError(f"old text not found in {shown}; Read the file and copy the text exactly, including whitespace")
    if count > 1 and not replace_all:
        raise ToolError(f"old text occurs {count} times in {shown}; add context to make it unique or set replace_all")
    if replace_all:
        return text.replace(old, new), count
    return text.replace(old, new, 1), 1


def _read_text_for_edit(path: Path, shown: str) -> str:
    if not path.exists():
        raise ToolError(f"file not found: {shown}; use Write to create a new file")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file")
    if not path.is_file():
        raise ToolError(f"{shown} is not a regular file")
    data = path.read_bytes()
    if _is_binary(data[:8192]):
        raise ToolError(f"{shown} looks like a binary file; Edit changes text files only")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ToolError(f"{shown} is not valid UTF-8 ({e.reason} at byte {e.start}); Edit changes UTF-8 text only") from None


class WriteTool(Tool):
    name = "Write"
    description = (
        "Create a file, or overwrite it entirely, with `content`. Missing parent folders are "
        "created. Prefer Edit for changing part of an existing file. Paths are relative to the "
        "project folder."
    )
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "File to write, relative to the project."},
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }  # fmt: skip
    read_only = False

    def approval_subject(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> str:
        return _path_subject(args, ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve_path(ctx, args["path"])
        shown = display_path(ctx, path)
        if path.is_dir():
            raise ToolError(f"{shown} is a directory")
        data = args["content"].encode("utf-8")
        await asyncio.to_thread(atomic_write, path, data)
        return ToolResult(f"wrote {len(data)} bytes to {shown}")


class EditTool(Tool):
    name = "Edit"
    description = (
        "Replace exact text in a file: `old` must occur exactly once (include enough surrounding "
        "lines to make it unique) unless `replace_all` is true, in which case every occurrence is "
        "replaced. `old` must match the file exactly, whitespace and indentation included; Read "
        "the file first. Returns a unified diff of the change."
    )
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "File to edit, relative to the project."},
            "old": {"type": "string", "minLength": 1, "description": "The exact text to replace."},
            "new": {"type": "string", "description": "The replacement text."},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)."},
        },
        "required": ["path", "old", "new"],
        "additionalProperties": False,
    }  # fmt: skip
    read_only = False

    def approval_subject(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> str:
        return _path_subject(args, ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve_path(ctx, args["path"])
        return await asyncio.to_thread(self._edit, ctx, path, args)

    def _edit(self, ctx: ToolContext, path: Path, args: dict[str, Any]) -> ToolResult:
        shown = display_path(ctx, path)
        before = _read_text_for_edit(path, shown)
        after, count = apply_edit(before, args["old"], args["new"], bool(args.get("replace_all")), shown)
        atomic_write(path, after.encode("utf-8"))
        what = "1 replacement" if count == 1 else f"{count} replacements"
        return ToolResult(f"edited {shown} ({what})\n{unified_diff(before, after, shown)}")


# --------------------------------------------------------------------------- glob matching


def _expand_braces(pattern: str) -> list[str]:
    """`*.{py,pyi}` -> [`*.py`, `*.pyi`] (nested braces work; an unclosed brace is literal)."""
    depth = 0
    start = -1
    for i, ch in enumerate(pattern):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                inner = pattern[start + 1 : i]
                parts, level, cur = [], 0, ""
                for c in inner:
                    if c == "," and level == 0:
                        parts.append(cur)
                        cur = ""
                        continue
                    level += c == "{"
                    level -= c == "}"
                    cur += c
                parts.append(cur)
                if len(parts) == 1:
                    return [pattern[: start + 1] + e for e in _expand_braces(pattern[start + 1 :])]
                head, tail = pattern[:start], pattern[i + 1 :]
                return [head + p + t for p in parts for t in _expand_braces(tail)]
    return [pattern]


def _translate_one(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                j = i + 2
                if at_start and j < n and pattern[j] == "/":
                    out.append("(?:.*/)?")
                    i = j + 1
                    continue
                if at_start and j == n:
                    out.append(".*")
                    i = j
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob (`*`, `?`, `[...]`, `**`, `{a,b}`) as a regex over posix relative paths."""
    alternatives = [_translate_one(p) for p in _expand_braces(pattern)]
    return re.compile("(?s:" + "|".join(f"(?:{a})" for a in alternatives) + r")\Z")


def _walk_files(root: Path) -> Iterator[Path]:
    """Files under `root` (sorted, no symlinked folders followed), skipping SKIP_DIRS."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath, name)


class GlobTool(Tool):
    name = "Glob"
    description = (
        "Find files by name with a glob pattern such as `**/*.py`, `src/**/test_*.ts` or "
        "`*.{md,txt}`; `**` matches any number of folders, `*` does not cross `/`. `path` is the "
        "folder to search (default: the project). Results are paths relative to the project, "
        "newest first, at most 500. .git and node_modules are skipped."
    )
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "Glob pattern, relative to `path`."},
            "path": {"type": "string", "minLength": 1, "description": "Folder to search (default: the project)."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }  # fmt: skip
    read_only = True

    def approval_subject(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> str:
        return _path_subject(args, ctx, default=".")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern: str = args["pattern"].strip()
        base = resolve_path(ctx, args.get("path") or ".")
        if pattern.startswith("/"):
            raise ToolError("pattern must be relative; put the folder in `path` instead")
        if pattern.startswith("./"):
            pattern = pattern[2:]
        return await asyncio.to_thread(self._glob, ctx, base, pattern)

    def _glob(self, ctx: ToolContext, base: Path, pattern: str) -> ToolResult:
        shown_base = display_path(ctx, base)
        if not base.exists():
            raise ToolError(f"folder not found: {shown_base}")
        if not base.is_dir():
            raise ToolError(f"{shown_base} is a file, not a folder")
        regex = glob_regex(pattern)
        found: list[tuple[float, str]] = []
        for file in _walk_files(base):
            rel = file.relative_to(base).as_posix()
            if not regex.match(rel):
                continue
            try:
                mtime = file.stat().st_mtime
            except OSError:
                continue  # a dangling symlink, or a file that vanished
            found.append((mtime, display_path(ctx, file)))
        if not found:
            return ToolResult(f"no files match {pattern!r} in {shown_base}")
        found.sort(key=lambda item: (-item[0], item[1]))
        lines = [p for _, p in found[:GLOB_MAX_RESULTS]]
        if len(found) > GLOB_MAX_RESULTS:
            lines.append(f"[{len(found) - GLOB_MAX_RESULTS} more files not shown: {len(found)} match; "
                         "narrow the pattern or the path]")  # fmt: skip
        return ToolResult("\n".join(lines))


# --------------------------------------------------------------------------- Grep


class GrepTool(Tool):
    name = "Grep"
    description = (
        "Search file contents with a regular expression (ripgrep syntax). `path` is a file or "
        "folder to search (default: the project); `glob` limits the files searched, e.g. `*.py` "
        "or `src/**/*.{ts,tsx}`. Output lines are `path:line:text`. .git and node_modules are "
        "skipped, and binary files are ignored."
    )
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "Regular expression to search for."},
            "path": {"type": "string", "minLength": 1, "description": "File or folder to search (default: the project)."},
            "glob": {"type": "string", "minLength": 1, "description": "Only search files matching this glob."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }  # fmt: skip
    read_only = True

    def approval_subject(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> str:
        return _path_subject(args, ctx, default=".")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern: str = args["pattern"]
        target = resolve_path(ctx, args.get("path") or ".")
        shown = display_path(ctx, target)
        if not target.exists():
            raise ToolError(f"path not found: {shown}")
        glob = args.get("glob")
        rg = shutil.which("rg")
        if rg:
            return await self._ripgrep(rg, ctx, target, shown, pattern, glob)
        return await asyncio.to_thread(self._python, ctx, target, shown, pattern, glob)

    async def _ripgrep(self, rg: str, ctx: ToolContext, target: Path, shown: str, pattern: str, glob: str | None) -> ToolResult:
        argv = [rg, "--line-number", "--no-heading", "--color", "never", "--with-filename",
                "--hidden", "--no-messages", "--sort", "path", "--max-columns", str(GREP_LINE_CHARS), "--max-columns-preview"]  # fmt: skip
        for d in sorted(SKIP_DIRS):
            argv += ["--glob", f"!{d}"]
        if glob:
            argv += ["--glob", glob]
        argv += ["--regexp", pattern, "--", shown]
        result = await run_process(argv, cwd=ctx.project_dir, timeout=ctx.bash_timeout, cap=ctx.output_cap,
                                   env={**os.environ, **ctx.env}, stop_when_over=True)  # fmt: skip
        if result.timed_out:
            raise ToolError(f"search timed out after {ctx.bash_timeout:g}s; narrow the path or the glob")
        lines = [ln[2:] if ln.startswith("./") else ln for ln in result.output.splitlines()]
        if result.exit_code == 1 and not result.output.strip():
            return ToolResult(f"no matches for {pattern!r} in {shown}")
        if result.exit_code == 2 and (not lines or lines[0].startswith("rg:") or not _RG_MATCH.match(lines[0])):
            raise ToolError(result.output.strip() or "ripgrep failed")
        text = "\n".join(lines)
        if result.truncated:
            text = _cap_note(text, ctx.output_cap)
        return ToolResult(text)

    def _python(self, ctx: ToolContext, target: Path, shown: str, pattern: str, glob: str | None) -> ToolResult:
        try:
            regex = re.compile(pattern)
        except re.error as e:
            raise ToolError(f"invalid regular expression {pattern!r}: {e}") from None
        if target.is_file():
            files: Iterator[Path] = iter([target])
            base = target.parent
        else:
            files = _walk_files(target)
            base = target
        matcher = _glob_matcher(glob)
        out: list[str] = []
        size = 0
        capped = False
        for file in files:
            rel = file.relative_to(base).as_posix()
            if file != target and (file.is_symlink() or (matcher is not None and not matcher(rel))):
                continue  # like rg: symlinks are not followed while walking
            if not file.is_file():
                continue  # a pipe or a device would block or never end
            try:
                with file.open("rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if _is_binary(data[:8192]):
                continue
            text = data.decode("utf-8", "replace")
            name = display_path(ctx, file)
            for n, line in enumerate(text.splitlines(), 1):
                if regex.search(line):
                    if len(line) > GREP_LINE_CHARS:
                        line = line[:GREP_LINE_CHARS] + " [... line cut]"
                    entry = f"{name}:{n}:{line}"
                    size += len(entry) + 1
                    if size > ctx.output_cap:
                        capped = True
                        break
                    out.append(entry)
            if capped:
                break
        if not out:
            return ToolResult(f"no matches for {pattern!r} in {shown}")
        text = "\n".join(out)
        if capped:
            text = _cap_note(text, ctx.output_cap)
        return ToolResult(text)


def _glob_matcher(glob: str | None):
    """rg-like `--glob`: without a `/` it matches the file name, else the relative path."""
    if not glob:
        return None
    negate = glob.startswith("!")
    glob = glob[1:] if negate else glob
    if "/" in glob.rstrip("/"):
        regex = glob_regex(glob.lstrip("/"))

        def match(rel: str) -> bool:
            return bool(regex.match(rel)) != negate
    else:
        names = _expand_braces(glob)

        def match(rel: str) -> bool:
            base = rel.rsplit("/", 1)[-1]
            return any(fnmatch.fnmatchcase(base, g) for g in names) != negate

    return match


def _cap_note(text: str, cap: int) -> str:
    text = text[:cap]
    if "\n" in text:
        text = text[: text.rfind("\n")]
    return text + f"\n[output capped at {cap:,} characters; narrow the pattern, path or glob]"


# --------------------------------------------------------------------------- all of them


def builtin_tools() -> list[Tool]:
    """The six built-in tools, in the order the model sees them."""
    return [ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool(), BashTool()]
