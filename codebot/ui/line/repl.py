"""Line mode (`codebot --plain`): the same commands and skills in a plain scrolling terminal.

prompt-toolkit draws one prompt line with history and `/` completion; everything else is
plain text printed above it (`patch_stdout`), so it works in any terminal, over ssh, in
`TERM=dumb` and in logs. When stdin is not a terminal each line read is one message.

Entry points for the CLI: `should_use_line_mode(stdout, env)` and `run_line(settings, ...)`.
prompt-toolkit is imported only in `codebot/ui/line*.py`, and only when a prompt is drawn.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest
from codebot.config import Settings
from codebot.ui import commands
from codebot.ui.commands import Action, Front, Reply
from codebot.ui.controller import Controller
from codebot.ui.line import sessions
from codebot.ui.line.approve import ask_answer, parse_answer, parse_reply
from codebot.ui.line.render import (
    Renderer,
    Sink,
    approval_text,
    skills_table,
    start_watcher,
    width,
)
from codebot.ui.line.wrap import wrap_text

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from codebot.agent.model import ModelClient
    from codebot.agent.session import ResumeChoice
    from codebot.agent.session import events as ev
    from codebot.agent.session.turn import TurnRecord
    from codebot.ui.line.input import PlainReader, PromptReader

__all__ = ["LineApp", "parse_answer", "parse_reply", "run_line", "should_use_line_mode"]

LINE_KEYS = commands.KEYS[Front.LINE]
PLAIN_KEYS = commands.KEYS[Front.PLAIN]


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)  # a prompt-toolkit Input has none
    try:
        return callable(isatty) and bool(isatty())
    except (OSError, ValueError):
        return False


def _is_pt(obj: object) -> bool:
    """A prompt-toolkit Input/Output object (checked without importing prompt-toolkit)."""
    return type(obj).__module__.startswith("prompt_toolkit")


def _text_stream(obj: TextIO | Input | Output | None) -> TextIO | None:
    """`obj` when it is a text stream: neither None nor a prompt-toolkit object."""
    return None if obj is None or _is_pt(obj) else cast("TextIO", obj)


def should_use_line_mode(
    stdout: TextIO, env: Mapping[str, str], stdin: TextIO | None = None
) -> bool:
    """Line mode instead of the full-screen TUI: stdout (or stdin, when given) is not a
    terminal, or the terminal is dumb."""
    if env.get("TERM", "") == "dumb":
        return True
    if stdin is not None and not _isatty(stdin):
        return True
    return not _isatty(stdout)


class LineApp:
    """One interactive line-mode session over a `Controller`.

    `input`: None (stdin), a prompt-toolkit Input (e.g. `create_pipe_input()`), or a text
    stream; a stream that is not a terminal is read plainly, one message per line.
    `output`: None (stdout), a prompt-toolkit Output, or a text stream that receives the
    conversation (the prompt itself is then drawn nowhere unless the stream is a terminal).
    """

    def __init__(
        self,
        controller: Controller,
        *,
        input: TextIO | Input | None = None,
        output: TextIO | Output | None = None,
        watch: bool = True,
        initial_prompt: str | None = None,
    ) -> None:
        self.controller = controller
        self.watch = watch
        # `codebot --plain "fix the bug"`: sent before reading
        self.initial_prompt = initial_prompt
        # stdin, a text stream or a prompt-toolkit Input (`_is_pt` tells which)
        self._input: TextIO | Input = sys.stdin if input is None else input
        self._output = output
        text_out = _text_stream(output)
        # Prose is word-wrapped on a terminal only; a pipe or a log gets the text as it is.
        self.on_terminal = _isatty(text_out if text_out is not None else sys.stdout)
        self.sink = Sink(text_out, width if self.on_terminal else None)
        self.renderer = Renderer(self.sink)
        self.plain = not _is_pt(self._input) and not _isatty(self._input)
        self.reader: PromptReader | PlainReader | None = None
        self._turn: asyncio.Future[TurnRecord | str] | None = None
        self._approvals: set[asyncio.Future[None]] = set()
        self._ask_lock: asyncio.Lock | None = None
        self._interrupts = 0
        #: The MCP servers that may start, once the question at start is answered.
        self.mcp_allowed: frozenset[str] | None = None
        controller.set_emit(self._on_event)
        controller.front = Front.PLAIN if self.plain else Front.LINE  # what /help lists

    # -- running -------------------------------------------------------------------------

    def run(self) -> int:
        return asyncio.run(self.run_async())

    async def run_async(self) -> int:
        self._ask_lock = asyncio.Lock()
        with self._terminal():
            if not self.plain and self._pt[2]:
                from codebot.ui.line.input import TerminalSink

                self.sink = self.renderer.sink = TerminalSink(self._pt[1])
                self.on_terminal = True
            self.reader = self._make_reader()
            try:
                return await self._loop()
            finally:  # the MCP servers run on this loop: ended on it
                from codebot.agent.session.mcp_setup import aclose_servers

                await aclose_servers(self.controller.session)

    @contextlib.contextmanager
    def _terminal(self) -> Iterator[None]:
        if self.plain:
            yield
            return
        from prompt_toolkit.application import create_app_session
        from prompt_toolkit.input import create_input
        from prompt_toolkit.output import DummyOutput, create_output
        from prompt_toolkit.patch_stdout import patch_stdout

        text_in = _text_stream(self._input)
        pt_in = cast("Input", self._input) if text_in is None else create_input(text_in)
        out = self._output
        text_out = _text_stream(out)
        pt_out: Output
        if out is None:  # the prompt on a terminal even when stdout is redirected
            pt_out, patch = create_output(always_prefer_tty=True), _isatty(sys.stdout)
        elif text_out is None:  # a prompt-toolkit Output
            pt_out, patch = cast("Output", out), True
        elif _isatty(text_out):
            pt_out, patch = create_output(stdout=text_out), True
        else:  # a plain text stream gets the conversation; the prompt is drawn nowhere
            pt_out, patch = DummyOutput(), False
        # patch: the conversation shares the prompt's terminal (stray prints go above it too)
        self._pt = (pt_in, pt_out, patch)
        with create_app_session(input=pt_in, output=pt_out):
            if patch:
                with patch_stdout():
                    yield
            else:
                yield

    def _make_reader(self) -> PromptReader | PlainReader:
        from codebot.ui.line.input import PlainReader

        if self.plain:  # then the input is a text stream
            return PlainReader(cast("TextIO", self._input), self.sink)
        from codebot.ui.line.input import PromptReader, SlashCompleter, open_history

        pt_in, pt_out, patch = self._pt
        echo = None if patch else self.sink  # record what was typed where the conversation goes
        history = open_history(project_line_history(self.controller.settings))
        completer = SlashCompleter(self.controller.completions)
        return PromptReader(completer, history, input=pt_in, output=pt_out, echo=echo)

    async def _loop(self) -> int:
        self._banner()
        self.mcp_allowed = await self._ask_mcp()  # before any MCP server would start
        if self.mcp_allowed:  # what was just approved joins the session's servers
            from codebot.agent.session.mcp_setup import admit_approved

            loop = asyncio.get_running_loop()  # the servers run on this loop
            await asyncio.to_thread(admit_approved, self.controller.session, loop)
        watcher = start_watcher(self.controller, self.sink) if self.watch else None
        if self.watch:  # tests pass watch=False: no background work, no probe
            self.controller.warm_router()
            offer = await asyncio.to_thread(self.controller.find_local)
            if offer:
                self.sink.line(offer)
            said = await asyncio.to_thread(self.controller.check_server)  # its window
            if said:
                self.sink.line(f"warning: {said}")
        try:
            if self.initial_prompt and await self._send_initial(self.initial_prompt) == "exit":
                return 0
            while True:
                try:
                    assert self.reader is not None  # made by run_async
                    text = await self.reader.read_line()
                except KeyboardInterrupt:
                    if self._interrupts:
                        break
                    self._interrupts = 1
                    self.sink.line("(press Ctrl+C again or Ctrl+D to quit)")
                    continue
                except EOFError:
                    break
                self._interrupts = 0
                if text.strip() and await self.handle(text) == "exit":
                    break
        finally:
            if watcher is not None:
                with contextlib.suppress(Exception):
                    watcher.stop()
            self._say_how_to_continue()
        return 0

    async def _ask_mcp(self) -> frozenset[str]:
        """The MCP question at start (`ui/mcp_start.py`); the servers that may start."""
        from codebot.ui.mcp_start import ask_line

        assert self.reader is not None  # made by run_async
        return await ask_line(self.controller.settings, self.reader.ask, self.sink.line)

    def _say_how_to_continue(self) -> None:
        """The session's id and the command that comes back to it: in the conversation on a
        terminal; on stderr when the conversation is a pipe or a log, which then holds only
        the conversation (as print mode's stdout holds only the answer)."""
        hint = sessions.continue_hint(self.controller.session)
        if hint is None:
            return
        if self.on_terminal:
            self.renderer.prose(hint)
        else:
            print(hint, file=sys.stderr)

    async def _send_initial(self, text: str) -> str | None:
        from codebot.ui.line.input import PROMPT

        self.sink.line(PROMPT + text)  # shown as if typed, so the log reads in order
        return await self.handle(text)

    def _banner(self) -> None:
        from codebot import __version__

        c = self.controller
        model = (
            f"{c.model_name} (offline: set a provider key or --model for a real one)"
            if c.offline
            else c.model_name
        )
        how = (
            "one message per line"
            if self.plain
            else "/help for commands, Tab completes, Ctrl+D quits"
        )
        say = self.renderer.prose
        say(f"codebot {__version__} · model {model} · {c.skill_count()} skills · {how}")
        for w in getattr(c.session.approvals, "warnings", ()):
            say(f"warning: {w}")
        if c.session.sandbox_notice:
            say(f"warning: {c.session.sandbox_notice}")
        for notice in c.take_notices():
            say(f"warning: {notice}")
        self.sink.write("\n")
        sessions.show_resumed(self.sink, c.session)

    # -- one input -----------------------------------------------------------------------

    async def handle(self, text: str) -> str | None:
        """Run one thing the person typed; "exit" when the session should end."""
        parsed = commands.Parsed("builtin", "help") if text.strip() == "/" else commands.parse(text)
        if parsed.kind == "builtin":
            return await self.builtin(parsed.name, parsed.args)
        await self.turn(text.strip() if parsed.kind == "skill" else text)
        return None

    async def builtin(self, name: str, args: str) -> str | None:
        """A built-in: the controller decides what it does; this shows the reply and performs
        its action. "exit" when the session should end."""
        try:
            if commands.BY_NAME[name].background:  # off the loop: the watcher keeps printing
                reply = await asyncio.to_thread(self.controller.builtin, name, args)
            else:
                reply = self.controller.builtin(name, args)
        except Exception as exc:  # a failing command must not end the session
            self.sink.line(f"error: /{name} failed: {type(exc).__name__}: {exc}")
            self.sink.write("\n")
            return None
        return await self.perform(reply)

    async def perform(self, reply: Reply) -> str | None:
        action, text = reply.action, reply.text
        if action is Action.EXIT:
            return "exit"
        if action is Action.COMPACT:
            await self.turn(reply.arg, compact=True)  # a model call: cancellable like a turn
            return None
        if action is Action.PICK_SESSION:  # line mode's picker: a numbered table and a question
            assert self.reader is not None  # made by run_async
            choice = await sessions.pick_session(self.controller, self.sink, ask=self.reader.ask)
            return await self.builtin("resume", choice) if choice else None
        if action is Action.RESUMED:
            sessions.show_switched(self.sink, self.controller.session)
            for said in text.splitlines()[1:]:  # what it restored from the session's setup
                self.sink.line(wrap_text(said, self.sink.wrap_width()))
            return None
        if action is Action.TURN:  # what was done, then the model's turn
            self.sink.line(wrap_text(text, self.sink.wrap_width()))
            await self.turn(reply.arg)
            return None
        if action is Action.OPEN_SKILLS:
            text = skills_table(self.controller, reply.arg)
        if text:  # tables keep their columns; prose is wrapped
            tabular = action in (Action.OPEN_SKILLS, Action.SKILLS_CHANGED)
            self.sink.line(text if tabular else wrap_text(text, self.sink.wrap_width()))
        self.sink.write("\n")
        return None

    async def turn(self, text: str, compact: bool = False) -> None:
        """One model turn (or `/compact`) as a task: Ctrl+C cancels it, not the session."""
        self.renderer.begin_turn()
        task = asyncio.ensure_future(
            self.controller.compact(text) if compact else self.controller.run_turn(text)
        )
        self._turn = task
        try:
            with self._sigint_cancels_turn():
                await asyncio.wait([task])
        finally:
            self._turn = None
            if not task.done():
                task.cancel()
            pending = list(self._approvals)
            for t in pending:
                t.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            self.renderer.prose(f"error: {type(exc).__name__}: {exc}")
        elif compact and not task.cancelled() and isinstance(said := task.result(), str) and said:
            self.renderer.prose(said)
        self.renderer.end_turn()

    def cancel_turn(self) -> bool:
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
            return True
        return False

    @contextlib.contextmanager
    def _sigint_cancels_turn(self) -> Iterator[None]:
        # A Python-level handler (not loop.add_signal_handler): prompt-toolkit saves and
        # restores it around an approval prompt, so it keeps working after one.
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        loop = asyncio.get_running_loop()
        previous = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, lambda *_: loop.call_soon_threadsafe(self.cancel_turn))
        try:
            yield
        finally:
            signal.signal(
                signal.SIGINT, previous if previous is not None else signal.default_int_handler
            )

    # -- events ----------------------------------------------------------------------------

    def _on_event(self, e: ev.Event | ApprovalRequest) -> None:
        if isinstance(e, ApprovalRequest):
            task = asyncio.ensure_future(self._approve(e))
            self._approvals.add(task)
            task.add_done_callback(self._approvals.discard)
            return
        self.renderer.render(e)

    async def _approve(self, request: ApprovalRequest) -> None:
        assert self._ask_lock is not None
        future = request.future
        async with self._ask_lock:
            if future is None or future.done():
                return
            self.sink.line(approval_text(request))
            answer, cancel = None, False
            try:
                assert self.reader is not None  # made by run_async, before any turn
                answer = await ask_answer(self.reader, self.sink, request)
            except EOFError:
                answer = ApprovalAnswer.DENY
                self.sink.line("(no answer: denied)")
            except KeyboardInterrupt:
                answer, cancel = ApprovalAnswer.DENY, True
            if not future.done():
                future.set_result(answer)
            if cancel:
                self.cancel_turn()


def project_line_history(settings: Settings) -> Path:
    """Line mode's history, kept per project like the TUI's (`$CODEBOT_HOME/line-history.d/`)."""
    from codebot.ui.tui.history import project_history_path

    return (
        settings.home
        / "line-history.d"
        / project_history_path(settings.home, settings.project_dir).name
    )


def run_line(
    settings: Settings,
    *,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    resume: str | ResumeChoice | None = None,
    input: TextIO | Input | None = None,
    output: TextIO | Output | None = None,
    client: ModelClient | None = None,
    watch: bool = True,
    extra_dirs: Sequence[Path] = (),
    initial_prompt: str | None = None,
) -> int:
    """Run line mode until /exit or end of input; the exit code (0, 2 for a setup problem).

    `resume`: None, a session id, or a `ResumeChoice(continue_latest, session_id)`.
    `client`: a ModelClient to use instead of the configured one (tests).
    `extra_dirs`: `--add-dir` folders the tools may use as well as the project.
    `initial_prompt`: a message sent first, before any input is read (`codebot "…"`).
    """
    from codebot.agent.session import ResumeChoice, SetupError

    if isinstance(resume, str):
        resume = ResumeChoice(False, resume)
    try:
        controller = Controller(
            settings,
            client=client,
            interactive=True,
            allow=allow,
            deny=deny,
            resume=resume,
            extra_dirs=extra_dirs,
        )
    except SetupError as exc:
        print(f"codebot: {exc}", file=sys.stderr)
        return 2
    try:
        # The controller keeps allow/deny/extra_dirs for a session `/resume` switches to.
        return LineApp(
            controller, input=input, output=output, watch=watch, initial_prompt=initial_prompt
        ).run()
    except KeyboardInterrupt:
        return 130
    finally:
        controller.close()
