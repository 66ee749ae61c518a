"""Finding the denied paths of a project, for the sandbox to mask (`masked_paths`).

The permission rules are globs over project-relative paths, and a mount needs a real
path, so the project is walked once before a sandboxed command, bounded by a number of
entries and a time budget: a huge checkout must not make every Bash call slow. The walk
is best-effort and says so (`MaskScan.complete`); what it cannot cover:

* folders it does not descend into (`SKIPPED_DIRS`, and any virtualenv): a denied path
  inside them is not masked, though a denied skipped folder itself is;
* files a command creates while it runs (masks are fixed when the sandbox starts);
* absolute deny rules (`//abs/**`, `~/x/**`): the caller adds literal ones to
  `SandboxPolicy.masked`, globs outside the project cannot be enumerated.

Symlinks are never followed during the walk. A symlink is judged by its own path, like
any file; when it is denied, the sandbox masks what it points to (bwrap mounts follow
links), inside the project or not. A link to a denied path inside the project needs no
rule of its own: the target is masked, so the link leads to the mask.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SKIPPED_DIRS", "MaskScan", "masked_paths"]

#: Folders the walk does not descend into: big, generated, and not where secrets live.
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache",
})  # fmt: skip
#: More masks than this would make a long bwrap command line and many mounts.
MAX_MASKS = 1000


@dataclass(frozen=True)
class MaskScan:
    paths: tuple[Path, ...]  # existing denied paths, a denied folder once (not its contents)
    complete: bool  # False when the walk stopped at the limit, the time budget or MAX_MASKS
    scanned: int  # entries looked at


def _denied(is_denied: Callable[[str], bool], rel: str, is_dir: bool) -> bool:
    # Folder rules are written gitignore-style (`secrets/`), so ask both ways for a folder.
    return is_denied(rel) or (is_dir and is_denied(rel + "/"))


def masked_paths(
    project: Path,
    is_denied: Callable[[str], bool],
    *,
    limit: int = 20000,
    seconds: float = 0.5,
) -> MaskScan:
    """Walk `project` and return the paths `is_denied` refuses, by project-relative posix path.

    Stops after `limit` entries or `seconds`, whichever comes first; `is_denied` errors
    propagate. The returned paths are as found (not resolved): `wrap` resolves them.
    """
    deadline = time.monotonic() + seconds
    root = Path(project)
    found: list[Path] = []
    scanned = 0
    # Breadth first: when the budget runs out, the shallow paths (`.env`, `secrets/`), the
    # likeliest to be denied, have been seen.
    queue: deque[tuple[str, str]] = deque([(os.fspath(root), "")])  # (folder, relative path)
    while queue:
        folder, rel_folder = queue.popleft()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue  # unreadable or vanished: nothing to mask there that we could see
        with entries:
            # Read lazily, not sorted: a folder of a million files must not be listed
            # whole before the first check of the budget.
            for entry in entries:
                scanned += 1
                if scanned > limit or time.monotonic() > deadline or len(found) >= MAX_MASKS:
                    return MaskScan(tuple(found), False, scanned - 1)
                rel = f"{rel_folder}{entry.name}"
                try:
                    is_dir = entry.is_dir()  # follows a link, for the `secrets/` question only
                    real_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if _denied(is_denied, rel, is_dir):
                    found.append(Path(entry.path))
                    continue  # the whole folder is masked: its contents need no masks
                if real_dir and entry.name not in SKIPPED_DIRS and not _is_venv(entry.path):
                    queue.append((entry.path, rel + "/"))
    return MaskScan(tuple(found), True, scanned)


def _is_venv(path: str) -> bool:
    # A virtualenv under any name: thousands of files, none of them the project's secrets.
    return os.path.exists(os.path.join(path, "pyvenv.cfg"))
