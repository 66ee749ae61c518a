"""What every interactive front end shares: the catalog, the session, built-in commands.

The TUI and line mode render events and collect keys; this object does the rest, so the
two behave the same and both stay thin.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.config import Settings
from codebot.display import strip_escapes
from codebot.skills.catalog import Change
from codebot.ui import commands
from codebot.ui.builtins import HANDLERS, BuiltinCommands
from codebot.ui.commands import Action, Front, Reply
from codebot.ui.reports import context_report, format_change, new_problems, usage_report

if TYPE_CHECKING:
    from codebot.agent.permissions import ApprovalRequest
    from codebot.agent.session.emit import Emit
    from codebot.agent.session.events import Event
    from codebot.agent.session.guard import Guard
    from codebot.ui.resume_view import SessionRow

__all__ = [
    "Action",
    "Controller",
    "Front",
    "Reply",
    "context_report",
    "format_change",
    "new_problems",
    "usage_report",
]


class Controller(BuiltinCommands):
    #: The front end that drives this controller (it sets this): what `/help` lists.
    front: Front = Front.TUI

    def __init__(
        self,
        settings: Settings,
        *,
        emit: Emit | None = None,
        client=None,
        interactive: bool = True,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        resume=None,
        extra_dirs: Sequence[Path] = (),
    ) -> None:
        from codebot.agent.session import build_session
        from codebot.workspace import open_catalog

        self.settings = settings
        self._session_args = {"allow": allow, "deny": deny, "extra_dirs": extra_dirs}  # for /resume
        self.catalog = open_catalog(settings, prefetch=True)  # warm_router builds the index soon
        self._emit = emit or (lambda _e: None)
        self.session = build_session(
            settings,
            self.catalog,
            client=client,
            emit=self._relay,
            interactive=interactive,
            allow=allow,
            deny=deny,
            resume=resume,
            extra_dirs=extra_dirs,
        )
        self._diagnostics = self.catalog.snapshot.diagnostics  # reload messages name the new ones
        transcript = self.session.transcript
        # Said once at start by each front end (a session in use, a damaged file skipped).
        self._notices = list(transcript.notices) if transcript is not None else []
        self._notices += written_notice(self.session.guard)

    def _relay(self, event: Event | ApprovalRequest) -> None:
        self._emit(event)

    def set_emit(self, emit: Emit) -> None:
        self._emit = emit

    # -- facts for the UI ----------------------------------------------------------------

    @property
    def model_name(self) -> str:
        return self.session.client.model

    def take_notices(self) -> list[str]:
        """The start-up notices not shown yet (each front end shows them once)."""
        notices, self._notices = self._notices, []
        return notices

    @property
    def transcript_error(self) -> str | None:
        """Why the transcript is not being written, once a write failed."""
        transcript = self.session.transcript
        return transcript.error if transcript is not None else None

    @property
    def offline(self) -> bool:
        return bool(getattr(self.session.client, "offline", False))

    def skill_count(self) -> int:
        return len(self.catalog.snapshot)

    def completions(self, prefix: str, limit: int = 50) -> list[commands.Completion]:
        usage = self.session.usage_tracker.scores() if self.session.usage_tracker else {}
        from codebot.ui.mcp_live import prompt_completions

        more = prompt_completions(self.session)  # `/mcp__server__prompt`
        return commands.complete(
            prefix,
            list(self.catalog.snapshot),
            usage,
            self.settings.overrides,
            limit,
            self.front,
            more,
        )

    def context_use(self, *, may_import: bool = True):
        """Tokens the next request would spend, by part (`ContextUse`). `may_import=False`
        before litellm is warm: the window then comes from the config or the default."""
        return self.session.context_use(may_import=may_import)

    # -- commands --------------------------------------------------------------------------

    def builtin(self, name: str, args: str = "") -> Reply:
        """Run the built-in `name` (a command of `commands.BUILTINS`) with its arguments."""
        command = commands.BY_NAME.get(name)
        if command is None or not command.available(self.front):
            return Reply(f"unknown command /{name}; type /help")
        return HANDLERS[name](self, args)

    def find_local(self) -> str:
        """With no key: look for a local OpenAI-compatible server (loopback only, 150 ms)
        and return the offer to show ("" when none); `/local` then switches to it."""
        if not self.offline:
            return ""
        from codebot.agent.session.setup import local_servers

        found = local_servers(self.settings)
        if not found:
            return ""
        self.local = found[0]
        from codebot.agent.model.offline import OfflineModel

        if isinstance(self.session.client, OfflineModel):  # its answers name the server too
            self.session.client.local_servers = tuple(found)
        models = ", ".join(found[0].models[:3]) or "it lists no models"
        return f"{found[0].label} is running ({models}). Type /local to use it for this session."

    def check_server(self) -> str:
        """Ask the configured server its window and models (bounded; call it in a thread
        after the first paint) and return the warning when codebot's own prompt takes
        more than half the window ("" when it does not)."""
        from codebot.agent.session.turn import TurnState

        client = self.session.client
        if getattr(client, "server", None) is None:  # no endpoint: a hosted model's big window
            return ""
        client.learn_server()  # type: ignore[attr-defined]
        return self.session.fit.overhead_warning(TurnState()) or ""

    def session_rows(self) -> list[SessionRow]:
        from codebot.ui.resume_view import session_rows

        return session_rows(
            self.settings.home / "sessions", self.settings.project_dir, exclude=self.session.id
        )

    def switch_session(self, session_id: str) -> list[str]:
        """Make the saved session `session_id` this controller's session, in place. The other
        one is claimed and read first (in use or damaged: SetupError, nothing changes);
        then the current transcript is closed. It goes on with its own setup (model,
        endpoint, --add-dir folders, this project's allow rules: `ui/session_switch`); this
        session's approvals are not carried over. The lines that say what was restored."""
        from codebot.agent.session import ResumeChoice, build_session
        from codebot.ui.session_switch import setup_for_switch

        old = self.session
        setup = setup_for_switch(
            self.settings, session_id, old.client, self._session_args["extra_dirs"]
        )
        if setup.settings is not None:
            self.settings = setup.settings
        new = build_session(
            self.settings,
            self.catalog,
            client=setup.client,
            emit=self._relay,
            interactive=old.interactive,
            resume=ResumeChoice(False, session_id),
            allow=self._session_args["allow"],
            deny=self._session_args["deny"],
            extra_dirs=setup.extra_dirs,
        )
        if old.transcript is not None:
            old.transcript.close()
        from codebot.agent.session.mcp_setup import close_servers

        close_servers(old)
        self.session = new
        return [*setup.said, *(new.transcript.notices if new.transcript is not None else ())]

    # -- actions ---------------------------------------------------------------------------

    def warm_router(self, then: Callable[[], object] | None = None) -> None:
        """In a background thread: load (or build) the router's index, so the first request
        that routes (listing over budget, SkillSearch, the offline model) finds it ready;
        what the first turn would compute or import (`Session.warm`: the templates first,
        the listing once the index is there); then `then` (the front end's own imports)."""
        import threading

        from codebot.mcp.host import running_loop

        loop = running_loop()  # the front end's: its turns call the MCP servers from it

        def work() -> None:
            from codebot.agent.session.mcp_setup import start_servers
            from codebot.skills.route import warm

            try:
                start_servers(self.session, loop)  # after the first paint, in the background
                self.session.warm(listing=False)  # the templates: every turn renders them
                warm(lambda: self.catalog.snapshot)
                self.session.warm()
                if then is not None:
                    then()
            except Exception:  # an optimisation: the first turn does the same if it must
                logging.getLogger("codebot").exception("warming up failed")

        self._warming = threading.Thread(target=work, name="codebot-router-warm", daemon=True)
        self._warming.start()

    def router_follow(self) -> None:
        """After a reload: patch the skills that changed into the router's index now, so
        the next turn does not (one edited skill: a few milliseconds)."""
        from codebot.skills.route import update

        try:
            update(self.catalog.snapshot)
        except Exception:  # routing rebuilds on its own when it must; a reload must not fail
            pass

    def reload(self) -> Change:
        change = self.catalog.reload()
        self.router_follow()
        return change

    def reload_message(self, change: Change) -> tuple[str, bool]:
        """What a reload changed, with the problems it brought (file, line, fix), and
        whether there are such problems. Problems are new relative to the last message;
        ("", False) when nothing changed worth a line."""
        from codebot.skills.files import Severity
        from codebot.skills.validate import check_spec

        self.router_follow()
        snapshot = self.catalog.snapshot
        seen = getattr(self, "_diagnostics", None)
        fresh = new_problems(seen if seen is not None else (), snapshot.diagnostics)
        fixed = len(new_problems(snapshot.diagnostics, seen if seen is not None else ()))
        self._diagnostics = snapshot.diagnostics
        for name in (*change.added, *change.changed):  # only these were read again: cheap
            spec = snapshot.get(name)
            if spec is not None:
                fresh += [d for d in check_spec(spec, hints=False) if d.severity is Severity.ERROR]
        if not (change or fresh or fixed):
            return "", False  # nothing to say
        text = format_change(change, len(snapshot), fresh)
        if fixed:
            text += f" · {fixed} skill file problem{'s' if fixed != 1 else ''} fixed"
        return text, bool(fresh)

    def toggle_from_args(self, args: str) -> str | None:
        """`/skills off NAME [--global]` (or on, user-only, model-only, name-only): set the
        override for this project (or every project) and say so; None when `args` is not
        such a command (then it is a filter)."""
        from codebot.ui.skill_toggles import parse_toggle

        parsed = parse_toggle(args)
        if parsed is None:
            return None
        value, name, everywhere = parsed
        spec = self.catalog.snapshot.get(name)
        if spec is None:
            return f"no skill named {strip_escapes(repr(name))}; /skills lists them"
        try:
            said = self.set_override(spec.key, value, everywhere=everywhere)
        except ValueError as exc:
            return f"error: {exc}"
        return f"{strip_escapes(spec.name)}: {value} ({said})"

    async def run_turn(self, text: str):
        return await self.session.run_turn(text)

    async def compact(self, focus: str = "") -> str:
        """`/compact [focus]`: "" when done (the session said what it did, as a Notice), else
        why nothing was compacted."""
        from codebot.agent.model import ModelError

        try:
            record = await self.session.compact(focus)
        except ModelError as exc:
            return f"cannot compact: {exc.message}"
        finally:
            if self.session.transcript is not None:
                self.session.transcript.sync()
        return "" if record is not None else "nothing to compact yet"

    def set_override(self, skill_key: str, value: str, *, everywhere: bool = False) -> str:
        """Save `skills.overrides.<skill>` in the project's `.codebot/config.local.yaml`
        (with `everywhere`, in $CODEBOT_HOME/config.yaml); say where. ValueError (with
        the reason) when it cannot be saved or would not take effect (`skill_toggles`)."""
        from codebot.ui.skill_toggles import save_toggle

        done = save_toggle(self.settings, skill_key, value, everywhere=everywhere)
        self.settings = done.settings
        self.session.settings = self.settings
        return done.said

    def override_of(self, skill_key: str) -> str:
        return self.settings.overrides.get(skill_key, "on")

    def close(self) -> None:
        from codebot.agent.session.mcp_setup import close_servers

        close_servers(self.session)  # every MCP server's process group is killed
        if self.session.transcript is not None:
            self.session.transcript.close()


def written_notice(guard: Guard) -> list[str]:
    """At start: files an earlier session's agent wrote that the person has not accepted."""
    marked = guard.store.marked()
    notes = [guard.store.warning] if guard.store.warning else []
    if marked:
        names = ", ".join(sorted(marked)[:5]) + (
            f" and {len(marked) - 5} more" if len(marked) > 5 else ""
        )
        notes.append(
            f"{len(marked)} file(s) written by codebot's agent are not accepted yet ({names}): "
            "their "
            "commands are asked and their grants and settings ignored; /written shows the diffs, "
            "/written accept PATH|all accepts, /written revert PATH puts one back"
        )
    return notes
