"""Wiring shared by every front end: settings in, a ready skill catalog out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from codebot.config import Settings
from codebot.skills.catalog import Catalog, default_roots

if TYPE_CHECKING:
    from codebot.skills.catalog.plugins import Plugin


def plugins_for(settings: Settings) -> list[Plugin]:
    """The session's Claude Code plugins: the project root's when it loads, `--plugin-dir`
    folders, then `$CODEBOT_HOME/plugins/*` (docs/compatibility.md, "Plugins")."""
    from codebot.skills.catalog.plugins import find_plugins

    project = settings.project_dir if settings.project_plugin else None
    return find_plugins(settings.home, settings.plugin_dirs, project)


def project_plugin_answer(settings: Settings) -> bool | None:
    """Whether the project root's plugin loads by the person's remembered answer: None when
    the root is no plugin's (False then) or the person was not asked yet."""
    from codebot.skills.catalog.plugins import has_manifest
    from codebot.trust.plugin_choice import plugin_choice

    if not has_manifest(settings.project_dir):
        return False
    return plugin_choice(settings.home, settings.project_dir)


def index_path(settings: Settings) -> Path:
    from codebot.skills.catalog.index import default_path

    return default_path(settings.home)


def open_catalog(settings: Settings, load: bool = True, prefetch: bool = False) -> Catalog:
    """The catalog of `settings`' skill folders (loaded unless `load=False`). `prefetch`:
    this process will rank the whole catalog soon (an interactive session warms the
    router; a task in print mode routes), so when no router index is saved for these
    folders, the catalog's scan hands its files to a helper process that tokenizes their
    bodies while this one parses them (skills/route/prefetch.py)."""
    roots = default_roots(
        cwd=settings.cwd,
        home=Path.home(),
        codebot_home=settings.home,
        extra_dirs=settings.skills_dirs,
        plugins=[p for p in plugins_for(settings) if p.loadable],
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
    if prefetch:
        from codebot.skills.route import router, warmup

        router.router_from_settings(
            settings, shared=True
        )  # build_session does it again: same router
        feed = warmup.prefetch_bodies(catalog.roots)
        if feed is not None:
            feed.attach(catalog)
    if load:
        catalog.load()
        if prefetch:  # a helper `warmup.prestart_for` started that the scan did not take
            from codebot.skills.route.index.prefetch import drop_spare

            drop_spare()
    return catalog
