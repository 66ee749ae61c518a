"""`EventPump`: the queue between the session (any thread) and the screen (the app's loop).

The session emits typed events from wherever it runs; the pump queues them and draws them
one at a time, in order, on the app's loop. Text deltas that piled up while the last ones
were drawn are drawn as one.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable

from codebot.agent.session import events as ev

Render = Callable[[object], Awaitable[None]]


class EventPump:
    """Events are session events, approval requests and the app's own markers: `render(event)`
    draws one, `failed(event, exc)` reports a drawing error (the pump goes on), and
    `call_from_thread(fn, arg)` runs `fn(arg)` on the app's loop."""

    def __init__(
        self,
        render: Render,
        failed: Callable[[object, Exception], None],
        call_from_thread: Callable[..., object],
    ) -> None:
        self._render = render
        self._failed = failed
        self._call_from_thread = call_from_thread
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._ui_thread = threading.get_ident()

    def start(self) -> None:
        """Call on the app's loop before `run`: the queue belongs to that loop and thread."""
        self._ui_thread = threading.get_ident()
        self._queue = asyncio.Queue()

    def on_ui_thread(self) -> bool:
        return threading.get_ident() == self._ui_thread

    def put(self, event: object) -> None:
        """Queue an event to draw (from any thread)."""
        if self.on_ui_thread():
            self._queue.put_nowait(event)
        else:
            self._call_from_thread(self._queue.put_nowait, event)

    async def run(self) -> None:
        """Draw events as they come, forever (the app runs this as a worker)."""
        pending: object | None = None
        while True:
            event, pending = (
                (pending, None) if pending is not None else (await self._queue.get(), None)
            )
            if isinstance(event, ev.TextDelta):
                # Deltas that queued up while the last ones were drawn are drawn as one: a
                # fast stream then costs a few renders a second, and keys stay responsive.
                event, pending = self._coalesce(event)
            try:
                await self._render(event)
            except Exception as exc:  # a display problem must not end the session
                self._failed(event, exc)
            finally:
                self._queue.task_done()

    def _coalesce(self, first: ev.TextDelta) -> tuple[ev.TextDelta, object | None]:
        texts: list[str] = [first.text]
        pending: object | None = None
        while not self._queue.empty():
            nxt = self._queue.get_nowait()
            if not (isinstance(nxt, ev.TextDelta) and nxt.depth == first.depth):
                pending = nxt  # drawn next; its task_done comes then
                break
            texts.append(nxt.text)
            self._queue.task_done()
        return (ev.TextDelta("".join(texts), first.depth) if len(texts) > 1 else first), pending

    async def join(self) -> None:
        """Wait until everything queued so far is on screen."""
        await self._queue.join()
