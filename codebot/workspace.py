"""Wiring shared by every front end: settings in, a ready skill catalog out."""

from __future__ import annotations

from pathlib import Path

from codebot.config import Settings
from codebot.skills.catalog import Catalog, default_roots


def index_path(settings: Settings) -> Path:
    return settings.home / "cache" / "skill-index.json"


def open_catalog(settings: Settings, load: bool = True) -> Catalog:
    roots = default_roots(
        cwd=settings.cwd,
        home=Path.home(),
        codebot_home=settings.home,
        extra_dirs=settings.skills_dirs,
    )
    index = None
    if settings.use_index:
        try:
            from codebot.skills.catalog import Index
        except ImportError:  # the index is an optimisation, never a requirement
            index = None
        else:
            index = Index(index_path(settings))
    catalog = Catalog(roots, index=index)
    if load:
        catalog.load()
    return catalog
