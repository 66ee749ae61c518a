"""`Views`: what the TUI shows on request. A built-in's reply and its action (`perform`),
the transcript view (Ctrl+T, `/transcript`), the latest tool result expanded (Ctrl+O), the
conversation scrolled (PageUp/PageDown), the pickers of `/model` and `/resume` alone, the
approval dialog, and the skill lists refreshed after a reload."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App

from codebot.ui import commands
from codebot.ui.commands import Action, Reply
from codebot.ui.tui.conversation import Conversation
from codebot.ui.tui.prompt import PromptArea
from codebot.ui.tui.status import UpdateStatus
from codebot.ui.tui.welcome import show_resumed

if TYPE_CHECKING:  # loaded with the controller, after the first paint
    from codebot.agent.permissions import ApprovalRequest
    from codebot.ui.controller import Controller
    from codebot.ui.tui.approval import ApprovalScreen


class Views:
    """`app` pushes the screens, shows toasts, runs workers and quits; `controller()` is
    None while the session is being built. `start_turn(text, compact)`, `busy()`,
    `context_window()` and `start_warm_up()` are the running turn's and start-up's."""

    def __init__(
        self,
        app: App[Any],
        conversation: Conversation,
        prompt: PromptArea,
        *,
        controller: Callable[[], Controller | None],
        update_status: UpdateStatus,
        start_turn: Callable[[str, bool], None],
        busy: Callable[[], bool],
        context_window: Callable[[], int | None],
        start_warm_up: Callable[[], None],
    ) -> None:
        self._app = app
        self._conversation = conversation
        self._prompt = prompt
        self._controller = controller
        self._update_status = update_status
        self._start_turn = start_turn
        self._busy = busy
        self._context_window = context_window
        self._start_warm_up = start_warm_up
        self._approval: ApprovalScreen | None = None

    def _c(self) -> Controller:
        c = self._controller()
        if c is None:
            raise RuntimeError("the session is still starting")
        return c

    # -- built-ins ----------------------------------------------------------------------------

    async def run_builtin(self, name: str, args: str = "") -> None:
        """A built-in from the table: the controller decides what it does; `perform` shows
        the reply and does its action."""
        command = commands.BY_NAME[name]
        if command.not_while_busy and self._busy():
            self._app.notify(
                f"/{name} waits for the running turn (Ctrl+C cancels it).", severity="warning"
            )
            return
        if not command.view:  # a view opens over the conversation: nothing added to it
            await self._conversation.add_user(f"/{name}{' ' + args if args else ''}")
        c = self._c()
        if command.off_loop:  # may import a client, rescan folders or read files
            reply = await asyncio.to_thread(c.builtin, name, args)
        else:
            reply = c.builtin(name, args)
        await self.perform(reply)

    async def perform(self, reply: Reply) -> None:
        """Show a built-in's reply and do its action; which command it was does not matter."""
        action = reply.action
        if action is Action.EXIT:
            self._app.exit(0)
            return
        if action is Action.OPEN_TRANSCRIPT:
            await self.open_transcript()
            return
        if action is Action.COMPACT:  # a model call: runs as a turn (busy, Ctrl+C cancels)
            self._start_turn(reply.arg, True)
            return
        if action is Action.TURN:  # what was done, then the model's turn
            await self._conversation.add_line(reply.text)
            self._start_turn(reply.arg, False)
            return
        if action is Action.OPEN_SKILLS:
            from codebot.ui.tui.skills_screen import SkillsScreen

            await self._app.push_screen(SkillsScreen(self._c(), reply.arg, self._context_window()))
            self._update_status()
            return
        if action in (Action.CLEAR, Action.RESUMED):
            await self._conversation.clear()
        if action is Action.RESUMED:  # another session: its conversation replaces this one
            await show_resumed(self._conversation, self._c())
            for said in reply.text.splitlines()[1:]:  # what it restored from the session's setup
                await self._conversation.add_line(said)
        elif reply.text:
            await self._conversation.add_line(reply.text)
        if action in (Action.PICK_MODEL, Action.PICK_SESSION):
            self._pick("model" if action is Action.PICK_MODEL else "resume")
            return
        self._after(reply)

    def _after(self, reply: Reply) -> None:
        """What a reply's action changes besides the conversation."""
        action = reply.action
        if action is Action.SKILLS_RELOADED:
            self._app.notify(reply.text, title="skills")
        if action in (Action.SKILLS_RELOADED, Action.SKILLS_CHANGED):
            self.refresh_skills()
        if action is Action.MODEL_SWITCHED:
            self._start_warm_up()
        self._update_status()

    def refresh_skills(self) -> None:
        """The catalog changed: the skills browser, the dropdown and the count follow."""
        reload_rows = getattr(self._app.screen, "reload_rows", None)  # the browser is open
        if reload_rows is not None:
            reload_rows()
        if self._prompt.menu.is_open:
            self._prompt.refresh_menu()
        self._update_status()

    def _pick(self, command: str) -> None:
        from codebot.ui.tui.picker import Picker

        c = self._c()
        if command == "model":
            choices = [(m, m) for m in c.model_choices()]
            screen = Picker(f"Model (now {c.model_name})", choices, c.model_name)
        else:
            choices = [(r.id, f"{r.started}  {r.first_prompt[:60]}") for r in c.session_rows()]
            if not choices:
                return
            screen = Picker("Resume a session of this project", choices)

        def picked(value: str | None) -> None:
            if value and value != (c.model_name if command == "model" else c.session.id):
                self._app.run_worker(self.run_builtin(command, value), exit_on_error=False)

        self._app.push_screen(screen, picked)

    # -- the transcript and the conversation ---------------------------------------------------

    async def open_transcript(self) -> None:
        from codebot.ui.transcript_view import session_entries
        from codebot.ui.tui.transcript_screen import TranscriptScreen

        app = self._app
        if isinstance(app.screen, TranscriptScreen):
            return
        c = self._controller()
        if c is None:
            app.notify("the session is still starting", severity="warning")
            return
        # Reading a long transcript file is off the event loop.
        entries = await asyncio.to_thread(session_entries, c.session)
        main = app.screen_stack[0]

        def closed(_result: object) -> None:
            if app.screen is main:
                self._prompt.focus()

        await app.push_screen(TranscriptScreen(entries), closed)

    def toggle_result(self) -> None:
        """Ctrl+O: expand or collapse the latest tool result."""
        self._conversation.toggle_latest_result()

    def scroll(self, direction: int) -> None:
        if direction < 0:
            self._conversation.scroll_page_up()
        else:
            self._conversation.scroll_page_down()

    # -- approvals ----------------------------------------------------------------------------

    def ask(self, request: ApprovalRequest) -> None:
        """The approval dialog; its answer (Deny when dismissed) goes to the waiting turn."""
        from codebot.agent.permissions import ApprovalAnswer
        from codebot.ui.tui.approval import ApprovalScreen

        def answered(answer: ApprovalAnswer | None) -> None:
            self._approval = None
            if request.future is not None and not request.future.done():
                request.future.set_result(answer or ApprovalAnswer.DENY)

        self._approval = ApprovalScreen(request)
        self._app.push_screen(self._approval, answered)

    def dismiss_approval(self) -> None:
        """The turn ended (cancelled, failed): a question still open is answered Deny."""
        if self._approval is not None and self._approval.is_active:
            self._approval.action_answer("deny")
        self._approval = None
