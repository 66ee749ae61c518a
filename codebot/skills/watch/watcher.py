"""Hot reload: watch every skill root with watchfiles and keep the catalog current.

    watcher = SkillWatcher(catalog, on_reload=lambda change: ...)
    watcher.start()           # a daemon thread; watcher.ready is set once the watches are armed
    ...
    watcher.stop()

or, inside an asyncio program (a Textual worker), ``await watcher.arun()``: the same
machinery in a thread, with ``on_reload`` called on the event loop; cancelling the task
stops the watcher.

How it works (DESIGN §5, §9):

* Each *existing* root is watched recursively through its resolved path (a symlinked root
  is watched where it really is; the paths watchfiles reports are mapped back to the
  root's own path before they reach ``Catalog.reload(paths=...)``).
* Each root's parent, and for a root that does not exist yet its nearest existing
  ancestor, is watched *non-recursively* (watching ``~`` recursively because
  ``~/.agents/skills`` is missing would be absurd). Only events about a root itself or a
  folder on the way to a missing root count there; everything else in those folders is
  ignored.
* watchfiles raises FileNotFoundError for a missing path and goes silent on a watched
  folder that is deleted and recreated, so whenever a root (or a folder on the way to
  it) appears or disappears, the whole watch set is re-armed and the catalog fully
  reloaded. A cheap periodic check (a few ``stat`` calls) re-arms as well if anything
  slipped through.
* watchfiles is given a small ``debounce``/``step`` (its defaults, 1,600/50 ms, are far
  too slow); batches that arrive close together are merged here, waiting longer once a
  batch looks like a burst (a git checkout), so one edit reloads in tens of
  milliseconds while 300 new skills become one or two reloads. A batch is one
  ``catalog.reload(paths=...)``; a batch of more than ``full_reload_over`` paths, or one
  that touches a root itself, is a full ``catalog.reload()``.
* ``watchfiles.DefaultFilter`` (.git, node_modules, swap files, ...) is applied to the
  path *inside* the root, so a root that itself lives under, say, ``.venv`` still works.
  Changes that cannot alter the catalog -- a non-Markdown file written or modified, a
  file removed that no skill or diagnostic lived at or below -- are dropped before
  they can start (or prolong) a reload: a script writing its log beside a skill costs
  nothing.
* Nothing that happens in the watcher thread may stop the program: exceptions are
  logged to the ``codebot.watch`` logger and watching goes on; a reload that raised is
  followed by a full one; when the OS refuses more watches (the inotify limit), the
  watcher falls back to polling.

What to watch and which changes matter is decided in `plan`; the watchfiles threads
are in `pump`. This module runs the loop: arm, serve batches, reload, re-arm.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

from codebot.skills.catalog import Catalog, Change
from codebot.skills.watch.plan import Batch, EventFilter, Plan, make_plan
from codebot.skills.watch.pump import ERROR, PARENT, RECURSIVE, WAKE, Pump

log = logging.getLogger("codebot.watch")

OnReload = Callable[[Change], None]


class SkillWatcher:
    """Watch ``catalog.roots`` and reload the catalog when skill files change.

    ``on_reload(change)`` is called after every reload whose ``Change`` is not empty or
    whose diagnostics differ from before (a skill edited into broken YAML shows up as
    ``removed`` plus a diagnostic). With ``start()``/``run_in_thread()`` it is called on
    the watcher thread; with ``arun()`` on the event loop.

    ``ready`` is set once the watches are armed and the catalog has been brought up to
    date (a full ``reload()``, so nothing written before arming is missed; a catalog
    that was never loaded is loaded then, and that first callback reports every skill
    as added). It is also set when the watcher stops, so nobody waits on it forever.

    ``catch_up_after`` (seconds, default 0) sets ``ready`` as soon as the watches are armed
    and makes that catch-up reload that much later (sooner if a change needs a full reload
    anyway): a front end that has just loaded the catalog uses it so the rescan of a big
    catalog does not compete with the person's first request. Nothing is missed: what
    changes after arming arrives as events, what changed before is found by the catch-up.
    """

    def __init__(
        self,
        catalog: Catalog,
        on_reload: OnReload | None = None,
        debounce_ms: int = 50,
        step_ms: int = 10,
        *,
        burst_paths: int = 8,
        burst_settle_ms: int | None = None,
        burst_window_ms: int = 500,
        max_coalesce_ms: int = 2000,
        full_reload_over: int = 200,
        check_interval_ms: int = 1000,
        force_polling: bool | None = None,
        catch_up_after: float = 0.0,
    ) -> None:
        self.catalog = catalog
        self.catch_up_after = max(0.0, float(catch_up_after))
        self._catch_up_at: float | None = None
        self.on_reload = on_reload
        self.debounce_ms = max(1, int(debounce_ms))
        self.step_ms = max(1, int(step_ms))
        self.burst_paths = burst_paths
        # After a small batch, wait two steps for more. In a burst (see _coalesce) wait long
        # enough to catch the next debounce-capped batch from watchfiles.
        self.settle_ms = 2 * self.step_ms
        self.burst_settle_ms = (
            burst_settle_ms if burst_settle_ms is not None else max(150, 2 * self.debounce_ms)
        )
        self.burst_window_ms = burst_window_ms
        self._last_reload = float("-inf")
        self._last_paths = 0
        self._retry = False  # a reload failed: do a full one soon
        self.max_coalesce_ms = max_coalesce_ms
        self.full_reload_over = full_reload_over
        self.check_interval_ms = check_interval_ms
        self.force_polling = force_polling
        self._events = EventFilter(catalog)  # imports watchfiles: fails early without it
        self.ready = threading.Event()
        self._stop = threading.Event()
        self._queue: queue.Queue = queue.Queue()
        self._pumps: list[Pump] = []
        self._thread: threading.Thread | None = None
        self._deliver: Callable[[Change], None] = self._call_on_reload
        self._lock = threading.Lock()
        self.plan: Plan | None = None
        # counters, for tests, benchmarks and `skills watch`
        self.reloads = 0  # catalog.reload calls made by the watcher
        self.full_reloads = 0
        self.arms = 0
        self.errors = 0

    # -- public API ----------------------------------------------------------------------

    def start(self) -> SkillWatcher:
        """Run the watcher in a background daemon thread; returns self."""
        self.run_in_thread()
        return self

    def run_in_thread(self) -> threading.Thread:
        with self._lock:
            if self._thread is not None:
                raise RuntimeError("SkillWatcher already started")
            self._thread = threading.Thread(target=self.run, name="codebot-watch", daemon=True)
            self._thread.start()
            return self._thread

    async def arun(self) -> None:
        """Watch until cancelled (or ``stop()``); ``on_reload`` runs on this event loop."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def deliver(change: Change) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(self._call_on_reload, change)

        def finished() -> None:
            if not done.done():
                done.set_result(None)

        self._deliver = deliver
        thread = self.run_in_thread()
        waiter = threading.Thread(
            target=lambda: (thread.join(), _safe_call_soon(loop, finished)),
            name="codebot-watch-join",
            daemon=True,
        )
        waiter.start()
        try:
            await done
        finally:
            self.stop(timeout=0)  # never block the event loop; the thread ends within a step

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching (idempotent). Waits up to ``timeout`` seconds for the thread."""
        self._stop.set()
        self._queue.put((WAKE, None))
        for pump in list(self._pumps):
            pump.stop()
        t = self._thread
        if timeout and t is not None and t.is_alive() and t is not threading.current_thread():
            t.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> SkillWatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the loop --------------------------------------------------------------------------

    def run(self) -> None:
        """Watch until ``stop()``: arm, serve batches, re-arm when roots appear or vanish."""
        failures = 0
        while not self._stop.is_set():
            try:
                failed = self._arm()
                if failed and self._stop.is_set():
                    break
                if failed:
                    failures += 1
                    if failures == 3 and self.force_polling is None:
                        # e.g. the inotify watch limit: polling is slower but still works
                        log.warning(
                            "cannot watch skill folders (%s); falling back to polling", failed
                        )
                        self.force_polling = True
                    delay = min(5.0, 0.05 * 2 ** min(failures, 7))
                    level = (
                        logging.WARNING
                        if failures in (1, 5) or failures % 50 == 0
                        else logging.DEBUG
                    )
                    log.log(
                        level, "cannot watch skill folders (%s); retrying in %.2fs", failed, delay
                    )
                    self._disarm()
                    self._stop.wait(delay)
                    continue
                failures = 0
                self._serve()
            except Exception:
                self.errors += 1
                log.exception("skill watcher error; re-arming")
                self._stop.wait(0.2)
            finally:
                self._disarm()
        self.ready.set()  # nobody may wait forever on a watcher that stopped

    def _arm(self) -> str | None:
        """Start the pumps for the current plan; returns a reason when that failed."""
        for _ in range(5):
            plan = make_plan(r.path for r in self.catalog.roots)
            self._queue = queue.Queue()
            self._pumps = []
            if plan.recursive:
                self._pumps.append(
                    Pump(
                        RECURSIVE,
                        plan.recursive,
                        self._queue,
                        self.debounce_ms,
                        self.step_ms,
                        self.force_polling,
                    )
                )
            if plan.parents:
                self._pumps.append(
                    Pump(
                        PARENT,
                        plan.parents,
                        self._queue,
                        self.debounce_ms,
                        self.step_ms,
                        self.force_polling,
                    )
                )
            for pump in self._pumps:
                pump.start()
            deadline = time.monotonic() + 10
            for pump in self._pumps:
                while not pump.armed.wait(0.05):
                    if self._stop.is_set() or time.monotonic() > deadline:
                        return "stopped" if self._stop.is_set() else "watch did not start in 10 s"
            errors = [exc for kind, exc in _drain(self._queue) if kind == ERROR]
            if errors:
                if all(isinstance(e, FileNotFoundError) for e in errors):
                    self._disarm()
                    continue  # a folder vanished between planning and arming: plan again
                return f"{type(errors[0]).__name__}: {errors[0]}"
            if make_plan(r.path for r in self.catalog.roots) != plan:
                self._disarm()
                continue  # something appeared or vanished while arming
            self.plan = plan
            self.arms += 1
            # Anything that changed before the watches were armed: catch up (now, or soon).
            if self.catch_up_after > 0:
                self._catch_up_at = time.monotonic() + self.catch_up_after
            else:
                self._reload(None)
            self.ready.set()
            return None
        return "skill folders keep changing while arming"

    def _disarm(self) -> None:
        pumps, self._pumps = self._pumps, []
        for pump in pumps:
            pump.stop()
        for pump in pumps:
            pump.join(2.0)

    def _serve(self) -> None:
        """Handle batches until a re-arm is needed or the watcher stops."""
        q = self._queue
        check = self.check_interval_ms / 1000
        while not self._stop.is_set():
            wait = check / 4 if self._retry else check
            if self._catch_up_at is not None:
                due = self._catch_up_at - time.monotonic()
                if due <= 0:
                    self._reload(None)  # clears _catch_up_at
                    continue
                wait = min(wait, due)
            try:
                first = q.get(timeout=wait)
            except queue.Empty:
                if make_plan(r.path for r in self.catalog.roots) != self.plan:
                    log.debug("skill roots changed (periodic check); re-arming")
                    return
                if self._retry:
                    self._reload(None)  # the paths of a failed reload are lost: look everywhere
                continue
            batch = self._events.classify(first, self.plan)
            if not batch:
                continue  # nothing that can change the catalog (a log file, a .py, a parent's file)
            self._coalesce(q, batch)
            if self._stop.is_set():
                return
            if batch.error is not None:
                exc = batch.error
                log.warning("skill watch stopped (%s: %s); re-arming", type(exc).__name__, exc)
                self._stop.wait(0.1)
                return
            if batch.rearm:
                log.debug("a skill root appeared or vanished; re-arming")
                return  # _arm() reloads everything once the new watches are in place
            if batch.whole or self._retry or len(batch.paths) > self.full_reload_over:
                self._reload(None)
            else:
                self._reload(sorted(batch.paths))
            self._last_paths = len(batch.paths)

    def _coalesce(self, q: queue.Queue, batch: Batch) -> None:
        """Merge the batches that follow closely; only relevant ones keep the wait going."""
        now = time.monotonic()
        deadline = now + self.max_coalesce_ms / 1000
        following = (now - self._last_reload) * 1000 < self.burst_window_ms
        last = now
        while not self._stop.is_set() and batch.error is None and not batch.rearm:
            n = len(batch.paths)
            # A burst: a big batch, or several paths close behind a reload of several (a
            # checkout on a busy machine arrives in dribs). Single edits are never one.
            burst = n >= self.burst_paths or (following and max(n, self._last_paths) >= 2)
            settle = (self.burst_settle_ms if burst else self.settle_ms) / 1000
            wait = min(last + settle, deadline) - time.monotonic()
            if wait <= 0:
                return
            try:
                item = q.get(timeout=wait)
            except queue.Empty:
                return
            more = self._events.classify(item, self.plan)
            if more:
                batch.merge(more)
                last = time.monotonic()

    def _reload(self, paths: list[Path] | None) -> None:
        if paths is None:
            self._catch_up_at = None  # a full reload is the catch-up (a failed one is retried)
        before = self.catalog.snapshot
        try:
            change = self.catalog.reload(paths=paths)
        except Exception:
            self.errors += 1
            self._retry = True
            log.exception("skill catalog reload failed")
            return
        self._retry = self._retry and paths is not None  # a full reload settles everything
        self.reloads += 1
        self._last_reload = time.monotonic()
        if paths is None:
            self.full_reloads += 1
        after = self.catalog.snapshot
        if change or before.diagnostics != after.diagnostics:
            self._deliver(change)

    def _call_on_reload(self, change: Change) -> None:
        if self.on_reload is None:
            return
        try:
            self.on_reload(change)
        except Exception:
            self.errors += 1
            log.exception("skill reload callback failed")


def _drain(q: queue.Queue) -> list[tuple]:
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


def _safe_call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[[], None]) -> None:
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(fn)
