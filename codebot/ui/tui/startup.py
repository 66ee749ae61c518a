"""Start-up and background services for the app: first paint, the controller (built after
the first frame when the app is given a factory), litellm warm-up, the skill watcher and
hot reload. A mixin for `CodebotApp`, split out to keep each file about one thing.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from textual.worker import Worker, WorkerState

import codebot
from codebot.ui.commands import Front

log = logging.getLogger("codebot.tui")

CATCH_UP_AFTER = (
    3.0  # seconds after start: the skill watcher's rescan for what changed while loading
)
BIG_CATALOG = 2000  # skills: from here that rescan takes long enough to be worth delaying
WATCH_AFTER = 1.0  # seconds after start: when a big catalog's watches are armed


def needs_warm_up(client: Any) -> bool:
    """Only the litellm client imports litellm (seconds) on first use; offline and scripted
    clients never do."""
    return (
        not getattr(client, "offline", False)
        and type(client).__module__ == "codebot.agent.model.litellm_client"
    )


def _warm_up() -> None:
    from codebot.agent.model import litellm_client as model

    warm = getattr(model, "warm_up", None)
    if warm is not None:
        warm()


def _import_markdown() -> None:
    import textual.widgets._markdown  # noqa: F401  (the first answer will need it: load it now, off the loop)


class StartupMixin:
    """Expects the attributes `CodebotApp.__init__` sets."""

    # -- first paint and the controller -----------------------------------------------------

    def _first_paint(self) -> None:
        if self._painted:
            return
        self._painted = True
        self.painted_at = time.monotonic()
        self.first_paint_ms = round((time.perf_counter() - codebot.STARTED_AT) * 1000)
        log.info("started in %d ms (first paint)", self.first_paint_ms)
        if self.controller is None:
            self.run_worker(self._make_controller, name="setup", thread=True, exit_on_error=False)
        else:
            self._started()

    async def _attach_controller(self, controller: Any) -> None:
        """The controller exists: connect it and show what depends on it."""
        self.controller = controller
        self._warm = not needs_warm_up(controller.session.client)
        controller.set_emit(self._emit)
        controller.front = Front.TUI  # what /help lists
        self._controller_ready.set()
        self.update_status()
        await self._welcome()
        if self._painted:
            self._started()

    def _started(self) -> None:
        """Painted and attached: measure, then start what may take its time."""
        self.ready_ms = round((time.perf_counter() - codebot.STARTED_AT) * 1000)
        if self.ready_ms != self.first_paint_ms:
            log.info("ready in %d ms", self.ready_ms)
        if self.exit_after_paint:
            self.exit(0)
            return
        self.update_status(with_context=True)
        if not self._warm:
            self._warm_worker = self.run_worker(
                _warm_up, name="warm-up", thread=True, exit_on_error=False
            )
        if self.watch_skills:
            # after the first paint, in one thread: the templates, the router's index, the
            # first turn's listing work, the markdown widget (0.4 s of imports)
            self.controller.warm_router(then=_import_markdown)
            if self.controller.skill_count() >= BIG_CATALOG:
                # arming the watches of a big catalog takes the processor for a while: not
                # while the person's first request is being answered (edits made meanwhile
                # are found by the catch-up rescan)
                self.set_timer(WATCH_AFTER, self._start_watcher)
            else:
                self._start_watcher()
        if self.controller.offline and self.watch_skills:  # tests pass watch_skills=False: no probe
            self.run_worker(self.offer_local_server(), name="probe", exit_on_error=False)
        if self.initial_prompt:  # after the welcome lines, so the conversation reads in order
            self.run_worker(self.submit(self.initial_prompt), exit_on_error=False)

    async def _welcome(self) -> None:
        c = self.controller
        project = str(c.settings.project_dir).replace(str(Path.home()), "~", 1)
        await self.conversation.add_line(
            f"codebot {codebot.__version__} · {project} · "
            f"{c.skill_count()} skills · /help for commands and keys"
        )
        if c.offline:
            from codebot.agent.model import HOW_TO

            await self.conversation.add_line(
                "No model is configured, so codebot runs offline. " + HOW_TO, "warning"
            )
        for warning in (
            *c.settings.warnings,
            *c.session.approvals.warnings,
            *filter(None, [c.session.sandbox_notice]),
        ):
            await self.conversation.add_line(warning, "warning")
        await self._show_resumed()

    async def _show_resumed(self) -> None:
        """`--continue`/`--resume`: the last turns of the loaded history, headed by the
        session it is (a new session's transcript file does not exist before its first
        message, so a file already there means a resumed one)."""
        from codebot.agent.session.transcript import DamagedSession, read_header
        from codebot.ui.resume_view import resume_view

        session = self.controller.session
        transcript = session.transcript
        if transcript is None or not transcript.path.exists() or not session.history:
            return
        try:
            header = read_header(transcript.path)
        except DamagedSession:
            header = None
        for item in resume_view(
            session.history, session.id, header.created if header is not None else None
        ):
            if item.kind == "user":
                await self.conversation.add_user(item.text)
            elif item.kind == "assistant":
                await self.conversation.add_markdown(item.text)
            elif item.kind == "tool":
                await self.conversation.add_line(f"⚙ {item.text} · {item.status}", "notice")
            else:
                await self.conversation.add_line(
                    item.text, "skill" if item.kind == "heading" else "notice"
                )

    async def offer_local_server(self) -> None:
        """No key: look for a local OpenAI-compatible server (loopback, 150 ms) and offer it."""
        import asyncio

        offer = await asyncio.to_thread(self.controller.find_local)
        if offer:
            await self.conversation.add_line(offer, "warning")

    def start_warm_up_if_needed(self) -> None:
        """After /model: a litellm client needs litellm loaded before its first turn."""
        self._warm = self._warm or not needs_warm_up(self.controller.session.client)
        if not self._warm and self._warm_worker is None:
            self._warm_worker = self.run_worker(
                _warm_up, name="warm-up", thread=True, exit_on_error=False
            )

    # -- skill watcher and reload -----------------------------------------------------------

    def _start_watcher(self) -> None:
        try:
            from codebot.skills.watch import SkillWatcher
        except ImportError:
            return
        try:
            # The catalog was loaded an instant ago: in a big one, the catch-up rescan for
            # what changed meanwhile (0.7 s at 10,000 skills) waits until the person's first
            # request has had the processor. A small one is rescanned at once (milliseconds),
            # so an edit made while the watches were being armed shows at once too.
            big = self.controller.skill_count() >= BIG_CATALOG
            self._watcher = SkillWatcher(
                self.controller.catalog,
                self._watched,
                catch_up_after=CATCH_UP_AFTER if big else 0.0,
            )
        except Exception:
            log.exception("skill watcher did not start")
            return
        self.run_worker(
            self._watcher.arun(),
            name="skill-watcher",
            group="watch",
            exclusive=True,
            exit_on_error=False,
        )

    def _stop_watcher(self) -> None:
        if self._watcher is not None:
            try:
                self._watcher.stop(timeout=0)
            except Exception:
                log.exception("stopping the skill watcher")

    def _watched(self, change: Any = None, *_: Any) -> None:
        """The watcher's callback; it may run on the watcher's thread."""
        if threading.get_ident() == self._ui_thread:
            self.skills_reloaded(change)
        else:
            self.call_from_thread(self.skills_reloaded, change)

    def skills_reloaded(self, change: Any) -> None:
        if change is not None and hasattr(change, "added"):
            text, problems = self.controller.reload_message(change)
            if text:
                self.notify(
                    text,
                    title="skills",
                    severity="warning" if problems else "information",
                    timeout=8 if problems else 4,
                )
        self._refresh_skills()

    def reload_skills(self) -> None:
        """Rescan now (what the watcher does on a change)."""
        self.skills_reloaded(self.controller.reload())

    # -- workers ------------------------------------------------------------------------------

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker, state = event.worker, event.state
        if worker.name == "setup" and state == WorkerState.SUCCESS:
            await self._attach_controller(worker.result)
        elif worker.name == "setup" and state == WorkerState.ERROR:
            log.error("start-up failed: %s", worker.error)
            self.exit(return_code=2, message=f"codebot: {worker.error}")
        elif worker.name == "warm-up" and state in (WorkerState.SUCCESS, WorkerState.ERROR):
            self._warm = True
            if state == WorkerState.ERROR:
                log.error("warm-up failed: %s", worker.error)
            self.update_status()
        elif worker.name == "skill-watcher" and state == WorkerState.ERROR:
            log.error("skill watcher stopped: %s", worker.error)
            self.notify(
                f"Skill folders are no longer watched ({worker.error}); /reload rescans.",
                severity="warning",
            )
        elif state == WorkerState.ERROR:
            log.error("worker %s failed: %s", worker.name, worker.error)
