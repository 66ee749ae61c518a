"""What each built-in slash command does: the handlers `commands.BUILTINS` names.

A mixin of `Controller` (it expects `session`, `settings`, `catalog`, `model_name`,
`offline`, `front`, `reload`, `reload_message`, `toggle_from_args`, `session_rows`,
`switch_session`). Each handler takes the text after the command and returns a
`Reply`; `HANDLERS` maps every command of the table to its handler, resolved once here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from codebot.ui.commands import BUILTINS, Action, Front, Reply, help_text
from codebot.ui.reports import context_report, format_change, usage_report

if TYPE_CHECKING:
    from codebot.agent.model.local_probe import Found
    from codebot.agent.session.loop import Session
    from codebot.config import Settings
    from codebot.mcp.connect import Probe
    from codebot.skills.catalog import Catalog


class BuiltinCommands:
    """The built-in commands' handlers; `Controller` is the one subclass and sets these."""

    session: Session
    settings: Settings
    catalog: Catalog
    model_name: str
    offline: bool
    front: Front
    local: Found | None
    #: What `/mcp probe` last found, by server name (None before the first probe).
    mcp_probes: dict[str, Probe] | None = None

    def cmd_help(self, _args: str) -> Reply:
        return Reply(help_text(self.front))

    def cmd_exit(self, _args: str) -> Reply:
        return Reply("", Action.EXIT)

    def cmd_skills(self, args: str) -> Reply:
        """`/skills off NAME` (on, user-only, …) saves an override; anything else filters."""
        said = self.toggle_from_args(args)  # type: ignore[attr-defined]
        if said is not None:
            return Reply(said, Action.SKILLS_CHANGED)
        return Reply("", Action.OPEN_SKILLS, args)

    def cmd_transcript(self, _args: str) -> Reply:
        """The whole session as text; the TUI shows it on a screen of its own instead."""
        from codebot.ui.transcript_view import as_text, session_entries

        return Reply(as_text(session_entries(self.session)), Action.OPEN_TRANSCRIPT)

    def cmd_clear(self, _args: str) -> Reply:
        self.session.clear()
        return Reply("conversation cleared (the transcript keeps the old one)", Action.CLEAR)

    def cmd_reload(self, _args: str) -> Reply:
        change = self.reload()  # type: ignore[attr-defined]
        said = self.reload_message(change)[0]  # type: ignore[attr-defined]
        return Reply(
            said or format_change(change, len(self.catalog.snapshot)), Action.SKILLS_RELOADED
        )

    def cmd_compact(self, args: str) -> Reply:
        return Reply(
            "", Action.COMPACT, args
        )  # a model call: the front end runs `compact` as a turn

    def cmd_context(self, _args: str) -> Reply:
        return Reply(context_report(self.session.context_use(), self.session, self.settings))

    def cmd_init(self, args: str) -> Reply:
        """`/init`: a starting AGENTS.md from the repository (init_draft.py); with a real
        model, a turn asking it to improve the draft follows."""
        from codebot.ui.init_draft import IMPROVE_PROMPT, run_init

        done = run_init(self.settings.project_dir, args, model=not self.offline)
        return Reply(done.text, Action.TURN, IMPROVE_PROMPT) if done.improve else Reply(done.text)

    def cmd_usage(self, _args: str) -> Reply:
        session = self.session
        local = session.state.local_models
        return Reply(usage_report(session.total_usage, session.usage_by_model, local))

    def cmd_sandbox(self, _args: str) -> Reply:
        return Reply(f"sandbox: {self.session.sandbox_state}")

    def cmd_hooks(self, _args: str) -> Reply:
        from codebot.agent.hooks import describe

        config = self.session.state.hooks.config
        return Reply(describe(config.hooks, config.warnings))

    def cmd_mcp(self, args: str) -> Reply:
        """`/mcp`: the servers' table; `/mcp probe` / `/mcp reconnect NAME` connect first."""
        from codebot.agent.session.mcp_setup import servers_of
        from codebot.ui.mcp_live import run

        # The session's live connections when it has servers; else (and for others) probes.
        text, self.mcp_probes = run(self.settings, args, self.mcp_probes, servers_of(self.session))
        return Reply(text)

    # -- models ------------------------------------------------------------------------------

    def cmd_model(self, args: str) -> Reply:
        if not args:
            choices = self.model_choices()
            listed = "".join(
                f"\n  {i}. {m}{'  (current)' if m == self.model_name else ''}"
                for i, m in enumerate(choices, 1)
            )
            return Reply(
                f"model: {self.model_name}{' (offline)' if self.offline else ''}"
                + (
                    f"\nReachable with your keys and servers:{listed}"
                    "\n/model NAME (or its number) switches"
                    if choices
                    else "\nno provider key is set: export one (e.g. OPENAI_API_KEY) or use "
                    "--api-base for a local server"
                ),
                Action.PICK_MODEL,
            )
        name = args.strip()
        if name.isdigit() and 0 < int(name) <= len(choices := self.model_choices()):
            name = choices[int(name) - 1]
        from codebot.agent.model import key_problem

        problem = key_problem(name, os.environ, api_base=self.settings.api_base)
        if problem:  # said now, before anything is sent, not as 'refused the credentials' later
            return Reply(f"model not switched: {problem}")
        from codebot.agent.session import select_client

        client = select_client(dataclasses.replace(self.settings, model=name))
        self.session.client = client
        return Reply(f"model switched to {client.model}", Action.MODEL_SWITCHED)

    def cmd_local(self, args: str) -> Reply:
        """Probe the loopback ports again (a server started since codebot did is found)
        and switch to the first server that answered, or the one serving MODEL."""
        from codebot.agent.session.setup import client_for, probe_local

        servers = probe_local()
        if not servers:
            return Reply(
                "no local server answered just now (Ollama 11434, llama.cpp 8080, LM Studio "
                "1234; CODEBOT_PROBE_PORTS sets others); start one and type /local again"
            )
        model_id = args.strip() or None
        found = next((f for f in servers if model_id is None or model_id in f.models), None)
        if found is None:
            listed = "; ".join(
                f"{f.label}: {', '.join(f.models) or 'none listed'}" for f in servers
            )
            return Reply(f"no local server has a model {model_id!r} ({listed})")
        self.local = found
        self.session.client = client_for(found, model_id, settings=self.settings)
        return Reply(
            f"model switched to {self.session.client.model} at {found.base_url}",
            Action.MODEL_SWITCHED,
        )

    def model_choices(self) -> list[str]:
        """Models the configured keys (and a configured server) can reach: each present
        key's default model, the configured model, and offline."""
        from codebot.agent.model.providers import DEFAULT_MODELS

        out = [m for key, m in DEFAULT_MODELS.items() if os.environ.get(key)]
        if self.settings.model and self.settings.model not in out:
            out.insert(0, self.settings.model)
        out = list(dict.fromkeys([self.model_name, *out] if not self.offline else out))
        return [*out, "offline"] if "offline" not in out else out

    # -- sessions ------------------------------------------------------------------------------

    def cmd_resume(self, args: str) -> Reply:
        """`/resume`: this project's other sessions; `/resume ID` (or its number) switches."""
        from codebot.ui.resume_view import pick

        rows = self.session_rows()  # type: ignore[attr-defined]
        choice = args.strip()
        if not choice:
            if not rows:
                return Reply(
                    f"no other saved session for {self.settings.project_dir}; "
                    "`codebot sessions --all` lists every project's"
                )
            listed = "".join(
                f"\n  {i}. {r.id}  {r.started}  {r.first_prompt[:60]}"
                for i, r in enumerate(rows, 1)
            )
            return Reply(
                f"Sessions of this project, newest first:{listed}"
                "\n/resume ID (or its number) switches",
                Action.PICK_SESSION,
            )
        picked = pick(choice, rows, self.session.id)
        if picked.startswith("error: "):
            return Reply(picked)
        from codebot.agent.session import SetupError

        try:
            said = self.switch_session(picked)  # type: ignore[attr-defined]
        except SetupError as exc:
            return Reply(f"error: not resumed: {exc}")
        return Reply("\n".join([f"resumed session {picked}", *said]), Action.RESUMED)

    # -- files the agent wrote -------------------------------------------------------------------

    def cmd_written(self, args: str) -> Reply:
        """What codebot's agent wrote among the protected set: list (with diffs), accept, revert."""
        from codebot.provenance import ProvenanceError, listing, render

        store, (verb, _, rest) = self.session.guard.store, args.strip().partition(" ")
        try:
            if verb == "accept" and rest.strip():
                chosen = store.accept(None if rest.strip() in ("all", "--all") else rest.split())
                self._refresh_written(chosen)
                return Reply(
                    f"accepted {len(chosen)} file(s): {', '.join(chosen) or '-'} "
                    "(settings: at the next start)"
                )
            if verb == "revert" and rest.strip():
                said = store.revert(rest.strip())
                self._refresh_written([rest.strip()])
                return Reply(said)
        except (ProvenanceError, OSError) as exc:
            return Reply(f"/written: {exc}")
        if verb:
            return Reply("usage: /written · /written accept PATH… | all · /written revert PATH")
        return Reply(render(listing(store), str(self.settings.project_dir)))

    def _refresh_written(self, rels: list[str]) -> None:
        """Accepted or reverted files stop counting as agent-written at once."""
        project = self.session.guard.project
        for rel in rels:
            self.session.written.discard(str(project / rel))
            self.session.written.discard(os.path.realpath(project / rel))


Handler = Callable[["BuiltinCommands", str], Reply]
#: Every built-in's handler, looked up once here: a name in the table without a method fails
#: at import.
HANDLERS: dict[str, Handler] = {c.name: getattr(BuiltinCommands, c.handler) for c in BUILTINS}
