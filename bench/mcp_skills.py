"""Servers' skills in a session's catalog (issue 34 §6). Prints ONE JSON object on stdout;
every number has its baseline from the same run.

    .venv/bin/python bench/mcp_skills.py [--skills 1000] [--reads 20000]

- `snapshot_read`: `catalog.snapshot` with a `SourceSet` of N source skills (the joined
  snapshot kept, only the sources' token asked for), against the same catalog without
  sources; every reader (listing, completion, routing) pays it on each access.
- `join`: making the joined snapshot once (after a reload or a server's new listing).

The source is in-process (the specs a server's listing makes); the session's token is
`mcp/session_skills.source_set`'s shape (one tuple per server).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from codebot.skills.catalog import Catalog, SourceSet, external_spec  # noqa: E402
from codebot.skills.files import Spec  # noqa: E402


class Source:
    label = "mcp:srv"
    problems: tuple[str, ...] = ()

    def __init__(self, n: int) -> None:
        self._specs = tuple(
            external_spec(self.label, f"srv:s{i}", f"skill {i}", f"s{i}/SKILL.md") for i in range(n)
        )

    def specs(self) -> Sequence[Spec]:
        return self._specs

    async def fetch_body(self, spec: Spec) -> str:
        return ""


def session_set(source: Source) -> SourceSet:
    """The session's own provider over one (never started) server holding `source`."""
    from codebot.mcp.config import servers_from
    from codebot.mcp.session_skills import SkillServers, source_set

    (d,), _ = servers_from(
        {"srv": {"command": "true"}}, source="user", path="b", prefix="s", environ={}
    )
    servers = SkillServers([d], home=Path("/nonexistent"), project=Path("."))
    servers.skills["srv"] = source  # type: ignore[assignment]  (duck-typed)
    servers.skill_stamps["srv"] = 1
    return source_set(servers)


def per_read_us(catalog: Catalog, reads: int) -> float:
    catalog.snapshot  # noqa: B018  (made once)
    t0 = time.perf_counter()
    for _ in range(reads):
        catalog.snapshot  # noqa: B018
    return (time.perf_counter() - t0) / reads * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=1000)
    ap.add_argument("--reads", type=int, default=20000)
    a = ap.parse_args()
    source = Source(a.skills)
    catalog = Catalog([])
    catalog.load()
    base = per_read_us(catalog, a.reads)
    catalog.sources = SourceSet(lambda: ((("srv", id(source), 1),), [source]))
    joined = per_read_us(catalog, a.reads)
    catalog.sources = session_set(source)
    session = per_read_us(catalog, a.reads)
    t0 = time.perf_counter()
    for i in range(20):
        catalog.sources = SourceSet(lambda i=i: ((("srv", id(source), i),), [source]))
        catalog.snapshot  # noqa: B018
    join_ms = (time.perf_counter() - t0) / 20 * 1000
    out = {
        "skills": a.skills,
        "snapshot_read": {
            "baseline_us": round(base, 3),
            "with_sources_us": round(joined, 3),
            "ratio": round(joined / base, 1) if base else None,
            "session_provider_us": round(session, 3),  # mcp/session_skills.source_set's
        },
        "join": {"ms": round(join_ms, 3)},
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
