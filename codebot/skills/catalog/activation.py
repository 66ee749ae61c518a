"""`paths:` activation: a skill with globs is listed only when the project has a match.

Globs are gitignore-style (pathspec's GitIgnoreSpec), matched against project files
relative to the project folder. The walk is bounded and stops as soon as every
conditional skill has been decided.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from codebot.skills.files import Spec

MAX_FILES = 50_000
_PRUNE = frozenset(
    {
        ".git",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "dist",
        "build",
        ".cache",
    }
)


class GlobError(ValueError):
    pass


@lru_cache(maxsize=4096)
def compile_globs(patterns: tuple[str, ...]):
    """Compile a skill's globs; raises GlobError naming the pattern that does not compile."""
    import bracex
    import pathspec

    lines: list[str] = []
    for p in patterns:
        try:
            # gitignore syntax has no `{a,b}`, but skill authors write it (Claude Code
            # accepts it), so braces are expanded first.
            expanded = bracex.expand(p, limit=1000)
            pathspec.GitIgnoreSpec.from_lines(expanded)
        except Exception as exc:  # pathspec and bracex raise several types
            raise GlobError(f"glob {p!r} does not compile: {exc}") from None
        lines.extend(expanded)
    return pathspec.GitIgnoreSpec.from_lines(lines)


def glob_error(patterns: Iterable[str]) -> str | None:
    try:
        compile_globs(tuple(patterns))
    except GlobError as exc:
        return str(exc)
    return None


def active_keys(
    specs: Iterable[Spec], project_dir: Path, max_files: int = MAX_FILES
) -> frozenset[str]:
    """Keys of `paths:` skills whose globs match at least one file under the project."""
    pending: dict[str, object] = {}
    for spec in specs:
        if spec.paths:
            try:
                pending[spec.key] = compile_globs(spec.paths)
            except GlobError:
                continue  # reported by validation; a broken glob never activates
    if not pending:
        return frozenset()
    active: set[str] = set()
    seen = 0
    for dirpath, dirnames, filenames in os.walk(project_dir):
        dirnames[:] = [d for d in dirnames if d not in _PRUNE]
        rel_dir = os.path.relpath(dirpath, project_dir)
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            for key in [k for k, spec in pending.items() if spec.match_file(rel)]:  # type: ignore[attr-defined]
                active.add(key)
                del pending[key]
            seen += 1
            if not pending or seen >= max_files:
                return frozenset(active)
    return frozenset(active)
