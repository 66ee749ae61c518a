"""What the TUI shows on request: a built-in's reply and its action (`perform`), the
transcript view (Ctrl+T, `/transcript`), the latest tool result expanded (Ctrl+O), the
conversation scrolled (PageUp/PageDown), and the pickers of `/model` and `/resume` alone.
A mixin for `CodebotApp`; it expects the attributes `CodebotApp.__init__` sets and its
`conversation` and `prompt`."""

from __future__ import annotations

import asyncio
from typing import Any

from codebot.ui.commands import Action, Reply


class ViewsMixin:
    controller: Any
    conversation: Any
    prompt: Any

    async def perform(self, reply: Reply) -> None:
        """Show a built-in's reply and do its action; which command it was does not matter."""
        app: Any = self
        action = reply.action
        if action is Action.EXIT:
            app.exit(0)
            return
        if action is Action.OPEN_TRANSCRIPT:
            await self.open_transcript()
            return
        if action is Action.COMPACT:  # a model call: runs as a turn (busy, Ctrl+C cancels)
            app.start_turn(reply.arg, compact=True)
            return
        if action is Action.OPEN_SKILLS:
            from codebot.ui.tui.skills_screen import SkillsScreen

            await app.push_screen(SkillsScreen(self.controller, reply.arg, app.context_window()))
            app.update_status()
            return
        if action in (Action.CLEAR, Action.RESUMED):
            await self.conversation.clear()
        if action is Action.RESUMED:  # another session: its conversation replaces this one
            await app._show_resumed()
        elif reply.text:
            await self.conversation.add_line(reply.text)
        if action in (Action.PICK_MODEL, Action.PICK_SESSION):
            self._pick("model" if action is Action.PICK_MODEL else "resume")
            return
        if action is Action.SKILLS_RELOADED:
            app.notify(reply.text, title="skills")
        if action in (Action.SKILLS_RELOADED, Action.SKILLS_CHANGED):
            app._refresh_skills()
        if action is Action.MODEL_SWITCHED:
            app.start_warm_up_if_needed()
        app.update_status()

    def action_transcript(self) -> None:
        """Ctrl+T: the whole session on a screen of its own (Ctrl+T again closes it)."""
        self.run_worker(self.open_transcript(), exit_on_error=False)  # type: ignore[attr-defined]

    async def open_transcript(self) -> None:
        from codebot.ui.transcript_view import session_entries
        from codebot.ui.tui.transcript_screen import TranscriptScreen

        app: Any = self
        if isinstance(app.screen, TranscriptScreen):
            return
        if self.controller is None:
            app.notify("the session is still starting", severity="warning")
            return
        # Reading a long transcript file is off the event loop.
        entries = await asyncio.to_thread(session_entries, self.controller.session)
        main = app.screen_stack[0]

        def closed(_result: object) -> None:
            if app.screen is main:
                self.prompt.focus()

        await app.push_screen(TranscriptScreen(entries), closed)

    def action_toggle_result(self) -> None:
        """Ctrl+O: expand or collapse the latest tool result."""
        self.conversation.toggle_latest_result()

    def action_scroll_conversation(self, direction: int) -> None:
        view = self.conversation
        if direction < 0:
            view.scroll_page_up()
        else:
            view.scroll_page_down()

    def _pick(self, command: str) -> None:
        from codebot.ui.tui.picker import Picker

        app: Any = self
        c = self.controller
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
                app.run_worker(app.run_builtin(command, value), exit_on_error=False)

        app.push_screen(screen, picked)
