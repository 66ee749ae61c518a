"""The Textual app: lays out the widgets, pumps session events into them, and turns keys
into Controller calls. No loop logic lives here: a turn is `controller.run_turn` running
as a worker, and everything it does arrives as typed events.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.filter import Monochrome, NoColor
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from codebot.agent.session import events as ev
from codebot.config import Settings
from codebot.ui import commands
from codebot.ui.tui.completer import Completer
from codebot.ui.tui.conversation import Conversation
from codebot.ui.tui.history import History, project_history_path
from codebot.ui.tui.palette import CodebotCommands
from codebot.ui.tui.prompt import CompletionMenu, PromptArea
from codebot.ui.tui.queued import QueuedBar
from codebot.ui.tui.startup import StartupMixin
from codebot.ui.tui.status import Status, StatusBar, context_text
from codebot.ui.tui.toasts import keep_toasts_clear
from codebot.ui.tui.turns import QUIT_WINDOW, TurnDone, TurnsMixin
from codebot.ui.tui.views import ViewsMixin

log = logging.getLogger("codebot.tui")
NOT_SAVED = "transcript not saved · "  # in the status once a transcript write failed


def theme_for(settings: Settings, env: Any) -> str:
    """`theme: light | dark | auto` in the config; auto reads the terminal's COLORFGBG
    (`15;0` is light text on dark, `0;15` dark on light) and is dark when it cannot tell."""
    wanted = str(settings.raw.get("theme") or "auto").lower()
    if wanted in ("light", "dark"):
        return f"textual-{wanted}"
    background = str(env.get("COLORFGBG", "")).rsplit(";", 1)[-1]
    light = background.isdigit() and int(background) in (7, 15)  # white or light grey
    return "textual-light" if light else "textual-dark"


class CodebotApp(StartupMixin, TurnsMixin, ViewsMixin, App[int]):
    """Give it a Controller, or `settings` and `make_controller` to build one in a thread
    after the first frame (the controller's imports and catalog load then cost no paint time).
    """

    TITLE = "codebot"
    COMMANDS = App.COMMANDS | {CodebotCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "interrupt", "cancel the turn / quit", priority=True, show=False),
        Binding("ctrl+d", "quit_now", "quit", priority=True, show=False),
        Binding("escape", "escape", "cancel the turn", show=False),
        Binding("ctrl+o", "toggle_result", "expand/collapse the latest tool result", show=False),
        Binding("ctrl+t", "transcript", "the whole session (transcript view)", show=False),
        Binding("pageup", "scroll_conversation(-1)", "scroll up", show=False),
        Binding("pagedown", "scroll_conversation(1)", "scroll down", show=False),
    ]
    # Toasts at the top right: at the bottom they covered the prompt and the completion menu
    # (toasts.py keeps them above both on a short terminal too).
    CSS = """
    Screen { layout: vertical; }
    ToastRack { dock: top; align: right top; margin-bottom: 0; margin-top: 1; }
    """

    def __init__(
        self,
        controller: Any = None,
        *,
        settings: Settings | None = None,
        make_controller: Callable[[], Any] | None = None,
        watch_skills: bool = True,
        exit_after_paint: bool = False,
        initial_prompt: str | None = None,
    ) -> None:
        no_color = "NO_COLOR" in os.environ
        super().__init__()
        if no_color:
            # Textual greys the screen (still 256-colour codes) for NO_COLOR: no colour at
            # all is what the convention asks for.
            self._filters = [f for f in self._filters if not isinstance(f, Monochrome)]
            if not any(isinstance(f, NoColor) for f in self._filters):
                self._filters.append(NoColor())
        if controller is None and (settings is None or make_controller is None):
            raise TypeError("CodebotApp needs a controller, or settings and make_controller")
        self.controller = controller
        self.settings: Settings = settings or controller.settings
        self._make_controller = make_controller
        self.watch_skills = watch_skills
        #: Quit once painted and ready (CODEBOT_EXIT_AFTER_PAINT=1, for bench/startup.py).
        self.exit_after_paint = exit_after_paint
        #: Sent as the first message once the session is ready (`codebot "fix the bug"`).
        self.initial_prompt = initial_prompt
        #: Milliseconds from `codebot.STARTED_AT` to the first frame, and to a working session.
        self.first_paint_ms: int | None = None
        self.ready_ms: int | None = None
        #: `time.monotonic()` at the first frame: system-wide on Linux, so a parent process
        #: can measure from the moment it spawned this one.
        self.painted_at: float | None = None
        self.busy = False
        self._events: asyncio.Queue[Any] = asyncio.Queue()  # remade in on_mount, on the app's loop
        self._controller_ready = asyncio.Event()
        self._turn: Worker | None = None
        self._warm_worker: Worker | None = None
        self._warm = True
        self._painted = False
        self._quit_armed_at = -QUIT_WINDOW
        self._skill: tuple[str, str] | None = None  # (skill, model) while a skill's model applies
        self._approval: Any = None
        self._watcher: Any = None
        self._ui_thread = threading.get_ident()
        self._init_turns()
        self.theme = theme_for(self.settings, os.environ)

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        menu = CompletionMenu(id="menu")
        yield Conversation(id="conversation")
        yield menu
        yield QueuedBar(id="queued")
        yield PromptArea(
            Completer(self._completions, self.settings.project_dir),
            History(
                project_history_path(self.settings.home, self.settings.project_dir),
                fallback=self.settings.home / "history",
            ),
            menu,
            id="prompt",
        )
        yield StatusBar(id="status")

    def _completions(self, prefix: str) -> list[commands.Completion]:
        return self.controller.completions(prefix) if self.controller is not None else []

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def prompt(self) -> PromptArea:
        return self.query_one(PromptArea)

    async def on_mount(self) -> None:
        self._ui_thread = threading.get_ident()
        self._events = asyncio.Queue()
        self._controller_ready = asyncio.Event()
        if self.is_headless:
            self.prompt.cursor_blink = False  # a blinking cursor makes snapshots flaky
        self.prompt.focus()
        keep_toasts_clear(self)
        self.run_worker(self._pump(), name="events", group="events", exit_on_error=False)
        self.call_after_refresh(self._first_paint)
        if self.controller is not None:
            await self._attach_controller(self.controller)
        else:
            self.update_status()

    def on_unmount(self) -> None:
        self._stop_watcher()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Plain text unless asked: toasts quote file and skill names and errors, whose
        brackets textual would read as markup (a folder named `[/x]` crashed the app)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    # -- status -----------------------------------------------------------------------------

    def update_status(self, with_context: bool | None = None) -> None:
        c = self.controller
        bar = self.query_one(StatusBar)
        if c is None:
            bar.status = Status("starting…", busy=self.busy, progress=self.progress())
            return
        context = bar.status.context
        if with_context or (with_context is None and self._painted):
            # The litellm client learns its context window by importing litellm: only once warm.
            use = c.context_use(may_import=self._warm)
            context = context_text(use.total, use.window)
        for notice in c.take_notices():  # at start: a session in use, a damaged file skipped
            self._events.put_nowait(ev.Notice(notice, "warning"))
        if c.transcript_error and not context.startswith(NOT_SAVED):
            # The conversation said why once (a Notice); the status keeps saying it.
            context = NOT_SAVED + context
        skill, model = self._skill or (None, None)
        bar.status = Status(
            c.model_name,
            model,
            skill,
            c.offline,
            context,
            c.skill_count(),
            self.busy,
            untrusted=not c.settings.trusted,
            progress=self.progress(),
        )

    def context_window(self) -> int | None:
        if self.controller is None or not self._warm:
            return None
        return self.controller.session.client.context_window

    # -- events from the session --------------------------------------------------------------

    def _emit(self, event: Any) -> None:
        """The session's emit: queue the event for the pump (from any thread)."""
        self.count_streamed(event)
        if threading.get_ident() == self._ui_thread:
            self._events.put_nowait(event)
        else:
            self.call_from_thread(self._events.put_nowait, event)

    async def _pump(self) -> None:
        pending: Any = None
        while True:
            event, pending = (
                (pending, None) if pending is not None else (await self._events.get(), None)
            )
            if isinstance(event, ev.TextDelta):
                # Deltas that queued up while the last ones were drawn are drawn as one: a
                # fast stream then costs a few renders a second, and keys stay responsive.
                event, pending = self._coalesce(event)
            try:
                await self._render_event(event)
            except Exception as exc:  # a display problem must not end the session
                log.exception("rendering %r", event)
                self.notify(f"display error: {exc}", severity="error")
            finally:
                self._events.task_done()

    def _coalesce(self, first: ev.TextDelta) -> tuple[ev.TextDelta, Any]:
        texts, pending = [first.text], None
        while not self._events.empty():
            nxt = self._events.get_nowait()
            if not (isinstance(nxt, ev.TextDelta) and nxt.depth == first.depth):
                pending = nxt  # drawn next; its task_done comes then
                break
            texts.append(nxt.text)
            self._events.task_done()
        return (ev.TextDelta("".join(texts), first.depth) if len(texts) > 1 else first), pending

    async def _render_event(self, event: Any) -> None:
        # Loaded with the controller, so off the paint path.
        from codebot.agent.permissions import ApprovalRequest

        if isinstance(event, ApprovalRequest):
            self._ask(event)
            return
        if isinstance(event, TurnDone):
            self._dismiss_approval()
            await self.turn_finished()
            self.update_status()
            return
        if self.drops(event):
            return
        model = (event.delta or {}).get("model") if isinstance(event, ev.SkillActivated) else None
        if model and event.depth == 0 and event.mode == "inline":
            self._skill = (event.name, model)
            self.update_status()
        if isinstance(event, ev.TurnEnded):
            self._skill = None
            self._dismiss_approval()
        await self.conversation.show(event)

    def _ask(self, request: Any) -> None:
        from codebot.agent.permissions import ApprovalAnswer
        from codebot.ui.tui.approval import ApprovalScreen

        def answered(answer: ApprovalAnswer | None) -> None:
            self._approval = None
            if request.future is not None and not request.future.done():
                request.future.set_result(answer or ApprovalAnswer.DENY)

        self._approval = ApprovalScreen(request)
        self.push_screen(self._approval, answered)

    def _dismiss_approval(self) -> None:
        if self._approval is not None and self._approval.is_active:
            self._approval.action_answer("deny")
        self._approval = None

    async def settled(self) -> None:
        """Wait until the running turn is over and all its events are on screen (for tests)."""
        if self._turn is not None:
            try:
                await self._turn.wait()
            except (WorkerCancelled, WorkerFailed):
                pass  # shown in the conversation already
        await self._events.join()

    # -- input ------------------------------------------------------------------------------

    async def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        if self.controller is None:  # sent in the first instants: the session is being built
            self.run_worker(self._submit_when_ready(self.prompt.take()), exit_on_error=False)
            return
        if commands.parse(message.text).kind != "builtin" and self.busy:
            self.queue(self.prompt.take())  # sent when the turn ends
            return
        await self.submit(self.prompt.take())

    async def _submit_when_ready(self, text: str) -> None:
        await self._controller_ready.wait()
        await self.submit(text)

    async def submit(self, text: str) -> None:
        """Run a built-in, or start a turn with the text (a message or a `/skill`)."""
        parsed = commands.parse(text)
        if parsed.kind == "builtin":
            await self.run_builtin(parsed.name, parsed.args)
            return
        await self.conversation.add_user(text)
        self.start_turn(text)

    def on_option_list_option_selected(self, event: CompletionMenu.OptionSelected) -> None:
        if isinstance(event.option_list, CompletionMenu):
            self.prompt.accept(event.option_index)
            self.prompt.focus()

    async def run_builtin(self, name: str, args: str = "") -> None:
        """A built-in from the table: the controller decides what it does; `perform` shows
        the reply and does its action."""
        command = commands.BY_NAME[name]
        if command.not_while_busy and self.busy:
            self.notify(
                f"/{name} waits for the running turn (Ctrl+C cancels it).", severity="warning"
            )
            return
        if not command.view:  # a view opens over the conversation: nothing added to it
            await self.conversation.add_user(f"/{name}{' ' + args if args else ''}")
        if command.off_loop:  # may import a client, rescan folders or read files
            reply = await asyncio.to_thread(self.controller.builtin, name, args)
        else:
            reply = self.controller.builtin(name, args)
        await self.perform(reply)

    def pick_command(self, completion: commands.Completion) -> None:
        """From the palette: run a built-in; put a skill in the prompt for its arguments."""
        if completion.kind == "builtin":
            self.run_worker(self.run_builtin(completion.name), exit_on_error=False)
            return
        self.prompt.load_text(f"/{completion.name} ")
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()

    # -- skills changed ------------------------------------------------------------------

    def _refresh_skills(self) -> None:
        reload_rows = getattr(self.screen, "reload_rows", None)  # the skills browser is open
        if reload_rows is not None:
            reload_rows()
        if self.prompt.menu.is_open:
            self.prompt.refresh_menu()
        self.update_status()

    # -- keys (more in views.py) -------------------------------------------------------------

    def post_message(self, message: Any) -> bool:
        if self.cancels_at_once(message):
            return True
        return super().post_message(message)
