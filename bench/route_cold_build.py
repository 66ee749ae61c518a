"""The router's cold index build at 10,000 skills (bodies, names and descriptions to an
index), the candidates of issue 36 §4 measured in one run against today's build:

- `old_s`: each text tokenized on its own (`CODEBOT_ROUTE_BATCH=0`, the build before
  `route/index/batch.py`), in this process
- `batch_s`: the build as it is now (a chunk of bodies at a time), in this process
- `pool_s`: the bodies tokenized in worker processes (`ProcessPoolExecutor`, fork, 2
  workers, chunks of 256 bodies sent back as bytes) and the rest here, as a build would
  do it; `pool_start_s` is what starting the workers costs alone
- `tantivy_s`: the same name, description and body text (first 5,000 characters)
  indexed by tantivy (`pip install tantivy`; native code, its own `en_stem` analyzer,
  persisted to a temporary folder, 2 threads); skipped when not installed. Its terms are
  not the router's (no aliases, phrases, CJK bigrams or the router's stemmer), so this
  is a speed reference only
- `floor_s`: reading every SKILL.md and YAML-parsing its frontmatter (bench/agent_scale.py's
  floor, in this process)

Each timing is the median of `--repeat` rounds, the variants interleaved in each round.
Prints one JSON object.

    .venv/bin/python bench/route_cold_build.py [--skills 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gen_skills import generate  # noqa: E402
from codebot.skills.catalog import Catalog  # noqa: E402
from codebot.skills.files import Root, Source  # noqa: E402
from codebot.skills.route.config import RouterConfig  # noqa: E402
from codebot.skills.route.index.tokens import TokenCache  # noqa: E402
from codebot.skills.route.pipeline import Router  # noqa: E402

_TEXTS: list[str] = []  # the bodies, inherited by the forked workers


def _work(span: tuple[int, int]) -> dict[str, object]:
    """One chunk of bodies, as a frame of the prefetch helper's (`TokenCache._take`)."""
    global _SENT
    tc = _WORKER
    bags = tc.bags_many(_TEXTS[span[0] : span[1]], RouterConfig())
    keys = _KEYS[span[0] : span[1]]
    new, _SENT = tc.terms[_SENT:], len(tc.terms)
    return {
        "pid": os.getpid(),
        "terms": new,
        "bodies": [
            (*k, b.ids.tobytes(), b.counts.tobytes(), b.length)
            for k, b in zip(keys, bags, strict=True)
        ],
    }


_KEYS: list[tuple[str, int, int, int, int, int]] = []
_WORKER = TokenCache()  # each forked worker's own lexicon and word memo (empty at the fork)
_SENT = 0  # how many of its terms the parent has been sent


def build(snap: object, batch: bool) -> float:
    os.environ["CODEBOT_ROUTE_BATCH"] = "1" if batch else "0"
    t0 = time.perf_counter()
    Router(RouterConfig()).index(snap)  # type: ignore[arg-type]
    return time.perf_counter() - t0


def pool(snap: object) -> tuple[float, float]:
    """Bodies in two forked workers, the rest of the build here."""
    import multiprocessing as mp

    os.environ["CODEBOT_ROUTE_BATCH"] = "1"
    specs = list(snap)  # type: ignore[call-overload]
    cfg = RouterConfig()
    t0 = time.perf_counter()
    _TEXTS[:] = [s.read_body()[: cfg.bm25.body_chars] for s in specs]
    _KEYS[:] = [
        (str(s.real_path), s.body_offset, s.stamp.mtime_ns, s.stamp.size, s.stamp.inode, n)
        for s in specs
        for n in (cfg.bm25.body_chars,)
    ]
    with ProcessPoolExecutor(2, mp_context=mp.get_context("fork")) as ex:
        started = time.perf_counter()
        list(ex.map(int, range(2)))  # both workers up
        start_s = time.perf_counter() - started
        spans = [(a, min(a + 256, len(_TEXTS))) for a in range(0, len(_TEXTS), 256)]
        rt = Router(cfg)
        tokens = rt.indexes.tokens
        local: dict[object, list[int]] = {}  # per worker: its term index -> the id here
        for frame in ex.map(_work, spans):
            tokens._take(frame, local.setdefault(frame["pid"], []))
        rt.index(snap)  # type: ignore[arg-type]
    return time.perf_counter() - t0, start_s


def floor(skills: Path) -> float:
    import yaml

    t0 = time.perf_counter()
    for dirpath, _dirs, files in os.walk(skills):
        if "SKILL.md" in files:
            text = Path(dirpath, "SKILL.md").read_text(encoding="utf-8")
            end = text.find("\n---", 3)
            if text.startswith("---") and end != -1:
                yaml.load(text[3:end], Loader=yaml.CSafeLoader)
    return time.perf_counter() - t0


def tantivy_build(snap: object) -> float | None:
    try:
        import tantivy  # pyright: ignore[reportMissingImports]
    except ImportError:
        return None
    specs = list(snap)  # type: ignore[call-overload]
    t0 = time.perf_counter()
    sb = tantivy.SchemaBuilder()
    for f in ("name", "description", "body"):
        sb.add_text_field(f, tokenizer_name="en_stem")
    schema = sb.build()
    with tempfile.TemporaryDirectory() as d:
        writer = tantivy.Index(schema, path=d).writer(heap_size=100_000_000, num_threads=2)
        for s in specs:
            writer.add_document(
                tantivy.Document(
                    name=s.name, description=s.description or "", body=s.read_body()[:5000]
                )
            )
        writer.commit()
        writer.wait_merging_threads()
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    gc.disable()  # as the build runs (cache._derive)
    with tempfile.TemporaryDirectory() as tmp:
        skills = Path(tmp) / "skills"
        generate(skills, args.skills, seed=1)
        snap = Catalog([Root(skills, Source.PROJECT, "extra", (0, 1, 0), explicit=True)]).load()
        runs: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            got = {"floor_s": floor(skills), "old_s": build(snap, False)}
            got["batch_s"] = build(snap, True)
            got["pool_s"], got["pool_start_s"] = pool(snap)
            tv = tantivy_build(snap)
            if tv is not None:
                got["tantivy_s"] = tv
            for k, v in got.items():
                runs.setdefault(k, []).append(v)
    out: dict[str, object] = {"skills": args.skills, "cpus": len(os.sched_getaffinity(0))}
    out.update({k: round(statistics.median(v), 3) for k, v in runs.items()})
    out["batch_speedup"] = round(statistics.median(runs["old_s"]) / out["batch_s"], 2)  # type: ignore[operator]
    out["runs"] = runs
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
