"""`TurnRunner`: running turns in the TUI. Start, progress, cancel, quit, and messages
queued meanwhile.

A turn is `controller.run_turn` in a worker; while it runs the status bar shows a spinner,
the seconds elapsed and the tokens streamed so far, and a tool that is running shows its
seconds and its latest output (`Conversation.tick`). Esc or Ctrl+C cancels it at once: the
worker is cancelled and text deltas already queued for the screen are dropped, so the
answer stops growing within a frame even when rendering lags behind a fast stream. Text
sent while a turn runs waits in a queue, shown above the prompt, and is sent when the turn
ends; cancelling the turn puts it back in the prompt instead.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.message import Message
from textual.timer import Timer
from textual.worker import Worker

from codebot.agent.model import Usage
from codebot.agent.session import events as ev
from codebot.ui.tui.conversation import Conversation
from codebot.ui.tui.prompt import PromptArea
from codebot.ui.tui.queued import QueuedBar
from codebot.ui.tui.status import UpdateStatus
from codebot.units import CHARS_PER_TOKEN

if TYPE_CHECKING:  # the controller's imports load after the first paint
    from codebot.ui.controller import Controller

log = logging.getLogger("codebot.tui")
QUIT_WINDOW = 3.0  # seconds within which a second Ctrl+C on an idle prompt quits
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_S = 0.1


class TurnDone:
    """Queued after a turn's last event, so `busy` clears once everything is on screen."""


def progress_text(
    elapsed: float, tokens: int, frame: int, queued: int = 0, what: str = "working"
) -> str:
    """`⠹ working 3.4s · ↓ 120 tokens · Esc cancels` (and how many messages wait)."""
    parts = [f"{SPINNER[frame % len(SPINNER)]} {what} {elapsed:.1f}s"]
    if tokens:
        parts.append(f"↓ {tokens:,} tokens")
    if queued:
        parts.append(f"{queued} queued")
    parts.append("Esc cancels")
    return " · ".join(parts)


class TurnRunner:
    """`app` runs the turn's worker and ticker, shows toasts and quits; `emit` queues an
    event for the screen; `submit` sends a queued message; `wait_warm` waits for the model
    library before a turn."""

    def __init__(
        self,
        app: App[Any],
        conversation: Conversation,
        prompt: PromptArea,
        queued: QueuedBar,
        *,
        controller: Callable[[], Controller],
        emit: Callable[[object], None],
        update_status: UpdateStatus,
        submit: Callable[[str], Awaitable[None]],
        wait_warm: Callable[[], Awaitable[None]],
    ) -> None:
        self._app = app
        self._conversation = conversation
        self._prompt = prompt
        self._queued_bar = queued
        self._controller = controller
        self._emit = emit
        self._update_status = update_status
        self._submit = submit
        self._wait_warm = wait_warm
        self.busy = False
        #: Cancelled: the deltas still waiting to be drawn are dropped.
        self.dropping = False
        #: The clock of the elapsed time and the spinner (snapshot tests stop it).
        self.clock: Callable[[], float] = time.monotonic
        self.worker: Worker[None] | None = None
        self._queued: list[str] = []
        self._started = 0.0
        self._streamed_chars = 0
        self._began = False
        self._compacting = False
        self._ticker: Timer | None = None
        self._quit_armed_at = -QUIT_WINDOW

    # -- starting -----------------------------------------------------------------------

    def start(self, text: str, compact: bool = False) -> None:
        self.busy = True
        self._quit_armed_at = -QUIT_WINDOW
        self._started, self._streamed_chars, self.dropping = self.clock(), 0, False
        self._began = False
        self._compacting = compact
        if self._ticker is None:
            self._ticker = self._app.set_interval(TICK_S, self._tick)
        self._update_status()
        # a partial, not a coroutine: the worker makes the coroutine when it starts, so a quit
        # before then leaves no coroutine that was never awaited
        self.worker = self._app.run_worker(
            functools.partial(self._run, text, compact),
            name="turn",
            group="turn",
            exit_on_error=False,
        )

    async def _run(self, text: str, compact: bool = False) -> None:
        self._began = True
        try:
            await self._wait_warm()
            if compact:
                said = await self._controller().compact(text)
                if said:  # through the event queue: after the session's own notices
                    self._emit(ev.Notice(said))
            else:
                await self._controller().run_turn(text)
        except asyncio.CancelledError:
            if compact:
                self._emit(ev.TurnEnded(Usage(), cancelled=True))
            raise
        except Exception as exc:
            log.exception("turn failed")
            self._emit(
                ev.ErrorEvent(f"Something went wrong: {type(exc).__name__}: {exc}", "internal")
            )
            self._emit(ev.TurnEnded(Usage(), error=str(exc)))
        finally:
            self._emit(TurnDone())

    # -- progress -------------------------------------------------------------------------

    def progress(self) -> str:
        if not self.busy:
            return ""
        what = "compacting" if self._compacting else "working"
        elapsed = self.clock() - self._started
        return progress_text(
            elapsed,
            self._streamed_chars // CHARS_PER_TOKEN,
            int(elapsed / TICK_S),
            len(self._queued),
            what,
        )

    def _tick(self) -> None:
        if self.busy:
            self._update_status(with_context=False)
            self._conversation.tick()

    def count_streamed(self, event: object) -> None:
        if isinstance(event, ev.TextDelta):
            self._streamed_chars += len(event.text)

    def drops(self, event: object) -> bool:
        """Whether `event` is a leftover delta of a cancelled turn (not drawn)."""
        return self.dropping and isinstance(event, ev.TextDelta | ev.AssistantText)

    # -- ending ---------------------------------------------------------------------------

    async def finished(self) -> None:
        """The turn's last event is on screen: send the next queued message, if any."""
        self.busy = False
        self.dropping = False
        self._compacting = False
        # Only a turn fills the queue, so the controller is attached when it has messages.
        if self._queued:
            text = self._queued.pop(0)
            self._queued_bar.show(self._queued)
            await self._submit(text)

    def cancel(self) -> bool:
        """Cancel the running turn (Esc, Ctrl+C); queued messages go back to the prompt."""
        turn = self.worker
        if not self.busy or turn is None or turn.is_finished or self.dropping:
            return False
        self.dropping = True
        task = getattr(turn, "_task", None)
        began = self._began
        turn.cancel()
        if task is not None and not began:
            # Cancelled before its first step (Esc right after Enter): the coroutine never
            # runs, so it cannot say the turn ended; Textual even leaves the worker RUNNING.
            task.add_done_callback(lambda _t: self._never_began())
        if self._queued:
            prompt = self._prompt
            waiting = "\n".join([*self._queued, prompt.text] if prompt.text else self._queued)
            self._queued.clear()
            self._queued_bar.show(self._queued)
            prompt.load_text(waiting)
            prompt.move_cursor(prompt.document.end)
        self._update_status()
        return True

    def _never_began(self) -> None:
        if not self._began:
            self._emit(ev.TurnEnded(Usage(), cancelled=True))
            self._emit(TurnDone())

    def queue(self, text: str) -> None:
        self._queued.append(text)
        self._queued_bar.show(self._queued)
        self._update_status()

    # -- keys -----------------------------------------------------------------------------

    def cancels_at_once(self, message: Message) -> bool:
        """Esc or Ctrl+C while a turn runs on the main screen cancels it as the key arrives,
        ahead of whatever the app's message queue holds (redraws of a fast stream in a long
        conversation can take hundreds of milliseconds to get through). True when done:
        the key is then used up."""
        if not (isinstance(message, events.Key) and message.key in ("escape", "ctrl+c")):
            return False
        app = self._app
        if app.screen is not app.screen_stack[0] or (
            message.key == "escape" and self._prompt.menu.is_open
        ):
            return False  # a dialog, the skills browser or the dropdown has its own Esc
        return self.cancel()

    def interrupt(self) -> None:
        """Ctrl+C: cancel the turn, else clear the prompt, else quit when pressed twice."""
        if self.cancel():
            return
        prompt = self._prompt
        if prompt.text:  # first clear what was typed; quitting takes two more
            prompt.clear()
            prompt.menu.close()
            self._quit_armed_at = -QUIT_WINDOW
            return
        now = time.monotonic()
        if now - self._quit_armed_at < QUIT_WINDOW:
            self._app.exit(0)
            return
        self._quit_armed_at = now
        self._app.notify("Press Ctrl+C again to quit (or Ctrl+D).")

    def quit_now(self) -> None:
        if self.worker is not None and self.worker.is_running:
            self.worker.cancel()
        self._app.exit(0)
