"""`CodebotApp`, the Textual app: lays out the widgets, composes the parts that do the work,
and hands them Textual's actions and messages (Textual finds those by name on the app).

The parts, each given what it uses: `EventPump` (session events onto the screen),
`Startup` (first paint, the controller, warm-up, the skill watcher), `TurnRunner`
(turns, cancel, quit) and `Views` (built-ins' replies, screens and dialogs). No loop logic
lives here: a turn is `controller.run_turn` running as a worker, and everything it does
arrives as typed events.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.filter import Monochrome, NoColor
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from codebot.agent.session import events as ev
from codebot.config import Settings
from codebot.ui import commands
from codebot.ui.tui.completer import Completer
from codebot.ui.tui.conversation import Conversation
from codebot.ui.tui.history import History, project_history_path
from codebot.ui.tui.palette import CodebotCommands
from codebot.ui.tui.prompt import CompletionMenu, PromptArea
from codebot.ui.tui.pump import EventPump
from codebot.ui.tui.queued import QueuedBar
from codebot.ui.tui.startup import Startup
from codebot.ui.tui.status import Status, StatusBar, context_text
from codebot.ui.tui.toasts import keep_toasts_clear
from codebot.ui.tui.turns import TurnDone, TurnRunner
from codebot.ui.tui.views import Views

if TYPE_CHECKING:  # the controller's imports load after the first paint
    from codebot.ui.controller import Controller

log = logging.getLogger("codebot.tui")
NOT_SAVED = "transcript not saved · "  # in the status once a transcript write failed


def theme_for(settings: Settings, env: Mapping[str, str]) -> str:
    """`theme: light | dark | auto` in the config; auto reads the terminal's COLORFGBG
    (`15;0` is light text on dark, `0;15` dark on light) and is dark when it cannot tell."""
    wanted = str(settings.raw.get("theme") or "auto").lower()
    if wanted in ("light", "dark"):
        return f"textual-{wanted}"
    background = str(env.get("COLORFGBG", "")).rsplit(";", 1)[-1]
    light = background.isdigit() and int(background) in (7, 15)  # white or light grey
    return "textual-light" if light else "textual-dark"


class CodebotApp(App[int]):
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
        controller: Controller | None = None,
        *,
        settings: Settings | None = None,
        make_controller: Callable[[], Controller] | None = None,
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
        if settings is None and controller is not None:
            settings = controller.settings
        if settings is None or (controller is None and make_controller is None):
            raise TypeError("CodebotApp needs a controller, or settings and make_controller")
        self.controller = controller
        self.settings: Settings = settings
        self._skill: tuple[str, str] | None = None  # (skill, model) while a skill's model applies
        self._controller_ready = asyncio.Event()  # remade in on_mount, on the app's loop
        # The widgets are made here, not in compose, so the parts below can be given them.
        self.conversation = Conversation(id="conversation")
        self.prompt = PromptArea(
            Completer(self._completions, self.settings.project_dir),
            History(
                project_history_path(self.settings.home, self.settings.project_dir),
                fallback=self.settings.home / "history",
            ),
            CompletionMenu(id="menu"),
            id="prompt",
        )
        self.queued = QueuedBar(id="queued")
        self.status_bar = StatusBar(id="status")
        self.pump = EventPump(self._render_event, self._render_failed, self.call_from_thread)
        self.startup = Startup(
            self,
            self.conversation,
            controller=self.attached,
            connect=self._connect,
            update_status=self.update_status,
            submit=self.submit,
            refresh_skills=self._refresh_skills,
            on_ui_thread=self.pump.on_ui_thread,
            make_controller=make_controller,
            watch_skills=watch_skills,
            exit_after_paint=exit_after_paint,
            initial_prompt=initial_prompt,
        )
        self.turns = TurnRunner(
            self,
            self.conversation,
            self.prompt,
            self.queued,
            controller=self.attached,
            emit=self.emit,
            update_status=self.update_status,
            submit=self.submit,
            wait_warm=self.startup.wait_warm,
        )
        self.views = Views(
            self,
            self.conversation,
            self.prompt,
            controller=lambda: self.controller,
            update_status=self.update_status,
            start_turn=self.turns.start,
            busy=lambda: self.turns.busy,
            context_window=self.context_window,
            start_warm_up=self.startup.start_warm_up_if_needed,
        )
        self.theme = theme_for(self.settings, os.environ)

    # -- what tests and `run_tui` read ---------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.turns.busy

    @property
    def clock(self) -> Callable[[], float]:
        """The clock of a turn's elapsed time and of running tools (snapshot tests stop it)."""
        return self.turns.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.turns.clock = clock

    @property
    def first_paint_ms(self) -> int | None:
        return self.startup.first_paint_ms

    @property
    def ready_ms(self) -> int | None:
        return self.startup.ready_ms

    @property
    def painted_at(self) -> float | None:
        return self.startup.painted_at

    def attached(self) -> Controller:
        """The controller, for the parts that run only once it is attached."""
        if self.controller is None:
            raise RuntimeError("the session is still starting")
        return self.controller

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self.conversation
        yield self.prompt.menu
        yield self.queued
        yield self.prompt
        yield self.status_bar

    def _completions(self, prefix: str) -> list[commands.Completion]:
        return self.controller.completions(prefix) if self.controller is not None else []

    async def on_mount(self) -> None:
        self.pump.start()
        self._controller_ready = asyncio.Event()
        if self.is_headless:
            self.prompt.cursor_blink = False  # a blinking cursor makes snapshots flaky
        self.prompt.focus()
        keep_toasts_clear(self)
        self.run_worker(self.pump.run(), name="events", group="events", exit_on_error=False)
        self.call_after_refresh(self.startup.first_paint)
        if self.controller is not None:
            await self.startup.attach(self.controller)
        else:
            self.update_status()

    def _connect(self, controller: Controller) -> None:
        self.controller = controller
        controller.set_emit(self.emit)
        controller.front = commands.Front.TUI  # what /help lists
        self._controller_ready.set()

    async def on_unmount(self) -> None:
        self.startup.stop_watcher()
        if self.controller is not None:  # its MCP servers run on this loop: ended on it
            from codebot.agent.session.mcp_setup import aclose_servers

            await aclose_servers(self.controller.session)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        await self.startup.worker_changed(event.worker, event.state)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Plain text unless asked: toasts quote file and skill names and errors, whose
        brackets textual would read as markup (a folder named `[/x]` crashed the app)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    # -- status -----------------------------------------------------------------------------

    def update_status(self, with_context: bool | None = None) -> None:
        c = self.controller
        bar = self.status_bar
        if c is None:
            bar.status = Status("starting…", busy=self.busy, progress=self.turns.progress())
            return
        context = bar.status.context
        if with_context or (with_context is None and self.startup.painted):
            # The litellm client learns its context window by importing litellm: only once warm.
            use = c.context_use(may_import=self.startup.warm)
            context = context_text(use.total, use.window)
        for notice in c.take_notices():  # at start: a session in use, a damaged file skipped
            self.pump.put(ev.Notice(notice, "warning"))
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
            progress=self.turns.progress(),
        )

    def context_window(self) -> int | None:
        if self.controller is None or not self.startup.warm:
            return None
        return self.controller.session.client.context_window

    # -- events from the session --------------------------------------------------------------

    def emit(self, event: object) -> None:
        """The session's emit: queue the event for the screen (from any thread)."""
        self.turns.count_streamed(event)
        self.pump.put(event)

    async def _render_event(self, event: object) -> None:
        # Loaded with the controller, so off the paint path.
        from codebot.agent.permissions import ApprovalRequest

        if isinstance(event, ApprovalRequest):
            self.views.ask(event)
            return
        if isinstance(event, TurnDone):
            self.views.dismiss_approval()
            await self.turns.finished()
            self.update_status()
            return
        if self.turns.drops(event):
            return
        if isinstance(event, ev.SkillActivated):
            model = (event.delta or {}).get("model")
            if model and event.depth == 0 and event.mode == "inline":
                self._skill = (event.name, model)
                self.update_status()
        if isinstance(event, ev.TurnEnded):
            self._skill = None
            self.views.dismiss_approval()
        await self.conversation.show(event)

    def _render_failed(self, event: object, exc: Exception) -> None:
        log.exception("rendering %r", event)  # called in the pump's `except`
        self.notify(f"display error: {exc}", severity="error")

    async def settled(self) -> None:
        """Wait until the running turn is over and all its events are on screen (for tests)."""
        if self.turns.worker is not None:
            try:
                await self.turns.worker.wait()
            except (WorkerCancelled, WorkerFailed):
                pass  # shown in the conversation already
        await self.pump.join()

    # -- input ------------------------------------------------------------------------------

    async def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        if self.controller is None:  # sent in the first instants: the session is being built
            self.run_worker(self._submit_when_ready(self.prompt.take()), exit_on_error=False)
            return
        parsed = commands.parse(message.text)
        if parsed.kind != "builtin" and self.busy:
            self.turns.queue(self.prompt.take())  # sent when the turn ends
            return
        if parsed.kind == "builtin" and commands.BY_NAME[parsed.name].background:
            if parsed.args:  # `/mcp probe`: connecting takes a moment; `/mcp` alone is instant
                self.notify(f"/{parsed.name} {parsed.args}: working…", timeout=3)
            self.run_worker(self.submit(self.prompt.take()), exit_on_error=False)
            return
        await self.submit(self.prompt.take())

    async def _submit_when_ready(self, text: str) -> None:
        await self._controller_ready.wait()
        await self.submit(text)

    async def submit(self, text: str) -> None:
        """Run a built-in, or start a turn with the text (a message or a `/skill`)."""
        parsed = commands.parse(text)
        if parsed.kind == "builtin":
            await self.views.run_builtin(parsed.name, parsed.args)
            return
        await self.conversation.add_user(text)
        self.turns.start(text)

    def start_turn(self, text: str, compact: bool = False) -> None:
        self.turns.start(text, compact)

    def on_option_list_option_selected(self, event: CompletionMenu.OptionSelected) -> None:
        if isinstance(event.option_list, CompletionMenu):
            self.prompt.accept(event.option_index)
            self.prompt.focus()

    def pick_command(self, completion: commands.Completion) -> None:
        """From the palette: run a built-in; put a skill in the prompt for its arguments."""
        if completion.kind == "builtin":
            self.run_worker(self.views.run_builtin(completion.name), exit_on_error=False)
            return
        self.prompt.load_text(f"/{completion.name} ")
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()

    # -- skills changed ------------------------------------------------------------------

    def reload_skills(self) -> None:
        """Rescan now (what the watcher does on a change)."""
        self.startup.reload_skills()

    def _refresh_skills(self) -> None:
        self.views.refresh_skills()

    # -- keys: Textual finds the actions by name on the app ---------------------------------------

    def post_message(self, message: Message) -> bool:
        if self.turns.cancels_at_once(message):
            return True
        return super().post_message(message)

    def action_escape(self) -> None:
        self.turns.cancel()

    def action_interrupt(self) -> None:
        self.turns.interrupt()

    def action_quit_now(self) -> None:
        self.turns.quit_now()

    def action_transcript(self) -> None:
        """Ctrl+T: the whole session on a screen of its own (Ctrl+T again closes it)."""
        self.run_worker(self.views.open_transcript(), exit_on_error=False)

    def action_toggle_result(self) -> None:
        self.views.toggle_result()

    def action_scroll_conversation(self, direction: int) -> None:
        self.views.scroll(direction)
