"""`Startup`: the app's start-up and background services. First paint, the controller
(built after the first frame when the app is given a factory), litellm warm-up, the skill
watcher and hot reload, and what the app's workers report when they end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState

import codebot
from codebot.ui.tui.conversation import Conversation
from codebot.ui.tui.status import UpdateStatus
from codebot.ui.tui.welcome import welcome

if TYPE_CHECKING:  # the controller's imports load after the first paint
    from codebot.skills.catalog import Change
    from codebot.skills.watch import SkillWatcher
    from codebot.ui.controller import Controller

log = logging.getLogger("codebot.tui")

CATCH_UP_AFTER = (
    3.0  # seconds after start: the skill watcher's rescan for what changed while loading
)
BIG_CATALOG = 2000  # skills: from here that rescan takes long enough to be worth delaying
WATCH_AFTER = 1.0  # seconds after start: when a big catalog's watches are armed


def needs_warm_up(client: object) -> bool:
    """Whether a turn must wait for the warm-up: only a real client whose model litellm
    serves (its import takes seconds); the direct path, offline and scripted clients never
    wait (the direct path's token counter loads in the background all the same)."""
    path_for = getattr(client, "path_for", None)
    return not getattr(client, "offline", False) and callable(path_for) and path_for() == "litellm"


def _warm_up(client: object) -> None:
    warm = getattr(client, "warm_up", None)
    if callable(warm):
        warm()


def _import_markdown() -> None:
    import textual.widgets._markdown  # noqa: F401  (the first answer will need it: load it now, off the loop)


class Startup:
    """`app` runs the workers and timers, shows toasts and quits; `connect(controller)`
    hands a built controller to the app, after which `controller()` returns it. The
    keyword options are `CodebotApp`'s."""

    def __init__(
        self,
        app: App[Any],
        conversation: Conversation,
        *,
        controller: Callable[[], Controller],
        connect: Callable[[Controller], None],
        update_status: UpdateStatus,
        submit: Callable[[str], Awaitable[None]],
        refresh_skills: Callable[[], None],
        on_ui_thread: Callable[[], bool],
        make_controller: Callable[[], Controller] | None = None,
        watch_skills: bool = True,
        exit_after_paint: bool = False,
        initial_prompt: str | None = None,
    ) -> None:
        self._app = app
        self._conversation = conversation
        self._controller = controller
        self._connect = connect
        self._update_status = update_status
        self._submit = submit
        self._refresh_skills = refresh_skills
        self._on_ui_thread = on_ui_thread
        self._make_controller = make_controller
        self.watch_skills = watch_skills
        self.exit_after_paint = exit_after_paint
        self.initial_prompt = initial_prompt
        #: Milliseconds from `codebot.STARTED_AT` to the first frame, and to a working session.
        self.first_paint_ms: int | None = None
        self.ready_ms: int | None = None
        #: `time.monotonic()` at the first frame: system-wide on Linux, so a parent process
        #: can measure from the moment it spawned this one.
        self.painted_at: float | None = None
        self.painted = False
        self.attached = False
        #: False while litellm still has to be imported (the context window waits for it).
        self.warm = True
        self.watcher: SkillWatcher | None = None
        self._warm_worker: Worker[None] | None = None
        #: Set once the MCP question at start is answered (or there was none to ask);
        #: `mcp_allowed` is then the servers that may start (`mcp_screen.ask_at_start`).
        self.mcp_decided = asyncio.Event()
        self.mcp_allowed: frozenset[str] | None = None

    # -- first paint and the controller -----------------------------------------------------

    def first_paint(self) -> None:
        if self.painted:
            return
        self.painted = True
        self.painted_at = time.monotonic()
        self.first_paint_ms = round((time.perf_counter() - codebot.STARTED_AT) * 1000)
        log.info("started in %d ms (first paint)", self.first_paint_ms)
        if not self.attached and self._make_controller is not None:
            self._app.run_worker(
                self._make_controller, name="setup", thread=True, exit_on_error=False
            )
        else:
            self._started()

    async def attach(self, controller: Controller) -> None:
        """The controller exists: connect it and show what depends on it."""
        self.attached = True
        self.warm = not needs_warm_up(controller.session.client)
        self._connect(controller)
        self._update_status()
        await welcome(self._conversation, controller)
        if self.painted:
            self._started()

    def _started(self) -> None:
        """Painted and attached: measure, then start what may take its time."""
        self.ready_ms = round((time.perf_counter() - codebot.STARTED_AT) * 1000)
        if self.ready_ms != self.first_paint_ms:
            log.info("ready in %d ms", self.ready_ms)
        if self.exit_after_paint:
            self._app.exit(0)
            return
        self._update_status(with_context=True)
        c = self._controller()
        self._app.run_worker(self._ask_mcp(c), name="mcp-question", exit_on_error=False)
        if callable(getattr(c.session.client, "warm_up", None)):
            self._start_warm_up()
        if self.watch_skills:
            # after the first paint, in one thread: the templates, the router's index, the
            # first turn's listing work, the markdown widget (0.4 s of imports)
            c.warm_router(then=_import_markdown)
            if c.skill_count() >= BIG_CATALOG:
                # arming the watches of a big catalog takes the processor for a while: not
                # while the person's first request is being answered (edits made meanwhile
                # are found by the catch-up rescan)
                self._app.set_timer(WATCH_AFTER, self._start_watcher)
            else:
                self._start_watcher()
        if c.offline and self.watch_skills:  # tests pass watch_skills=False: no probe
            self._app.run_worker(self._offer_local_server(), name="probe", exit_on_error=False)
        if getattr(c.session.client, "server", None) is not None:  # its window, what fits
            self._app.run_worker(self._check_server(), name="window", exit_on_error=False)
        if self.initial_prompt:  # after the welcome lines, so the conversation reads in order
            self._app.run_worker(self._submit(self.initial_prompt), exit_on_error=False)

    async def _ask_mcp(self, c: Controller) -> None:
        """The MCP question at start, over the painted app (servers start after it)."""
        from codebot.ui.tui.mcp_screen import ask_at_start

        try:
            self.mcp_allowed = await ask_at_start(self._app, self._conversation, c.settings)
            if self.mcp_allowed:  # what was just approved joins the session's servers
                from codebot.agent.session.mcp_setup import admit_approved

                loop = asyncio.get_running_loop()  # the servers run on the app's loop
                await asyncio.to_thread(admit_approved, c.session, loop)
        finally:
            self.mcp_decided.set()

    async def _offer_local_server(self) -> None:
        """No key: look for a local OpenAI-compatible server (loopback, 150 ms) and offer it."""
        import asyncio

        offer = await asyncio.to_thread(self._controller().find_local)
        if offer:
            await self._conversation.add_line(offer, "warning")

    async def _check_server(self) -> None:
        """Ask the configured server its window; say when codebot's own prompt fills it."""
        import asyncio

        said = await asyncio.to_thread(self._controller().check_server)
        if said:
            await self._conversation.add_line(said, "warning")

    # -- warm-up ----------------------------------------------------------------------------

    def _start_warm_up(self) -> None:
        client = self._controller().session.client
        self._warm_worker = self._app.run_worker(
            lambda: _warm_up(client), name="warm-up", thread=True, exit_on_error=False
        )

    def start_warm_up_if_needed(self) -> None:
        """After /model: a litellm client needs litellm loaded before its first turn."""
        self.warm = self.warm or not needs_warm_up(self._controller().session.client)
        if not self.warm and self._warm_worker is None:
            self._start_warm_up()

    async def wait_warm(self) -> None:
        """Before a turn: wait for litellm to be loaded, if it is being loaded."""
        if self._warm_worker is not None and not self.warm:
            self._app.notify("Loading the model library…")
            with contextlib.suppress(WorkerCancelled, WorkerFailed):  # the turn says what is wrong
                await self._warm_worker.wait()

    # -- skill watcher and reload -----------------------------------------------------------

    def _start_watcher(self) -> None:
        try:
            from codebot.skills.watch import SkillWatcher
        except ImportError:
            return
        c = self._controller()
        try:
            # The catalog was loaded an instant ago: in a big one, the catch-up rescan for
            # what changed meanwhile (0.7 s at 10,000 skills) waits until the person's first
            # request has had the processor. A small one is rescanned at once (milliseconds),
            # so an edit made while the watches were being armed shows at once too.
            big = c.skill_count() >= BIG_CATALOG
            watcher = SkillWatcher(
                c.catalog, self.watched, catch_up_after=CATCH_UP_AFTER if big else 0.0
            )
        except Exception:
            log.exception("skill watcher did not start")
            return
        self.watcher = watcher
        self._app.run_worker(
            watcher.arun(),
            name="skill-watcher",
            group="watch",
            exclusive=True,
            exit_on_error=False,
        )

    def stop_watcher(self) -> None:
        if self.watcher is not None:
            try:
                self.watcher.stop(timeout=0)
            except Exception:
                log.exception("stopping the skill watcher")

    def watched(self, change: Change | None = None, *_: object) -> None:
        """The watcher's callback; it may run on the watcher's thread."""
        if self._on_ui_thread():
            self.skills_reloaded(change)
        else:
            self._app.call_from_thread(self.skills_reloaded, change)

    def skills_reloaded(self, change: Change | None) -> None:
        if change is not None and hasattr(change, "added"):
            text, problems = self._controller().reload_message(change)
            if text:
                # The toast fades; the line stays in the conversation (the same line line
                # mode prints: `Controller.reload_message` renders both).
                self._app.run_worker(
                    self._conversation.add_line(text, "warning" if problems else "notice"),
                    name="reload-line",
                    exit_on_error=False,
                )
                self._app.notify(
                    text,
                    title="skills",
                    severity="warning" if problems else "information",
                    timeout=8 if problems else 4,
                )
        self._refresh_skills()

    def reload_skills(self) -> None:
        """Rescan now (what the watcher does on a change)."""
        self.skills_reloaded(self._controller().reload())

    # -- workers ------------------------------------------------------------------------------

    async def worker_changed(self, worker: Worker[Any], state: WorkerState) -> None:
        """What a worker's end means: the app forwards `Worker.StateChanged` here."""
        if worker.name == "setup" and state == WorkerState.SUCCESS and worker.result is not None:
            await self.attach(worker.result)
        elif worker.name == "setup" and state == WorkerState.ERROR:
            log.error("start-up failed: %s", worker.error)
            self._app.exit(return_code=2, message=f"codebot: {worker.error}")
        elif worker.name == "warm-up" and state in (WorkerState.SUCCESS, WorkerState.ERROR):
            self.warm = True
            if state == WorkerState.ERROR:
                log.error("warm-up failed: %s", worker.error)
            self._update_status()
        elif worker.name == "skill-watcher" and state == WorkerState.ERROR:
            log.error("skill watcher stopped: %s", worker.error)
            self._app.notify(
                f"Skill folders are no longer watched ({worker.error}); /reload rescans.",
                severity="warning",
            )
        elif state == WorkerState.ERROR:
            log.error("worker %s failed: %s", worker.name, worker.error)
