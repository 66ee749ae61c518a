"""A running command's output as it arrives, for display: `LiveOutput`.

`run_process` hands every chunk of the pipe to `LiveOutput.feed`; whole lines go to the
tool context's `progress` callback, at most every `INTERVAL` seconds, so a command that
prints 100,000 lines costs the UI about ten updates a second, not 100,000. Each update
carries at most `TAIL` lines, the newest; lines passed over are counted in one
`… N lines not shown …` line ahead of them.

What is shown is display text, never what the model gets (that is `ProcessOutput`,
unchanged): bytes are decoded incrementally (a character split across two chunks comes
out whole; invalid bytes become U+FFFD), a carriage return restarts its line as on a
terminal (a progress bar shows its last state), terminal escape sequences are removed and
other controls shown escaped (`display.strip_escapes`), and each line is cut at
`LINE_MAX` characters. Memory stays bounded whatever the command prints: the partial line
is cut too, and at most `TAIL` lines wait for the next update.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
from collections.abc import Callable

from codebot.display import strip_escapes

__all__ = ["INTERVAL", "LINE_MAX", "TAIL", "LiveOutput", "shown_line"]

log = logging.getLogger("codebot.tools")

INTERVAL = 0.1  # seconds between two updates
TAIL = 50  # lines per update at most (the newest)
LINE_MAX = 500  # characters kept of one line


def shown_line(line: str, clipped: bool = False) -> str:
    """One line of output as the screen may show it: after its last carriage return,
    without escape sequences, at most LINE_MAX characters (then `…`)."""
    line = line.rstrip("\r")
    if "\r" in line:
        line = line[line.rfind("\r") + 1 :]
    if len(line) > LINE_MAX:
        line, clipped = line[:LINE_MAX], True
    return strip_escapes(line) + ("…" if clipped else "")


class LiveOutput:
    """Feeds `progress` with whole, display-safe lines of a byte stream, rate-limited.

    Call `feed` from the event loop (a protocol's `pipe_data_received`) and `close` once
    the stream is over: it sends what is left, the last partial line too. `progress` must
    not raise; if it does, the error is logged and no more updates are sent."""

    def __init__(self, progress: Callable[[str], None], interval: float = INTERVAL) -> None:
        self._progress: Callable[[str], None] | None = progress
        self._interval = interval
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""  # the line being received, without its end
        self._clipped = False  # the partial line was cut at LINE_MAX
        self._lines: list[str] = []  # shown lines waiting for the next update (at most TAIL)
        self._skipped = 0  # lines passed over since the last update
        self._last = -1e9  # loop time of the last update
        self._timer: asyncio.TimerHandle | None = None
        self.updates = 0  # how many times `progress` was called (for tests and diagnostics)

    # -- input ----------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        if self._progress is None:
            return
        self._text(self._decoder.decode(data))
        self._schedule()

    def close(self, flush: bool = True) -> None:
        """The stream is over: send what is left (unless `flush` is False), stop the timer."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._progress is None:
            return
        if flush:
            self._text(self._decoder.decode(b"", final=True))
            if self._partial:
                self._end_line("")
            self._send()
        self._progress = None

    def _text(self, text: str) -> None:
        last = text.rfind("\n")
        if last < 0:
            self._extend_partial(text)
            return
        complete, rest = text[:last], text[last + 1 :]
        first = complete.find("\n")
        self._end_line(complete if first < 0 else complete[:first])
        if first >= 0:
            body = complete[first + 1 :]
            count = body.count("\n") + 1
            keep = body.rsplit("\n", TAIL)[-TAIL:] if count > TAIL else body.split("\n")
            self._skipped += count - len(keep)
            self._lines.extend(shown_line(line) for line in keep)
            self._trim()
        self._partial, self._clipped = "", False
        self._extend_partial(rest)

    def _extend_partial(self, text: str) -> None:
        if not text or (self._clipped and "\r" not in text):
            return  # the line is already as long as it will be shown
        line = self._partial + text
        cut = line.rfind("\r", 0, len(line) - 1)
        if cut >= 0:  # a carriage return with text after it: the line starts again there
            line, self._clipped = line[cut + 1 :], False
        if len(line) > LINE_MAX:
            line, self._clipped = line[:LINE_MAX], True
        self._partial = line

    def _end_line(self, text: str) -> None:
        self._extend_partial(text)
        self._lines.append(shown_line(self._partial, self._clipped))
        self._partial, self._clipped = "", False
        self._trim()

    def _trim(self) -> None:
        over = len(self._lines) - TAIL
        if over > 0:
            del self._lines[:over]
            self._skipped += over

    # -- output ---------------------------------------------------------------------------

    def _schedule(self) -> None:
        if not (self._lines or self._skipped) or self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last + self._interval - loop.time()
        if wait <= 0:
            self._send()
        else:
            self._timer = loop.call_later(wait, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._send()

    def _send(self) -> None:
        if self._progress is None or not (self._lines or self._skipped):
            return
        lines = self._lines
        if self._skipped:
            n = self._skipped
            lines = [f"… {n:,} line{'s' if n != 1 else ''} not shown …", *lines]
        self._lines, self._skipped = [], 0
        try:
            self._last = asyncio.get_running_loop().time()
        except RuntimeError:
            pass
        self.updates += 1
        try:
            self._progress("\n".join(lines))
        except Exception:  # a display problem must never fail the command
            log.exception("showing a command's output")
            self._progress = None
