"""A router that is ready before it is needed: what front ends call at start and on reload.

    from codebot.skills.route import warm, warm_in_background, update

    router_from_settings(settings, shared=True)   # once: config and the on-disk store
    warm_in_background(lambda: catalog.snapshot)  # at start, after the first paint
    ...
    update(catalog.snapshot)                      # in the catalog's on-reload callback

- `warm(snapshot_getter)` makes the shared router's index for the current snapshot: it
  maps the one saved under `$CODEBOT_HOME/cache/router` by an earlier process (patching
  in whatever changed since), or builds and saves it. It also computes the eligibility
  the model's routing needs, so the first request does not pay for it. Idempotent: a
  second call finds the index made.
- `warm_in_background(snapshot_getter)` runs `warm` in a daemon thread and returns it.
- `update(snapshot)` moves the shared router onto a reloaded snapshot: the rows of the
  skills that changed are tokenized and patched in; nothing else is read. Calling it is
  optional (the first request after a reload would do the same), but doing it in the
  reload callback keeps that work off the next turn.

All three are thread-safe: the router's index cache makes one index at a time, so a
request that arrives while `warm` runs waits for that index and never builds a second
one. None of them raises for a bad cache (it is rebuilt); a failure to save is kept in
`router.indexes.store.last_error`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from codebot.skills.files import Root
from codebot.skills.invoke import Actor, Adapter
from codebot.skills.route.pipeline import Router
from codebot.skills.route.router import default_router

if TYPE_CHECKING:
    from codebot.skills.catalog import Snapshot
    from codebot.skills.route.index.prefetch import ScanFeed

#: fewer skill files than this are tokenized in-process: their build takes well under a
#: second, less than starting a helper saves
PREFETCH_MIN = 1000
#: eligibility computed while warming: the model's (Skill tool, offline model) and SkillSearch's
WARM_ACTORS = (Actor.MODEL, Actor.EVAL)


def warm(
    snapshot_getter: Callable[[], Snapshot | None],
    router: Router | None = None,
    actors: Iterable[Actor] = WARM_ACTORS,
) -> None:
    """Load or build the index of `snapshot_getter()` (None: nothing to do) in `router`
    (default: the shared one), and what its first request would compute."""
    rt = router or default_router()
    snap = snapshot_getter()
    if snap is None:
        return
    idx, _ = rt.index(snap)
    for actor in actors:
        idx.eligibility(actor, {}, Adapter.EXTENSION)
    idx.folders()  # the second stage's folder-capped word statistics


def warm_in_background(
    snapshot_getter: Callable[[], Snapshot | None], router: Router | None = None
) -> threading.Thread:
    """`warm` in a daemon thread (started); join it to wait."""
    t = threading.Thread(
        target=warm, args=(snapshot_getter, router), name="codebot-router-warm", daemon=True
    )
    t.start()
    return t


def prefetch_bodies(roots: Sequence[Root], router: Router | None = None) -> ScanFeed | None:
    """For a process whose first request will rank the whole catalog of `roots`: unless an
    index for them is saved, the `ScanFeed` to attach to the catalog, which starts a helper
    process (see `prefetch`) once its scan has found `PREFETCH_MIN` files and hands it
    every file it finds, to tokenize their bodies; the index build then takes what it
    made. None: nothing to prepare."""
    from codebot.skills.route.index.prefetch import BodyPrefetch, ScanFeed
    from codebot.skills.route.index.store import header, slot

    rt = router or default_router()
    cache = rt.indexes
    if (
        cache.tokens.prefetch is not None
        or cache.current is not None
        or not BodyPrefetch.available(rt.config)
    ):
        return None
    head = header(rt.config)
    if cache.store is not None and cache.store.saved(slot(roots, head), head):
        return None

    def claim(pf: BodyPrefetch) -> bool:
        if cache.tokens.prefetch is not None or cache.current is not None:
            return False
        cache.tokens.prefetch = pf
        return True

    return ScanFeed(rt.config, PREFETCH_MIN, claim)


def prestart_for(prompt: str) -> bool:
    """For a print-mode process about to load its catalog: when `prompt` is a task (not a
    command, not small talk) and no router index at all is saved under `$CODEBOT_HOME`,
    start the body-tokenizing helper now (`prefetch.prestart`), so that its own start
    overlaps this process's imports; `prefetch_bodies` hands it the scan's files, and
    `open_catalog` ends it if nobody did. Whether one was started."""
    from codebot.home import codebot_home
    from codebot.skills.route.index.prefetch import prestart
    from codebot.skills.route.index.store import any_saved, default_folder
    from codebot.skills.route.shape import request_shape

    if prompt.lstrip().startswith("/") or request_shape(prompt) == "chat":
        return False
    if any_saved(default_folder(codebot_home())):
        return False  # maybe saved for this catalog: `prefetch_bodies` will know
    return prestart()


def update(snapshot: Snapshot | None, router: Router | None = None) -> None:
    """Move `router` (default: the shared one) onto a reloaded catalog snapshot."""
    if snapshot is not None:
        (router or default_router()).index(snapshot)
