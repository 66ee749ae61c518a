"""Search tools: Glob (files by name) and Grep (file contents, through ripgrep when it is
installed), and the walk that skips SKIP_DIRS. The glob syntax both accept is matched in
`glob_match` (bounded time, no regex backtracking); its names are re-exported here."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from codebot.agent.tools.base import (
    PathTool,
    ToolContext,
    ToolError,
    ToolResult,
    display_path,
    is_binary,
    object_schema,
    resolve_path,
)
from codebot.agent.tools.glob_match import GlobError, GlobPattern, glob_pattern, glob_regex
from codebot.agent.tools.shell import run_process

__all__ = [
    "SKIP_DIRS",
    "GlobError",
    "GlobPattern",
    "GlobTool",
    "GrepTool",
    "glob_pattern",
    "glob_regex",
]

#: Folders Glob and Grep never descend into.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)
GLOB_MAX_RESULTS = 500
GREP_LINE_CHARS = 500
_RG_MATCH = re.compile(r"^.+?:\d+:")


# --------------------------------------------------------------------------- Glob


def _walk_files(root: Path) -> Iterator[Path]:
    """Files under `root` (sorted, no symlinked folders followed), skipping SKIP_DIRS."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath, name)


class GlobTool(PathTool):
    name = "Glob"
    description = (
        "Find files by name with a glob pattern such as `**/*.py`, `src/**/test_*.ts` or "
        "`*.{md,txt}`; `**` matches any number of folders, `*` does not cross `/`. `path` is the "
        "folder to search (default: the project). Results are paths relative to the project, "
        "newest first, at most 500. .git and node_modules are skipped."
    )
    parameters = object_schema(
        {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "Glob pattern, relative to `path`.",
            },
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "Folder to search (default: the project).",
            },
        },
        required=["pattern"],
    )
    read_only = True

    path_default = "."

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
        try:
            regex = glob_pattern(pattern)
        except GlobError as e:
            raise ToolError(f"{e}; use fewer alternatives") from None
        found: list[tuple[float, str]] = []
        skipped = 0
        for file in _walk_files(base):
            rel = file.relative_to(base).as_posix()
            if not regex.match(rel):
                continue
            if _denied(ctx, file):
                skipped += 1
                continue
            try:
                mtime = file.stat().st_mtime
            except OSError:
                continue  # a dangling symlink, or a file that vanished
            found.append((mtime, display_path(ctx, file)))
        if not found:
            return ToolResult(f"no files match {pattern!r} in {shown_base}{_skipped_note(skipped)}")
        found.sort(key=lambda item: (-item[0], item[1]))
        lines = [p for _, p in found[:GLOB_MAX_RESULTS]]
        if len(found) > GLOB_MAX_RESULTS:
            lines.append(
                f"[{len(found) - GLOB_MAX_RESULTS} more files not shown: {len(found)} match; "
                "narrow the pattern or the path]"
            )
        return ToolResult("\n".join(lines) + _skipped_note(skipped))


# --------------------------------------------------------------------------- Grep


class GrepTool(PathTool):
    name = "Grep"
    description = (
        "Search file contents with a regular expression (ripgrep syntax). `path` is a file or "
        "folder to search (default: the project); `glob` limits the files searched, e.g. `*.py` "
        "or `src/**/*.{ts,tsx}`. Output lines are `path:line:text`. .git and node_modules are "
        "skipped, and binary files are ignored."
    )
    parameters = object_schema(
        {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "Regular expression to search for.",
            },
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "File or folder to search (default: the project).",
            },
            "glob": {
                "type": "string",
                "minLength": 1,
                "description": "Only search files matching this glob.",
            },
        },
        required=["pattern"],
    )
    read_only = True

    path_default = "."

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

    async def _ripgrep(
        self, rg: str, ctx: ToolContext, target: Path, shown: str, pattern: str, glob: str | None
    ) -> ToolResult:
        argv = [
            rg,
            "--line-number",
            "--no-heading",
            "--color",
            "never",
            "--with-filename",
            "--hidden",
            "--no-messages",
            "--sort",
            "path",
            "--max-columns",
            str(GREP_LINE_CHARS),
            "--max-columns-preview",
        ]
        for d in sorted(SKIP_DIRS):
            argv += ["--glob", f"!{d}"]
        if glob:
            argv += ["--glob", glob]
        argv += ["--null", "--regexp", pattern, "--", shown]
        result = await run_process(
            argv,
            cwd=ctx.project_dir,
            timeout=ctx.bash_timeout,
            cap=ctx.output_cap,
            env={**os.environ, **ctx.env},
            stop_when_over=True,
        )
        if result.timed_out:
            raise ToolError(
                f"search timed out after {ctx.bash_timeout:g}s; narrow the path or the glob"
            )
        # `--null` ends each path with NUL, so a file name holding ':' cannot be misread.
        lines, denied_files = [], set()
        for ln in result.output.splitlines():
            path, nul, rest = ln.partition("\0")
            path = path[2:] if path.startswith("./") else path
            if nul and _denied(ctx, Path(ctx.project_dir) / path):
                denied_files.add(path)
                continue
            lines.append(f"{path}:{rest}" if nul else ln)
        if result.exit_code == 1 and not result.output.strip():
            return ToolResult(f"no matches for {pattern!r} in {shown}")
        if not lines and denied_files:
            return ToolResult(
                f"no matches for {pattern!r} in {shown}{_skipped_note(len(denied_files))}"
            )
        if result.exit_code == 2 and (
            not lines or lines[0].startswith("rg:") or not _RG_MATCH.match(lines[0])
        ):
            raise ToolError(result.output.strip() or "ripgrep failed")
        text = "\n".join(lines)
        if result.truncated:
            text = _cap_note(text, ctx.output_cap)
        return ToolResult(text + _skipped_note(len(denied_files)))

    def _python(
        self, ctx: ToolContext, target: Path, shown: str, pattern: str, glob: str | None
    ) -> ToolResult:
        search = _timed_search(pattern, ctx.bash_timeout)
        if target.is_file():
            files: Iterator[Path] = iter([target])
            base = target.parent
        else:
            files = _walk_files(target)
            base = target
        matcher = _glob_matcher(glob)
        hits = _Hits(ctx.output_cap)
        skipped = 0
        for file in files:
            rel = file.relative_to(base).as_posix()
            if file != target and (file.is_symlink() or (matcher is not None and not matcher(rel))):
                continue  # like rg: symlinks are not followed while walking
            if _denied(ctx, file):
                skipped += 1
                continue
            text = _read_text(file)
            if text is None:
                continue
            name = display_path(ctx, file)
            if not _search_text(search, text, name, hits):
                break
        if not hits.lines:
            return ToolResult(f"no matches for {pattern!r} in {shown}{_skipped_note(skipped)}")
        text = "\n".join(hits.lines)
        if hits.capped:
            text = _cap_note(text, ctx.output_cap)
        return ToolResult(text + _skipped_note(skipped))


def _timed_search(pattern: str, limit: float) -> Callable[[str], object]:
    """`search(line)` for `pattern`, all calls sharing one deadline `limit` seconds away.

    The `regex` package (re-compatible syntax) because its matching can be stopped:
    `(a+)+$` on a long line backtracks exponentially, and `re` cannot be interrupted.
    One deadline for the whole search, like the rg path's process timeout.
    """
    import regex as regex_mod

    try:
        regex = regex_mod.compile(pattern)
    except (regex_mod.error, ValueError, OverflowError) as e:
        raise ToolError(f"invalid regular expression {pattern!r}: {e}") from None
    deadline = time.monotonic() + limit

    def search(line: str) -> object:
        try:
            return regex.search(line, timeout=max(deadline - time.monotonic(), 0.001))
        except TimeoutError:
            raise ToolError(
                f"search stopped after {limit:g}s: matching {pattern!r} takes too long "
                f"(nested repetition such as `(a+)+` backtracks); simplify the "
                f"pattern or narrow the path"
            ) from None

    return search


def _read_text(file: Path) -> str | None:
    """The file's text, or None for what is not searched: not a regular file (a pipe or a
    device would block or never end), unreadable, or binary."""
    if not file.is_file():
        return None
    try:
        with file.open("rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if is_binary(data[:8192]):
        return None
    return data.decode("utf-8", "replace")


class _Hits:
    """The matching lines found so far, up to `cap` characters of output."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.lines: list[str] = []
        self.size = 0
        self.capped = False

    def add(self, entry: str) -> bool:
        """Keep `entry`; False (and nothing kept) once it would pass the cap."""
        self.size += len(entry) + 1
        if self.size > self.cap:
            self.capped = True
            return False
        self.lines.append(entry)
        return True


def _search_text(search: Callable[[str], object], text: str, name: str, hits: _Hits) -> bool:
    """Add the lines of `text` that `search` matches; False when the cap stopped it."""
    for n, line in enumerate(text.splitlines(), 1):
        if search(line):
            if len(line) > GREP_LINE_CHARS:
                line = line[:GREP_LINE_CHARS] + " [... line cut]"
            if not hits.add(f"{name}:{n}:{line}"):
                return False
    return True


def _glob_matcher(glob: str | None):
    """rg-like `--glob`: without a `/` it matches the file name, else the relative path."""
    if not glob:
        return None
    negate = glob.startswith("!")
    glob = glob[1:] if negate else glob
    try:
        compiled = glob_pattern(glob.lstrip("/") if "/" in glob.rstrip("/") else glob)
    except GlobError as e:
        raise ToolError(f"{e}; use fewer alternatives") from None
    if "/" in glob.rstrip("/"):

        def match(rel: str) -> bool:
            return compiled.match(rel) != negate
    else:

        def match(rel: str) -> bool:
            return compiled.match(rel.rsplit("/", 1)[-1]) != negate

    return match


def _denied(ctx: ToolContext, file: Path) -> bool:
    """Whether a Read(...) deny rule refuses this file (ToolContext.path_denied)."""
    return ctx.path_denied is not None and bool(ctx.path_denied(display_path(ctx, file)))


def _skipped_note(n: int) -> str:
    return f"\n[{n} file{'s' if n != 1 else ''} skipped: denied by a Read rule]" if n else ""


def _cap_note(text: str, cap: int) -> str:
    text = text[:cap]
    if "\n" in text:
        text = text[: text.rfind("\n")]
    return text + f"\n[output capped at {cap:,} characters; narrow the pattern, path or glob]"
