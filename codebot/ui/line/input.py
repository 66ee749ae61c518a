"""Line mode input: the `/` completer, key bindings, and two readers with one interface.

`PromptReader` is prompt-toolkit (history, completion, Ctrl+C/Ctrl+D); `PlainReader` reads
lines from a pipe or file, one message per line, for scripts and dumb set-ups. Both offer
`await read_line()` (raises EOFError at the end, KeyboardInterrupt on Ctrl+C) and
`await ask(question)` for approval questions.
"""

from __future__ import annotations

import asyncio
import codecs
import contextvars
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from prompt_toolkit.application import get_app_session, run_in_terminal
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings

from codebot.home import private_dir, private_fd

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyPressEvent
    from prompt_toolkit.output import Output
from codebot.ui import commands
from codebot.ui.line.render import Sink, clip, one_line

PROMPT = "> "
META_CHARS = 90


class SlashCompleter(Completer):
    """Completes `/he` → `help` (only the part after the slash is replaced).

    prompt-toolkit's WordCompleter/NestedCompleter split the `/` from the word and never
    match; this one asks the controller (built-ins and the skills the person may invoke,
    usage-ordered, fuzzy) while the text is `/` plus a name with no space yet.
    """

    def __init__(self, complete: Callable[[str], list[commands.Completion]]) -> None:
        self._complete = complete

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or text.startswith("//"):
            return
        typed = text[1:]
        stacked = commands.stacked_query(text)
        if stacked is not None:  # `/review /te`: a second skill for the same request
            typed = stacked[1]
        elif any(ch.isspace() for ch in typed):
            return
        try:
            found = [c for c in self._complete(typed) if stacked is None or c.kind == "skill"]
        except Exception:
            return  # a completion problem must never break typing
        for c in found:
            hint = f" {c.hint}" if c.hint else ""
            yield Completion(
                c.name,
                start_position=-len(typed),
                display=f"/{c.name}{hint}",
                display_meta=clip(one_line(c.description), META_CHARS),
            )


def key_bindings() -> KeyBindings:
    kb = KeyBindings()

    @kb.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = event.app.current_buffer
        if buffer.text:
            # Ctrl+C with text clears the line; on an empty line it counts toward quitting.
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

    @kb.add("escape", "enter")
    @kb.add("c-j")
    def _newline(event: KeyPressEvent) -> None:
        event.app.current_buffer.insert_text("\n")

    return kb


def open_history(path: Path) -> History:
    try:
        # Create (or tighten) the file 0600 before FileHistory appends to it: prompt-toolkit
        # would create it with the umask's mode, and prompts hold secrets.
        private_dir(path.parent)
        os.close(private_fd(path))
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


class PromptReader:
    """prompt-toolkit input. `echo` (a Sink) also records what was typed when the prompt is
    drawn somewhere other than where the conversation goes (stdout redirected, tests)."""

    def __init__(
        self,
        completer: Completer,
        history: History,
        *,
        input: Input | None = None,
        output: Output | None = None,
        echo: Sink | None = None,
    ) -> None:
        from prompt_toolkit import PromptSession

        self.echo = echo
        self.session: PromptSession[str] = PromptSession(
            history=history,
            completer=completer,
            complete_while_typing=True,
            key_bindings=key_bindings(),
            prompt_continuation="  ",
            input=input,
            output=output,
        )
        self.asker: PromptSession[str] = PromptSession(input=input, output=output)

    async def read_line(self) -> str:
        text = await self.session.prompt_async(PROMPT)
        if self.echo is not None:
            self.echo.line(PROMPT + text)
        return text

    async def ask(self, question: str) -> str:
        text = await self.asker.prompt_async(question)
        if self.echo is not None:
            self.echo.line(question + text)
        return text


class TerminalSink(Sink):
    """The conversation on a real terminal, around prompt-toolkit's prompt.

    With no prompt on screen (a turn streaming) text goes straight to the terminal, in
    order and at once, so an approval question's preview is on screen before its prompt;
    with a prompt on screen it goes above it (`run_in_terminal`). Other threads (the skill
    watcher) hop onto the event loop first. Create it inside the app session and the loop.
    """

    def __init__(self, output: Output) -> None:
        super().__init__(
            None, lambda: output.get_size().columns
        )  # the prompt's terminal, wherever stdout goes
        self._output = output
        self._session = get_app_session()
        self._context = contextvars.copy_context()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()

    def write(self, text: str) -> None:
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self.write, text)
            return
        super().write(text)

    def line(self, text: str = "") -> None:
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self.line, text)
            return
        super().line(text)

    def _put(self, text: str) -> None:
        app = self._session.app
        if app is not None and app.is_running:
            self._context.run(run_in_terminal, lambda: self._raw(text), in_executor=False)
        else:
            self._raw(text)

    def _raw(self, text: str) -> None:
        self._output.write(text)  # Output.write shows escape sequences harmlessly
        self._output.flush()


class PlainReader:
    """One line of a pipe or file per message; no terminal UI. What is read is echoed after
    `> ` so a log of the session shows the questions as well as the answers."""

    def __init__(self, stream: TextIO, sink: Sink) -> None:
        self.stream = stream
        self.sink = sink
        self._queue: asyncio.Queue[str | None] | None = None
        self._eof = False

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._queue = queue

        def put(item: str | None) -> bool:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
                return True
            except RuntimeError:  # the loop is gone: stop reading
                return False

        fd = _fileno(self.stream)
        target = (
            (lambda: _pump_fd(fd, _encoding(self.stream), put))
            if fd is not None
            else (lambda: _pump_lines(self.stream, put))
        )
        # A daemon thread, reading the raw fd when there is one: a thread blocked inside a
        # buffered stdin would make interpreter shutdown abort on the buffer's lock.
        threading.Thread(target=target, name="codebot-line-input", daemon=True).start()

    async def _next(self) -> str:
        if self._queue is None:
            self._start()
        assert self._queue is not None
        if self._eof:
            raise EOFError
        line = await self._queue.get()
        if line is None:
            self._eof = True
            raise EOFError
        return line.rstrip("\r\n")

    async def read_line(self) -> str:
        text = await self._next()
        self.sink.line(PROMPT + text)
        return text

    async def ask(self, question: str) -> str:
        self.sink.end_line()
        self.sink.write(question)
        try:
            text = await self._next()
        except EOFError:
            self.sink.write("\n")
            raise
        self.sink.write(text + "\n")
        return text


def _fileno(stream: TextIO) -> int | None:
    try:
        return int(stream.fileno())
    except (AttributeError, OSError, ValueError, TypeError):
        return None


def _encoding(stream: TextIO) -> str:
    enc = getattr(stream, "encoding", None) or "utf-8"
    try:
        codecs.lookup(enc)
    except LookupError:
        enc = "utf-8"
    return enc


def _pump_fd(fd: int, encoding: str, put: Callable[[str | None], bool]) -> None:
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    pending = ""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            pending += decoder.decode(b"", final=True)
            if pending:
                put(pending)
            put(None)
            return
        pending += decoder.decode(chunk)
        while "\n" in pending:
            line, pending = pending.split("\n", 1)
            if not put(line + "\n"):
                return


def _pump_lines(stream: TextIO, put: Callable[[str | None], bool]) -> None:
    while True:
        try:
            line = stream.readline()
        except (OSError, ValueError):
            line = ""
        if not line:
            put(None)
            return
        if not put(line):
            return
