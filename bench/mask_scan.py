"""Benchmark finding the paths `Read(...)` deny rules refuse before a sandboxed Bash call.
Prints ONE JSON object on stdout.

    .venv/bin/python bench/mask_scan.py               # a 10,000-file project, 20 rounds
    .venv/bin/python bench/mask_scan.py --files 50000 --rounds 5

The project: `src/` (40 % of the files), `node_modules/` (30 %), a virtualenv `.venv/`
with a `pyvenv.cfg` (20 %), `docs/` (10 %), and `backend/.env`.

- `old_walk_ms`: the walk before issue 30 part 3, in the same run (its code is kept below):
  every entry asked `Approvals.path_denied` (a realpath each), `node_modules`, `.git` and
  virtualenvs skipped, whatever the rules; `old_walk_scanned` entries.
- `literal_ms`: `find_masks` with `Read(backend/.env)`: one lookup, no walk.
- `glob_ms`: `find_masks` with `Read(.env)`: a walk of everything (`glob_scanned`),
  virtualenvs included, matched with one compiled gitignore spec.
- `glob_over_old`, `literal_over_old`: the ratios. Medians over `--rounds`, page cache warm.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OLD_SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)


def old_masked_paths(
    project: Path, is_denied, limit: int = 20000, seconds: float = 0.5
) -> tuple[list[Path], bool, int]:
    """The walk as it was (sandbox_scan.masked_paths before issue 30 part 3)."""
    deadline = time.monotonic() + seconds
    found: list[Path] = []
    scanned = 0
    queue: deque[tuple[str, str]] = deque([(os.fspath(project), "")])
    while queue:
        folder, rel_folder = queue.popleft()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                scanned += 1
                if scanned > limit or time.monotonic() > deadline or len(found) >= 1000:
                    return found, False, scanned - 1
                rel = f"{rel_folder}{entry.name}"
                try:
                    is_dir = entry.is_dir()
                    real_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_denied(rel) or (is_dir and is_denied(rel + "/")):
                    found.append(Path(entry.path))
                    continue
                if (
                    real_dir
                    and entry.name not in OLD_SKIPPED
                    and not os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))
                ):
                    queue.append((entry.path, rel + "/"))
    return found, True, scanned


def make_project(root: Path, files: int) -> Path:
    project = root / "proj"
    src = root / "one-file"
    src.write_text("x\n")
    shares = {"src": 0.4, "node_modules": 0.3, ".venv": 0.2, "docs": 0.1}
    for top, share in shares.items():
        n = int(files * share)
        for i in range(n):
            folder = project / top / f"pkg{i // 100:03}"
            if i % 100 == 0:
                folder.mkdir(parents=True)
            os.link(src, folder / f"f{i % 100:02}.py")  # hard links: fast to make
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "backend").mkdir()
    (project / "backend" / ".env").write_text("API_TOKEN=x\n")
    return project


def median_ms(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(times), 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()

    from codebot.agent.permissions import Approvals
    from codebot.agent.tools.sandbox_scan import DeniedPaths, find_masks

    with tempfile.TemporaryDirectory(prefix="codebot-bench-mask-") as tmp:
        project = make_project(Path(tmp), args.files)
        result: dict[str, object] = {"files": args.files, "rounds": args.rounds}
        for key, rule in (("literal", "Read(backend/.env)"), ("glob", "Read(.env)")):
            approvals = Approvals(deny=[rule])
            approvals.project_dir = os.path.realpath(project)
            rules = DeniedPaths(approvals.path_denied, approvals.deny_rules).read_rules()
            old = old_masked_paths(project, lambda rel, a=approvals: bool(a.path_denied(rel)))
            new = find_masks(project, rules)
            result[f"{key}_rule"] = rule
            result[f"old_walk_{key}_ms"] = median_ms(
                lambda a=approvals: old_masked_paths(project, lambda rel: bool(a.path_denied(rel))),
                args.rounds,
            )
            result[f"old_walk_{key}_scanned"] = old[2]
            result[f"old_walk_{key}_found"] = len(old[0])
            result[f"{key}_ms"] = median_ms(lambda r=rules: find_masks(project, r), args.rounds)
            result[f"{key}_scanned"] = new.scanned
            result[f"{key}_found"] = len(new.paths)
            result[f"{key}_complete"] = new.complete
            result[f"{key}_over_old"] = round(
                result[f"{key}_ms"] / max(result[f"old_walk_{key}_ms"], 1e-9), 4
            )  # type: ignore[operator]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
