"""`LiveServers`: a session's `SessionServers` with their prompts and a reconnect
(docs/mcp.md, issue 34 §1 and §5). A subclass, so `session_servers.py` (which three changes
extend at once) stays as it is.

- Prompts: `prompts/list` (every page, `prompts.list_prompts`) when a server connects,
  within its `startup_timeout` like its tools, and again on
  `notifications/prompts/list_changed`; `prompts()` lists each server's last listing (a
  down server's too). `get_prompt` runs `prompts/get` on the servers' loop from any loop (a
  server that is down is started again first, within its backoff, like a tool call).
  A server whose `prompts/list` fails keeps its tools; the failure is its `prompt_error`.
- `reconnect(name)` (blocking: call it off any event loop) stops the server's connection,
  kills its process group and starts it again at once (no backoff); True when it is ready.
- `status()` rows also carry `prompts` and `ever_ready` (it was connected once: a server
  that went down since then is "down", one that never came up "failed").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from typing import TYPE_CHECKING, Any

from codebot.mcp.prompts import RemotePrompt, list_prompts
from codebot.mcp.session_servers import SessionServers, gone

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from codebot.mcp.link import Link
    from codebot.mcp.remote import RemoteTool

__all__ = ["LiveServers", "PromptOutcome"]

#: Seconds a stopped connection gets to end before its task is cancelled (its group is
#: killed at once either way).
RESTART_GRACE = 3.0


class PromptOutcome:
    """`prompts/get`'s result (the SDK's GetPromptResult), or why there is none."""

    __slots__ = ("error", "result")

    def __init__(self, result: Any = None, error: str = "") -> None:
        self.result, self.error = result, error


class LiveServers(SessionServers):
    """The session's servers, their prompts and a reconnect (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prompts: dict[str, tuple[RemotePrompt, ...]] = {}
        self.prompt_error: dict[str, str] = {}
        #: Bumped whenever a server's prompts change (completion lists read `prompts()`).
        self.prompt_generation = 0

    # -- what the session reads ------------------------------------------------------

    def prompts(self) -> list[RemotePrompt]:
        """The prompts each server listed last, in the servers' order: a server that went
        down keeps its (using one starts it again, like a tool call); a stopped one none."""
        links = self._links
        return [
            p
            for name, link in links.items()
            if link.status != "stopped"
            for p in self._prompts.get(name, ())
        ]

    def status(self) -> list[dict[str, object]]:
        rows = super().status()
        for row in rows:
            name = str(row["name"])
            link = self._links.get(name)
            row["prompts"] = len(self._prompts.get(name, ()))
            row["ever_ready"] = bool(link is not None and link.server)
            if not row["error"] and self.prompt_error.get(name):
                row["error"] = f"prompts/list failed: {self.prompt_error[name]}"
        return rows

    # -- prompts (on the servers' loop) ----------------------------------------------

    async def _list(self, link: Link, session: ClientSession) -> tuple[RemoteTool, ...]:
        tools = await super()._list(link, session)
        if not link.refreshing:  # at connect (a tools list_changed lists only the tools)
            await self._list_prompts(link, session)
        return tools

    async def _list_prompts(self, link: Link, session: ClientSession) -> None:
        from codebot.mcp.connect import said

        name = link.d.name
        try:
            self._prompts[name] = await list_prompts(session, name)
            self.prompt_error.pop(name, None)
        except Exception as exc:  # the server's fault: its tools still work
            self._prompts[name] = ()
            self.prompt_error[name] = said(exc)
        self.prompt_generation += 1

    def _handler(self, link: Link) -> Any:
        tools = super()._handler(link)

        async def handle(message: object) -> None:
            from mcp_types import PromptListChangedNotification

            await tools(message)
            if isinstance(getattr(message, "root", message), PromptListChangedNotification):
                asyncio.get_running_loop().create_task(self._prompts_changed(link))

        return handle

    async def _prompts_changed(self, link: Link) -> None:
        """List the prompts again; a flood of list_changed costs one listing at a time."""

        async def once() -> None:
            session = link.session
            if session is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        self._list_prompts(link, session), link.d.startup_timeout
                    )

        await link.listing("prompts").run(once, lambda: link.session is not None)

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> PromptOutcome:
        """`prompts/get` from any event loop; never raises but CancelledError."""
        return await self.host.run(
            lambda: self._get(server, name, arguments), lambda: PromptOutcome(error=gone(server))
        )

    async def _get(self, server: str, name: str, arguments: dict[str, str]) -> PromptOutcome:
        from codebot.mcp.connect import said

        link, why = await self._usable(server, "its next use")
        if link is None:
            return PromptOutcome(error=why)
        session = link.session
        if link.status != "ready" or session is None:
            return PromptOutcome(error=f"MCP server {server} is not ready: {link.error or 'down'}")
        try:
            async with asyncio.timeout(link.d.timeout):
                return PromptOutcome(result=await session.get_prompt(name, arguments))
        except TimeoutError:
            return PromptOutcome(
                error=f"MCP server {server} did not answer prompts/get within its timeout "
                f"({link.d.timeout:g} s)"
            )
        except Exception as exc:
            return PromptOutcome(error=f"MCP server {server} answered with an error: {said(exc)}")

    # -- reconnect ---------------------------------------------------------------------

    def reconnect(self, name: str) -> bool:
        """Kill the server `name`'s connection and start it again; block until it is ready
        or failed (its startup_timeout); whether it is ready. KeyError: no such server.
        Call it off the servers' loop (on it, the restart only begins)."""
        link = self._links[name]
        if not self.started():
            self.start()  # its first start is the reconnect
        elif self._closed or not self.host.wait(lambda: self._restart(link), RESTART_GRACE + 2):
            return False
        end = time.monotonic() + link.d.startup_timeout + 2
        while link.status == "starting" and time.monotonic() < end and not self._closed:
            time.sleep(0.01)
        return link.status == "ready"

    async def _restart(self, link: Link) -> None:
        stop, task = link.stop, link.task
        if stop is not None:
            stop.set()  # what the old connection does from now on is not a failure
        for pid in list(link.pids):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        if task is not None and not task.done():
            _, pending = await asyncio.wait({task}, timeout=RESTART_GRACE)
            for t in pending:
                t.cancel()
        link.failures, link.retry_at = 0, 0.0
        self._prompts.pop(link.d.name, None)
        self._spawn(link)
