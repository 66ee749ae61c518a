"""Project files for `@path` completion: a bounded walk, fuzzy matched."""

from __future__ import annotations

import os
from pathlib import Path

from codebot.skills.catalog import SKIP_DIRS
from codebot.ui.commands import fuzzy_score

MAX_FILES = 5000
MAX_DEPTH = 8


def project_files(root: Path, limit: int = MAX_FILES, max_depth: int = MAX_DEPTH) -> list[str]:
    """Project-relative posix paths of up to `limit` files, breadth first, skipping
    dependency and cache folders, so a huge tree costs a bounded amount of time."""
    found: list[str] = []
    queue: list[tuple[Path, str, int]] = [(root, "", 0)]
    while queue and len(found) < limit:
        folder, rel, depth = queue.pop(0)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = f"{rel}{entry.name}"
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name not in SKIP_DIRS and depth < max_depth:
                    queue.append((Path(entry.path), name + "/", depth + 1))
            else:
                found.append(name)
                if len(found) >= limit:
                    break
    return found


def match_files(files: list[str], query: str, limit: int = 20) -> list[str]:
    """Best matches first: prefix of the path or the file name, then substring, then fuzzy."""
    if not query:
        return files[:limit]
    scored = []
    for path in files:
        base = fuzzy_score(query, path.rsplit("/", 1)[-1])
        whole = fuzzy_score(query, path)
        best = max((s for s in (base, whole) if s is not None), default=None)
        if best is not None:
            scored.append((-best, len(path), path))
    scored.sort()
    return [p for _, _, p in scored[:limit]]
