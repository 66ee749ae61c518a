"""Fixtures for the skill-system tests: roots, catalogs and diagnostics lookups."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog, Snapshot
from codebot.skills.files import Diagnostic, Root, Severity, Source

GOOD_SKILL = "name: good-skill\ndescription: A skill that always loads."


def make_root(
    path: Path,
    source: Source = Source.PROJECT,
    family: str = "codebot",
    rank: tuple[int, ...] = (0,),
    **kw: object,
) -> Root:
    return Root(path, source, family, rank, **kw)  # type: ignore[arg-type]


@pytest.fixture
def root_of() -> Callable[..., Root]:
    """`root_of(path, source=..., family=..., rank=..., explicit=..., plugin=...)` -> Root."""
    return make_root


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    """An empty folder to hold skills."""
    path = tmp_path / "skills"
    path.mkdir()
    return path


@pytest.fixture
def load() -> Callable[..., Snapshot]:
    """`load(root_or_path, ...)` -> the snapshot of a fresh Catalog over those roots.

    Plain paths become project roots ranked in the order given.
    """

    def _load(*roots: Root | Path) -> Snapshot:
        built = [
            r if isinstance(r, Root) else make_root(r, rank=(0, i)) for i, r in enumerate(roots)
        ]
        return Catalog(built).load()

    return _load


@pytest.fixture
def with_good_skill(write_skill: Callable[..., Path], skills_root: Path) -> Path:
    """`skills_root` with one valid skill, `good-skill`, that must survive any bad neighbour."""
    return write_skill(skills_root, "good-skill", GOOD_SKILL)


def diagnostics_for(
    snapshot: Snapshot, path: Path, severity: Severity | None = None
) -> list[Diagnostic]:
    return [
        d
        for d in snapshot.diagnostics
        if d.path == str(path) and (severity is None or d.severity is severity)
    ]


@pytest.fixture
def diags_for() -> Callable[..., list[Diagnostic]]:
    """`diags_for(snapshot, path, severity=None)` -> the snapshot's diagnostics about `path`."""
    return diagnostics_for
