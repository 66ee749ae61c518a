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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from codebot.skills.catalog import Catalog, Change

log = logging.getLogger("codebot.watch")

OnReload = Callable[[Change], None]

_RECURSIVE, _PARENT, _ERROR, _WAKE = "recursive", "parent", "error", "wake"
_ADDED, _DELETED = 1, 3  # watchfiles.Change values


class _ArmFlag:
    """A stop event for watchfiles that also tells us when the watch is armed.

    Rust calls ``is_set()`` after every ``step``; the first call happens after
    ``RustNotify`` has registered every path, which is exactly "armed".
    """

    __slots__ = ("_armed", "_stop")

    def __init__(self, armed: threading.Event, stop: threading.Event) -> None:
        self._armed = armed
        self._stop = stop

    def is_set(self) -> bool:
        if not self._armed.is_set():
            self._armed.set()
        return self._stop.is_set()


class _Pump:
    """One ``watchfiles.watch`` loop in its own thread, feeding batches into a queue."""

    def __init__(self, kind: str, paths: tuple[str, ...], out: queue.Queue, debounce_ms: int,
                 step_ms: int, force_polling: bool | None) -> None:  # fmt: skip
        self.kind = kind
        self.paths = paths
        self.out = out
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.force_polling = force_polling
        self.armed = threading.Event()
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"codebot-watch-{kind}", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        import watchfiles

        try:
            for changes in watchfiles.watch(
                *self.paths,
                watch_filter=None,  # filtered per root, on root-relative paths (see _relevant)
                debounce=self.debounce_ms,
                step=self.step_ms,
                stop_event=_ArmFlag(self.armed, self.stop_event),
                rust_timeout=0,
                recursive=self.kind == _RECURSIVE,
                raise_interrupt=False,
                force_polling=self.force_polling,
                ignore_permission_denied=True,
            ):
                self.out.put((self.kind, {(int(c), p) for c, p in changes}))
        except BaseException as exc:
            if not self.stop_event.is_set():
                self.out.put((_ERROR, exc))
        finally:
            self.armed.set()

    def stop(self) -> None:
        self.stop_event.set()

    def join(self, timeout: float) -> None:
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join(timeout)


@dataclass(frozen=True)
class _Plan:
    """What to watch, and the state of every root when it was decided."""

    recursive: tuple[str, ...]  # resolved folders of existing roots (outermost only)
    parents: tuple[str, ...]  # watched non-recursively
    state: tuple[tuple[str, str, int, int], ...]  # (root, resolved or nearest ancestor, dev, ino)
    relevant: frozenset[str]  # paths whose appearance/disappearance in a parent means "re-arm"
    prefixes: tuple[tuple[str, Path], ...]  # (watched prefix, root path), longest first


def _is_dir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False


def _nearest_existing(path: Path) -> Path | None:
    for p in (path, *path.parents):
        if _is_dir(str(p)):
            return p
    return None


def _within(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip(os.sep) + os.sep)


def make_plan(roots: Iterable[Path]) -> _Plan:
    recursive: set[str] = set()
    parents: set[str] = set()
    state: list[tuple[str, str, int, int]] = []
    relevant: set[str] = set()
    prefixes: set[tuple[str, Path]] = set()
    for root in dict.fromkeys(Path(r) for r in roots):
        given = os.path.abspath(root)
        relevant.add(given)
        prefixes.add((given, root))
        if _is_dir(given):
            real = os.path.realpath(given)
            try:
                st = os.stat(real)
                ident = (st.st_dev, st.st_ino)
            except OSError:
                ident = (0, 0)
            state.append((given, real, *ident))
            recursive.add(real)
            relevant.add(real)
            prefixes.add((real, root))
            for p in (Path(given).parent, Path(real).parent):
                if str(p) != given and _is_dir(str(p)):
                    parents.add(str(p))  # where the root itself can vanish or be replaced
        else:
            # A missing root (or a link to a missing folder: then its target's way, too).
            ways = [Path(given)]
            if os.path.islink(given):
                ways.append(Path(os.path.realpath(given)))
            for way in ways:
                anchor = _nearest_existing(way.parent)
                state.append((given, "" if anchor is None else str(anchor), 0, 0))
                if anchor is None:
                    continue
                parents.add(str(anchor))
                relevant.add(str(way))
                # every folder between the watched ancestor and the root: its creation matters
                for p in way.parents:
                    if p == anchor:
                        break
                    relevant.add(str(p))
    outer = tuple(
        sorted(r for r in recursive if not any(o != r and _within(r, o) for o in recursive))
    )
    return _Plan(
        recursive=outer,
        parents=tuple(sorted(parents)),
        state=tuple(state),
        relevant=frozenset(relevant),
        prefixes=tuple(sorted(prefixes, key=lambda x: (-len(x[0]), x[0]))),
    )


@dataclass
class _Batch:
    """Relevant changes gathered from one or more pump batches."""

    paths: set[Path] = field(default_factory=set)
    rearm: bool = False  # a root appeared, vanished or was replaced
    whole: bool = False  # a root itself was touched: full reload
    error: BaseException | None = None

    def __bool__(self) -> bool:
        return bool(self.paths or self.rearm or self.whole or self.error is not None)

    def merge(self, other: _Batch) -> None:
        self.paths |= other.paths
        self.rearm |= other.rearm
        self.whole |= other.whole
        self.error = self.error or other.error


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
    ) -> None:
        import watchfiles

        self.catalog = catalog
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
        self._known: tuple[object, frozenset[str]] | None = None
        self.max_coalesce_ms = max_coalesce_ms
        self.full_reload_over = full_reload_over
        self.check_interval_ms = check_interval_ms
        self.force_polling = force_polling
        self._filter = watchfiles.DefaultFilter()
        self.ready = threading.Event()
        self._stop = threading.Event()
        self._queue: queue.Queue = queue.Queue()
        self._pumps: list[_Pump] = []
        self._thread: threading.Thread | None = None
        self._deliver: Callable[[Change], None] = self._call_on_reload
        self._lock = threading.Lock()
        self.plan: _Plan | None = None
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
        waiter = threading.Thread(target=lambda: (thread.join(), _safe_call_soon(loop, finished)),
                                  name="codebot-watch-join", daemon=True)  # fmt: skip
        waiter.start()
        try:
            await done
        finally:
            self.stop(timeout=0)  # never block the event loop; the thread ends within a step

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching (idempotent). Waits up to ``timeout`` seconds for the thread."""
        self._stop.set()
        self._queue.put((_WAKE, None))
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
                self._pumps.append(_Pump(_RECURSIVE, plan.recursive, self._queue, self.debounce_ms,
                                         self.step_ms, self.force_polling))  # fmt: skip
            if plan.parents:
                self._pumps.append(_Pump(_PARENT, plan.parents, self._queue, self.debounce_ms,
                                         self.step_ms, self.force_polling))  # fmt: skip
            for pump in self._pumps:
                pump.start()
            deadline = time.monotonic() + 10
            for pump in self._pumps:
                while not pump.armed.wait(0.05):
                    if self._stop.is_set() or time.monotonic() > deadline:
                        return "stopped" if self._stop.is_set() else "watch did not start in 10 s"
            errors = [exc for kind, exc in _drain(self._queue) if kind == _ERROR]
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
            # Anything that changed before the watches were armed: catch up now.
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
            try:
                first = q.get(timeout=check / 4 if self._retry else check)
            except queue.Empty:
                if make_plan(r.path for r in self.catalog.roots) != self.plan:
                    log.debug("skill roots changed (periodic check); re-arming")
                    return
                if self._retry:
                    self._reload(None)  # the paths of a failed reload are lost: look everywhere
                continue
            batch = self._classify(first)
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

    def _coalesce(self, q: queue.Queue, batch: _Batch) -> None:
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
            more = self._classify(item)
            if more:
                batch.merge(more)
                last = time.monotonic()

    def _classify(self, item: tuple) -> _Batch:
        """Map one pump batch onto root paths, keeping only what can change the catalog."""
        kind, changes = item
        batch = _Batch()
        if kind == _ERROR:
            batch.error = changes
            return batch
        plan = self.plan
        if kind not in (_RECURSIVE, _PARENT) or plan is None:
            return batch
        for change, raw in changes:
            if kind == _PARENT:
                # only a root itself, or a folder on the way to a missing one, counts
                if raw in plan.relevant:
                    batch.rearm = True
                continue
            for prefix, root in plan.prefixes:
                if not _within(raw, prefix):
                    continue
                rel = raw[len(prefix) :].lstrip(os.sep)
                if not rel:
                    batch.whole = True
                    if change in (_ADDED, _DELETED):
                        batch.rearm = True  # the watch on a deleted root is dead: re-arm
                    continue
                if not self._filter(change, rel):
                    continue  # .git, node_modules, editor swap files, ...
                path = root / rel
                if self._matters(change, raw, path):
                    batch.paths.add(path)
        return batch

    def _matters(self, change: int, raw: str, path: Path) -> bool:
        """Could this change add, remove or alter a skill or a diagnostic?

        Markdown files and folders can; so can a link (a dangling one is a diagnostic).
        Any other file cannot, unless it is gone and the catalog knew something at or
        below that path (a folder with a dotted name moved away).
        """
        if raw.lower().endswith(".md"):
            return True
        if change != _DELETED:
            return os.path.isdir(raw) or os.path.islink(raw)
        return str(path) in self._known_paths()

    def _known_paths(self) -> frozenset[str]:
        """Every skill file, diagnosed path and their folders, for the current snapshot."""
        snap = self.catalog.snapshot
        if self._known is not None and self._known[0] is snap:
            return self._known[1]
        known: set[str] = set()
        files = [s.path for s in snap] + [sh.spec.path for sh in snap.shadowed]
        files += [Path(d.path) for d in snap.diagnostics]
        for f in files:
            known.add(str(f))
            for parent in f.parents:
                key = str(parent)
                if key in known:
                    break
                known.add(key)
        frozen = frozenset(known)
        self._known = (snap, frozen)
        return frozen

    def _reload(self, paths: list[Path] | None) -> None:
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
