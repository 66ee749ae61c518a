"""One call started ahead on a worker thread while the caller does other work (issue 36).

A request in another language, with the multilingual encoder, is read twice by it: its
pieces (`translate`, for the lexical ranking) and the whole request (`semantic.score`,
the encoder's own ranking, which then reads every skill's vectors). The two do not need
each other, so the second starts on a worker thread before the first, and the route
takes its result when it ranks. numpy lets go of the interpreter in the products that are
most of both, so on two cores they overlap: a first Chinese request at 10,000 skills went
from 13-16 ms to 9-10 ms (docs/routing.md, "Measurements").

`result()` never waits for a worker that has not started the call: it takes the call
back and runs it on the caller's thread, so a busy machine costs at most what running it
in line did. One worker for the process, made on first use; its thread is a daemon
(an idle worker never holds up the exit).

A call may also ask for help with part of its work (`Help`: half of the product with
every skill's vectors, `product.product`). Only a caller already waiting in `result()`
takes it up, so the part is done by a thread that would otherwise sit idle, never by a
third thread beside two busy ones: a second worker for it made first requests slower
(their pieces, embedded on the route's thread, lost a core to it; p95 8.0-8.8 ms ->
9.2-10.0 ms on the first held-out set). A part nobody took up is done by its asker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

#: start calls on the worker (False: every call runs on the caller's thread at `result()`;
#: tests and benches compare the two ways, it is not a setting)
OVERLAP = True


#: parts of calls that want help, and the condition `result()` waits on: a call being
#: done, or a part asked for
_help: list[Callable[[], None]] = []
_help_ready = threading.Condition()


class _Worker:
    """A daemon thread that runs queued calls one at a time."""

    def __init__(self) -> None:
        self._queue: list[Callable[[], None]] = []
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="codebot-route-ahead", daemon=True)
        self._thread.start()

    def put(self, job: Callable[[], None]) -> None:
        with self._ready:
            self._queue.append(job)
            self._ready.notify()

    def take_back(self, job: Callable[[], None]) -> bool:
        """True when `job` was still queued (now it is not): the caller runs it."""
        with self._ready:
            if job in self._queue:
                self._queue.remove(job)
                return True
            return False

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
                job = self._queue.pop(0)
            job()


_worker: _Worker | None = None
_worker_lock = threading.Lock()


def _the_worker() -> _Worker:
    global _worker
    with _worker_lock:
        if _worker is None or not _worker._thread.is_alive():
            _worker = _Worker()
        return _worker


class _Call(Generic[T]):
    """`fn()`, run once by whichever thread gets to it; `_outcome()` is its value or raises
    what it raised, like calling `fn()` there."""

    def __init__(self, fn: Callable[[], T]) -> None:
        self._fn = fn
        self._done = threading.Event()
        self._value: list[T] = []  # the value, once made
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            self._value.append(self._fn())
        except BaseException as exc:  # handed to the caller of result(), raised there
            self._error = exc
        finally:
            with _help_ready:  # wakes a caller waiting in `Ahead.result()`
                self._done.set()
                _help_ready.notify_all()

    def _outcome(self) -> T:
        if self._error is not None:
            raise self._error
        return self._value[0]


class Ahead(_Call[T]):
    """`fn()` started on the worker thread (with `OVERLAP`); `result()` is its value or
    raises what it raised, like calling `fn()` where `result()` is called."""

    def __init__(self, fn: Callable[[], T]) -> None:
        super().__init__(fn)
        self._worker = _the_worker() if OVERLAP else None
        if self._worker is not None:
            self._worker.put(self._run)

    def result(self) -> T:
        if self._worker is None or self._worker.take_back(self._run):
            self._run()  # not started (or no worker): run here, now
        with _help_ready:  # while the worker runs it, do the parts it asks help with
            while not self._done.is_set():
                if _help:
                    part = _help.pop(0)
                    _help_ready.release()
                    try:
                        part()
                    finally:
                        _help_ready.acquire()
                else:
                    _help_ready.wait()
        return self._outcome()


class Help(_Call[T]):
    """`fn()`, offered to a caller waiting in `Ahead.result()`; `result()` is its value
    (or raises what it raised), computed here when nobody took it up."""

    def __init__(self, fn: Callable[[], T]) -> None:
        super().__init__(fn)
        if OVERLAP:
            with _help_ready:
                _help.append(self._run)
                _help_ready.notify_all()

    def result(self) -> T:
        with _help_ready:
            mine = self._run in _help
            if mine:
                _help.remove(self._run)
        if mine or not OVERLAP:
            self._run()  # nobody took it up: do it here
        self._done.wait()
        return self._outcome()
