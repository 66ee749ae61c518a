"""A small catalog on disk for the tests of the router's index (patching, persisting,
warming): real SKILL.md files, so bodies are read and stamps change as they do in use."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source

TOPICS = {
    "pdf-forms": (
        "Fill in PDF forms and extract the fields of fillable PDF documents. "
        "Not for scanned images."
    ),
    "docker-slim": "Shrink Docker images with multi-stage builds and distroless bases.",
    "k8s-deploy": (
        "Write Kubernetes manifests (Deployment, Service, Ingress) and roll them out with kubectl."
    ),
    "release-notes": "Write release notes and a changelog from the commits since the last tag.",
    "flaky-tests": "Find and fix flaky pytest tests: races, shared fixtures, time and randomness.",
    "sql-tuning": (
        "Speed up slow SQL queries with indexes and EXPLAIN plans. Do not use for schema design."
    ),
}
WORDS = [
    "cache",
    "queue",
    "schema",
    "lint",
    "format",
    "upload",
    "token",
    "parser",
    "metrics",
    "alert",
    "graph",
    "socket",
    "thread",
    "widget",
    "cluster",
    "bucket",
    "ledger",
    "invoice",
    "tensor",
    "shader",
    "sprite",
    "router",
    "buffer",
]


def filler(rng: random.Random, i: int) -> tuple[str, str, str]:
    words = rng.sample(WORDS, 4)
    desc = f"Handle {words[0]} and {words[1]} work for {words[2]} projects."
    body = "\n".join(
        f"- {rng.choice(WORDS)} {rng.choice(WORDS)} step {k}" for k in range(rng.randint(3, 12))
    )
    return f"filler-{words[3]}-{i}", desc, body + "\n"


class DiskCatalog:
    """`add`, `edit` and `remove` skills in one root; `reload()` returns the new snapshot."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.catalog = Catalog([Root(root, Source.PROJECT, "codebot", (0,))])
        self.paths: dict[str, Path] = {}

    def add(self, name: str, description: str, body: str = "Steps.\n", extra: str = "") -> Path:
        p = self.root / name / "SKILL.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(
            f"---\nname: {name}\ndescription: {json.dumps(description)}\n{extra}---\n{body}",
            encoding="utf-8",
        )
        self.paths[name] = p
        return p

    def edit(self, name: str, description: str | None = None, body_extra: str = "") -> Path:
        p = self.paths[name]
        text = p.read_text(encoding="utf-8")
        if description is not None:
            head, _, rest = text.partition("\ndescription: ")
            text = f"{head}\ndescription: {json.dumps(description)}\n{rest.partition(chr(10))[2]}"
        time.sleep(0.002)  # a different mtime_ns even on coarse clocks
        p.write_text(text + body_extra, encoding="utf-8")
        return p

    def remove(self, name: str) -> None:
        p = self.paths.pop(name)
        p.unlink()
        p.parent.rmdir()

    def load(self) -> Any:
        return self.catalog.load()

    def reload(self) -> Any:
        self.catalog.reload()
        return self.catalog.snapshot


@pytest.fixture
def disk(tmp_path: Path) -> DiskCatalog:
    """The TOPICS skills plus 30 fillers (a realistic spread of common and rare words)."""
    root = tmp_path / "skills"
    root.mkdir()
    d = DiskCatalog(root)
    for name, desc in TOPICS.items():
        d.add(name, desc, f"# {name}\n\nHow to {desc.lower()}\n")
    rng = random.Random(7)
    for i in range(30):
        d.add(*filler(rng, i))
    return d


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "home" / "cache" / "router"


@pytest.fixture
def patching(monkeypatch: pytest.MonkeyPatch) -> None:
    """Patch the index of these small catalogs as if they were big (`cache.PATCH_MIN`)."""
    from codebot.skills.route.index import cache

    monkeypatch.setattr(cache, "PATCH_MIN", 0)


def write_catalog(root: Path, descriptions: dict[str, str], body: str = "Steps.\n") -> Any:
    """`<root>/<name>/SKILL.md` for each name -> description (JSON-quoted, so any text is
    safe in the frontmatter), and the catalog of `root` loaded (a Snapshot)."""
    for name, desc in descriptions.items():
        d = root / name
        d.mkdir(parents=True, exist_ok=True)
        fm = f"name: {name}\ndescription: {json.dumps(desc)}\n"
        (d / "SKILL.md").write_text(f"---\n{fm}---\n{body}", encoding="utf-8")
    return Catalog([Root(Path(root), Source.PROJECT, "codebot", (0,))]).load()


@pytest.fixture(scope="session")
def catalog_of() -> Any:
    """`catalog_of(root, {name: description}, body=...)`: see `write_catalog`."""
    return write_catalog
