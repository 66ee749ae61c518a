"""The watchfiles side of the skill watcher: one `watchfiles.watch` loop per thread (a
`Pump`), each putting `(kind, changes)` items on the watcher's queue.

`kind` says where an item comes from: a RECURSIVE or a PARENT pump, ERROR when a pump's
watch failed (the item carries the exception), WAKE when the watcher is being stopped.
"""

from __future__ import annotations

import queue
import threading

RECURSIVE, PARENT, ERROR, WAKE = "recursive", "parent", "error", "wake"


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


class Pump:
    """One ``watchfiles.watch`` loop in its own thread, feeding batches into a queue."""

    def __init__(
        self,
        kind: str,
        paths: tuple[str, ...],
        out: queue.Queue,
        debounce_ms: int,
        step_ms: int,
        force_polling: bool | None,
    ) -> None:
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
                watch_filter=None,  # filtered per root, on root-relative paths (see plan)
                debounce=self.debounce_ms,
                step=self.step_ms,
                stop_event=_ArmFlag(self.armed, self.stop_event),
                rust_timeout=0,
                recursive=self.kind == RECURSIVE,
                raise_interrupt=False,
                force_polling=self.force_polling,
                ignore_permission_denied=True,
            ):
                self.out.put((self.kind, {(int(c), p) for c, p in changes}))
        except BaseException as exc:
            if not self.stop_event.is_set():
                self.out.put((ERROR, exc))
        finally:
            self.armed.set()

    def stop(self) -> None:
        self.stop_event.set()

    def join(self, timeout: float) -> None:
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join(timeout)
