"""Benchmark: the catalog index file at 10,000 skills, and the formats it could use.

Prints one JSON object. It generates N skills (`bench/gen_skills.py`, default 10,000),
loads them once with an index (the cold build writes the file), then times, each the
median of several runs:

- `index_read_ms` / `index_save_ms`: `Index` reading its file, and writing it whole after
  a warm load (as a session does after an edit);
- the document as the format before stored it (every entry's spec row in the open)
  decoded and encoded by `json` (the format before, the baseline), `marshal`, and
  `orjson` and `msgpack` when they are installed (measured, not used); and the document
  now (each entry's row a marshalled blob, decoded only when that file is asked for);
  with each one's size;
- `warm_catalog_ms`: a whole warm `Catalog.load()` (stats every file, decodes every row).

    python bench/index_format.py [N]
"""

from __future__ import annotations

import gc
import json
import marshal
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gen_skills import generate
from codebot.skills.catalog import Catalog, Index
from codebot.skills.catalog.index import read_document
from codebot.skills.files import Root, Source

REPEATS = 7
TARGET_MS = 50.0


def median_ms(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 1)


def expanded(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the format before stored it: every entry's row in the open."""
    entries = {}
    for key, (path, mtime, size, inode, side, blob) in doc["entries"].items():
        diags, row, once = marshal.loads(blob)
        entry = {"p": path, "s": [mtime, size, inode], "spec": row}
        if side is not None:
            entry["o"] = side
        if diags:
            entry["d"] = diags
        if once:
            entry["sd"] = True
        entries[key] = entry
    return {"entries": entries, "dirs": doc["dirs"]}


def formats(lazy: dict[str, Any]) -> dict[str, Any]:
    """The format before (every row in the open, as JSON) against other encoders of the
    same document, and the format now (rows as marshalled blobs, decoded on a hit)."""
    doc = expanded(lazy)
    as_lazy = marshal.dumps(lazy)
    out: dict[str, Any] = {
        "marshal_lazy_rows (now)": {
            "load_ms": median_ms(lambda: marshal.loads(as_lazy)),
            "save_ms": median_ms(lambda: marshal.dumps(lazy)),
            "mb": round(len(as_lazy) / 1e6, 2),
        }
    }
    as_json = json.dumps(doc, separators=(",", ":")).encode("ascii")
    out["json (before)"] = {
        "load_ms": median_ms(lambda: json.loads(as_json)),
        "save_ms": median_ms(lambda: json.dumps(doc, separators=(",", ":")).encode("ascii")),
        "mb": round(len(as_json) / 1e6, 2),
    }
    as_marshal = marshal.dumps(doc)
    out["marshal"] = {
        "load_ms": median_ms(lambda: marshal.loads(as_marshal)),
        "save_ms": median_ms(lambda: marshal.dumps(doc)),
        "mb": round(len(as_marshal) / 1e6, 2),
    }
    try:
        import orjson

        as_or = orjson.dumps(doc)
        out["orjson"] = {
            "load_ms": median_ms(lambda: orjson.loads(as_or)),
            "save_ms": median_ms(lambda: orjson.dumps(doc)),
            "mb": round(len(as_or) / 1e6, 2),
        }
    except ImportError:
        out["orjson"] = "skipped: not installed"
    try:
        import msgpack

        as_mp = msgpack.packb(doc)
        out["msgpack"] = {
            "load_ms": median_ms(lambda: msgpack.unpackb(as_mp)),
            "save_ms": median_ms(lambda: msgpack.packb(doc)),
            "mb": round(len(as_mp) / 1e6, 2),
        }
    except ImportError:
        out["msgpack"] = "skipped: not installed"
    base = out["json (before)"]
    for figures in out.values():
        if isinstance(figures, dict) and figures is not base:
            figures["load_ratio_to_json"] = round(figures["load_ms"] / base["load_ms"], 2)
            figures["save_ratio_to_json"] = round(figures["save_ms"] / base["save_ms"], 2)
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CODEBOT_HOME"] = str(Path(tmp) / "home")
        skills = Path(tmp) / "skills"
        generate(skills, n, seed=0)
        roots = [Root(skills, Source.PROJECT, "extra", (0, 1, 0), explicit=True)]
        path = Path(tmp) / "home" / "cache" / "skill-index.bin"
        Catalog(roots, index=Index(path)).load()
        doc = read_document(path)
        assert doc is not None and len(doc["entries"]) == n

        def read() -> None:
            Index(path)._ensure_loaded()

        loaded = Index(path)  # as a session has it: after a warm load of the catalog
        Catalog(roots, index=loaded).load()
        out: dict[str, Any] = {
            "skills": n,
            "file_mb": round(path.stat().st_size / 1e6, 2),
            "index_read_ms": median_ms(read),
            "index_save_ms": median_ms(loaded.save),
            "warm_catalog_ms": median_ms(lambda: Catalog(roots, index=Index(path)).load(), 3),
            "formats": formats(doc),
            "target_ms": TARGET_MS,
        }
        out["target_met"] = out["index_read_ms"] <= TARGET_MS and out["index_save_ms"] <= TARGET_MS
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
