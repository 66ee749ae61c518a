"""What `codebot mcp serve` costs to list a catalog with true digests. Prints ONE JSON object.

    .venv/bin/python bench/mcp_serve.py            # 1,000 generated skills + the corpus
    .venv/bin/python bench/mcp_serve.py --skills 10000 --runs 3

In one process, for a generated catalog (`--skills`) and for ../shared/corpus/skills (when
present): `cold_ms`, every SEP-2640 entry built by a fresh `SkillTree` (walk each skill
folder, read and hash every file, frontmatter as JSON); `warm_ms`, the same tree again
(digests kept while a file's stat is unchanged: what a second `skills/list` costs);
`baseline_ms`, reading and hashing the same files with nothing else (no walk, no checks);
`ratio` = cold / baseline; `per_page_ms` = warm time for one page of 50. Best of `--runs`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_skills import generate  # noqa: E402

from codebot.mcp.serve import PAGE  # noqa: E402
from codebot.mcp.serve_files import SkillTree, TreeError  # noqa: E402
from codebot.skills.catalog import Catalog  # noqa: E402
from codebot.skills.files import Root, Source  # noqa: E402

CORPUS = HERE.parent.parent / "shared" / "corpus" / "skills"


def _entries(tree: SkillTree) -> int:
    n = 0
    for skill in tree.skills.values():
        try:
            tree.entry(skill)
            n += 1
        except TreeError:
            pass
    return n


def measure(folder: Path, runs: int) -> dict[str, float | int]:
    snap = Catalog([Root(folder, Source.PROJECT, "extra", (0, 1, 0))]).load()
    cold = warm = base = float("inf")
    served = files = 0
    for _ in range(runs):
        tree = SkillTree(snap)
        t = time.perf_counter()
        served = _entries(tree)
        cold = min(cold, time.perf_counter() - t)
        t = time.perf_counter()
        _entries(tree)
        warm = min(warm, time.perf_counter() - t)
        paths = [p for s in tree.skills.values() for p in _files(tree, s)]
        files = len(paths)
        t = time.perf_counter()
        for p in paths:
            hashlib.sha256(p.read_bytes()).hexdigest()
        base = min(base, time.perf_counter() - t)
    return {
        "skills": len(snap),
        "served": served,
        "files": files,
        "cold_ms": round(cold * 1000, 1),
        "warm_ms": round(warm * 1000, 1),
        "baseline_ms": round(base * 1000, 1),
        "ratio": round(cold / base, 2) if base else 0.0,
        "per_page_ms": round(warm * 1000 * PAGE / max(served, 1), 2),
    }


def _files(tree: SkillTree, skill) -> list[Path]:
    try:
        return list(tree.files(skill).values())
    except TreeError:
        return []


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp) / "skills", args.skills)
        out["generated"] = measure(Path(tmp) / "skills", args.runs)
    if CORPUS.is_dir():
        out["corpus"] = measure(CORPUS, args.runs)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
