"""`Hooks`: the session's hooks, fired by event. One object per session, shared with its
sub-agents. With no hook for an event, `fire` returns at once (no process, no I/O).

Every hook that matches runs at the same time (as in Claude Code); identical commands run
once. What they say together is one `Outcome` (`output.merge`); their errors and
`systemMessage`s are told to the person as notices, display-safe.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.agent.hooks.output import Outcome, merge
from codebot.agent.hooks.runner import run_hook
from codebot.agent.hooks.sources import HookConfig
from codebot.agent.hooks.spec import HookCommand
from codebot.display import visible

if TYPE_CHECKING:
    from codebot.agent.hooks.output import HookRun
    from codebot.agent.tools import ToolContext

Say = Callable[[str, str], None]  # (text, level)


def _no_say(_text: str, _level: str) -> None:
    return None


class Hooks:
    def __init__(
        self,
        config: HookConfig | None = None,
        *,
        project_dir: Path | None = None,
        cwd: Path | None = None,
        session_id: str = "",
        transcript_path: str = "",
        context: ToolContext | None = None,
        say: Say = _no_say,
    ) -> None:
        self.config = config or HookConfig()
        self.active: list[HookCommand] = self.config.active
        self.events = frozenset(h.event for h in self.active)
        self.project_dir = project_dir or Path.cwd()
        self.cwd = cwd or self.project_dir
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.context = context  # the session's ToolContext: its env and sandbox, read per run
        self.say = say
        #: What `SessionStart` still has to fire with ("startup", "resume", "clear", "compact").
        self.start_pending: str | None = "startup"
        #: SessionStart context not sent yet (its prompt was blocked): sent with the next one.
        self.start_held: list[str] = []

    def wanted(self, event: str, scoped: Sequence[HookCommand] = ()) -> bool:
        return event in self.events or any(h.event == event for h in scoped)

    def matching(
        self, event: str, subject: str | None, scoped: Sequence[HookCommand] = ()
    ) -> list[HookCommand]:
        seen: set[tuple[str, str | None]] = set()
        out = []
        for hook in (*self.active, *scoped):
            key = (hook.argv_command(), hook.plugin_root)
            if hook.event == event and hook.matches(subject) and key not in seen:
                seen.add(key)
                out.append(hook)
        return out

    async def fire(
        self,
        event: str,
        fields: dict[str, object],
        *,
        subject: str | None = None,
        scoped: Sequence[HookCommand] = (),
    ) -> Outcome:
        """Run the hooks of `event` that match `subject` with the documented stdin JSON:
        the common fields, `hook_event_name` and `fields`."""
        outcome = Outcome()
        if not self.wanted(event, scoped):
            return outcome
        hooks = self.matching(event, subject, scoped)
        if not hooks:
            return outcome
        payload = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str(self.cwd),
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "replace")
        runs = await asyncio.gather(*(self._run(h, data) for h in hooks))
        for hook, run in zip(hooks, runs, strict=True):
            merge(outcome, event, f"{event} hook ({hook.source}) {hook.command[:60]!r}", run)
        for text in outcome.errors:
            self.say(visible(text), "warning")
        for text in outcome.messages:
            self.say(visible(text), "info")
        return outcome

    async def _run(self, hook: HookCommand, data: bytes) -> HookRun:
        from codebot.environment import command_env

        ctx = self.context
        extra = dict(getattr(ctx, "env", None) or {})
        extra["CLAUDE_PROJECT_DIR"] = str(self.project_dir)
        if hook.plugin_root is not None:
            extra["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
        env = command_env(os.environ, set=extra)  # no secrets, as for Bash
        sandbox = getattr(ctx, "sandbox", None)
        if ctx is not None and sandbox is not None and not isinstance(sandbox, str):
            from codebot.agent.tools.sandbox import SandboxPolicy
            from codebot.agent.tools.sandbox_scan import with_masks

            masked, _gap = await asyncio.to_thread(with_masks, ctx)
            sandbox = masked.sandbox  # the policy, with the denied paths masked
            if hook.plugin_root is not None and isinstance(sandbox, SandboxPolicy):
                # a plugin's hook reads its own folder
                sandbox = dataclasses.replace(sandbox, readable=(Path(hook.plugin_root),))
        from codebot.agent.tools.sandbox_protect import protected_run

        # As around a Bash command: the empty folders bwrap makes in the project for the
        # protected names that do not exist yet (AGENTS.md, .mcp.json, .codebot …) are held
        # while the hook runs and removed after. Without it a hook left them behind, and a
        # command ending beside it (a Notification hook runs beside the question, then the
        # command) could remove them while bwrap was mounting onto them, so the hook never ran.
        with protected_run(sandbox):  # a no-op outside the sandbox
            return await run_hook(
                hook.argv_command(),
                data,
                cwd=self.project_dir,
                env=env,
                timeout=hook.timeout,
                sandbox=sandbox,
            )


NO_HOOKS = Hooks()
