"""Word wrapping for line mode on a terminal, for streamed answers and whole lines alike.

A terminal wraps a long line at its last column, in the middle of a word. Line mode
breaks prose at spaces instead, to the terminal's width, while the answer streams: a
word is held back only until the space after it arrives, when it is known whether it
fits. What is not prose keeps its shape: fenced code blocks, indented code (a tab or
four spaces) and table rows pass through as they come, and a word longer than the line
(a URL, a path) is put on a line of its own, never broken. Output that is not a terminal
(a pipe, a log) is not wrapped at all (`columns` gives None): whoever reads it wraps it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

_BULLET = re.compile(
    r"[-*+•>]|\d{1,3}[.)]"
)  # a list item's (or quote's) marker: its text hangs after it
_FENCES = ("```", "~~~")


def cells(text: str) -> int:
    """Terminal columns `text` takes: wide East Asian characters two, combining marks none."""
    n = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return n


class Wrapper:
    """Text in, as it streams (`write`), wrapped text out through `out`, as soon as each
    word is known to fit. `columns()` is the width to wrap to, read for each word (the
    terminal may be resized); None or 0 means do not wrap. `flush()` at the end of a
    message writes the word still held back."""

    def __init__(self, out: Callable[[str], None], columns: Callable[[], int | None]) -> None:
        self._out = out
        self._columns = columns
        self._fence = False  # inside a fenced code block
        self._new_line()

    def _new_line(self) -> None:
        self._mode = ""  # "" until the line's first visible character, then "prose" or "raw"
        self._head = ""  # the line's first visible characters, to see a fence when it ends
        self._col = 0  # cells written on this line
        self._word = ""  # held back until the whitespace after it
        self._gap = ""  # whitespace before the held word (the indent, at line start)
        self._hang: int | None = (
            None  # indent of the line's continuations; None before its first word
        )
        self._bullet = False  # the first word was a list marker: the hang is set by the next one

    def write(self, text: str) -> None:
        if not self._columns() and not (self._word or self._gap):
            self._out(text)  # not wrapping (a pipe, a log): straight through
            return
        for ch in text:
            self._char(ch)

    def flush(self) -> None:
        """The end of a message: write what is held back; the next text starts a new one."""
        self._emit_word()
        self._fence = False
        self._new_line()

    def _char(self, ch: str) -> None:
        if ch == "\n":
            if self._mode != "raw":
                self._emit_word()  # whitespace at the end of a line is dropped
            self._out("\n")
            if self._head.startswith(_FENCES):
                self._fence = not self._fence
            self._new_line()
            return
        if len(self._head) < 3 and (self._head or ch not in " \t"):
            self._head += ch
        if self._mode == "raw":
            self._out(ch)
            return
        if ch in " \t":
            if self._word:
                self._emit_word()
            self._gap += ch
            return
        if not self._mode:
            self._mode = "raw" if self._keeps_shape(ch) else "prose"
            if self._mode == "raw":
                self._out(self._gap + ch)
                self._gap = ""
                return
        self._word += ch

    def _keeps_shape(self, first: str) -> bool:
        """Whether the line now starting (its indent in `_gap`, then `first`) is code or a table."""
        return self._fence or first == "|" or "\t" in self._gap or len(self._gap) >= 4

    def _emit_word(self) -> None:
        word, gap = self._word, self._gap
        if not word:
            return
        self._word = self._gap = ""
        w, g = cells(word), cells(gap)
        width = self._columns() or 0
        if self._hang is None:  # the line's first word, after its indent
            self._out(gap + word)
            self._col = g + w
            self._bullet = bool(_BULLET.fullmatch(word))
            self._hang = g
            return
        if self._bullet:  # a list item: continuations line up with the item's text
            self._hang, self._bullet = self._col + g, False
        if width and self._col + g + w > width and self._col > self._hang:
            self._out("\n" + " " * self._hang + word)
            self._col = self._hang + w
        else:
            self._out(gap + word)
            self._col += g + w


def wrap_text(text: str, columns: int | None) -> str:
    """`text` wrapped to `columns` (None: as it is), exactly as `Wrapper` streams it."""
    if not columns:
        return text
    out: list[str] = []
    wrapper = Wrapper(out.append, lambda: columns)
    wrapper.write(text)
    wrapper.flush()
    return "".join(out)
