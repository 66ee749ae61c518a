"""Running turns in the TUI: start, progress, cancel, and messages queued meanwhile.

A mixin for `CodebotApp`. A turn is `controller.run_turn` in a worker; while it runs the
status bar shows a spinner, the seconds elapsed and the tokens streamed so far, and a tool
that is running shows its seconds and its latest output (`Conversation.tick`). Esc or
Ctrl+C cancels it at once: the worker is cancelled and text deltas already queued for the
screen are dropped, so the answer stops growing within a frame even when rendering lags
behind a fast stream. Text sent while a turn runs waits in a queue, shown above the prompt,
and is sent when the turn ends; cancelling the turn puts it back in the prompt instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from typing import Any

from textual.worker import WorkerCancelled, WorkerFailed

from codebot.agent.model import Usage
from codebot.agent.session import events as ev
from codebot.units import CHARS_PER_TOKEN

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


class TurnsMixin:
    """Expects the attributes `CodebotApp.__init__` sets."""

    def _init_turns(self) -> None:
        self._queued: list[str] = []
        self._turn_started = 0.0
        self._streamed_chars = 0
        self._dropping = False  # cancelled: drop the deltas still waiting to be drawn
        self._ticker: Any = None
        self._compacting = False
        #: The clock of the elapsed time and the spinner (snapshot tests stop it).
        self.clock = time.monotonic

    # -- starting -----------------------------------------------------------------------

    def start_turn(self, text: str, compact: bool = False) -> None:
        self.busy = True
        self._quit_armed_at = -QUIT_WINDOW
        self._turn_started, self._streamed_chars, self._dropping = self.clock(), 0, False
        self._turn_began = False
        self._compacting = compact
        if self._ticker is None:
            self._ticker = self.set_interval(TICK_S, self._tick)
        self.update_status()
        # a partial, not a coroutine: the worker makes the coroutine when it starts, so a quit
        # before then leaves no coroutine that was never awaited
        self._turn = self.run_worker(
            functools.partial(self._run_turn, text, compact),
            name="turn",
            group="turn",
            exit_on_error=False,
        )

    async def _run_turn(self, text: str, compact: bool = False) -> None:
        self._turn_began = True
        try:
            if self._warm_worker is not None and not self._warm:
                self.notify("Loading the model library…")
                with contextlib.suppress(
                    WorkerCancelled, WorkerFailed
                ):  # the turn will say what is wrong
                    await self._warm_worker.wait()
            if compact:
                said = await self.controller.compact(text)
                if said:  # through the event queue: after the session's own notices
                    self._emit(ev.Notice(said))
            else:
                await self.controller.run_turn(text)
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
        elapsed = self.clock() - self._turn_started
        return progress_text(
            elapsed,
            self._streamed_chars // CHARS_PER_TOKEN,
            int(elapsed / TICK_S),
            len(self._queued),
            what,
        )

    def _tick(self) -> None:
        if self.busy:
            self.update_status(with_context=False)
            self.conversation.tick()

    def count_streamed(self, event: Any) -> None:
        if isinstance(event, ev.TextDelta):
            self._streamed_chars += len(event.text)

    def drops(self, event: Any) -> bool:
        """Whether `event` is a leftover delta of a cancelled turn (not drawn)."""
        return self._dropping and isinstance(event, ev.TextDelta | ev.AssistantText)

    # -- ending ---------------------------------------------------------------------------

    async def turn_finished(self) -> None:
        """The turn's last event is on screen: send the next queued message, if any."""
        self.busy = False
        self._dropping = False
        self._compacting = False
        if self._queued and self.controller is not None:
            text = self._queued.pop(0)
            self._show_queue()
            await self.submit(text)

    def cancel_turn(self) -> bool:
        """Cancel the running turn (Esc, Ctrl+C); queued messages go back to the prompt."""
        if not self.busy or self._turn is None or self._turn.is_finished or self._dropping:
            return False
        self._dropping = True
        self._turn_began = getattr(self, "_turn_began", False)
        task = getattr(self._turn, "_task", None)
        began = self._turn_began
        self._turn.cancel()
        if task is not None and not began:
            # Cancelled before its first step (Esc right after Enter): the coroutine never
            # runs, so it cannot say the turn ended; Textual even leaves the worker RUNNING.
            task.add_done_callback(lambda _t: self._never_began())
        if self._queued:
            waiting = "\n".join(
                [*self._queued, self.prompt.text] if self.prompt.text else self._queued
            )
            self._queued.clear()
            self._show_queue()
            self.prompt.load_text(waiting)
            self.prompt.move_cursor(self.prompt.document.end)
        self.update_status()
        return True

    def _never_began(self) -> None:
        if not self._turn_began:
            self._emit(ev.TurnEnded(Usage(), cancelled=True))
            self._emit(TurnDone())

    def queue(self, text: str) -> None:
        self._queued.append(text)
        self._show_queue()
        self.update_status()

    def _show_queue(self) -> None:
        from codebot.ui.tui.queued import QueuedBar

        self.query_one(QueuedBar).show(self._queued)

    # -- keys -----------------------------------------------------------------------------

    def cancels_at_once(self, message: Any) -> bool:
        """Esc or Ctrl+C while a turn runs on the main screen cancels it as the key arrives,
        ahead of whatever the app's message queue holds (redraws of a fast stream in a long
        conversation can take hundreds of milliseconds to get through). True when done:
        the key is then used up."""
        from textual import events

        if not (isinstance(message, events.Key) and message.key in ("escape", "ctrl+c")):
            return False
        if self.screen is not self.screen_stack[0] or (
            message.key == "escape" and self.prompt.menu.is_open
        ):
            return False  # a dialog, the skills browser or the dropdown has its own Esc
        return self.cancel_turn()

    def action_escape(self) -> None:
        self.cancel_turn()

    def action_interrupt(self) -> None:
        if self.cancel_turn():
            return
        if self.prompt.text:  # first clear what was typed; quitting takes two more
            self.prompt.clear()
            self.prompt.menu.close()
            self._quit_armed_at = -QUIT_WINDOW
            return
        now = time.monotonic()
        if now - self._quit_armed_at < QUIT_WINDOW:
            self.exit(0)
            return
        self._quit_armed_at = now
        self.notify("Press Ctrl+C again to quit (or Ctrl+D).")

    def action_quit_now(self) -> None:
        if self._turn is not None and self._turn.is_running:
            self._turn.cancel()
        self.exit(0)
