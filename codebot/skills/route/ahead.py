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
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

#: start calls on the worker (False: every call runs on the caller's thread at `result()`;
#: tests and benches compare the two ways, it is not a setting)
OVERLAP = True


class _Worker:
    """A daemon thread that runs queued calls one at a time."""

    def __init__(self, name: str) -> None:
        self._queue: list[Callable[[], None]] = []
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
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


#: each lane's thread name (lane 0 kept its name from before there were lanes)
LANES = ("codebot-route-ahead", "codebot-route-ahead-1")
_workers: dict[int, _Worker] = {}
_worker_lock = threading.Lock()


def _the_worker(lane: int = 0) -> _Worker:
    with _worker_lock:
        got = _workers.get(lane)
        if got is None or not got._thread.is_alive():
            got = _workers[lane] = _Worker(LANES[lane])
        return got


class Ahead(Generic[T]):
    """`fn()` started on lane `lane`'s worker thread (with `OVERLAP`); `result()` is its
    value or raises what it raised, like calling `fn()` where `result()` is called."""

    def __init__(self, fn: Callable[[], T], lane: int = 0) -> None:
        self._fn = fn
        self._done = threading.Event()
        self._value: list[T] = []  # the value, once made
        self._error: BaseException | None = None
        self._worker = _the_worker(lane) if OVERLAP else None
        if self._worker is not None:
            self._worker.put(self._run)

    def _run(self) -> None:
        try:
            self._value.append(self._fn())
        except BaseException as exc:  # handed to the caller of result(), raised there
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> T:
        if self._worker is None or self._worker.take_back(self._run):
            self._run()  # not started (or no worker): run here, now
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value[0]
