"""The shared router and the module-level API built on it: `route`, `search` (the
`SkillSearch` tool), `offline_matcher` (the offline model), `preselect` (per-turn
preselection) and `router_from_settings` (a router set from config, with the optional
semantic scorer and a store for its index under `$CODEBOT_HOME/cache/router`).

One router per process, so its index and token caches survive between calls; the
`Router` itself, and how it routes a request, is in `pipeline`. Like it, this module
never imports `eval` and is cheap to import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from codebot.skills.files import Spec
from codebot.skills.invoke import Actor, Adapter
from codebot.skills.route.config import RouterConfig, config_from_settings
from codebot.skills.route.pipeline import Router
from codebot.skills.route.result import Route, SemanticScorer

if TYPE_CHECKING:  # the store loads when a router is given one
    from codebot.skills.catalog import Snapshot
    from codebot.skills.route.index.store import IndexStore

_DEFAULT: Router | None = None
_DEFAULT_LOCK = threading.Lock()


def default_router(
    config: RouterConfig | None = None,
    semantic: SemanticScorer | None = None,
    store: IndexStore | None = None,
) -> Router:
    """The shared router; `config` / `semantic` / `store`, when given, replace its settings."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Router(config)
        elif config is not None:
            _DEFAULT.config = config
        if semantic is not None:
            _DEFAULT.semantic = semantic
        if store is not None:
            _DEFAULT.indexes.store = store
        return _DEFAULT


def router_from_settings(
    settings: object, warnings: list[str] | None = None, shared: bool = False
) -> Router:
    """A router with `skills.router` from config, including the optional semantic scorer
    (`skills.router.semantic`: loaded on first use, its vectors cached under CODEBOT_HOME)
    and a store for its index in `<home>/cache/router` (see `store`).
    `shared`: configure and return the process-wide router instead of a new one."""
    from pathlib import Path

    from codebot.skills.route.index.store import IndexStore, default_folder
    from codebot.skills.route.semantic import scorer_from_config

    cfg = config_from_settings(settings, warnings)
    home = getattr(settings, "home", None)
    scorer = scorer_from_config(
        cfg.semantic,
        Path(home) / "cache" if home else None,
        warnings,
    )
    store = IndexStore(default_folder(Path(home))) if home else None
    return (
        default_router(cfg, scorer, store) if shared else Router(cfg, semantic=scorer, store=store)
    )


def route(
    request: str,
    specs: Snapshot | Sequence[Spec],
    actor: Actor = Actor.MODEL,
    overrides: Mapping[str, str] | None = None,
    adapter: Adapter = Adapter.EXTENSION,
    top: int | None = None,
    active: Collection[str] | None = None,
    restrict: Collection[str] | None = None,
    config: RouterConfig | None = None,
) -> Route:
    """Route with the shared router (its index cache survives between calls)."""
    return default_router().route(
        request, specs, actor, overrides, adapter, top, active, restrict, config
    )


def search(query: str, specs: Sequence[Spec], limit: int = 5) -> list[Spec]:
    """SkillSearch: the best `limit` matches among `specs` (already filtered for the model).

    Ranks without the select/ask/abstain decision (the model reads the cards and decides),
    but drops skills that scored nothing or only matched words they rule out.
    """
    if not specs or limit <= 0:
        return []
    r = default_router().route(query, list(specs), Actor.EVAL, top=limit)
    return [c.spec for c in r.candidates if c.raw > 0 or (c.semantic or 0.0) > 0][:limit]


def offline_matcher(
    snapshot_getter: Callable[[], Snapshot | None],
) -> Callable[[str, Sequence[tuple[str, str]]], str | None]:
    """A `Matcher` for the offline model: route among the listed names; act only on `select`.

    `snapshot_getter()` returns the current catalog snapshot (or None). The index is the
    snapshot's (cached); skills that are not listed are filtered out, not re-indexed.
    """

    def match(request: str, listed: Sequence[tuple[str, str]]) -> str | None:
        snap = snapshot_getter()
        if snap is None or not listed:
            return None
        from codebot.skills.files import normalize_name

        wanted = {normalize_name(n) for n, _ in listed}
        r = default_router().route(request, snap, Actor.MODEL, restrict=wanted)
        return r.selected.name if r.decision == "select" and r.selected is not None else None

    return match


def preselect(
    request: str, specs: Sequence[Spec], k: int, recent: Collection[str] = ()
) -> list[Spec]:
    """`skills.preselect: K`: the top-K routed skills plus recently used ones, in input order."""
    if k <= 0 or len(specs) <= k:
        return list(specs)
    from codebot.skills.files import normalize_name

    r = default_router().route(request, list(specs), Actor.EVAL, top=k)
    keep = {id(c.spec) for c in r.candidates[:k]}
    recent_keys = {normalize_name(n) for n in recent}
    return [s for s in specs if id(s) in keep or s.key in recent_keys]
